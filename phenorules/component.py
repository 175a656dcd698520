"""The whole phenotype stage chain as one spaCy component, for anyone's pipeline.

``nlp.add_pipe("phenorules")`` on any English pipeline (spaCy's own tokenizer included)
runs every stage of :data:`phenorules.pipeline.STAGES` in order, with the same settings as
``build_pipeline``: the ontology, stage switches and per-stage overrides are component
config, so ``nlp.config``, ``nlp.to_disk`` and ``spacy.load`` keep them. Phenotypes end up
in ``doc.spans["phenotypes"]`` (all of them, with their extensions) and in ``doc.ents``
(the non-overlapping ones, label PHENOTYPE), which displaCy shows.
"""

from __future__ import annotations

from typing import Callable

from spacy.language import Language
from spacy.tokens import Doc

from .document import PASSAGES, PHENOTYPES, add_text_passage, non_overlapping
from .pipeline import stage_plan
from .stages.match import RefinesMatches

# A stage that is skipped when the Doc already has its annotation from the user's own
# pipeline (a parser or sentencizer sets sentence starts).
PROVIDED_BY_USER = {"sentences": "SENT_START"}


@Language.factory("phenorules", default_config={"hpo": None, "disable": [], "enable": [], "stages": {}})
def make_phenorules(nlp: Language, name: str, hpo: str | None, disable: list[str], enable: list[str], stages: dict[str, dict]):
    components = [
        (stage, nlp.create_pipe(factory, name=stage, config=config))
        for stage, factory, config in stage_plan(disable, stages, hpo, enable)
    ]
    match = dict(components)["match"]
    for _, component in components:
        if isinstance(component, RefinesMatches):
            component.source = match  # the chain's match stage, whatever its lexicon settings
    return PhenotypeChain(components)


class PhenotypeChain:
    def __init__(self, components: list[tuple[str, Callable[[Doc], Doc]]]):
        self.components = components

    def __call__(self, doc: Doc) -> Doc:
        if PASSAGES not in doc.spans:
            add_text_passage(doc)
        if doc._.patients is None:
            doc._.patients = []
        for stage, component in self.components:
            annotation = PROVIDED_BY_USER.get(stage)
            if annotation and doc.has_annotation(annotation):
                continue
            doc = component(doc)
        set_entities(doc)
        return doc


def set_entities(doc: Doc) -> None:
    """Phenotypes become ``doc.ents``; the Doc's other entities stay where none overlaps."""
    phenotypes = non_overlapping(doc.spans[PHENOTYPES])
    taken = {i for span in phenotypes for i in range(span.start, span.end)}
    others = [ent for ent in doc.ents if taken.isdisjoint(range(ent.start, ent.end))]
    doc.ents = sorted(phenotypes + others, key=lambda span: span.start)
