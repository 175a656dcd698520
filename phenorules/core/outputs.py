"""A command's output files, guarded: nothing it reads or writes is lost.

A command makes one :class:`OutputFiles` from the files it reads and claims every file it will
write, before the work where it can (and each Phenopacket as it comes). A claim is refused,
with one line naming both files, when the path is, or links to, an input or another output
of the command (the same resolved path, or the same device and inode), the temporary file
of one included: writing there would destroy what is there, or write one output over
another (two Phenopackets whose names differ only in characters a file name cannot hold).
An output directory (``--phenopackets DIR``) is claimed too: no other output may be it or
lie inside it, and a file output may not name a directory (``out/``, ``..``).

A regular file is written to a temporary file created beside it with
``O_CREAT|O_EXCL|O_NOFOLLOW`` (a planted file or symlink of that name is never opened)
and renamed over it at the end, so a failed or killed run leaves the previous output as it
was; the temporary is removed on an error, on SIGTERM and SIGHUP, and, after a SIGKILL, by
the next run that writes there (see :mod:`phenorules.core.files`). A symlink is followed (the
file it points to is replaced, the link stays); what is not a regular file (a device, a
FIFO, ``/dev/stdout``) is written through; ``-`` is standard output. A file replaced keeps
its permissions, a new one gets what the umask leaves (:func:`~phenorules.core.files.output_mode`);
a name ending in ``.gz`` is written gzip-compressed, the same bytes for the same input.

:class:`~phenorules.core.partial.PartialOutput` streams ``predict``'s results into
``OUT.partial``: see its docstring.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import BinaryIO, Iterable

from .errors import InputError
from .files import GZIP_SUFFIX, STDIN, atomic_file, gzip_writer, output_mode, remove_stale_temporaries, stat_or_none

STDOUT = "-"


class OutputFiles:
    """Claims and writes the output files of one command run; ``inputs`` are the files it
    reads (None and ``-`` are left out)."""

    def __init__(self, inputs: Iterable[str | None] = ()):
        self._by_path: dict[str, tuple[str | None, str]] = {}  # resolved path -> (what, path); what None: an input
        self._by_inode: dict[tuple[int, int], tuple[str | None, str]] = {}
        self._directories: dict[str, tuple[str, str]] = {}  # resolved path -> (what, path) of an output directory
        self._stdout: str | None = None
        for path in inputs:
            if path is not None and path != STDIN:
                self._register(path, None)

    def claim(self, path: str, what: str, directory: str | None = None) -> None:
        """Reserve ``path`` for ``what`` (a phrase: 'predictions', 'the Phenopacket X'), or
        fail now, naming it, if it is taken or could not be written later; ``directory``:
        the claimed output directory it is a file of."""
        if path == STDOUT:
            if self._stdout not in (None, what):
                raise InputError(f"<stdout>: the {what} and the {self._stdout} would both be written to standard output")
            if sys.stdout is None:
                raise InputError(f"<stdout>: cannot write the {what}: standard output is closed")
            self._stdout = what
            return
        taken = self._taken(path)
        if taken == (what, path):
            return
        if taken is not None:
            other_what, other = taken
            if other_what is None:
                raise InputError(f"{path}: the {what} would overwrite the input {other}")
            raise InputError(f"{path}: the {what} and the {other_what} would be written to the same file")
        real = os.path.realpath(path)
        own = os.path.realpath(directory) if directory is not None else None
        for held, (held_what, held_path) in self._directories.items():
            if held != own and _within(real, held):
                raise InputError(f"{path}: the {what} would be written into {held_path}, the directory of the {held_what}")
        _check_writable(path, what)
        self._register(path, what)

    def claim_directory(self, path: str, what: str) -> None:
        """Reserve the directory ``path`` for the files of ``what`` ('Phenopackets'), made
        now if it is missing; fail now, naming both, if an output of the command is it or
        lies inside it (one claimed later there is refused by :meth:`claim`)."""
        real = os.path.realpath(path)
        for held, (held_what, held_path) in self._by_path.items():
            if held_what is not None and _within(held, real):
                raise InputError(f"{held_path}: the {held_what} would be written into {path}, the directory of the {what}")
        _make_directory(path, what)
        self._directories[real] = (what, path)

    def write(self, path: str, chunks: Iterable[str] | Iterable[bytes], what: str, binary: bool = False) -> None:
        """Claim ``path`` (if not yet) and write ``chunks`` (bytes if ``binary``) to it, as
        the module docstring says, gzip-compressed when its name ends in ``.gz``; an
        OSError becomes one line naming ``path``."""
        self.claim(path, what)
        try:
            if path == STDOUT:
                _write_stdout(chunks, what, binary)
                return
            compress = path.endswith(GZIP_SUFFIX)
            info = stat_or_none(path)
            if info is not None and not stat.S_ISREG(info.st_mode):
                with open(path, "wb") as out:
                    _write_chunks(out, chunks, binary, compress)
                return
            target = os.path.realpath(path)
            remove_stale_temporaries(os.path.dirname(target), os.path.basename(target), spare=self.claimed)
            with atomic_file(target, "wb", permissions=output_mode(target)) as out:
                _write_chunks(out, chunks, binary, compress)
            self.written(path, what)
        except UnicodeEncodeError as error:
            raise not_unicode(path, what, error) from None
        except OSError as error:
            if error.errno == errno.EPIPE:
                raise  # the reader stopped early (| head): click exits quietly
            raise InputError(f"{path}: cannot write the {what}: {error.strerror or error}") from None

    def written(self, path: str, what: str) -> None:
        """Record the file now at ``path`` (a new inode after the rename): a later claim
        through another name for it (a case-insensitive file system) meets it."""
        self._register(path, what)

    def _taken(self, path: str) -> tuple[str | None, str] | None:
        taken = self._by_path.get(os.path.realpath(path))
        info = stat_or_none(path)
        if taken is None and info is not None and not stat.S_ISCHR(info.st_mode):  # /dev/null may be shared
            taken = self._by_inode.get((info.st_dev, info.st_ino))
        return taken

    def _register(self, path: str, what: str | None) -> None:
        self._by_path[os.path.realpath(path)] = (what, path)
        info = stat_or_none(path)
        if info is not None and not stat.S_ISCHR(info.st_mode):
            self._by_inode[(info.st_dev, info.st_ino)] = (what, path)

    def claimed(self, path: str) -> bool:
        """Whether ``path`` is an input or an output of this command."""
        return self._taken(path) is not None


def not_unicode(path: str, what: str, error: UnicodeEncodeError) -> InputError:
    """The error of text that UTF-8 cannot encode (a lone surrogate) written to ``path``."""
    return InputError(f"{path}: cannot write the {what}: {error.object[error.start]!r} is a lone UTF-16 surrogate, not Unicode text")


def _within(path: str, directory: str) -> bool:
    """Whether the resolved ``path`` is the resolved ``directory`` or lies inside it."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _write_chunks(raw: BinaryIO, chunks: Iterable[str] | Iterable[bytes], binary: bool, compress: bool) -> None:
    """``chunks`` (text: as UTF-8) onto ``raw``, through gzip if ``compress``."""
    encoded = chunks if binary else (chunk.encode("utf-8") for chunk in chunks)
    if not compress:
        raw.writelines(encoded)
        return
    with gzip_writer(raw) as out:
        out.writelines(encoded)


