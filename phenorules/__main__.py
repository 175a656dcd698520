"""``python -m phenorules`` and the ``phenorules`` command.

Ctrl-C while the command starts up (importing click, the command modules) ends it as it
does later: one line and exit code 130, not a traceback. The handler is installed before
anything heavy is imported; the command group puts Python's own back once it runs. The
cyclic garbage collector's thresholds are the command's own (:data:`COLLECTOR_THRESHOLDS`),
and spaCy's command-line modules are imported only if used (:mod:`.core.spacy_cli`).
"""

import gc
import signal
import sys

# The command's collector starts after 10,000 new objects, not Python's 700: an import of
# spaCy and a pass over an article make millions that live briefly or until the end, and
# each collection walks every large container then young (a text's word list) and, one
# in a hundred, every object of the process. A library user's interpreter keeps its own.
COLLECTOR_THRESHOLDS = (10_000, 10, 10)


def _interrupted(signum, frame):
    if sys.stderr is not None:
        sys.stderr.write("phenorules: interrupted\n")
    raise SystemExit(130)


def run() -> None:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (nohup, a background job)
        signal.signal(signal.SIGINT, _interrupted)
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    from .core.spacy_cli import defer_spacy_commands

    defer_spacy_commands()
    from .cli import main

    main(prog_name="phenorules")


if __name__ == "__main__":
    run()
