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
from spacy.tokens import Doc, Span

from ..core.document import PHENOTYPES, doc_text
from ..kb.knowledge_base import KnowledgeBase
from ..kb.matcher import Match
from .knowledge import KB_CONFIG
from .match import align, annotate

NESTED = "nested"


@Language.factory("phenorules_nested", default_config={"kb": KB_CONFIG})
def make_nested(nlp: Language, name: str, kb: KnowledgeBase):
    return NestedTerms(kb)


class NestedTerms:
    def __init__(self, kb: KnowledgeBase):
        self.kb = kb

    def __call__(self, doc: Doc) -> Doc:
        mentions = list(doc.spans.get(PHENOTYPES, []))
        if not mentions:
            return doc
        text = doc_text(doc)
        taken = {(span.start_char, span.end_char) for span in mentions}
        nested: list[Span] = []
        for outer in mentions:
            for match in self.kb.matcher.candidates(text[outer.start_char:outer.end_char]):
                start, end = outer.start_char + match.start, outer.start_char + match.end
                if (start, end) in taken or match.entry.hpo_ids == outer._.hpo_ids or not match.entry.hpo_ids:
                    continue
                taken.add((start, end))
                span, provenance = align(doc, Match(start, end, match.entry))
                if span is None:
                    continue
                nested.append(annotate(span, match.entry, provenance + [NESTED], self.kb))
        if nested:
            doc.spans[PHENOTYPES] = sorted(mentions + nested, key=lambda s: (s.start_char, -s.end_char))
        return doc
