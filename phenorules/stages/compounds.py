"""The compound mentions the coordination and predicative stages make: one mention over a
phrase naming several terms, whose ``parts`` hold each term's own extent, in place of the
mentions it covers (:func:`merge`); a coordination's reading (:class:`Reading`), the
phrase read as shared modifier + conjuncts + shared head; and the words both stages read
back from a conjunction or a copula (:func:`unit_pattern`, :func:`unit_ending_at`) and test (:class:`UnitBases`)."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from spacy.tokens import Doc

from ..core.document import DocState
from ..core.intervals import Extents
from ..core.phenotype import Phenotype
from ..kb.lexicon.normalize import grapheme_end
from ..kb.lexicon.tsv import RuleRef
from ..kb.matcher import non_overlapping
from ..kb.word_sets import WordTable
from ..kb.ontology import Ontology


@dataclass(frozen=True)
class Compound:
    start: int  # character offsets of the whole phrase
    end: int
    hpo_ids: tuple[str, ...]
    rule: str
    parts: tuple[tuple[int, int, tuple[str, ...]], ...] = ()  # each term's own extent and ids


@dataclass(frozen=True)
class Reading:
    """One reading of a coordinated phrase: the shared modifier (words before the first
    conjunct), the conjuncts, the shared head (words after the last), as (start, end)
    character extents; the ids of each rebuilt conjunct; the conjunction's rule."""

    modifier: tuple[int, int] | None
    conjuncts: tuple[tuple[int, int], ...]
    head: tuple[int, int] | None
    hpo_ids: tuple[tuple[str, ...], ...]
    kind: str
    ref: RuleRef | None
    number_refs: tuple[RuleRef, ...] = ()  # the ordinals.tsv rows of the numbers written
    unnumbered: bool = False  # a number whose phrase is no term has the term without it

    @property
    def start(self) -> int:
        return (self.modifier or self.conjuncts[0])[0]

    @property
    def end(self) -> int:
        return (self.head or self.conjuncts[-1])[1]

    def compound(self) -> Compound:
        """Each term's own extent is the shortest stretch of text that holds its words."""
        parts = []
        for (start, end), hpo_ids in zip(self.conjuncts, self.hpo_ids):
            parts.append((self.modifier[0] if self.modifier else start, self.head[1] if self.head else end, hpo_ids))
        rule = f"coordination:{self.kind}" + (f":{self.ref}" if self.ref else "") + "".join(f"+{ref}" for ref in self.number_refs)
        rule += ":unnumbered" if self.unnumbered else ""
        return Compound(self.start, self.end, joined(*self.hpo_ids), rule, tuple(parts) if len(parts) > 1 else ())


def joined(*terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms' ids in text order without repeats ('hypo- and hyperpigmentation' is one id)."""
    out: list[str] = []
    for hpo_ids in terms:
        for hpo_id in hpo_ids:
            if hpo_id not in out:
                out.append(hpo_id)
    return tuple(out)


def merge(doc: Doc, state: DocState, compounds: list[Compound], ontology: Ontology) -> list[Phenotype]:
    """The Doc's mentions with the compounds (longest first) in place of the mentions they
    overlap, in text order. A compound and each of its parts end past the combining marks
    of their last letter (read as words, "palate\u0301" ends before its mark), and a
    compound must then start and end at token boundaries. The compounds chosen never
    overlap each other (:func:`~phenorules.kb.matcher.non_overlapping`), and the mentions
    each covers are looked up in an index of the mentions."""
    mentions, text = state.mentions, state.text
    compounds = [
        replace(compound, end=grapheme_end(text, compound.end), parts=tuple((start, grapheme_end(text, end), ids) for start, end, ids in compound.parts))
        for compound in compounds
    ]
    aligned = [compound for compound in compounds if state.aligned(doc, compound.start, compound.end)]
    index = Extents((m.start, m.end) for m in mentions)
    chosen: list[Phenotype] = []
    covered: set[int] = set()
    for compound in non_overlapping(aligned, lambda c: (c.start - c.end, c.start, c.hpo_ids)):
        inside = index.overlapping(compound.start, compound.end)
        provenance = [p for i in inside for p in mentions[i].provenance] + [compound.rule]
        start, end = compound.start, compound.end
        chosen.append(Phenotype(start, end, text[start:end], compound.hpo_ids, ontology.label(compound.hpo_ids), provenance, compound.parts))
        covered.update(inside)
    kept = [m for i, m in enumerate(mentions) if i not in covered]
    return sorted(kept + chosen, key=lambda m: (m.start, m.end))


class UnitBases(dict):
    """(start, end) of a unit -> its base words that are neither function nor suffix
    words, from the text's word table, read when first asked."""

    def __init__(self, table: WordTable, skipped: frozenset[str], base):
        super().__init__()
        self.table, self.skipped, self.base = table, skipped, base

    def __missing__(self, unit: tuple[int, int]) -> list[str | None]:
        starts, skipped, base = self.table.starts, self.skipped, self.base
        words = self[unit] = [base(word) for word in self.table.surfaces[bisect_left(starts, unit[0]) : bisect_left(starts, unit[1])] if word not in skipped]
        return words


def words_of(bases: UnitBases, units: list[tuple[int, int]]) -> list[str | None]:
    """The base words of the units, in their order."""
    return [word for unit in units for word in bases[unit]]


def pairwise_partners(words: list[str | None], partners: dict[str, frozenset[str]]) -> bool:
    """Whether each two different words share an indexed word set (``partners``)."""
    return all(b in partners.get(a, ()) for i, a in enumerate(words) for b in words[i + 1 :] if a != b)


def unit_pattern(joiners: frozenset[str]) -> re.Pattern:
    """A unit: a word, or words joined by one of the ``joiners`` (hyphens, apostrophes), as
    :func:`unit_ending_at` reads one backwards."""
    return re.compile(rf"[^\W_]+(?:[{re.escape(''.join(sorted(joiners)))}][^\W_]+)*")


def unit_ending_at(text: str, begin: int, end: int, joiners: frozenset[str]) -> str | None:
    """The unit (a word, or words joined by one of the ``joiners``: hyphens, apostrophes) of
    ``text[begin:end]`` that ends at ``end``, or None: read backwards from ``end``, not
    searched for from ``begin``; the one a search for the unit from ``begin`` finds there."""
    start = end
    while True:
        while start > begin and text[start - 1].isalnum():
            start -= 1
        if start == end or start - 2 < begin or text[start - 1] not in joiners or not text[start - 2].isalnum():
            break
        start -= 1
    return text[start:end] if start < end else None
