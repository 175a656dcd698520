"""The cache folder and its entry files, which the knowledge base, the disease names, the
gene symbols, the English word list, the ontology's digest and the JNLPBA model are kept
in.

An entry is data only: the key it was written under, then its sections (pyahocorasick's
node array, with integer values; arrays of numbers, :func:`little_endian`; word lists as
numbers, :class:`WordNumbers`; texts; msgpack for the rest), each compressed with
Zstandard, its checksum verified as it is inflated, so loading one runs no code from it.
Zstandard (the ``zstandard`` package) took a fifth less room than zlib's fastest level and
inflated four times faster (an HPO entry: 10 MB on disk, 46 MB inflated). A file that is
corrupt, of another format or another key, not a regular file, or not this user's own (or
writable by others) is absent: rebuilt. The least recently used entries (by the time each
was last loaded or written) go when all of them would take more than the budget,
``$PHENORULES_CACHE_MB`` megabytes (100 by default).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
import sys
import time
from array import array
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Callable, Iterable, Sequence, TypeVar

import srsly
import zstandard

from ..core.errors import InputError, SettingError
from ..core.files import atomic_file, open_own_regular_file, remove_stale_temporaries

CACHE_SUFFIX = ".cache"
CACHE_BUDGET_VARIABLE = "PHENORULES_CACHE_MB"
DEFAULT_CACHE_MB = 100  # lexicon configs of 10 MB each, the disease names, the gene symbols and the JNLPBA model
MEGABYTE = 1 << 20  # as du -h counts
_DIGEST = re.compile(r"[0-9a-f]{64}")  # a SHA-256 in hex
T = TypeVar("T")
# What the cache's users name their entries (KIND-HEX.cache, and older layouts' .pkl); a
# file of another name in the folder is never pruned.
CACHE_ENTRY = re.compile(r"[a-z][a-z-]*-[0-9a-f][0-9a-f-]*\.(cache|pkl)")


def cache_dir() -> Path:
    root = os.environ.get("PHENORULES_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "phenorules"
    return Path(root)


def file_entry(kind: str, path: str, also: str = "") -> tuple[Path, str]:
    """The cache entry of what is read from the file ``path``, and its key: the file's path,
    size and time, and ``also``, what else the entry depends on (a digest of the code that
    reads the file; more of the file's status)."""
    try:
        info = Path(path).stat()
    except OSError as error:
        raise InputError(f"{path}: cannot read it: {error.strerror or error}") from None
    key = hashlib.sha256(repr([path, info.st_size, info.st_mtime_ns, *([also] if also else [])]).encode()).hexdigest()[:32]
    return cache_dir() / f"{kind}-{key}.cache", key


def read_through(kind: str, path: str, section: str, read: Callable[[], T], stored: Callable[[T], bytes], taken: Callable[[bytes], T | None], also: str = "") -> T:
    """``read()``, what is read from the file ``path``, kept in the cache entry of ``kind``
    for the file's path, size and time (and ``also``: :func:`file_entry`): taken from the
    entry while the file stays as it was. ``stored`` writes a value as the entry's
    ``section``; ``taken`` reads it back, None for a section not of its layout."""
    entry, key = file_entry(kind, path, also)
    cached = read_cache_file(entry, key)
    try:
        value = taken(cached[section]) if cached is not None else None
    except Exception:  # no such section, a failed checksum, or not its layout
        value = None
    if value is None:
        value = read()
        store_entry(entry, key, {section: stored(value)}, cache_budget())
    return value


REMEMBERED_DIGEST_BYTES = 1 << 20  # a file at least this long has its digest kept in the cache
_SETTLED_NS = 3_000_000_000  # nanoseconds a file stays unchanged before its digest is kept


def remembered_digest(path: str, digest_of: Callable[[str], str], budget: int) -> str:
    """``digest_of(path)``; for a file of REMEMBERED_DIGEST_BYTES or more, kept in a cache
    entry keyed by the file's path and status (device, inode, size, modification and change
    times: a write changes the change time, which no call sets back), once the file has not
    changed for a few seconds (a file system's coarse clock could give two writes of one
    second one status). The 10 MB ontology's SHA-256 is 12 ms of every start. ``budget``:
    :func:`cache_budget`, 0 to keep nothing."""
    info = os.stat(path)
    settled = time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > _SETTLED_NS
    if info.st_size < REMEMBERED_DIGEST_BYTES or not budget or not settled:
        return digest_of(path)
    return _kept_digest(path, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns), digest_of)


@lru_cache(maxsize=64)
def _kept_digest(path: str, status: tuple[int, ...], digest_of: Callable[[str], str]) -> str:
    """:func:`remembered_digest`'s entry, read once a process for each file status (every
    stage of a pipeline asks for the knowledge base's key)."""
    dev, ino, _, _, ctime = status
    also = f"{dev}:{ino}:{ctime}"  # beside the path, size and modification time file_entry keys by
    return read_through("file-digest", path, "digest", lambda: digest_of(path), str.encode, _digest_in, also)


