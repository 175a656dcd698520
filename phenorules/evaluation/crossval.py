"""Cross-validation: learn on k-1 folds of articles, predict the held-out fold, score the pool.

Every setting is a pipeline setting (stages switched off, stage configs, learning on or
off), never a code edit. The ontology lexicon with its variants is the slow part (~20 s),
so it is built once per lexicon config; each fold only adds its learned entries on top and
compiles the automaton, which the match stage then uses in place of the shipped learned
lexicon. Settings that share a lexicon config share the fold matchers as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Callable, Iterable

from ..lexicon import Lexicon, LexiconConfig, add_rows, apply_blocklist, is_learned_file, lexicon_parts
from ..learn import LearnSettings, learn
from ..ontology import Ontology
from ..pipeline import build_pipeline
from ..resources import Resources, data_dir, load_resources
from ..tasks.patientphex.predict import predict
from ..tasks.patientphex.score import score
from .folds import assign_folds

MATCH_STAGE = "match"
_LEXICON_FIELDS = {f.name for f in fields(LexiconConfig)}


@dataclass(frozen=True)
class Setting:
    """One pipeline configuration to cross-validate."""

    name: str
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    stage_config: dict = field(default_factory=dict, hash=False, compare=False)
    learn: bool = True

    def describe(self) -> dict:
        return {"name": self.name, "disable": list(self.disable), "enable": list(self.enable), "stage_config": self.stage_config, "learn": self.learn}


def without_learned_files(config: LexiconConfig) -> LexiconConfig:
    """The lexicon config less its learned files: what a fold learns against."""
    return replace(
        config,
        extra_files=tuple(n for n in config.extra_files if not is_learned_file(n)),
        blocklist_files=tuple(n for n in config.blocklist_files if not is_learned_file(n)),
        substitution_files=tuple(n for n in config.substitution_files if not is_learned_file(n)),
    )


def lexicon_setup(setting: Setting) -> tuple[LexiconConfig, Path]:
    """The setting's match-stage lexicon config (learned files left out) and lexicon dir."""
    match_config = setting.stage_config.get(MATCH_STAGE, {})
    overrides = {k: tuple(v) if isinstance(v, list) else v for k, v in match_config.items() if k in _LEXICON_FIELDS}
    lexicon_dir = Path(match_config["lexicon_dir"]) if match_config.get("lexicon_dir") else data_dir("lexicons")
    return without_learned_files(replace(LexiconConfig(), **overrides)), lexicon_dir


class BaseLexicon:
    """The ontology lexicon and curated files of one config, and the fold lexicons on top."""

    def __init__(self, ontology: Ontology, config: LexiconConfig, lexicon_dir: Path):
        self.ontology, self.config, self.lexicon_dir = ontology, config, lexicon_dir
        parts = lexicon_parts(ontology, lexicon_dir, config)
        self.res, self.blocked = parts.res, parts.blocked
        self.lexicon = apply_blocklist(parts.lexicon, self.blocked, config.min_key_length)
        self.resources = Resources.compile(ontology, self.lexicon, lexicon_dir, self.res.morphology)

    def with_learned(self, train: list[dict], settings: LearnSettings) -> Resources:
        """The base lexicon plus what ``train`` teaches, compiled."""
        word_sets = self.resources.word_sets if self.config.substitutions else None  # substitutions are learned only to be used
        learned = learn(train, self.ontology, self.resources.matcher, settings, self.config.min_key_length, word_sets)
        lexicon = Lexicon({key: list(entries) for key, entries in self.lexicon.entries.items()})
        add_rows(lexicon, learned.lexicon_rows(), "learned", self.config, self.res)
        blocklisted = apply_blocklist(lexicon, self.blocked | learned.blocklist(), self.config.min_key_length)
        substitutions = [s for s in learned.substitutions if s.source in self.config.substitutions]
        return Resources.compile(self.ontology, blocklisted, self.lexicon_dir, self.res.morphology, substitutions)


def _pipeline(setting: Setting, hpo: str | None):
    """The setting's pipeline; its match stage gets the fold's matcher later.

    The match stage's lexicon settings are left out here (they would build a lexicon that
    the fold matcher replaces anyway); its other settings are kept.
    """
    stage_config = {name: dict(config) for name, config in setting.stage_config.items()}
    match_config = stage_config.get(MATCH_STAGE, {})
    for name in _LEXICON_FIELDS | {"lexicon_dir"}:
        match_config.pop(name, None)
    return build_pipeline(disable=setting.disable, stage_config=stage_config, hpo=hpo, enable=setting.enable)


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
    fold_of = assign_folds(articles, folds, seed)
    ontology = load_resources(hpo).ontology  # the pipelines load the same resources
    groups: dict[tuple, dict[bool, list[Setting]]] = {}  # lexicon setup -> learn -> settings
    for setting in settings:
        groups.setdefault(lexicon_setup(setting), {}).setdefault(setting.learn, []).append(setting)
    records: dict[str, list[dict]] = {setting.name: [] for setting in settings}
    pipelines = {setting.name: _pipeline(setting, hpo) for setting in settings}  # bad settings fail here, early
    for (config, lexicon_dir), by_learning in groups.items():
        progress(f"building the lexicon for {', '.join(s.name for g in by_learning.values() for s in g)}")
        base = BaseLexicon(ontology, config, lexicon_dir)
        for learns, group in by_learning.items():
            for fold in range(folds):
                train = [a for a in articles if fold_of[a["pmc_id"]] != fold]
                test = [a for a in articles if fold_of[a["pmc_id"]] == fold]
                resources = base.with_learned(train, learn_settings) if learns else base.resources
                for setting in group:
                    nlp = pipelines[setting.name]
                    nlp.get_pipe(MATCH_STAGE).resources = resources
                    records[setting.name].extend(predict(nlp, test))
            progress(f"{folds} folds done for {', '.join(s.name for s in group)}")
    return {setting.name: score(articles, records[setting.name]) for setting in settings}
