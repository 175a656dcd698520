"""The one writer of a command's output files: nothing it reads or writes is lost.

A command makes one :class:`Writer` from the files it reads and claims every file it will
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

:class:`LineOutput` streams ``predict``'s lines into ``OUT.partial``: see its docstring.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
import sys
import zlib
from typing import BinaryIO, Iterable, Iterator

from .errors import InputError
from .files import (
    GZIP_MAGIC,
    GZIP_SUFFIX,
    STDIN,
    atomic_file,
    forget_temporary,
    gzip_writer,
    output_mode,
    remove_stale_temporaries,
    stat_or_none,
    temporary_beside,
)

STDOUT = "-"
PARTIAL_SUFFIX = ".partial"


class Writer:
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
            raise InputError(f"{path}: cannot write the {what}: {error.object[error.start]!r} is a lone UTF-16 surrogate, not Unicode text") from None
        except OSError as error:
            if error.errno == errno.EPIPE:
                raise  # the reader stopped early (| head): click exits quietly
            raise InputError(f"{path}: cannot write the {what}: {error.strerror or error}") from None

    def written(self, path: str, what: str) -> None:
        """Record the file now at ``path`` (a new inode after the rename): a later claim
        through another name for it (a case-insensitive file system) meets it."""
        self._register(path, what)

    def lines(self, path: str, what: str) -> LineOutput:
        """A :class:`LineOutput` to ``path``, its ``.partial`` claimed too."""
        return LineOutput(self, path, what)

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


# --- lines streamed to OUT.partial ---------------------------------------------------------


class LineOutput:
    """Lines appended to ``OUT.partial``, which :meth:`finish` renames over OUT.

    ``OUT.partial`` holds plain lines (for a ``.gz`` OUT too: it is compressed in one pass
    at the end, so a resumed run gives the bytes of a whole one); it is locked while a run
    writes it, so a second run on one target fails rather than interleave. A run takes over
    an earlier run's ``.partial`` (``--resume`` keeps its complete lines), never one that is
    a symlink or another kind of file; a run that fails removes only a ``.partial`` it made
    afresh. ``-`` writes to standard output and a non-regular file is written through
    (nothing to resume).
    """

    def __init__(self, writer: Writer, path: str, what: str):
        self.path = path
        self.what = what
        self.gzip = path.endswith(GZIP_SUFFIX)
        info = None if path == STDOUT else stat_or_none(path)
        self.through = path == STDOUT or (info is not None and not stat.S_ISREG(info.st_mode))
        self.target = path if self.through else os.path.realpath(path)
        self.partial = self.target + PARTIAL_SUFFIX
        self._writer = writer
        writer.claim(path, what)
        if not self.through:
            writer.claim(self.partial, f"temporary file of the {what}")
        self._file: BinaryIO | None = None  # the .partial
        self._through: BinaryIO | None = None  # a device or FIFO written through
        self._stream = None
        self._source: str | None = None
        self._created = False

    def resumable(self, resume: bool) -> int:
        """How many complete lines an earlier run left (in the ``.partial``, else in the
        finished target) for ``resume`` to keep; 0 without ``resume``. Each must be an
        output line: one that is not is refused, naming it, and nothing is changed."""
        if self.through:
            if resume:
                raise InputError(f"{self.path}: --resume needs an output file (-o) that is a regular file, not standard output or a device")
            return 0
        if not resume:
            return 0
        if os.path.lexists(self.partial):
            self._check_partial()
            self._source = self.partial
        elif os.path.isfile(self.target):
            self._source = self.target
        else:
            return 0
        count = 0
        for count, line in enumerate(_complete_lines(self._source), start=1):
            _pmc_id(self._source, count, line)
        return count

    def start(self, keep: int) -> list[str]:
        """Open for writing with the first ``keep`` resumable lines; their pmc_ids."""
        if self.path == STDOUT:
            self._stream = sys.stdout.buffer
            return []
        if self.through:
            try:
                self._through = open(self.path, "wb")
            except OSError as error:
                raise self._failure(error) from None
            self._stream = self._compressor(self._through)
            return []
        ids: list[str] = []
        try:
            held = self._hold_partial()
            kept_bytes = 0
            if keep:
                for number, line in enumerate(_complete_lines(self._source), start=1):
                    if number > keep:
                        break
                    ids.append(_pmc_id(self._source, number, line))
                    kept_bytes += len(line)
            if held is not None and self._source == self.partial and _plain_and_alone(held):
                held.seek(kept_bytes)
                held.truncate()  # a half-written last line (or lines the other output lacks)
                self._file = held
            else:
                self._file = self._fresh_partial(keep)
                self._created = self._source != self.partial
                if held is not None:
                    held.close()
        except OSError as error:
            raise self._failure(error) from None
        self._stream = self._file
        return ids

    def _check_partial(self) -> None:
        info = os.lstat(self.partial)
        if not stat.S_ISREG(info.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
            raise InputError(f"{self.partial}: is {kind}, not a file phenorules left; remove it to write {self.path}")

    def _hold_partial(self) -> BinaryIO | None:
        """An earlier run's ``.partial``, opened (never through a link) and locked; None if
        there is none."""
        if not os.path.lexists(self.partial):
            return None
        self._check_partial()
        try:
            handle = os.fdopen(os.open(self.partial, os.O_RDWR | os.O_NOFOLLOW), "r+b")
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise InputError(f"{self.partial}: another phenorules run is writing {self.what} there") from None
        return handle

    def _fresh_partial(self, keep: int) -> BinaryIO:
        """A new ``.partial`` with the first ``keep`` lines of the source, locked: made as an
        exclusive temporary file and renamed over the name, with the mode of the output it
        becomes (writable by its owner, for a ``resume``)."""
        remove_stale_temporaries(os.path.dirname(self.partial), os.path.basename(self.partial), spare=self._writer.claimed)
        handle, temporary = temporary_beside(self.partial)
        out = os.fdopen(handle, "r+b")
        try:
            os.fchmod(handle, output_mode(self.target) | stat.S_IWUSR)
            fcntl.flock(out, fcntl.LOCK_EX | fcntl.LOCK_NB)
            for number, line in enumerate(_complete_lines(self._source) if keep else (), start=1):
                if number > keep:
                    break
                out.write(line)
            out.flush()
            os.replace(temporary, self.partial)
        except BaseException:
            out.close()
            os.unlink(temporary)
            raise
        finally:
            forget_temporary(temporary)
        return out

    def _compressor(self, raw: BinaryIO):
        return gzip_writer(raw) if self.gzip else raw

    def _failure(self, error: OSError) -> OSError | InputError:
        """What a failed write raises: a broken pipe as it is (the reader stopped early:
        the CLI ends quietly), anything else as one line naming the output."""
        if error.errno == errno.EPIPE:
            return error
        name = "<stdout>" if self.path == STDOUT else self.path
        return InputError(f"{name}: cannot write the {self.what}: {error.strerror or error}")

    def write(self, line: str) -> None:
        try:
            self._stream.write(line.encode("utf-8"))
        except OSError as error:
            raise self._failure(error) from None

    def flush(self) -> None:
        """Make what was written readable by a later ``resume``."""
        try:
            self._stream.flush()
        except OSError as error:
            raise self._failure(error) from None

    def finish(self) -> None:
        """Everything written: rename the ``.partial`` over the target (compressing it for
        a ``.gz`` target)."""
        try:
            if self._file is None:  # standard output, or written through
                if self._through is None:
                    self._stream.flush()
                else:
                    self._stream.close()
                    self._through.close()
                return
            self._file.flush()
            os.fsync(self._file.fileno())
            if self.gzip:
                self._file.seek(0)
                remove_stale_temporaries(os.path.dirname(self.target), os.path.basename(self.target), spare=self._writer.claimed)
                with atomic_file(self.target, "wb", permissions=output_mode(self.target)) as out:
                    with self._compressor(out) as compressed:
                        shutil.copyfileobj(self._file, compressed, 1 << 20)
                os.unlink(self.partial)
            else:
                os.chmod(self.partial, output_mode(self.target))
                os.replace(self.partial, self.target)
            self._writer.written(self.path, self.what)
        except OSError as error:
            raise self._failure(error) from None
        finally:
            self.close()

    def abandon(self) -> None:
        """A failed run (bad input): remove the ``.partial`` if this run made it afresh;
        one holding an earlier run's lines stays for another ``resume``. The target is
        untouched."""
        if self._file is not None and self._created:
            self.close()
            try:
                os.unlink(self.partial)
            except FileNotFoundError:
                pass

    def close(self) -> None:
        """An interrupted run: keep the ``.partial`` for ``resume``. An error closing a
        device written through was reported (or is moot after an interruption)."""
        if self.path == STDOUT:
            return
        opened = (self._stream, self._through, self._file)
        self._stream = self._through = self._file = None
        for closing in opened:
            if closing is not None:
                try:
                    closing.close()
                except OSError:
                    pass


def _plain_and_alone(handle: BinaryIO) -> bool:
    """Whether an open ``.partial`` holds plain lines and has no other name (a hard link's
    other name would see the lines appended)."""
    handle.seek(0)
    plain = handle.read(2) != GZIP_MAGIC
    return plain and os.fstat(handle.fileno()).st_nlink == 1


def _complete_lines(path: str) -> Iterator[bytes]:
    """The lines of ``path`` that end in a newline, a chunk at a time; a gzip file is read
    as far as it decodes (a killed run's stream is unfinished)."""
    with open(path, "rb") as handle:
        gzipped = handle.read(2) == GZIP_MAGIC
        handle.seek(0)
        rest = b""
        for data in _decoded_chunks(handle) if gzipped else iter(lambda: handle.read(1 << 20), b""):
            lines = (rest + data).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield line + b"\n"


def _decoded_chunks(handle: BinaryIO) -> Iterator[bytes]:
    """Decompressed chunks of a (possibly truncated, possibly multi-member) gzip stream."""
    decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    while True:
        data = handle.read(1 << 20)
        if not data:
            return
        while data:
            try:
                yield decoder.decompress(data)
            except zlib.error:
                return
            if not decoder.eof:
                break
            data = decoder.unused_data  # the next member
            decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)


def _pmc_id(path: str, number: int, line: bytes) -> str:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("pmc_id"), str):
        raise InputError(f"{path}, line {number}: not a phenorules output line; cannot resume from it (the file is left as it is)")
    return record["pmc_id"]


# Line ends other than "\n" that JSON leaves unescaped in a string; str.splitlines() and
# other readers of lines end a line at each.
_LINE_ENDS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def json_line(value, sort_keys: bool = False) -> str:
    """``value`` as one line of JSON (UTF-8 text, no ASCII escapes but for the line ends a
    reader of lines would break it at), with its newline."""
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).translate(_LINE_ENDS) + "\n"


def jsonl_line(record: dict) -> str:
    """A record as a JSON line as it is (keys sorted): the ``--explain`` evidence file."""
    return json_line(record, sort_keys=True)


def write_jsonl(path: str, records: Iterable[dict], what: str = "records", writer: Writer | None = None) -> None:
    """Write records as JSON lines, as they are (keys sorted); '-' means stdout."""
    (writer or Writer()).write(path, (jsonl_line(record) for record in records), what)