def _digest_in(section: bytes) -> str | None:
    digest = section.decode()
    return digest if _DIGEST.fullmatch(digest) else None


def cache_budget() -> int:
    """The bytes the cache's entries may take together: ``$PHENORULES_CACHE_MB`` megabytes
    (a number, 0 or more; 0 keeps nothing), else DEFAULT_CACHE_MB."""
    given = os.environ.get(CACHE_BUDGET_VARIABLE) or str(DEFAULT_CACHE_MB)
    try:
        megabytes = float(given)
    except ValueError:
        megabytes = -1.0
    if not 0 <= megabytes < float("inf"):
        raise SettingError(f"{CACHE_BUDGET_VARIABLE}: {given!r} is not a number of megabytes (0 or more)")
    return int(megabytes * MEGABYTE)


CACHE_MAGIC = b"phenorules cache 4\n"
_LENGTH = struct.Struct(">Q")
_COMPRESSION = 1  # Zstandard's fastest positive level: the sections shrink 6.5-fold, and a first start waits on the store's compression at its end
_THREADS = 2  # zstandard releases the GIL: sections are compressed and inflated side by side


def cache_file_bytes(key: str, sections: dict[str, bytes]) -> list[bytes]:
    """A cache file's parts: the magic line, the length of a msgpack header holding the key
    and a (name, stored length, length) triple per section, then the compressed sections
    (Zstandard frames, each with its checksum)."""
    with ThreadPoolExecutor(_THREADS) as pool:
        stored = list(pool.map(_compress, sections.values()))
    header = srsly.msgpack_dumps({"key": key, "sections": [[name, len(packed), len(blob)] for (name, blob), packed in zip(sections.items(), stored)]})
    return [CACHE_MAGIC + _LENGTH.pack(len(header)) + header, *stored]


def store_entry(path: Path, key: str, sections: dict[str, bytes], budget: int) -> None:
    """Write the cache entry ``path`` (unless it alone is over the ``budget``), then remove
    the least recently used others until the entries fit the budget. An unwritable cache
    folder only costs time."""
    parts = cache_file_bytes(key, sections)
    try:
        if sum(map(len, parts)) <= budget:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_file(path, "wb") as handle:
                handle.writelines(parts)
        prune_cache(path.parent, path, budget)
    except OSError:
        pass


def _compress(blob: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=_COMPRESSION, write_checksum=True).compress(blob)


def _inflate(packed: bytes, length: int) -> bytes:
    """A stored section; zstandard.ZstdError (a failed checksum, a cut frame) or ValueError
    if it is not what was written."""
    blob = zstandard.ZstdDecompressor().decompress(packed, max_output_size=length)
    if len(blob) != length:
        raise ValueError("a cache section of another length")
    return blob


class CacheFile:
    """The sections of a cache file, each inflated when it is read, and then gone from this
    object (a section is read once): a large entry is never held compressed and inflated at
    once, nor every section inflated at once. A section whose stream or checksum fails
    raises on access, before any code trusts its layout."""

    def __init__(self, stored: dict[str, tuple[bytes, int]]) -> None:
        self._stored = dict(stored)

    def __getitem__(self, name: str) -> bytes:
        return _inflate(*self._stored.pop(name))

    def read_all(self, names: list[str]) -> list[bytes]:
        """Several sections, inflated side by side in threads (zstandard releases the GIL)."""
        stored = [self._stored.pop(name) for name in names]
        with ThreadPoolExecutor(_THREADS) as pool:
            return list(pool.map(lambda section: _inflate(*section), stored))


def little_endian(numbers: array) -> bytes:
    """An array's bytes as a cache section holds them: little-endian, on any machine."""
    if sys.byteorder == "big":
        numbers = array(numbers.typecode, numbers)
        numbers.byteswap()
    return numbers.tobytes()


def numbers_of(typecode: str, blob: bytes) -> array:
    """The array of ``typecode`` whose :func:`little_endian` bytes ``blob`` is."""
    numbers = array(typecode, blob)
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


