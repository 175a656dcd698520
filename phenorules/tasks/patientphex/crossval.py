"""Cross-validation: learn on k-1 folds of articles, predict the held-out fold, score the pool.

Every setting is a pipeline setting (stages switched off, stage configs, knowledge base
settings, learning on or off), never a code edit. Each fold builds its own pipelines,
whose knowledge base config carries the rows learned on the fold's training articles in
place of the shipped learned lexicon (``learned`` of ``phenorules.KnowledgeBase.v1``).
The ontology lexicon with its variants is the slow part (~20 s), so it is built once per
lexicon config and each fold only adds its learned entries on top and compiles the
automaton; settings that share a lexicon config share each fold's knowledge base.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Callable, Iterable

from ...kb.knowledge_base import without_learned_files
from ...kb.lexicon import LexiconConfig
from ...kb.learn import LearnSettings, learn
from ...stages.pipeline import build_pipeline
from ...kb.resources import data_dir
from ...stages.knowledge import learning_base
from ...formats.patientphex import PROFILE
from ...formats.patientphex.articles import to_article
from ...formats.patientphex.records import predict
from .score import score
from .folds import assign_folds

_LEXICON_FIELDS = {f.name for f in fields(LexiconConfig)}


@dataclass(frozen=True)
class Setting:
    """One pipeline configuration to cross-validate; ``kb`` holds knowledge base settings."""

    name: str
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    stage_config: dict = field(default_factory=dict, hash=False, compare=False)
    learn: bool = True
    kb: dict = field(default_factory=dict, hash=False, compare=False)
    profile: str = PROFILE

    def describe(self) -> dict:
        return {
            "name": self.name, "disable": list(self.disable), "enable": list(self.enable), "stage_config": self.stage_config, "kb": self.kb,
            "learn": self.learn, "profile": self.profile,
        }


def lexicon_setup(setting: Setting) -> tuple[LexiconConfig, Path]:
    """The setting's lexicon config (learned files left out) and lexicon dir."""
    overrides = {k: tuple(v) if isinstance(v, list) else v for k, v in setting.kb.items() if k in _LEXICON_FIELDS}
    lexicon_dir = Path(setting.kb["lexicon_dir"]) if setting.kb.get("lexicon_dir") else data_dir("lexicons")
    return without_learned_files(replace(LexiconConfig(), **overrides)), lexicon_dir


def _pipeline(setting: Setting, hpo: str | None, learned: dict | None = None):
    """The setting's pipeline, on the knowledge base with these learned rows (None: the
    lexicon's own learned files)."""
    kb = {**setting.kb, **({"learned": learned} if learned is not None else {})}
    return build_pipeline(disable=setting.disable, stage_config=setting.stage_config, hpo=hpo, enable=setting.enable, kb=kb, profile=setting.profile)


def learned_rows(train: list[dict], hpo: str | None, config: LexiconConfig, lexicon_dir: Path, settings: LearnSettings) -> dict:
    """What ``train`` teaches relative to the base lexicon, as knowledge base config."""
    base = learning_base(hpo, lexicon_dir, config)
    word_sets = base.knowledge_base.word_sets if config.substitutions else None  # substitutions are learned only to be used
    learned = learn(train, base.ontology, base.knowledge_base.matcher, settings, config.min_key_length, word_sets)
    return {
        "rows": [list(row) for row in learned.lexicon_rows()],
        "blocklist": sorted(map(list, learned.blocklist())),
        "substitutions": [asdict(s) for s in learned.substitutions],
    }


NOTHING_LEARNED = {"rows": [], "blocklist": [], "substitutions": []}


def cross_validate(
    articles: list[dict],
    settings: Iterable[Setting],
    folds: int = 5,
    seed: int = 0,
    hpo: str | None = None,
    learn_settings: LearnSettings = LearnSettings(),
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, dict]:
    """Setting name -> score of the pooled out-of-fold predictions (the task's scorer)."""
    settings = list(settings)
    records = out_of_fold_predictions(articles, settings, folds, seed, hpo, learn_settings, progress)
    return {setting.name: score(articles, records[setting.name]) for setting in settings}


def out_of_fold_predictions(
    articles: list[dict],
    settings: Iterable[Setting],
    folds: int = 5,
    seed: int = 0,
    hpo: str | None = None,
    learn_settings: LearnSettings = LearnSettings(),
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, list[dict]]:
    """Setting name -> the pooled out-of-fold prediction records, in the order of ``articles``
    (each predicted by the fold that held it out)."""
    settings = list(settings)
    fold_of = assign_folds(articles, folds, seed)
    groups: dict[tuple, dict[bool, list[Setting]]] = {}  # lexicon setup -> learn -> settings
    for setting in settings:
        groups.setdefault(lexicon_setup(setting), {}).setdefault(setting.learn, []).append(setting)
    records: dict[str, list[dict]] = {setting.name: [] for setting in settings}
    for setting in settings:  # bad stage settings fail here, early, on the shipped knowledge base
        _pipeline(replace(setting, kb={}), hpo)
    for (config, lexicon_dir), by_learning in groups.items():
        progress(f"building the lexicon for {', '.join(s.name for g in by_learning.values() for s in g)}")
        for learns, group in by_learning.items():
            for fold in range(folds):
                train = [a for a in articles if fold_of[a["pmc_id"]] != fold]
                test = [a for a in articles if fold_of[a["pmc_id"]] == fold]
                learned = learned_rows(train, hpo, config, lexicon_dir, learn_settings) if learns else NOTHING_LEARNED
                for setting in group:
                    records[setting.name].extend(predict(_pipeline(setting, hpo, learned), [to_article(a) for a in test]))
            progress(f"{folds} folds done for {', '.join(s.name for s in group)}")
    order = {article["pmc_id"]: index for index, article in enumerate(articles)}
    return {name: sorted(pooled, key=lambda record: order[record["pmc_id"]]) for name, pooled in records.items()}
