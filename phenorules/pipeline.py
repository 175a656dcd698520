"""The phenorules pipeline: a blank English spaCy pipeline and a readable list of stages.

Each stage is a registered spaCy component with its own rule or lexicon files, and a pipe
of its own in ``nlp.pipe_names``; a stage is switched off by a setting (``disable``),
never by editing code, so that ablations are configuration. Stage settings override the
component's default config; the knowledge base the stages share is config of each
(:mod:`phenorules.stages.knowledge`).
"""

from __future__ import annotations

from typing import Iterable

import spacy
from spacy.language import Language

from . import stages, tokenizer  # noqa: F401  (registers the factories and the tokenizer)
from .errors import SettingError
from .article import MAX_ARTICLE_CHARS
from .stages.knowledge import KB_FUNCTION

# (stage name, spaCy factory) in the order they run.
STAGES: tuple[tuple[str, str], ...] = (
    ("sentences", "phenorules_sentences"),
    ("match", "phenorules_match"),
    ("word_order", "phenorules_word_order"),
    ("abbreviations", "phenorules_abbreviations"),
    ("qualifiers", "phenorules_qualifiers"),
    ("coordination", "phenorules_coordination"),
    ("measurements", "phenorules_measurements"),
    ("nested", "phenorules_nested"),
    ("scope", "phenorules_scope"),
    ("negation", "phenorules_negation"),
    ("patients", "phenorules_patients"),
)
REQUIRED_STAGES = frozenset({"sentences", "match"})
# Stages that run only when enabled: the measurements stage serves clinical vignettes
# (MedXpertQA); on PatientPheX articles it was measured to cost Score (docs/medxpertqa.md).
# The nested stage serves corpora that annotate terms nested in longer ones (GSC+); the
# PatientPheX annotators mark the longest mention only (docs/context.md).
OPTIONAL_STAGES = frozenset({"measurements", "nested"})


def blank_english() -> Language:
    """spaCy's blank English with the word tokenizer (token boundaries = match boundaries),
    taking articles up to MAX_ARTICLE_CHARS (no stage is a parser or NER model)."""
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "phenorules.WordTokenizer.v1"}}})
    nlp.max_length = MAX_ARTICLE_CHARS
    return nlp


def stage_plan(
    disable: Iterable[str] = (),
    stage_config: dict[str, dict] | None = None,
    hpo: str | None = None,
    enable: Iterable[str] = (),
    kb: dict | None = None,
) -> list[tuple[str, str, dict]]:
    """(stage, factory, config) for every stage of :data:`STAGES` that runs, in order: all
    but the disabled ones and the :data:`OPTIONAL_STAGES` not enabled.

    Every stage whose factory has a ``kb`` setting gets the same knowledge base config:
    ``kb`` (settings of ``phenorules.KnowledgeBase.v1``, or another registered function
    named by ``"@misc"``) with ``hpo`` as its ontology, so that a stage added to STAGES
    shares it without a change here.
    """
    names = stage_names()
    enabled = set(enable)
    disabled = set(disable) | (OPTIONAL_STAGES - enabled)
    unknown = (disabled | enabled | set(stage_config or {})) - set(names)
    if unknown:
        raise SettingError(f"unknown stage(s) {sorted(unknown)}; stages are {names}")
    if disabled & REQUIRED_STAGES:
        raise SettingError(f"stage(s) {sorted(disabled & REQUIRED_STAGES)} cannot be switched off")
    stage_config = stage_config or {}
    kb_config = {"@misc": KB_FUNCTION, **(kb or {}), **({"hpo": hpo} if hpo else {})}
    plan = []
    for name, factory in STAGES:
        if name in disabled:
            continue
        config = dict(stage_config.get(name, {}))
        if "kb" in Language.get_factory_meta(factory).default_config:
            config["kb"] = dict(kb_config)
        plan.append((name, factory, config))
    return plan


def add_stages(nlp: Language, plan: list[tuple[str, str, dict]]) -> Language:
    """Add the stages of a :func:`stage_plan` to ``nlp``, each a pipe of its own."""
    for name, factory, config in plan:
        nlp.add_pipe(factory, name=name, config=config)
    return nlp


def build_pipeline(
    disable: Iterable[str] = (),
    stage_config: dict[str, dict] | None = None,
    hpo: str | None = None,
    enable: Iterable[str] = (),
    kb: dict | None = None,
) -> Language:
    """A ready nlp with the stages :func:`stage_plan` names."""
    return add_stages(blank_english(), stage_plan(disable, stage_config, hpo, enable, kb))


def stage_names() -> list[str]:
    return [name for name, _ in STAGES]


