"""Where the data files live, and the on-disk cache of the built ontology and automaton.

Building the lexicon takes seconds (said on stderr: :func:`announce`); loading it from the
cache about a second. The cache key is a hash of the contents of the ontology file and of
every lexicon file (by its name in the lexicon folder), the lexicon config, the source of the
modules that build them and the versions of the libraries whose data it holds: a changed
input is rebuilt, and checkouts whose inputs are the same share an entry. There is an entry
per ontology release and lexicon config (the profiles read different lexicon files:
``rules/profiles.tsv``), and the disease names, the gene symbols and the JNLPBA model have theirs; the least
recently used entries (by the time each was last loaded or written) go when all of them
would take more than the budget, ``$PHENORULES_CACHE_MB`` megabytes (100 by default).

A cache file is data only: the key it was written under, then pyahocorasick's node array
(integer values) and msgpack for the rest, each section compressed with Zstandard, its
checksum verified as it is inflated, so loading one runs no code from it. Zstandard (the
``zstandard`` package) took a fifth less room than zlib's fastest level and inflated four
times faster (an HPO entry: 20 MB, 0.25 s for its 150 MB on one core). A file that is corrupt,
of another format or another key, not a regular file, or not this user's own (or writable
by others) is absent: rebuilt.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import re
import stat
import struct
import sys
import time
from array import array
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import ahocorasick
import srsly
import zstandard

from .. import __version__
from ..core.errors import SettingError
from ..core.files import atomic_file, open_own_regular_file, remove_stale_temporaries
from ..core.forking import in_background
from ..core.memory import large_blocks_from_the_system, return_free_memory
from .knowledge_base import KnowledgeBase
from .lexicon import LexiconConfig, apply_blocklist, lexicon_parts
from .lexicon.substitutions import Substitution, read_substitutions
from .matcher import LexiconRows, PackedRows, PhraseMatcher
from .ontology import Ontology, Synonym, check_obo_file, default_obo_path, file_digest, load_ontology
from .word_sets import WordSetIndex

CACHE_SUFFIX = ".cache"
CACHE_BUDGET_VARIABLE = "PHENORULES_CACHE_MB"
DEFAULT_CACHE_MB = 100  # three lexicon configs of 28 MB each, the disease names and the gene symbols
MEGABYTE = 1 << 20  # as du -h counts
# What the cache's users name their entries (KIND-HEX.cache, and older layouts' .pkl); a
# file of another name in the folder is never pruned.
CACHE_ENTRY = re.compile(r"[a-z][a-z-]*-[0-9a-f][0-9a-f-]*\.(cache|pkl)")
log = logging.getLogger(__name__)


def data_dir(name: str, given: str | Path | None = None) -> Path:
    """``lexicons`` or ``rules``: ``given`` (a setting naming another folder), else the copy
    a wheel installs inside the package, else the checkout's top-level folder (setup.py
    maps one onto the other)."""
    if given:
        return Path(given)
    package = Path(__file__).resolve().parent.parent
    installed = package / name
    return installed if installed.is_dir() else package.parent / name


def data_file(folder: str, name: str, given: str | Path | None = None) -> Path:
    """The data file a setting names (``given``), else the shipped ``folder/name``."""
    return Path(given) if given else data_dir(folder) / name


def cache_dir() -> Path:
    root = os.environ.get("PHENORULES_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "phenorules"
    return Path(root)


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


def file_substitutions(lexicon_dir: Path, config: LexiconConfig) -> list[Substitution]:
    """The pairs of the config's learned substitution files whose source the config takes."""
    pairs = [s for name in config.substitution_files for s in read_substitutions(lexicon_dir / name)]
    return [s for s in pairs if s.source in config.substitutions]


