"""Where the data files live, and the on-disk cache of the built ontology and automaton.

Building the lexicon takes seconds; loading it from the cache a fraction of that. The
cache key is a hash of the ontology file, every lexicon file, the lexicon config and the source
of the modules that build them (several checkouts share one cache), so a
changed input is rebuilt. Cache files are signed with an HMAC whose key is created in the
cache directory (mode 0600) on first use: a file this installation did not write is never
unpickled.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from . import __version__
from .lexicon import Lexicon, LexiconConfig, apply_blocklist, lexicon_parts
from .lexicon.morphology import Morphology
from .lexicon.substitutions import Substitution, read_substitutions
from .matcher import PhraseMatcher
from .ontology import Ontology, check_obo_file, default_obo_path, file_digest, load_ontology
from .word_sets import WordSetIndex


def data_dir(name: str) -> Path:
    """``lexicons`` or ``rules``: the copy a wheel installs inside the package, else the
    checkout's top-level folder (setup.py maps one onto the other)."""
    package = Path(__file__).resolve().parent
    installed = package / name
    return installed if installed.is_dir() else package.parent / name


def cache_dir() -> Path:
    root = os.environ.get("PHENORULES_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "phenorules"
    return Path(root)


@dataclass
class Resources:
    """The loaded ontology and the compiled matchers for one (ontology, lexicon) pair."""

    ontology: Ontology
    matcher: PhraseMatcher
    word_sets: WordSetIndex

    @classmethod
    def compile(
        cls, ontology: Ontology, lexicon: Lexicon, lexicon_dir: Path, morphology: Morphology, substitutions: list[Substitution] = ()
    ) -> "Resources":
        """``morphology`` is the variant generator's, so both know one notion of a word."""
        matcher = PhraseMatcher(lexicon)
        word_sets = WordSetIndex.build(lexicon, matcher, lexicon_dir, morphology)
        return cls(ontology, matcher, word_sets.with_substitutions(matcher, substitutions) if substitutions else word_sets)


def file_substitutions(lexicon_dir: Path, config: LexiconConfig) -> list[Substitution]:
    """The pairs of the config's learned substitution files whose source the config takes."""
    pairs = [s for name in config.substitution_files for s in read_substitutions(lexicon_dir / name)]
    return [s for s in pairs if s.source in config.substitutions]


def signing_key(directory: Path) -> bytes:
    path = directory / "signing.key"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(32))
    return path.read_bytes()


def code_digest() -> str:
    """The source of the modules that build the resources: the cache is shared by checkouts."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    modules = [package / "ontology.py", package / "matcher.py", package / "word_sets.py", *sorted((package / "lexicon").glob("*.py"))]
    for path in modules:
        digest.update(f"{path.relative_to(package)}:{file_digest(path)}\n".encode())
    return digest.hexdigest()


def resources_key(obo_path: str, lexicon_dir: Path, config: LexiconConfig) -> str:
    digest = hashlib.sha256()
    digest.update(f"{__version__}\n{code_digest()}\n{sorted(asdict(config).items())}\n".encode())
    digest.update(file_digest(obo_path).encode())
    configured = [lexicon_dir / name for name in config.extra_files + config.blocklist_files]
    for path in sorted(set(lexicon_dir.glob("*.tsv")) | {p for p in configured if p.is_file()}):
        digest.update(f"{path}:{file_digest(path)}\n".encode())
    return digest.hexdigest()[:32]


def read_signed(path: Path, key: bytes) -> object | None:
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    signature, payload = blob[:32], blob[32:]
    if not hmac.compare_digest(signature, hmac.new(key, payload, hashlib.sha256).digest()):
        return None
    try:
        return pickle.loads(payload)
    except Exception:  # written by an older phenorules: rebuild rather than fail
        return None


def write_signed(path: Path, key: bytes, obj: object) -> None:
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(hmac.new(key, payload, hashlib.sha256).digest() + payload)
    os.replace(tmp, path)


def _prune(directory: Path, keep: int) -> None:
    """Keep the ``keep`` most recently written cache entries (each is ~100 MB)."""
    entries = sorted(directory.glob("resources-*.pkl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    for stale in entries[keep:]:
        stale.unlink(missing_ok=True)


CACHE_ENTRIES_KEPT = 4
_LOADED: dict[str, Resources] = {}


def load_resources(
    obo_path: str | None = None,
    lexicon_dir: str | Path | None = None,
    config: LexiconConfig = LexiconConfig(),
    use_cache: bool = True,
) -> Resources:
    """Ontology and matcher, from memory, from the signed disk cache, or built afresh."""
    obo_path = str(obo_path or default_obo_path())
    lexicon_dir = Path(lexicon_dir) if lexicon_dir else data_dir("lexicons")
    check_obo_file(obo_path)  # fail fast, before hashing a missing file
    key = resources_key(obo_path, lexicon_dir, config)
    if key in _LOADED:
        return _LOADED[key]
    directory = cache_dir()
    path = directory / f"resources-{key}.pkl"
    resources = None
    secret = b""
    if use_cache:
        try:
            secret = signing_key(directory)
            resources = read_signed(path, secret)
        except OSError:
            use_cache = False  # an unwritable cache directory only costs time
    if resources is None:
        if use_cache and sys.stderr.isatty():  # a person waits tens of seconds: say why
            print(f"phenorules: building the lexicon from {obo_path} (cached for later runs)", file=sys.stderr)
        ontology = load_ontology(obo_path)
        parts = lexicon_parts(ontology, lexicon_dir, config)
        lexicon = apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
        morphology = parts.res.morphology
        resources = Resources.compile(ontology, lexicon, lexicon_dir, morphology, file_substitutions(lexicon_dir, config))
        if use_cache:
            try:
                write_signed(path, secret, resources)
                _prune(directory, keep=CACHE_ENTRIES_KEPT)
            except OSError:
                pass
    _LOADED[key] = resources
    return resources
