"""``python -m phenorules`` and the ``phenorules`` command.

Ctrl-C while the command starts up (importing click, the command modules) ends it as it
does later: one line and exit code 130, not a traceback. The handler is installed before
anything heavy is imported; the command group puts Python's own back once it runs.
"""

import signal
import sys


def _interrupted(signum, frame):
    if sys.stderr is not None:
        sys.stderr.write("phenorules: interrupted\n")
    raise SystemExit(130)


def run() -> None:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (nohup, a background job)
        signal.signal(signal.SIGINT, _interrupted)
    from .cli import main

    main(prog_name="phenorules")


if __name__ == "__main__":
    run()
