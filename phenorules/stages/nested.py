"""Nested terms: the terms written inside a longer mention, as mentions of their own.

Concept-recognition corpora such as GSC+ (Lobo et al. 2017, "Identifying Human Phenotype
Terms by Combining Machine Learning and Validation Rules") annotate a term nested in a
longer one — "mental retardation" in "severe mental retardation", "ear anomalies" in
"external ear anomalies" — and dictionary annotators that report every match (FastHPOCR,
the NCBO Annotator without ``longest_only``) find them. PatientPheX annotates the longest
mention only, so the stage is optional (``--enable nested``). Every dictionary hit that
lies inside a mention, is shorter than it and names other ids becomes a mention with the
hit's lexicon provenance and ``nested``; a hit already a mention is left alone.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, MentionStage, placed, working
from ..core.phenotype import Phenotype
from ..kb.knowledge_base import KnowledgeBase
from ..kb.matcher import Match
from .knowledge import KB_CONFIG
from .match import matched

NESTED = "nested"


@Language.factory("phenorules_nested", default_config={"kb": KB_CONFIG, "spans": True})
def make_nested(nlp: Language, name: str, kb: KnowledgeBase, spans: bool):
    return placed(NestedTerms(kb), spans)


class NestedTerms(MentionStage):
    pieces = LOCAL

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions = state.mentions
        if not mentions:
            return
        taken = {(mention.start, mention.end) for mention in mentions}
        nested: list[Phenotype] = []
        for outer in mentions:
            for match in self.kb.matcher.candidates(outer.text):
                start, end = outer.start + match.start, outer.start + match.end
                if (start, end) in taken or match.entry.hpo_ids == outer.hpo_ids or not match.entry.hpo_ids:
                    continue
                taken.add((start, end))
                mention = matched(doc, state, Match(start, end, match.entry), self.kb, [NESTED])
                if mention is not None:
                    nested.append(mention)
        if nested:
            state.mentions = sorted(mentions + nested, key=lambda m: (m.start, -m.end))
