"""Qualified terms: a qualifier before a matched head that makes a more specific term.

"recurrent [abdominal pain]" is Episodic abdominal pain, "massive [proteinuria]" Heavy
proteinuria, "optic nerve [pallor]" Optic disc pallor: the dictionary finds the head,
whose term is an ancestor (or a sibling) of the one meant. For each mention this stage
reads the qualifier written just before it (``rules/qualifiers.tsv``: the qualifier and
the words a term label uses for it, recurrent = episodic, upper limb = arm), and when the
qualifier (as written or as an equivalent) with the head is a term of the lexicon, the
mention grows to the longer span with that term; a qualifier that only restates the
head's term ("mild [hypotonia]", "obvious [dysmorphism]") stays out of the span, as
annotators mostly leave it out (docs/context.md). ``more_specific_only`` also requires
the new term to be a descendant of the head's (Optic disc pallor is not one of Pallor).
Provenance: ``qualifier:qualifiers.tsv:<line>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PHENOTYPE_LABEL, PHENOTYPES, doc_text
from ..errors import InputError
from ..knowledge_base import KnowledgeBase
from ..lexicon.tsv import read_tsv
from ..resources import data_dir
from .knowledge import KB_CONFIG
from .match import RefinesMatches

_BEFORE = 40  # characters read before a mention for its qualifier


@dataclass(frozen=True)
class Qualifier:
    written: str  # lower case, as the article writes it
    readings: tuple[tuple[str, int], ...]  # (the form a term label uses, line), the written form first


def read_qualifiers(path: Path) -> dict[str, Qualifier]:
    """Qualifier (lower case) -> its readings, from a (qualifier, label form) TSV."""
    readings: dict[str, list[tuple[str, int]]] = {}
    for row, number in read_tsv(path, 2):
        written, reading = (" ".join(cell.lower().split()) for cell in row[:2])
        listed = readings.setdefault(written, [])
        if any(form == reading for form, _ in listed):
            raise InputError(f"{path}:{number}: {written!r} = {reading!r} is listed twice")
        listed.append((reading, number))
    out = {}
    for written, listed in readings.items():
        own = [r for r in listed if r[0] == written]
        out[written] = Qualifier(written, tuple(own + [r for r in listed if r[0] != written]))
    if not out:
        raise InputError(f"{path}: no qualifier listed")
    return out


@Language.factory("phenorules_qualifiers", default_config={"kb": KB_CONFIG, "qualifiers_file": None, "more_specific_only": False})
def make_qualifiers(nlp: Language, name: str, kb: KnowledgeBase, qualifiers_file: str | None, more_specific_only: bool):
    path = Path(qualifiers_file) if qualifiers_file else data_dir("rules") / "qualifiers.tsv"
    return Qualifiers(read_qualifiers(path), path.name, kb, more_specific_only)


class Qualifiers(RefinesMatches):
    def __init__(self, qualifiers: dict[str, Qualifier], file_name: str, kb: KnowledgeBase, more_specific_only: bool):
        self.qualifiers = qualifiers
        self.file_name = file_name
        self.kb = kb
        self.more_specific_only = more_specific_only
        alternatives = "|".join(re.escape(q).replace(r"\ ", r"[\s-]+") for q in sorted(qualifiers, key=len, reverse=True))
        # The qualifier ends just before the mention, separated by a space or a hyphen.
        self.qualifier_before = re.compile(rf"(?<![\w-])({alternatives})[\s-]+$", re.IGNORECASE)

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(PHENOTYPES, []))
        if not spans:
            return doc
        text = doc_text(doc)
        out: list[Span] = []
        previous_end = 0
        for span in spans:
            grown = self.qualified(doc, text, span, previous_end)
            out.append(grown or span)
            previous_end = max(previous_end, span.end_char)
        doc.spans[PHENOTYPES] = out
        return doc

    def qualified(self, doc: Doc, text: str, span: Span, previous_end: int) -> Span | None:
        """The longer span with the qualified term, or None."""
        ontology = self.kb.ontology
        if span._.hpo_id not in ontology:  # a compound or an unknown (-1) phenotype
            return None
        start = max(previous_end, span.start_char - _BEFORE)
        found = self.qualifier_before.search(text, start, span.start_char)
        if found is None:
            return None
        qualifier = self.qualifiers[" ".join(re.split(r"[\s-]+", found.group(1).lower()))]
        head = text[span.start_char : span.end_char]
        for reading, line in qualifier.readings:
            hpo_id = self.term(f"{reading} {head}")
            if hpo_id is None or hpo_id == span._.hpo_id or hpo_id not in ontology:
                continue
            if self.more_specific_only and not ontology.is_ancestor(span._.hpo_id, hpo_id):
                continue
            grown = doc.char_span(found.start(1), span.end_char, label=PHENOTYPE_LABEL)
            if grown is None:
                return None
            grown._.hpo_id = hpo_id
            grown._.hpo_label = self.kb.label(hpo_id)
            grown._.provenance = [*(span._.provenance or []), f"qualifier:{self.file_name}:{line}"]
            return grown
        return None
