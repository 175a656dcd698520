"""Annotation scope: mentions in passages the annotators leave unannotated are dropped.

``rules/unannotated_passages.tsv`` lists passage types (the ``type`` of a PatientPheX
passage: ``table_caption``, ...) in which the annotated articles hold no mention although
the dictionary finds terms there; a mention that starts in such a passage is removed before
negation and attribution. Removal makes no entity, so there is no provenance to add; the
file row is the reason (docs/context.md, "Annotation scope").
"""

from __future__ import annotations

from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..document import PASSAGES, PHENOTYPES
from ..errors import InputError
from ..lexicon.tsv import read_tsv
from ..resources import data_dir


def read_passage_types(path: Path) -> frozenset[str]:
    """The passage types of a (passage type, why) TSV."""
    types = frozenset(row[0] for row, _ in read_tsv(path, 2))
    if not types:
        raise InputError(f"{path}: no passage type listed")
    return types


@Language.factory("phenorules_scope", default_config={"passages_file": None})
def make_scope(nlp: Language, name: str, passages_file: str | None):
    path = Path(passages_file) if passages_file else data_dir("rules") / "unannotated_passages.tsv"
    return Scope(read_passage_types(path))


class Scope:
    def __init__(self, passage_types: frozenset[str]):
        self.passage_types = passage_types

    def __call__(self, doc: Doc) -> Doc:
        outside = [(p.start_char, p.end_char) for p in doc.spans.get(PASSAGES, []) if p._.passage_type in self.passage_types]
        if outside and PHENOTYPES in doc.spans:
            doc.spans[PHENOTYPES] = [s for s in doc.spans[PHENOTYPES] if not any(a <= s.start_char < b for a, b in outside)]
        return doc
