"""An output streamed into ``OUT.partial`` an article at a time, which becomes OUT at the
end, and which an interrupted run's ``--resume`` takes over: see :class:`PartialOutput`."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
import sys
import zlib
from typing import Any, BinaryIO, Callable, Iterator

from .errors import InputError
from .files import GZIP_MAGIC, GZIP_SUFFIX, atomic_file, forget_temporary, gzip_writer, json_line, output_mode, remove_stale_temporaries, stat_or_none, temporary_beside
from .outputs import STDOUT, OutputFiles, not_unicode

PARTIAL_SUFFIX = ".partial"
ID_KEY = "pmc_id"  # what names the article of a line of a .partial

# The file of a format from its articles' parts (registry.Format.joined): the parts, as
# often as it reads them, give its pieces of text or bytes.
Join = Callable[[Callable[[], Iterator[Any]]], Iterator["str | bytes"]]


class PartialOutput:
    """An article's part at a time appended to ``OUT.partial``, a line each, which
    :meth:`finish` makes OUT.

    Without ``join`` each part is a line of OUT, a JSON object naming its article as
    ``pmc_id`` (the predictions, the evidence): :meth:`finish` renames the ``.partial``
    over OUT. With ``join`` (BioC, PubTator, DocBin) each line is ``{"pmc_id": ID,
    "part": PART}`` and :meth:`finish` writes OUT from the parts (``join``), then removes
    the ``.partial``. ``OUT.partial`` holds plain lines (for a ``.gz`` OUT too: it is
    compressed in one pass at the end, so a resumed run gives the bytes of a whole one);
    it is locked while a run writes it, so a second run on one target fails rather than
    interleave. A run takes over an earlier run's ``.partial`` (``--resume`` keeps its
    complete lines; a finished OUT of lines too), never one that is a symlink or another
    kind of file; a run that fails removes only a ``.partial`` it made afresh. ``-``
    writes to standard output and a non-regular file is written through (nothing to
    resume; with ``join``, at the end).
    """

    def __init__(self, outputs: OutputFiles, path: str, what: str, join: Join | None = None):
        self.path = path
        self.what = what
        self.join = join
        self.gzip = path.endswith(GZIP_SUFFIX)
        info = None if path == STDOUT else stat_or_none(path)
        self.through = path == STDOUT or (info is not None and not stat.S_ISREG(info.st_mode))
        self.target = path if self.through else os.path.realpath(path)
        self.partial = self.target + PARTIAL_SUFFIX
        self._outputs = outputs
        outputs.claim(path, what)
        if not self.through:
            outputs.claim(self.partial, f"temporary file of the {what}")
        self._file: BinaryIO | None = None  # the .partial
        self._through: BinaryIO | None = None  # a device or FIFO written through
        self._stream = None
        self._source: str | None = None
        self._created = False
        self._parts: list = []  # the parts of a joined output written through, held to the end

    def resumable(self, resume: bool) -> int:
        """How many complete lines an earlier run left (in the ``.partial``, else in the
        finished target of lines) for ``resume`` to keep; 0 without ``resume``. Each must
        name its article: one that does not is refused, naming it, and nothing is changed."""
        if self.through:
            if resume:
                raise InputError(f"{self.path}: --resume needs an output file (-o) that is a regular file, not standard output or a device")
            return 0
        if not resume:
            return 0
        if os.path.lexists(self.partial):
            self._check_partial()
            self._source = self.partial
        elif os.path.isfile(self.target) and self.join is None:
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
        remove_stale_temporaries(os.path.dirname(self.partial), os.path.basename(self.partial), spare=self._outputs.claimed)
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

    def write(self, article_id: str, part: Any) -> None:
        """Append the part of the article ``article_id``: a line, or with ``join`` a JSON value."""
        if self.join is not None and self._file is None:
            self._parts.append(part)
            return
        line = part if self.join is None else json_line({ID_KEY: article_id, "part": part})
        try:
            self._stream.write(line.encode("utf-8"))
        except UnicodeEncodeError as error:
            raise not_unicode(self.path, self.what, error) from None
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
        a ``.gz`` target), or write the target from its parts."""
        try:
            if self._file is None:  # standard output, or written through
                if self.join is not None:
                    self._write_pieces(self._stream, self.join(lambda: iter(self._parts)))
                if self._through is None:
                    self._stream.flush()
                else:
                    self._stream.close()
                    self._through.close()
                return
            self._file.flush()
            os.fsync(self._file.fileno())
            if self.join is not None:
                pieces = self.join(self._journal_parts)
                remove_stale_temporaries(os.path.dirname(self.target), os.path.basename(self.target), spare=self._outputs.claimed)
                with atomic_file(self.target, "wb", permissions=output_mode(self.target)) as out:
                    if self.gzip:
                        with gzip_writer(out) as compressed:
                            self._write_pieces(compressed, pieces)
                    else:
                        self._write_pieces(out, pieces)
                os.unlink(self.partial)
            elif self.gzip:
                self._file.seek(0)
                remove_stale_temporaries(os.path.dirname(self.target), os.path.basename(self.target), spare=self._outputs.claimed)
                with atomic_file(self.target, "wb", permissions=output_mode(self.target)) as out:
                    with self._compressor(out) as compressed:
                        shutil.copyfileobj(self._file, compressed, 1 << 20)
                os.unlink(self.partial)
            else:
                os.chmod(self.partial, output_mode(self.target))
                os.replace(self.partial, self.target)
            self._outputs.written(self.path, self.what)
        except UnicodeEncodeError as error:
            raise not_unicode(self.path, self.what, error) from None
        except OSError as error:
            raise self._failure(error) from None
        finally:
            self.close()

    def _journal_parts(self) -> Iterator[Any]:
        return (json.loads(line)["part"] for line in _complete_lines(self.partial))

    @staticmethod
    def _write_pieces(out: BinaryIO, pieces: Iterator[str | bytes]) -> None:
        for piece in pieces:
            out.write(piece.encode("utf-8") if isinstance(piece, str) else piece)

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
    if not isinstance(record, dict) or not isinstance(record.get(ID_KEY), str):
        raise InputError(f"{path}, line {number}: not a phenorules output line; cannot resume from it (the file is left as it is)")
    return record[ID_KEY]
