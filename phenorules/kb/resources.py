"""Where the data files live, and the knowledge base: loaded from its cache entry
(:mod:`.cache_file`), or built and stored there.

Building the lexicon takes seconds (said on stderr: :func:`announce`); loading it from the
cache about a second. The cache key is a hash of the contents of the ontology file and of
every lexicon file (by its name in the lexicon folder), the lexicon config, the source of the
modules that build them and the versions of the libraries whose data it holds: a changed
input is rebuilt, and checkouts whose inputs are the same share an entry. There is an entry
per ontology release and lexicon config (the profiles read different lexicon files:
``rules/profiles.tsv``).
"""

from __future__ import annotations

import gc
import hashlib
import logging
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Iterator, Mapping

import ahocorasick
import srsly

from .. import __version__
from ..core.forking import in_background
from ..core.memory import large_blocks_from_the_system, return_free_memory
from .cache_file import CACHE_SUFFIX, CacheFile, cache_budget, cache_dir, little_endian, numbers_of, read_cache_file, remembered_digest, remove_stale_cache_files, store_entry, unpacked
from .knowledge_base import KnowledgeBase
from .lexicon import LexiconConfig, apply_blocklist, lexicon_parts
from .lexicon.substitutions import Substitution, read_substitutions
from .matcher import LexiconRows, LongKeys, PackedRows, PhraseMatcher
from .ontology import Ontology, Synonym, check_obo_file, default_obo_path, file_digest, load_ontology
from .word_sets import WordSetIndex

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


def file_substitutions(lexicon_dir: Path, config: LexiconConfig) -> list[Substitution]:
    """The pairs of the config's learned substitution files whose source the config takes."""
    pairs = [s for name in config.substitution_files for s in read_substitutions(lexicon_dir / name)]
    return [s for s in pairs if s.source in config.substitutions]


def code_digest() -> str:
    """The source of the modules that build the resources and lay out the cache file: the
    cache is shared by checkouts."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    modules = [package / name for name in ("ontology.py", "matcher.py", "word_sets.py", "knowledge_base.py", "resources.py", "cache_file.py", "spelling.py")]
    modules += sorted((package / "lexicon").glob("*.py"))
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


def matcher_sections(matcher: PhraseMatcher, prefix: str = "matcher") -> dict[str, bytes]:
    """A matcher as cache sections: pyahocorasick's own node data (the bytes its pickling
    support writes, integer values only); the entry rows, as one UTF-8 text and the end
    offset of each row (little-endian 64-bit), and the texts the rows name by number, read
    back as :class:`PackedRows`; and its
    :class:`~.matcher.LongKeys`, their groups as three arrays of 64-bit numbers and their
    tails as rows are."""
    _, args = matcher.automaton.__reduce__()
    chunks, *numbers = args
    if numbers[-1] is not None:  # values other than integers: not storable without pickle
        raise ValueError("only an automaton with integer values can be cached")
    sections = {f"{prefix}.automaton.{i}": bytes(chunk) for i, chunk in enumerate(chunks)}
    sections[f"{prefix}.meta"] = srsly.msgpack_dumps({"automaton": numbers[:-1], "chunks": len(chunks)})
    rows = matcher.rows
    if not isinstance(rows, PackedRows) or rows.named is None:
        rows = rows.packed() if isinstance(rows, LexiconRows) else PackedRows.numbered(rows)
    long_keys = matcher.long_keys
    sections[f"{prefix}.rows.text"] = rows.text
    sections[f"{prefix}.rows.ends"] = little_endian(rows.ends)
    sections[f"{prefix}.rows.named"] = rows.named_section()
    sections[f"{prefix}.long.groups"] = b"".join(map(little_endian, (long_keys.own, long_keys.first_row, long_keys.first_tail)))
    sections[f"{prefix}.long.tails.text"] = long_keys.tails.text
    sections[f"{prefix}.long.tails.ends"] = little_endian(long_keys.tails.ends)
    return sections


def matcher_from_cache(cache: CacheFile, prefix: str = "matcher") -> PhraseMatcher:
    """The matcher of a cache file. Each section is inflated and its checksum verified
    before the automaton's bytes reach pyahocorasick, whose reader trusts them."""
    meta = unpacked(cache[f"{prefix}.meta"])
    ends = numbers_of("Q", cache[f"{prefix}.rows.ends"])
    # the automaton before the rows' text, its node data dropped once pyahocorasick has read it
    chunks = cache.read_all([f"{prefix}.automaton.{i}" for i in range(meta["chunks"])])
    automaton = ahocorasick.Automaton(chunks, *meta["automaton"], None) if ends else ahocorasick.Automaton(ahocorasick.STORE_INTS)
    del chunks
    rows = PackedRows(cache[f"{prefix}.rows.text"], ends, PackedRows.named_of(cache[f"{prefix}.rows.named"]))
    groups = numbers_of("q", cache[f"{prefix}.long.groups"])
    count = len(groups) // 3
    tails = PackedRows(cache[f"{prefix}.long.tails.text"], numbers_of("Q", cache[f"{prefix}.long.tails.ends"]))
    long_keys = LongKeys(len(rows), groups[:count], groups[count : 2 * count], groups[2 * count :], tails)
    matcher = PhraseMatcher.__new__(PhraseMatcher)
    matcher.__setstate__({"automaton": automaton, "rows": rows, "long_keys": long_keys})
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


def resources_sections(resources: KnowledgeBase) -> dict[str, bytes]:
    sections = matcher_sections(resources.matcher)
    sections["ontology"] = srsly.msgpack_dumps(_ontology_state(resources.ontology))
    sections["synonyms"] = srsly.msgpack_dumps(dict(resources.ontology.synonyms))
    sections["word_sets"] = resources.word_sets.to_bytes()
    sections["head_words"] = srsly.msgpack_dumps(sorted(resources.head_words))
    sections["spelling"] = resources.spelling.to_bytes()
    return sections


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
    obo_digest = remembered_digest(obo_path, file_digest, budget)
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
