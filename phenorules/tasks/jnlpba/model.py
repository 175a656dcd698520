"""The learned JNLPBA model (lexicon automaton and modifier counts), cached on disk.

Learning from the 2,000 training abstracts takes several seconds, so the model is kept in
the project's data-only cache (:mod:`phenorules.kb.resources`), keyed by the package version,
the learning config, every training file, the Greek-letter file, the learning code and the
shared code it builds on (the matcher, the lexicon and variant chaining, the cache layout:
:func:`~phenorules.kb.resources.code_digest`).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Sequence

import srsly

from phenorules import __version__
from phenorules.kb import resources
from phenorules.core.errors import InputError
from phenorules.kb.matcher import PhraseMatcher
from phenorules.kb.ontology import file_digest
from phenorules.kb.cache_file import CacheFile, cache_budget, cache_dir, read_cache_file, store_entry
from phenorules.kb.resources import data_dir, library_versions, matcher_from_cache, matcher_sections

from .io import Document, read_standoff
from .learn import LearnConfig, Modifiers, learn_lexicon, learn_modifiers
from .tag import TagConfig, Tagger, read_head_rules, read_shape_rules
from .variants import GreekLetters


@dataclass
class Model:
    matcher: PhraseMatcher
    modifiers: Modifiers


def rules_dir() -> Path:
    return data_dir("rules") / "jnlpba"


def model_key(train_dir: Path, config: LearnConfig) -> str:
    digest = hashlib.sha256(f"jnlpba\n{__version__}\n{resources.code_digest()}\n{library_versions()}\n{sorted(asdict(config).items())}\n".encode())
    code = [Path(__file__).with_name(name) for name in ("io.py", "learn.py", "variants.py")]  # a changed learner relearns
    for path in sorted(train_dir.glob("*.txt")) + sorted(train_dir.glob("*.ann")) + [rules_dir() / "greek_letters.tsv"] + code:
        digest.update(f"{path.name}:{file_digest(path)}\n".encode())
    return digest.hexdigest()[:32]


def learn_model_from(documents: Sequence[Document], config: LearnConfig = LearnConfig()) -> Model:
    greek = GreekLetters.from_file(rules_dir() / "greek_letters.tsv")
    return Model(PhraseMatcher(learn_lexicon(documents, greek, config)), learn_modifiers(documents))


def learn_model(train_dir: str | Path, config: LearnConfig = LearnConfig()) -> Model:
    return learn_model_from(read_standoff(train_dir), config)


def load_model(train_dir: str | Path, config: LearnConfig = LearnConfig(), use_cache: bool = True) -> Model:
    """The model learned from ``train_dir``: from the cache, or learned and cached."""
    train_dir = Path(train_dir)
    if not train_dir.is_dir():
        raise InputError(f"{train_dir}: not a folder of brat .txt/.ann training files")
    if not use_cache:
        return learn_model(train_dir, config)
    key = model_key(train_dir, config)
    path = cache_dir() / f"jnlpba-{key}.cache"
    cache = read_cache_file(path, key)
    model = model_from_cache(cache) if cache is not None else None
    if model is None:
        model = learn_model(train_dir, config)
        store_entry(path, key, {**matcher_sections(model.matcher), "modifiers": srsly.msgpack_dumps(asdict(model.modifiers))}, cache_budget())
    return model


def model_from_cache(cache: CacheFile) -> Model | None:
    try:
        modifiers = srsly.msgpack_loads(cache["modifiers"])
        return Model(matcher_from_cache(cache), Modifiers(**{f.name: modifiers[f.name] for f in fields(Modifiers)}))
    except Exception:  # a file of another layout, or damaged: relearn
        return None


def make_tagger(model: Model, config: TagConfig = TagConfig()) -> Tagger:
    return Tagger(
        model.matcher,
        model.modifiers,
        read_head_rules(rules_dir() / "head_words.tsv"),
        read_shape_rules(rules_dir() / "shape_rules.tsv"),
        config,
    )
