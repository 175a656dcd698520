"""Qualified terms: a qualifier next to a matched head that makes a more specific term.

"recurrent [abdominal pain]" is Episodic abdominal pain, "massive [proteinuria]" Heavy
proteinuria, "optic nerve [pallor]" Optic disc pallor, "[ptosis] of both eyes" Bilateral
ptosis: the dictionary finds the head, whose term is an ancestor (or a sibling) of the one
meant. For each mention this stage reads the qualifier written just before it, or just
after it for the post-posed ones (``rules/qualifiers.tsv``: the qualifier, the words a term
label uses for it, recurrent = episodic, upper limb = arm, since birth = congenital, and
its position), and when the qualifier (as written or as an equivalent) with the head is a
term of the lexicon, the mention grows to the longer span with that term; a qualifier that
only restates the head's term ("mild [hypotonia]", "obvious [dysmorphism]") stays out of
the span, as annotators mostly leave it out (docs/context.md). ``more_specific_only`` also
requires the new term to be a descendant of the head's (Optic disc pallor is not one of
Pallor). Provenance: ``qualifier:qualifiers.tsv:<line>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, DocState, placed, working
from ..core.phenotype import Phenotype
from ..core.errors import InputError
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon.tsv import RuleRef, read_rules
from ..kb.ontology import Ontology
from ..kb.resources import data_file
from .knowledge import KB_CONFIG
from .match import RefinesMatches

_NEAR = 40  # characters read before or after a mention for its qualifier
POSITIONS = ("before", "after")  # where the article writes the qualifier: "[before] head [after]"


@dataclass(frozen=True)
class Qualifier:
    written: str  # lower case, a hyphen read as a space ("left sided")
    readings: tuple[tuple[str, RuleRef], ...]  # (the form a term label uses, its row), the written form first


def read_qualifiers(path: Path) -> dict[str, dict[str, Qualifier]]:
    """Position -> qualifier (lower case, a hyphen read as a space: the text may write
    either) -> its readings, from a (qualifier, label form[, position]) TSV; a row without a
    position is a qualifier written before its head."""
    readings: dict[tuple[str, str], list[tuple[str, RuleRef]]] = {}
    rows: set[tuple[str, str, str]] = set()
    for row, ref in read_rules(path, 2):
        number = ref.line
        written, reading = (" ".join(cell.lower().split()) for cell in row[:2])
        position = row[2] if len(row) > 2 and row[2] else POSITIONS[0]
        if position not in POSITIONS:
            raise InputError(f"{path}:{number}: unknown position {position!r}; expected one of {list(POSITIONS)}")
        if (position, written, reading) in rows:
            raise InputError(f"{path}:{number}: {written!r} = {reading!r} is listed twice")
        rows.add((position, written, reading))
        listed = readings.setdefault((position, qualifier_key(written)), [])
        if all(form != reading for form, _ in listed):  # 'early onset' and 'early-onset' = early-onset: the first row
            listed.append((reading, ref))
    out: dict[str, dict[str, Qualifier]] = {position: {} for position in POSITIONS}
    for (position, key), listed in readings.items():
        own = [r for r in listed if qualifier_key(r[0]) == key]
        out[position][key] = Qualifier(key, tuple(own + [r for r in listed if qualifier_key(r[0]) != key]))
    if not readings:
        raise InputError(f"{path}: no qualifier listed")
    return out


def qualifier_key(written: str) -> str:
    """A qualifier as its rows and the text are compared: lower case, hyphens and runs of
    white space one space ('left-sided', 'left sided')."""
    return " ".join(re.split(r"[\s-]+", written.lower().strip()))


@Language.factory("phenorules_qualifiers", default_config={"kb": KB_CONFIG, "qualifiers_file": None, "more_specific_only": False, "spans": True})
def make_qualifiers(nlp: Language, name: str, kb: KnowledgeBase, qualifiers_file: str | None, more_specific_only: bool, spans: bool):
    path = data_file("rules", "qualifiers.tsv", qualifiers_file)
    return placed(Qualifiers(read_qualifiers(path), kb, more_specific_only), spans)


def _alternatives(qualifiers: dict[str, Qualifier]) -> str:
    """A regex alternation of the qualifiers, longest first, spaces matching spaces or hyphens."""
    return "|".join(re.escape(q).replace(r"\ ", r"[\s-]+") for q in sorted(qualifiers, key=len, reverse=True)) or "(?!)"


class Qualifiers(RefinesMatches):
    pieces = LOCAL

    def __init__(self, qualifiers: dict[str, dict[str, Qualifier]], kb: KnowledgeBase, more_specific_only: bool):
        self.qualifiers = qualifiers
        self.kb = kb
        self.more_specific_only = more_specific_only
        # The qualifier ends just before the mention, separated by a space or a hyphen.
        self.qualifier_before = re.compile(rf"(?<![\w-])({_alternatives(qualifiers['before'])})[\s-]+$", re.IGNORECASE)
        # A post-posed qualifier follows the mention after spaces ("[ptosis] of both eyes").
        self.qualifier_after = re.compile(rf"[ \t]+({_alternatives(qualifiers['after'])})(?![\w-])", re.IGNORECASE)

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions, text = state.mentions, state.text
        if not mentions:
            return
        out: list[Phenotype] = []
        previous_end = 0
        for index, mention in enumerate(mentions):
            next_start = mentions[index + 1].start if index + 1 < len(mentions) else len(text)
            grown = self.qualified(doc, state, mention, previous_end, next_start)
            out.append(grown or mention)
            previous_end = max(previous_end, mention.end)
        state.mentions = out

    def qualified(self, doc: Doc, state: DocState, mention: Phenotype, previous_end: int, next_start: int) -> Phenotype | None:
        """The longer mention with the qualified term (a qualifier before the mention tried
        first), or None."""
        if not _one_term(mention.hpo_ids, self.kb.ontology):  # a compound or an unknown phenotype
            return None
        text = state.text
        before = self.qualifier_before.search(text, max(previous_end, mention.start - _NEAR), mention.start)
        if before is not None:
            grown = self.grown(doc, state, mention, "before", before.group(1), before.start(1), mention.end)
            if grown is not None:
                return grown
        after = self.qualifier_after.match(text, mention.end, min(next_start, mention.end + _NEAR))
        if after is not None:
            return self.grown(doc, state, mention, "after", after.group(1), mention.start, after.end(1))
        return None

    def grown(self, doc: Doc, state: DocState, mention: Phenotype, position: str, found: str, start: int, end: int) -> Phenotype | None:
        """The mention from ``start`` to ``end`` with the first term that a reading of the
        qualifier ``found`` makes with the head, or None."""
        ontology = self.kb.ontology
        qualifier = self.qualifiers[position][qualifier_key(found)]
        for reading, ref in qualifier.readings:
            hpo_ids = self.term(f"{reading} {mention.text}")
            if hpo_ids is None or hpo_ids == mention.hpo_ids or not _one_term(hpo_ids, ontology):
                continue
            if self.more_specific_only and not ontology.is_ancestor(mention.hpo_ids[0], hpo_ids[0]):
                continue
            if not state.aligned(doc, start, end):
                return None
            return Phenotype(start, end, state.text[start:end], hpo_ids, ontology.label(hpo_ids), [*mention.provenance, f"qualifier:{ref}"])
        return None


def _one_term(hpo_ids: tuple[str, ...], ontology: Ontology) -> bool:
    """Whether the ids are one term of the ontology (not a compound, not unknown)."""
    return len(hpo_ids) == 1 and hpo_ids[0] in ontology