def code_digest() -> str:
    """The source of the modules that build the resources and lay out the cache file: the
    cache is shared by checkouts."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    modules = [package / "ontology.py", package / "matcher.py", package / "word_sets.py", package / "knowledge_base.py", package / "resources.py", package / "spelling.py", *sorted((package / "lexicon").glob("*.py"))]
    for path in modules:
        digest.update(f"{path.relative_to(package)}:{file_digest(path)}\n".encode())
    return digest.hexdigest()


@lru_cache(maxsize=None)
def library_versions() -> str:
    """pyahocorasick's node layout and msgpack's encoding are part of a cache file."""
    return f"pyahocorasick {version('pyahocorasick')}, srsly {version('srsly')}"


def resources_key(obo_path: str, lexicon_dir: Path, config: LexiconConfig, obo_digest: str | None = None) -> str:
    """What the knowledge base is built from, hashed: contents and names, never the folder
    they are in, so that checkouts whose files are the same share an entry."""
    digest = hashlib.sha256()
    digest.update(f"{__version__}\n{code_digest()}\n{library_versions()}\n{sorted(asdict(config).items())}\n".encode())
    digest.update((obo_digest or file_digest(obo_path)).encode())
    for name, path in sorted(lexicon_files(lexicon_dir, config).items()):
        digest.update(f"{name}:{file_digest(path)}\n".encode())
    return digest.hexdigest()[:32]


def lexicon_files(lexicon_dir: Path, config: LexiconConfig) -> dict[str, Path]:
    """The files a lexicon build may read, by their name in the lexicon folder (a configured
    file elsewhere by the name the config gives it)."""
    files = {path.name: path for pattern in ("*.tsv", "*.txt.gz") for path in lexicon_dir.glob(pattern)}
    for name in config.extra_files + config.blocklist_files:
        if (lexicon_dir / name).is_file():
            files.setdefault(name, lexicon_dir / name)
    return files


CACHE_MAGIC = b"phenorules cache 4\n"
_LENGTH = struct.Struct(">Q")
_COMPRESSION = 1  # Zstandard's fastest positive level: the sections shrink 6.5-fold, and a first start waits on the store's compression at its end
_THREADS = 2  # zstandard releases the GIL: sections are compressed and inflated side by side


def cache_file_bytes(key: str, sections: Iterable[tuple[str, bytes]]) -> list[bytes]:
    """A cache file's parts: the magic line, the length of a msgpack header holding the key
    and a (name, stored length, length) triple per section, then the compressed sections
    (Zstandard frames, each with its checksum). Each section is compressed as soon as
    ``sections`` gives it, while the next ones are made."""
    with ThreadPoolExecutor(_THREADS) as pool:
        made = [(name, len(blob), pool.submit(_compress, blob)) for name, blob in sections]
        stored = [(name, length, compressed.result()) for name, length, compressed in made]
    header = srsly.msgpack_dumps({"key": key, "sections": [[name, len(packed), length] for name, length, packed in stored]})
    return [CACHE_MAGIC + _LENGTH.pack(len(header)) + header, *(packed for _, _, packed in stored)]


def store_entry(path: Path, key: str, sections: Iterable[tuple[str, bytes]], budget: int) -> None:
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


def matcher_sections(matcher: PhraseMatcher, prefix: str = "matcher") -> dict[str, bytes]:
    """A matcher as cache sections: pyahocorasick's own node data (the bytes its pickling
    support writes, integer values only) and the entry rows, as one UTF-8 text and the
    end offset of each row (little-endian 64-bit), read back as :class:`PackedRows`."""
    _, args = matcher.automaton.__reduce__()
    chunks, *numbers = args
    if numbers[-1] is not None:  # values other than integers: not storable without pickle
        raise ValueError("only an automaton with integer values can be cached")
    sections = {f"{prefix}.automaton.{i}": bytes(chunk) for i, chunk in enumerate(chunks)}
    sections[f"{prefix}.meta"] = srsly.msgpack_dumps({"automaton": numbers[:-1], "chunks": len(chunks)})
    rows = matcher.rows
    if not isinstance(rows, PackedRows):
        rows = rows.packed() if isinstance(rows, LexiconRows) else PackedRows.of(rows)
    ends = rows.ends
    if sys.byteorder == "big":
        ends = array("Q", ends)
        ends.byteswap()
    sections[f"{prefix}.rows.text"] = rows.text
    sections[f"{prefix}.rows.ends"] = ends.tobytes()
    return sections


def matcher_from_cache(cache: CacheFile, prefix: str = "matcher") -> PhraseMatcher:
    """The matcher of a cache file. Each section is inflated and its checksum verified
    before the automaton's bytes reach pyahocorasick, whose reader trusts them."""
    meta = unpacked(cache[f"{prefix}.meta"])
    ends = array("Q", cache[f"{prefix}.rows.ends"])
    if sys.byteorder == "big":
        ends.byteswap()
    # the automaton before the rows' text, its node data dropped once pyahocorasick has read it
    chunks = cache.read_all([f"{prefix}.automaton.{i}" for i in range(meta["chunks"])])
    automaton = ahocorasick.Automaton(chunks, *meta["automaton"], None) if ends else ahocorasick.Automaton(ahocorasick.STORE_INTS)
    del chunks
    rows = PackedRows(cache[f"{prefix}.rows.text"], ends)
    matcher = PhraseMatcher.__new__(PhraseMatcher)
    matcher.__setstate__({"automaton": automaton, "rows": rows})
    return matcher


