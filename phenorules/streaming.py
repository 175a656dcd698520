"""A corpus streamed in and predictions streamed out, so memory does not grow with its size.

Input: a file, ``-`` (standard input), a directory (its files, in name order) or a glob;
each file plain or gzip (told by its first bytes), in the format given or detected per
file. JSONL is read a line at a time and each line parsed where it is annotated (a worker);
BioC and plain text are one document per file and read whole.

Output: a file is written to ``OUT.partial`` beside the target, a line per article in
input order, and renamed over the target at the end, so the target is never half written.
An interrupted run leaves the ``.partial``; ``resume`` keeps its complete lines (a
half-written last line is dropped) and the run goes on with the next article. A ``.gz``
target is gzip with no name or time in its header: same predictions, same bytes. A
symlink's target file is the one written (the link stays); what is not a regular file (a
device, a FIFO, ``/dev/stdout``) is written through, with nothing to resume.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import gzip
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from .article import Article
from .errors import InputError
from .files import STDIN, open_binary, stat_or_none

GZIP_MAGIC = b"\x1f\x8b"
PARTIAL_SUFFIX = ".partial"
# Read before a file's format is told: detection needs the first non-blank line and the
# characters after an opening brace.
_HEAD_LINES = 1000
_HEAD_BYTES = 4096


@dataclass
class Item:
    """One article to annotate: a JSONL line still to be parsed, or an Article."""

    source: str  # the file's name in error messages
    lineno: int
    raw: bytes | None = None
    article: Article | None = None
    end: int = 0  # input bytes read up to the end of this item, over all files (progress)
    format: str = "jsonl"  # the file's format, given or detected (inputs.FORMATS)


def input_paths(spec: str) -> list[str]:
    """The files ``spec`` names: itself (a file, or a device or pipe such as /dev/stdin),
    a directory's visible files, or a glob's matches."""
    if spec == STDIN or (os.path.exists(spec) and not os.path.isdir(spec)):
        return [spec]
    if os.path.isdir(spec):
        paths = sorted(str(p) for p in Path(spec).iterdir() if p.is_file() and not p.name.startswith("."))
        if not paths:
            raise InputError(f"{spec}: directory holds no input files")
        return paths
    if glob.has_magic(spec):
        paths = sorted(p for p in glob.glob(spec) if os.path.isfile(p))
        if not paths:
            raise InputError(f"{spec}: no file matches")
        return paths
    raise InputError(f"{spec}: no such file")


def input_size(paths: list[str]) -> int | None:
    """Total bytes on disk (None when reading standard input or a pipe): the progress bar's end."""
    if any(path == STDIN or not os.path.isfile(path) for path in paths):
        return None
    return sum(os.path.getsize(path) for path in paths)


def read_items(paths: list[str], input_format: str = "auto", on_error: str = "fail") -> Iterator[Item]:
    """Every article of every file, in order, as :class:`Item` (JSONL lines are parsed by
    the annotators; other formats here, with ``on_error`` as ``read_input`` takes it)."""
    from .inputs import article_id, detect_format, parse_input

    done = 0
    for path in paths:
        name = "<stdin>" if path == STDIN else path
        with _open_binary(path) as (handle, raw_file):
            head = _read_head(name, handle)
            chosen = detect_format(b"".join(head), name) if input_format == "auto" else input_format
            if chosen != "jsonl":
                data = b"".join(head) + _read(name, handle)
                for article in parse_input(name, data, chosen, article_id(path), on_error):
                    yield Item(name, 0, article=article, end=done + _position(raw_file), format=chosen)
            else:
                lineno = 0
                for lineno, raw in enumerate(head, start=1):
                    yield Item(name, lineno, raw=raw, end=done + _position(raw_file))
                while True:
                    raw = _readline(name, handle)
                    if not raw:
                        break
                    lineno += 1
                    yield Item(name, lineno, raw=raw, end=done + _position(raw_file))
            done += _position(raw_file)


class _open_binary:
    """(decompressed stream, raw file) of ``path``; gzip when it starts like gzip."""

    def __init__(self, path: str):
        self.path = path
        self.raw: BinaryIO | None = None

    def __enter__(self) -> tuple[BinaryIO, BinaryIO]:
        raw = open_binary(self.path)
        self.raw = raw
        buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)
        if buffered.peek(2)[:2] == GZIP_MAGIC:
            return gzip.GzipFile(fileobj=buffered, mode="rb"), raw
        return buffered, raw

    def __exit__(self, *exc) -> None:
        if self.raw is not None and self.path != STDIN:
            self.raw.close()


def _position(raw: BinaryIO) -> int:
    try:
        return raw.tell()
    except OSError:  # a pipe
        return 0


def _read_head(name: str, handle: BinaryIO) -> list[bytes]:
    """The first lines, enough for ``detect_format``: the first non-blank line whole, and
    at least _HEAD_BYTES (a BioC file's first line may be a lone '{')."""
    head: list[bytes] = []
    size = 0
    seen_text = False
    while len(head) < _HEAD_LINES and not (seen_text and size >= _HEAD_BYTES):
        line = _readline(name, handle)
        if not line:
            break
        head.append(line)
        size += len(line)
        seen_text = seen_text or bool(line.strip())
    return head


def _readline(name: str, handle: BinaryIO) -> bytes:
    try:
        return handle.readline()
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{name}: cannot read: {getattr(error, 'strerror', None) or error}") from None


def _read(name: str, handle: BinaryIO) -> bytes:
    try:
        return handle.read()
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{name}: cannot read: {getattr(error, 'strerror', None) or error}") from None


