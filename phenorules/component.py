"""phenorules in anyone's English pipeline: its stages as pipes of their own, in one call.

``nlp.add_pipe("phenorules")`` (or :func:`add_pipes`) adds every stage of
:data:`phenorules.pipeline.STAGES` that runs with these settings, each under its stage name
(``nlp.pipe_names``, ``nlp.select_pipes`` see them), and then the ``phenorules`` component
itself, which puts the phenotypes in ``doc.ents`` (the non-overlapping ones, label
PHENOTYPE) beside ``doc.spans["phenotypes"]`` (all of them, with their extensions). The
ontology, stage switches, stage settings and knowledge base settings are config, so
``nlp.config``, ``nlp.to_disk`` and ``spacy.load`` keep them: a stage already in the
pipeline (as when ``spacy.load`` rebuilds it from its config) is not added again, nor the
sentences stage to a pipeline that already sets sentences (a parser, a sentencizer).
"""

from __future__ import annotations

from typing import Iterable

from spacy.language import Language
from spacy.tokens import Doc

from .document import PHENOTYPES, non_overlapping
from .pipeline import add_stages, stage_plan
from .profiles import GENERAL
from .stages.knowledge import KB_FUNCTION

NIL = "NIL"  # spaCy's EntityLinker id of a mention with no knowledge base entry
SENTENCE_ANNOTATIONS = frozenset({"token.is_sent_start", "doc.sents"})


@Language.factory(
    "phenorules",
    default_config={"hpo": None, "disable": [], "enable": [], "stages": {}, "kb": {}, "kb_function": KB_FUNCTION, "profile": GENERAL},
)
def make_phenorules(
    nlp: Language, name: str, hpo: str | None, disable: list[str], enable: list[str], stages: dict[str, dict], kb: dict, kb_function: str, profile: str
):
    """``kb`` holds the settings of the registered function ``kb_function`` (kept apart:
    spaCy would resolve a ``"@misc"`` reference here, and the stages need the config);
    ``profile`` names the annotation conventions of ``rules/profiles.tsv`` (``general``:
    every use of a defined short form, every passage)."""
    plan = stage_plan(disable, stages, hpo, enable, {**kb, "@misc": kb_function}, profile)
    present = set(nlp.component_names)
    if sets_sentences(nlp):
        present.add("sentences")
    add_stages(nlp, [step for step in plan if step[0] not in present])
    return PhenotypeEntities()


def add_pipes(
    nlp: Language,
    hpo: str | None = None,
    disable: Iterable[str] = (),
    enable: Iterable[str] = (),
    stages: dict[str, dict] | None = None,
    kb: dict | None = None,
    profile: str = GENERAL,
) -> list[str]:
    """Add phenorules' stages and the ``phenorules`` component to ``nlp``; the names added.

    ``kb``: settings of ``phenorules.KnowledgeBase.v1``, or ``{"@misc": NAME, ...}`` for
    another function registered in ``spacy.registry.misc`` that returns a knowledge base.
    """
    before = list(nlp.component_names)
    settings = dict(kb or {})
    kb_function = settings.pop("@misc", KB_FUNCTION)
    config = {"hpo": hpo, "disable": list(disable), "enable": list(enable), "stages": stages or {}, "kb": settings, "kb_function": kb_function, "profile": profile}
    nlp.add_pipe("phenorules", config=config)
    return [name for name in nlp.component_names if name not in before]


def sets_sentences(nlp: Language) -> bool:
    """Whether a component of ``nlp`` already sets sentence starts."""
    return any(SENTENCE_ANNOTATIONS & set(nlp.get_pipe_meta(name).assigns) for name in nlp.component_names)


class PhenotypeEntities:
    """Phenotypes become ``doc.ents``; the Doc's other entities stay where none overlaps.

    Every phenotype's ``kb_id_`` is its first HPO id, where spaCy's ``EntityLinker`` puts
    the linked id and displaCy's ``kb_url_template`` reads it; ``NIL`` (the
    ``EntityLinker``'s id for no entry) when no HPO term fits."""

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(PHENOTYPES, []))
        for span in spans:
            span.kb_id_ = span._.hpo_ids[0] if span._.hpo_ids else NIL
        if PHENOTYPES in doc.spans:
            doc.spans[PHENOTYPES] = spans
        phenotypes = non_overlapping(spans)
        taken = {i for span in phenotypes for i in range(span.start, span.end)}
        others = [ent for ent in doc.ents if taken.isdisjoint(range(ent.start, ent.end))]
        doc.ents = sorted(phenotypes + others, key=lambda span: span.start)
        return doc