def _ontology_state(ontology: Ontology) -> dict:
    """The ontology as data, less its synonyms (a section of their own: few commands read
    them); not its path: checkouts whose files are the same share an entry."""
    return {
        "data_version": ontology.data_version,
        "is_a": ontology.is_a,
        "names": ontology.names,
        "alt_ids": ontology.alt_ids,
        "replaced_by": ontology.replaced_by,
    }


def _ontology_from_state(state: dict, synonyms: Mapping[str, tuple[Synonym, ...]], path: str) -> Ontology:
    is_a = list(map(tuple, state["is_a"]))
    return Ontology(path, state["data_version"], is_a, state["names"], synonyms, state["alt_ids"], state["replaced_by"])


def _synonyms_from_state(state: dict) -> dict[str, tuple[Synonym, ...]]:
    return {hpo_id: tuple(map(Synonym._make, listed)) for hpo_id, listed in state.items()}


class _ReadWhenUsed(Mapping):
    """A mapping kept as its cache section's bytes until it is first read: the ontology's
    synonyms, which annotating never reads (0.1 s of every start otherwise)."""

    def __init__(self, blob: bytes, make):
        self._blob, self._make, self._data = blob, make, None

    def _mapping(self) -> dict:
        if self._data is None:
            self._data = self._make(unpacked(self._blob))
        return self._data

    def __getitem__(self, key):
        return self._mapping()[key]

    def __iter__(self):
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())


def resources_sections(resources: KnowledgeBase) -> Iterator[tuple[str, bytes]]:
    """The knowledge base's cache sections, the matcher's (most of the bytes) first."""
    yield from matcher_sections(resources.matcher).items()
    yield "ontology", srsly.msgpack_dumps(_ontology_state(resources.ontology))
    yield "synonyms", srsly.msgpack_dumps(dict(resources.ontology.synonyms))
    yield "word_sets", resources.word_sets.to_bytes()
    yield "head_words", srsly.msgpack_dumps(sorted(resources.head_words))
    yield "spelling", resources.spelling.to_bytes()


def resources_from_cache(cache: CacheFile, obo_path: str) -> KnowledgeBase | None:
    """The cached resources of the ontology file ``obo_path``, or None when the file does
    not hold them (corrupt, or another layout)."""
    try:
        matcher = matcher_from_cache(cache)  # the largest part first: the others are inflated after it
        ontology = _ontology_from_state(unpacked(cache["ontology"]), _ReadWhenUsed(cache["synonyms"], _synonyms_from_state), obo_path)
        word_sets = WordSetIndex.from_bytes(cache["word_sets"])
        return KnowledgeBase(ontology, matcher, word_sets, frozenset(unpacked(cache["head_words"])), cache["spelling"])
    except Exception:  # a file of another layout, or damaged: rebuild
        return None


def release_of(obo_digest: str) -> str:
    """The part of a cache entry's name that names its ontology release (the file's hash)."""
    return obo_digest[:16]


def config_tag(config: LexiconConfig) -> str:
    """The part of a cache entry's name that names its lexicon config."""
    return hashlib.sha256(f"{sorted(asdict(config).items())}".encode()).hexdigest()[:8]


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


def store(resources: KnowledgeBase, path: Path, key: str, budget: int) -> None:
    """The knowledge base serialised and stored (in a forked process, for a large one:
    :func:`store_fresh`)."""
    store_entry(path, key, resources_sections(resources), budget)


