"""A corpus read a line (JSONL) or a file (BioC, text) at a time: reading takes memory per file, not per corpus.

Input: a file, ``-`` (standard input), a directory (its files, in name order) or a glob;
each file plain or gzip (told by its first bytes), in the format given or detected per
file. A format read a line at a time (PatientPheX JSONL) is, each line parsed where it is
annotated (a worker); the others (BioC, plain text) are read a file at a time.

What ``predict`` writes of them is :mod:`phenorules.run.outputs`'.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from ..core.article import Article
from ..core.errors import InputError, warn
from ..core.files import GZIP_MAGIC, STDIN, open_binary

# Read before a file's format is told: detection needs the first non-blank line and the
# characters after an opening brace.
_HEAD_LINES = 1000
_HEAD_BYTES = 4096


@dataclass
class Item:
    """One article to annotate: a line still to be parsed (a format read a line at a
    time), or an Article."""

    source: str  # the file's name in error messages
    lineno: int
    format: str  # the file's format, given or detected: a name of the registry
    raw: bytes | None = None
    article: Article | None = None
    end: int = 0  # input bytes read up to the end of this item, over all files (progress)


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
    """Every article of every file, in order, as :class:`Item`: the lines of a format read
    a line at a time (``Format.read_line``: PatientPheX JSONL), parsed by the annotators;
    the articles of any other, read here, with ``on_error`` as ``read_input`` takes it."""
    from . import registry
    from .inputs import detect_format

    done = 0
    for path in paths:
        name = "<stdin>" if path == STDIN else path
        with _open_binary(path) as (handle, raw_file):
            head = _read_head(name, handle)
            chosen = detect_format(b"".join(head), name) if input_format == "auto" else input_format
            read = _line_items if registry.get(chosen).read_line is not None else _file_items
            for item in read(path, name, chosen, head, handle, on_error):
                item.end = done + _position(raw_file)
                yield item
            done += _position(raw_file)


def _file_items(path: str, name: str, chosen: str, head: list[bytes], handle: BinaryIO, on_error: str) -> Iterator[Item]:
    """The articles of a file read whole."""
    from .inputs import article_id, parse_input

    data = b"".join(head) + _read(name, handle)
    for article in parse_input(name, data, chosen, article_id(path), on_error):
        yield Item(name, 0, chosen, article=article)


def _line_items(path: str, name: str, chosen: str, head: list[bytes], handle: BinaryIO, on_error: str) -> Iterator[Item]:
    """The lines of a file read a line at a time."""
    if not any(raw.strip() for raw in head):
        warn(f"{name}: empty: no article to read")  # parse_input says so for the other formats
    lineno = 0
    for lineno, raw in enumerate(head, start=1):
        yield Item(name, lineno, chosen, raw=raw)
    while True:
        raw = _readline(name, handle)
        if not raw:
            return
        lineno += 1
        yield Item(name, lineno, chosen, raw=raw)


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
