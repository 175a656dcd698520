"""Reading inputs and writing outputs, with the one-line errors the CLI prints.

A regular output file is written atomically: to a temporary file beside it (named with the
writer's process id), renamed over it at the end, so a failed or killed run never leaves a
half-written file and the previous output stays intact. The temporary file is removed on
an error, on SIGTERM and SIGHUP (:func:`remove_temporaries_on_signals`), and, after a
SIGKILL, by the next run that writes there (its writer is no longer alive). A symlink is
followed (the file it points to is replaced, the link stays); anything that is not a
regular file (a device, a FIFO, ``/dev/stdout``, ``>(cmd)``) is written through, never
replaced; ``-`` is standard output. ``check_writable`` and ``check_distinct`` let a long
run fail at its start rather than after the work is done.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import sys
import tempfile
from contextlib import contextmanager
from typing import IO, BinaryIO, Iterable, Iterator

from .errors import InputError

STDIN = "-"
STDOUT = "-"
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp")
_TEMPORARIES: set[str] = set()  # this process's temporary files, removed on a signal


def open_binary(path: str) -> BinaryIO:
    """The file opened to read bytes, or standard input's for ``-`` (the caller closes
    only the former); a failure is one line naming the file."""
    try:
        if path == STDIN:
            if sys.stdin is None:
                raise InputError("<stdin>: cannot read: standard input is closed")
            return sys.stdin.buffer
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{_name(path, '<stdin>')}: cannot read: {error.strerror}") from None


def read_bytes(path: str) -> bytes:
    """The whole file, or standard input for ``-``."""
    handle = open_binary(path)
    try:
        return handle.read()
    except OSError as error:
        raise InputError(f"{_name(path, '<stdin>')}: cannot read: {error.strerror}") from None
    finally:
        if path != STDIN:
            handle.close()


def read_text(path: str) -> str:
    """The whole file as UTF-8 text (standard input for ``-``)."""
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def check_writable(path: str, what: str) -> None:
    """Fail now, naming ``path``, if ``what`` could not be written there later."""
    if path == STDOUT:
        if sys.stdout is None:
            raise InputError(f"<stdout>: cannot write {what}: standard output is closed")
        return
    info = stat_or_none(path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: cannot write {what}: is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        if not os.access(path, os.W_OK):
            raise InputError(f"{path}: cannot write {what}: not writable")
        return
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise InputError(f"{path}: cannot write {what}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write {what}: directory {directory} is not writable")


def check_distinct(input_path: str | None, outputs: dict[str, str | None]) -> None:
    """Refuse an output that is the input or another output (``what`` -> path), also
    through links: writing it would destroy what is there."""
    named = [(what, path) for what, path in outputs.items() if path is not None]
    for i, (what, path) in enumerate(named):
        if input_path is not None and _same_file(input_path, path):
            raise InputError(f"{path}: the {what} would overwrite the input {input_path}")
        for other_what, other in named[:i]:
            if _same_file(path, other) or path == other == STDOUT:
                raise InputError(f"{path}: the {what} and the {other_what} would be written to the same file")


def write_atomically(path: str, chunks: Iterable[str], what: str) -> None:
    """Write ``chunks`` to ``path`` (see the module docstring for how each kind of path
    is written); an OSError becomes one line naming ``path``."""
    try:
        if path == STDOUT:
            _write_stdout(chunks, what)
            return
        info = stat_or_none(path)
        if info is not None and not stat.S_ISREG(info.st_mode):
            with open(path, "w", encoding="utf-8", newline="\n") as out:
                out.writelines(chunks)
            return
        target = os.path.realpath(path)
        remove_stale_temporaries(os.path.dirname(target), os.path.basename(target))
        with atomic_file(target, "w", permissions=0o644) as out:
            out.writelines(chunks)
    except OSError as error:
        if error.errno == errno.EPIPE:
            raise  # the reader stopped early (| head): click exits quietly
        raise InputError(f"{path}: cannot write {what}: {error.strerror or error}") from None


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", permissions: int = 0o600) -> Iterator[IO]:
    """A temporary file beside ``path``, renamed over it when the block ends without an
    error and removed otherwise (or on SIGTERM/SIGHUP)."""
    path = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.{os.getpid()}.", suffix=".tmp")
    _TEMPORARIES.add(temporary)
    try:
        text = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(handle, mode, **text) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, permissions)  # mkstemp creates 0600; outputs are meant to be shared
        os.replace(temporary, path)
    finally:
        _TEMPORARIES.discard(temporary)
        if os.path.lexists(temporary):
            os.unlink(temporary)


def remove_stale_temporaries(directory: str | os.PathLike, name: str | None = None) -> None:
    """Remove the temporary files (of ``name``, or all) in ``directory`` whose writer is no
    longer running: what a SIGKILL leaves behind."""
    try:
        listing = os.listdir(directory)
    except OSError:
        return
    for entry in listing:
        found = _TEMPORARY.fullmatch(entry)
        if found and (name is None or found["name"] == name) and not _is_running(int(found["pid"]), os.path.join(directory, entry)):
            try:
                os.unlink(os.path.join(directory, entry))
            except OSError:
                pass


def remove_temporaries_on_signals() -> None:
    """On SIGTERM or SIGHUP remove this process's temporary files, then die of the signal."""

    def handler(signum, frame):
        for temporary in list(_TEMPORARIES):
            try:
                os.unlink(temporary)
            except OSError:
                pass
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            signal.signal(signum, handler)
        except ValueError:  # not the main thread (phenorules called from a worker thread)
            return


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of a
    closed or full stdout raises nothing after the error has been reported."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _write_stdout(chunks: Iterable[str], what: str) -> None:
    if sys.stdout is None:
        raise InputError(f"<stdout>: cannot write {what}: standard output is closed")
    try:
        sys.stdout.writelines(chunks)
        sys.stdout.flush()
    except OSError as error:
        silence_stdout()
        if error.errno == errno.EPIPE:
            raise  # the reader stopped early (| head): click exits quietly
        raise InputError(f"<stdout>: cannot write {what}: {error.strerror or error}") from None


def _is_running(pid: int, temporary: str) -> bool:
    if pid == os.getpid():
        return temporary in _TEMPORARIES
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def stat_or_none(path: str) -> os.stat_result | None:
    """The file's status (links followed), None when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise InputError(f"{path}: cannot use: {error.strerror}") from None


def _same_file(a: str, b: str) -> bool:
    """Whether two paths (``-`` is stdin or stdout) name one file; character devices such
    as /dev/null may be shared."""
    if a == STDIN or b == STDOUT:
        return False
    first, second = stat_or_none(a), stat_or_none(b)
    if first is None or second is None:
        return os.path.realpath(a) == os.path.realpath(b)
    same = (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)
    return same and not stat.S_ISCHR(first.st_mode)


def _name(path: str, stdin_name: str) -> str:
    return stdin_name if path == STDIN else path