def _check_writable(path: str, what: str) -> None:
    """Fail now, naming ``path``, if ``what`` could not be written there later."""
    if os.path.basename(path) in ("", os.curdir, os.pardir):
        raise InputError(f"{path}: cannot write the {what}: names a directory, not a file")
    info = stat_or_none(path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: cannot write the {what}: is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        if not os.access(path, os.W_OK):
            raise InputError(f"{path}: cannot write the {what}: not writable")
        return
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise InputError(f"{path}: cannot write the {what}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write the {what}: directory {directory} is not writable")


def _make_directory(path: str, what: str) -> None:
    """Fail now, naming ``path``, if the files of ``what`` could not be written into it;
    make it if it is missing and its parent is a directory."""
    if not os.path.isdir(path):
        parent = os.path.dirname(os.path.abspath(path))
        if os.path.exists(path) or not os.path.isdir(parent):
            raise InputError(f"{path}: cannot write {what}: not a directory")
        try:
            os.mkdir(path)
        except OSError as error:
            raise InputError(f"{path}: cannot write {what}: {error.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write {what}: directory is not writable")


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of a
    closed or full stdout raises nothing after the error has been reported."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _write_stdout(chunks: Iterable[str] | Iterable[bytes], what: str, binary: bool = False) -> None:
    try:
        stream = sys.stdout.buffer if binary else sys.stdout
        if binary:
            sys.stdout.flush()
        stream.writelines(chunks)
        stream.flush()
    except OSError as error:
        silence_stdout()
        if error.errno == errno.EPIPE:
            raise  # the reader stopped early (| head): click exits quietly
        raise InputError(f"<stdout>: cannot write the {what}: {error.strerror or error}") from None