class WordNumbers:
    """Word lists as numbers into one list of distinct words: a word-set index's sets and
    partner lists (:meth:`~phenorules.kb.word_sets.WordSetIndex.to_bytes`), each word made
    once when read. A group of lists is laid out by length: (length, count) pairs, the
    lists' words, and each list's place in that layout, so that reading it makes the tuples
    of one length in one call (``zip``), not one call per list. Numbers are little-endian
    32-bit."""

    def __init__(self, words: list[str]):
        self.words = words
        self.number = {word: i for i, word in enumerate(words)}

    @classmethod
    def of(cls, lists: Iterable[Iterable[str]]) -> "WordNumbers":
        return cls(sorted(set(chain.from_iterable(lists))))

    def text(self) -> str:
        return "\n".join(self.words)  # a word is a run of letters and digits: no line break

    def numbers(self, words: Iterable[str]) -> bytes:
        return little_endian(array("I", map(self.number.__getitem__, words)))

    def lists(self, lists: Iterable[Sequence[str]]) -> list[bytes]:
        lists = list(lists)
        by_length = sorted(range(len(lists)), key=lambda i: len(lists[i]))
        place = [0] * len(lists)
        for at, i in enumerate(by_length):
            place[i] = at
        sizes = Counter(map(len, lists))
        return [
            little_endian(array("I", chain.from_iterable(sorted(sizes.items())))),
            little_endian(array("I", place)),
            self.numbers(chain.from_iterable(lists[i] for i in by_length)),
        ]

    @staticmethod
    def numbered_words(words: list[str], numbers: bytes) -> list[str]:
        """The words :meth:`numbers` numbered (``words``: the text's lines)."""
        return list(map(words.__getitem__, numbers_of("I", numbers)))

    @staticmethod
    def numbered_lists(words: list[str], lists: list[bytes]) -> list[tuple[str, ...]]:
        """The lists :meth:`lists` numbered, as tuples."""
        sizes, place, numbers = lists
        flat = WordNumbers.numbered_words(words, numbers)
        laid: list[tuple[str, ...]] = []
        start = 0
        sizes = numbers_of("I", sizes)
        for length, count in zip(sizes[::2], sizes[1::2]):
            laid += zip(*[iter(flat[start : start + length * count])] * length) if length else [()] * count
            start += length * count
        return list(map(laid.__getitem__, numbers_of("I", place)))


def unpacked(blob: bytes):
    """A msgpack section's data. ``srsly.msgpack_loads`` would switch the garbage collector
    back on, which :func:`long_lived_objects` keeps paused."""
    return srsly.msgpack.loads(blob, raw=False, use_list=True)


def read_cache_file(path: Path, key: str) -> CacheFile | None:
    """The cache file at ``path`` written under ``key``, or None for a file that is missing,
    not a regular file of this user (or writable by others), of another format or key, or
    truncated. Reading it records its use (its time is set to now: the cache is pruned
    least recently used first). Nothing here runs code from the file: it is bytes, checked
    before anything trusts its layout."""
    handle = open_own_regular_file(path)
    if handle is None:
        return None
    try:
        with handle:
            if handle.read(len(CACHE_MAGIC)) != CACHE_MAGIC:
                return None
            (header_length,) = _LENGTH.unpack(handle.read(_LENGTH.size))
            header = unpacked(handle.read(min(header_length, 1 << 20)))
            start = len(CACHE_MAGIC) + _LENGTH.size + header_length
            if header["key"] != key or start + sum(stored for _, stored, _ in header["sections"]) != os.fstat(handle.fileno()).st_size:
                return None  # another entry's file, truncated, or lengths that are not this file's
            stored = {name: (handle.read(stored), length) for name, stored, length in header["sections"]}
            _record_use(handle)
    except Exception:  # unreadable, or a header that is not ours
        return None
    return CacheFile(stored)


def _record_use(handle) -> None:
    try:
        os.utime(handle.fileno())
    except OSError:  # a read-only cache: pruned by the time of writing
        pass


def cache_entries(directory: Path) -> list[tuple[Path, os.stat_result]]:
    """The regular files of ``directory`` named as cache entries, with their status (a
    link or anything else in an entry's place is not one)."""
    try:
        listing = list(os.scandir(directory))
    except OSError:
        return []
    entries = []
    for entry in listing:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:  # removed meanwhile
            continue
        if CACHE_ENTRY.fullmatch(entry.name) and stat.S_ISREG(info.st_mode):
            entries.append((Path(entry.path), info))
    return entries


def prune_cache(directory: Path, kept: Path, budget: int) -> None:
    """Remove the least recently used entries (by their time, set as each is read) until
    the rest, ``kept`` among them, take no more than ``budget`` bytes; and the temporary
    files that writers no longer running left (see :func:`remove_stale_cache_files`)."""
    newest_first = sorted(cache_entries(directory), key=lambda entry: (entry[0] != kept, -entry[1].st_mtime_ns, entry[0].name))
    used = 0
    for path, info in newest_first:
        used += info.st_size
        if used > budget and path != kept:
            path.unlink(missing_ok=True)
    remove_stale_cache_files(directory)


def cache_usage(directory: Path) -> tuple[int, int]:
    """The number of entries in the cache ``directory`` and the bytes they take."""
    entries = cache_entries(directory)
    return len(entries), sum(info.st_size for _, info in entries)


OLD_TEMPORARY_AGE = 3600  # seconds; older versions wrote 'resources-KEY.pkl<random>.tmp'


def remove_stale_cache_files(directory: Path) -> None:
    """Temporary files of writers no longer running, and of older versions after an hour."""
    remove_stale_temporaries(directory)
    for old in directory.glob("resources-*.pkl*.tmp"):
        try:
            if time.time() - old.stat().st_mtime > OLD_TEMPORARY_AGE:
                old.unlink()
        except OSError:
            pass
