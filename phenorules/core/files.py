"""Reading inputs, and the temporary files outputs are written through, with the one-line
errors the CLI prints.

A temporary file is created beside the file it will replace with ``O_CREAT|O_EXCL|O_NOFOLLOW``
(``tempfile.mkstemp``: a planted file or symlink of its name is never opened), named with
its writer's process id, and renamed over the target when it is complete. It is removed on
an error, on SIGTERM and SIGHUP (:func:`remove_temporaries_on_signals`), and, after a
SIGKILL, by the next run that writes there (its writer is no longer alive). Which outputs
a command may write, and how, is :mod:`phenorules.core.outputs`' business.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import stat
import sys
import tempfile
from contextlib import contextmanager
from typing import IO, Any, BinaryIO, Callable, Iterator

from .errors import InputError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
GZIP_SUFFIX = ".gz"  # an output so named is written gzip-compressed
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


def temporary_beside(path: str | os.PathLike) -> tuple[int, str]:
    """(descriptor, name) of a new temporary file beside ``path``, created exclusively and
    never through a link, and removed on SIGTERM/SIGHUP until :func:`forget_temporary`."""
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.{os.getpid()}.", suffix=".tmp")
    _TEMPORARIES.add(temporary)
    return handle, temporary


def forget_temporary(temporary: str) -> None:
    """The temporary file is renamed or to be removed: no longer this process's to clean."""
    _TEMPORARIES.discard(temporary)


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", permissions: int = 0o600) -> Iterator[IO]:
    """A temporary file beside ``path``, renamed over it with ``permissions`` when the
    block ends without an error and removed otherwise (or on SIGTERM/SIGHUP); until then
    it is the user's alone (mkstemp's 0600)."""
    path = os.fspath(path)
    handle, temporary = temporary_beside(path)
    try:
        text = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(handle, mode, **text) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, permissions)
        os.replace(temporary, path)
    finally:
        forget_temporary(temporary)
        if os.path.lexists(temporary):
            os.unlink(temporary)


def output_mode(path: str) -> int:
    """The permissions of a file written at ``path``: those of the file it replaces (an
    output made private stays private), else what the umask leaves of 0o666, as for any
    file a program creates."""
    info = stat_or_none(path)
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode) & 0o777
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask. ``os.umask`` is the only portable reader and sets it too: for
    that instant it is 0o077, so a file another thread creates then is private, never open."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def gzip_writer(raw: BinaryIO) -> gzip.GzipFile:
    """A gzip stream onto ``raw`` whose header holds no time and no file name, so the same
    bytes give the same file; closing it leaves ``raw`` open."""
    return gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)


def remove_stale_temporaries(directory: str | os.PathLike, name: str | None = None, spare: Callable[[str], bool] | None = None) -> None:
    """Remove the temporary files (of ``name``, or all) in ``directory`` whose writer is no
    longer running: what a SIGKILL leaves behind; never one ``spare`` says is in use (a
    command's input that happens to be named like one)."""
    try:
        listing = os.listdir(directory)
    except OSError:
        return
    for entry in listing:
        found = _TEMPORARY.fullmatch(entry)
        path = os.path.join(directory, entry)
        if found and (name is None or found["name"] == name) and not _is_running(int(found["pid"]), path) and not (spare and spare(path)):
            try:
                os.unlink(path)
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


def open_own_regular_file(path: str | os.PathLike) -> BinaryIO | None:
    """The file at ``path`` opened to read if it is a regular file of this user that no one
    else may write, else None (missing, a symlink, a FIFO, a socket, a device, a directory).
    Its type is checked before it is opened, and again on the open descriptor (opened
    without following a link or waiting for a writer), so nothing put in its place can make
    the reader wait or read elsewhere."""
    try:
        seen = os.lstat(path)
        if not _own_regular_file(seen):
            return None
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    opened = os.fstat(descriptor)
    if (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino) or not _own_regular_file(opened):
        os.close(descriptor)
        return None
    return os.fdopen(descriptor, "rb")


def _own_regular_file(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def stat_or_none(path: str) -> os.stat_result | None:
    """The file's status (links followed), None when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise InputError(f"{path}: cannot use: {error.strerror}") from None


def json_value(text: str | bytes, where: str) -> Any:
    """``text`` (bytes: UTF-8) parsed as JSON; malformed JSON, nesting too deep for the
    parser and numbers of more digits than Python converts are one line naming ``where``."""
    try:
        return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: malformed JSON at column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise InputError(f"{where}: malformed JSON: nested too deeply") from None
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8") from None
    except ValueError:  # Python's limit on the digits of an integer (4,300)
        raise InputError(f"{where}: malformed JSON: a number with too many digits") from None


def _name(path: str, stdin_name: str) -> str:
    return stdin_name if path == STDIN else path


# Line ends other than "\n" that JSON leaves unescaped in a string; str.splitlines() and
# other readers of lines end a line at each.
_LINE_ENDS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def json_line(value, sort_keys: bool = False) -> str:
    """``value`` as one line of JSON (UTF-8 text, no ASCII escapes but for the line ends a
    reader of lines would break it at), with its newline."""
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).translate(_LINE_ENDS) + "\n"
