"""The learned JNLPBA model (lexicon automaton and modifier counts), cached on disk.

Learning from the 2,000 training abstracts takes several seconds, so the model is kept in
the project's signed cache (:mod:`phenorules.resources`), keyed by the package version,
the learning config, every training file, the Greek-letter file and the learning code.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

from phenorules import __version__
from phenorules.errors import InputError
from phenorules.matcher import PhraseMatcher
from phenorules.ontology import file_digest
from phenorules.resources import read_signed, signing_key, write_signed, cache_dir, data_dir

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
    digest = hashlib.sha256(f"jnlpba\n{__version__}\n{sorted(asdict(config).items())}\n".encode())
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
    """The model learned from ``train_dir``: from the signed cache, or learned and cached."""
    train_dir = Path(train_dir)
    if not train_dir.is_dir():
        raise InputError(f"{train_dir}: not a folder of brat .txt/.ann training files")
    if not use_cache:
        return learn_model(train_dir, config)
    path = cache_dir() / f"jnlpba-{model_key(train_dir, config)}.pkl"
    try:
        key = signing_key(cache_dir())
        model = read_signed(path, key)
    except OSError:
        return learn_model(train_dir, config)  # an unwritable cache only costs time
    if model is None:
        model = learn_model(train_dir, config)
        try:
            write_signed(path, key, model)
        except OSError:
            pass
    return model


def make_tagger(model: Model, config: TagConfig = TagConfig()) -> Tagger:
    return Tagger(
        model.matcher,
        model.modifiers,
        read_head_rules(rules_dir() / "head_words.tsv"),
        read_shape_rules(rules_dir() / "shape_rules.tsv"),
        config,
    )
