"""Annotation scope: mentions in passages the annotators leave unannotated are dropped.

``rules/unannotated_passages.tsv`` lists passage types (the ``type`` of a PatientPheX
passage: ``table_caption``, ...) in which the annotated articles hold no mention although
the dictionary finds terms there; a mention that starts in such a passage is removed before
negation and attribution. Removal makes no entity: the Doc records the dropped mention with
the file row (``doc._.dropped``, ``scope:unannotated_passages.tsv:3``; docs/context.md,
"Annotation scope").
"""

from __future__ import annotations

from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, MentionStage, placed, working
from ..core.errors import InputError
from ..core.intervals import Extents
from ..kb.lexicon.tsv import RuleRef, read_rules
from ..kb.resources import data_file


def read_passage_types(path: Path) -> dict[str, RuleRef]:
    """The passage types of a (passage type, why) TSV, each with its (first) row."""
    types: dict[str, RuleRef] = {}
    for row, ref in read_rules(path, 2):
        types.setdefault(row[0], ref)
    if not types:
        raise InputError(f"{path}: no passage type listed")
    return types


@Language.factory("phenorules_scope", default_config={"passages_file": None, "spans": True})
def make_scope(nlp: Language, name: str, passages_file: str | None, spans: bool):
    path = data_file("rules", "unannotated_passages.tsv", passages_file)
    return placed(Scope(read_passage_types(path)), spans)


class Scope(MentionStage):
    pieces = LOCAL

    def __init__(self, passage_types: dict[str, RuleRef]):
        self.passage_types = passage_types

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        outside = [(start, end, self.passage_types[kind]) for start, end, _, kind in state.passages(doc) if kind in self.passage_types]
        if outside:
            passages = Extents((a, b) for a, b, _ in outside)
            kept = []
            for mention in state.mentions:
                holding = passages.overlapping(mention.start, mention.start + 1)  # the passages it starts in
                if not holding:
                    kept.append(mention)
                else:
                    state.drop(mention, f"scope:{outside[holding[0]][2]}")
            state.mentions = kept