def store_fresh(resources: KnowledgeBase, path: Path, key: str, budget: int) -> None:
    """:func:`store` in a process of its own, its large blocks of memory fresh from the
    system (:func:`~phenorules.core.memory.large_blocks_from_the_system`): the cache file's
    bytes are the same at every build."""
    large_blocks_from_the_system()
    store(resources, path, key, budget)


# The HPO lexicon's entry is serialised and compressed by a forked process
# (:func:`phenorules.core.forking.in_background`) while the pipeline is put to work (its rows
# are packed and its head words read during the build: KnowledgeBase.compile); a small
# lexicon's (a test's) is written before load_knowledge_base returns.
BACKGROUND_CACHE_ROWS = 20_000
_LOADED: dict[tuple[str, str], KnowledgeBase] = {}  # (key, ontology path) -> knowledge base


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Cached resources load as millions of objects, without reference cycles, that live
    until the process ends. The cyclic garbage collector would traverse them in each
    of its collections while they are made, then in every full collection after and once
    more at exit: they are made with it paused, then moved out of its reach (``gc.freeze``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()
    return_free_memory()


def load_knowledge_base(
    obo_path: str | None = None,
    lexicon_dir: str | Path | None = None,
    config: LexiconConfig = LexiconConfig(),
    use_cache: bool = True,
) -> KnowledgeBase:
    """The knowledge base of these settings, from memory, from the disk cache, or built afresh."""
    obo_path = str(obo_path or default_obo_path())
    lexicon_dir = data_dir("lexicons", lexicon_dir)
    check_obo_file(obo_path)  # fail fast, before hashing a missing file
    budget = cache_budget() if use_cache else 0  # a bad setting fails before the build
    obo_digest = file_digest(obo_path)
    key = resources_key(obo_path, lexicon_dir, config, obo_digest)
    if (key, obo_path) in _LOADED:
        return _LOADED[key, obo_path]
    directory = cache_dir()
    path = directory / f"resources-{release_of(obo_digest)}-{config_tag(config)}-{key}{CACHE_SUFFIX}"
    resources = None
    if use_cache:
        remove_stale_cache_files(directory)
        with long_lived_objects():
            cache = read_cache_file(path, key)
            resources = resources_from_cache(cache, obo_path) if cache is not None else None
    if resources is None:
        started = time.perf_counter()
        announce(f"building the lexicon from {obo_path}{' (cached for later runs)' if use_cache else ''}")
        with long_lived_objects():
            resources = built_knowledge_base(obo_path, lexicon_dir, config)
        if use_cache and not (len(resources.matcher.rows) >= BACKGROUND_CACHE_ROWS and in_background(lambda: store_fresh(resources, path, key, budget))):
            store(resources, path, key, budget)
        log.info("built the lexicon in %.1f s", time.perf_counter() - started)
    _LOADED[key, obo_path] = resources
    return resources


def built_knowledge_base(obo_path: str, lexicon_dir: Path, config: LexiconConfig) -> KnowledgeBase:
    """The knowledge base built afresh. The lexicon it is compiled from (millions of
    objects) is freed as this returns, before the cache's store is forked: freed after the
    fork, each page it lies on would be copied first, the store process sharing it."""
    ontology = load_ontology(obo_path)
    parts = lexicon_parts(ontology, lexicon_dir, config)
    lexicon = apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
    return KnowledgeBase.compile(ontology, lexicon, lexicon_dir, parts.res.morphology, file_substitutions(lexicon_dir, config))


def announce(message: str) -> None:
    """``message`` at INFO on this module's logger, where the command line's handler or the
    application's logging shows it; where no logging is set up (no handler on the way to the
    root logger, no level set on "phenorules"), logging would show warnings only, so the
    line is written on stderr as the command line writes it. Setting the "phenorules"
    logger's level to WARNING silences it."""
    if log.hasHandlers() or logging.getLogger("phenorules").level != logging.NOTSET:
        log.info(message)
    elif sys.stderr is not None:
        print(f"phenorules: {message}", file=sys.stderr, flush=True)