# --- output ----------------------------------------------------------------------------


class LineOutput:
    """Lines appended to ``path + '.partial'``, renamed to ``path`` by :meth:`finish`.

    ``-`` writes to standard output and a non-regular file is written through (nothing to
    resume). The ``.partial`` is locked while a run writes it, so two runs on one target
    fail rather than interleave.
    """

    def __init__(self, path: str, what: str):
        self.path = path
        self.what = what
        self.gzip = path.endswith(".gz")
        info = None if path == STDIN else stat_or_none(path)
        self.through = path == STDIN or (info is not None and not stat.S_ISREG(info.st_mode))
        self.target = path if self.through else os.path.realpath(path)
        self.partial = self.target + PARTIAL_SUFFIX
        self._file: BinaryIO | None = None
        self._through_file: BinaryIO | None = None
        self._stream = None
        self._source: str | None = None
        self._kept = 0

    def resumable(self, resume: bool) -> int:
        """How many complete lines an earlier run left (in the ``.partial``, else in the
        finished target) for ``resume`` to keep; 0 without ``resume``."""
        if self.through:
            if resume:
                raise InputError(f"{self.path}: --resume needs an output file (-o) that is a regular file, not standard output or a device")
            return 0
        self._source = next((p for p in (self.partial, self.path) if resume and os.path.isfile(p)), None)
        return sum(1 for _ in _complete_lines(self._source)) if self._source else 0

    def start(self, keep: int) -> list[str]:
        """Open for writing with the first ``keep`` resumable lines; their pmc_ids."""
        if self.path == STDIN:
            self._stream = sys.stdout.buffer
            return []
        if self.through:
            try:
                self._through_file = open(self.path, "wb")
            except OSError as error:
                raise self._failure(error) from None
            self._stream = self._compressor(self._through_file)
            return []
        ids: list[str] = []
        try:
            # Locked before anything is changed: a second run on this target stops here.
            handle = open(self.partial, "a+b")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                raise InputError(f"{self.partial}: another phenorules run is writing {self.what} there") from None
            self._file = handle
            with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(self.partial))) as kept:
                if keep:
                    with self._compressor(kept) as out:
                        for number, line in enumerate(_complete_lines(self._source), start=1):
                            if number > keep:
                                break
                            ids.append(_pmc_id(self._source, number, line))
                            out.write(line)
                kept.seek(0)
                handle.truncate(0)
                shutil.copyfileobj(kept, handle)
        except OSError as error:
            raise self._failure(error) from None
        self._stream = self._compressor(self._file)
        self._kept = keep
        return ids

    def _compressor(self, raw: BinaryIO):
        # mtime=0 and no file name: the same lines give the same bytes.
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if self.gzip else _Unclosing(raw)

    def _failure(self, error: OSError) -> OSError | InputError:
        """What a failed write raises: a broken pipe as it is (the reader stopped early:
        the CLI ends quietly), anything else as one line naming the output."""
        if error.errno == errno.EPIPE:
            return error
        name = "<stdout>" if self.path == STDIN else self.path
        return InputError(f"{name}: cannot write {self.what}: {error.strerror or error}")

    def write(self, line: str) -> None:
        try:
            self._stream.write(line.encode("utf-8"))
        except OSError as error:
            raise self._failure(error) from None

    def flush(self) -> None:
        """Make what was written readable by a later ``resume`` (gzip: a sync point)."""
        try:
            if isinstance(self._stream, gzip.GzipFile):
                self._stream.flush(zlib.Z_SYNC_FLUSH)
            else:
                self._stream.flush()
        except OSError as error:
            raise self._failure(error) from None

    def finish(self) -> None:
        """Everything written: rename the ``.partial`` over the target."""
        if self._file is None:  # standard output, or written through
            try:
                if self._through_file is not None:
                    self._stream.close()
                    self._through_file.close()
                    self._through_file = None
                else:
                    self._stream.flush()
            except OSError as error:
                raise self._failure(error) from None
            return
        try:
            self._stream.close()
            self._file.flush()
            os.fsync(self._file.fileno())
            os.chmod(self.partial, 0o644)
            os.replace(self.partial, self.target)
        except OSError as error:
            raise self._failure(error) from None
        finally:
            self._file.close()
            self._file = None

    def abandon(self) -> None:
        """A failed run (bad input): remove the ``.partial`` unless it holds lines an
        earlier run wrote (they stay for another ``resume``); the target is untouched."""
        if self._file is not None and not self._kept:
            self._file.close()
            self._file = None
            Path(self.partial).unlink(missing_ok=True)

    def close(self) -> None:
        """An interrupted run: keep the ``.partial`` for ``resume``."""
        if self._through_file is not None:
            self._through_file.close()
            self._through_file = None
        if self._file is not None:
            try:
                self._stream.close()
                self._file.close()
            except OSError:
                pass
            self._file = None


def _complete_lines(path: str) -> Iterator[bytes]:
    """The lines of ``path`` that end in a newline, a chunk at a time; a gzip file is read
    as far as it decodes (a killed run leaves its stream unfinished)."""
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


class _Unclosing(io.RawIOBase):
    """A plain file seen as the compressor would be: closing it leaves the file open."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()


def _pmc_id(path: str, number: int, line: bytes) -> str:
    try:
        return json.loads(line)["pmc_id"]
    except (ValueError, TypeError, KeyError):
        raise InputError(f"{path}, line {number}: not a phenorules output line; cannot resume from it") from None
