"""Numbers in coordinated phrases: the written forms of ``rules/ordinals.tsv`` ("2nd",
"second", "II") and the coordination stage's ordinal readings ("short third and fourth
metatarsals", "syndactyly of the 2nd and 3rd toes", "toes II-IV"), each number's phrase
rebuilt in each of its written forms, a run of numbers also as "N-M"."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..core.errors import InputError
from ..kb.lexicon.tsv import RuleRef, read_rules as read_rule_rows
from .compounds import Reading

_ROMAN = "roman"


@dataclass(frozen=True)
class Ordinals:
    """Written forms of numbers (``rules/ordinals.tsv``): form -> number, number -> forms."""

    numbers: dict[str, int]
    roman: frozenset[str]
    refs: dict[str, RuleRef]

    def number(self, word: str, roman: bool = False) -> int | None:
        word = word.lower()
        if word.isascii() and word.isdigit() and len(word) <= 2:
            return int(word)
        if word in self.roman and not roman:
            return None
        return self.numbers.get(word)

    def forms(self, number: int, written: str | None) -> list[str]:
        """The written form first (if the text has one), then every other form of the number."""
        others = [form for form, n in self.numbers.items() if n == number and form not in self.roman]
        return list(dict.fromkeys([*([written] if written else []), *others, str(number)]))


def read_ordinals(path: Path) -> Ordinals:
    numbers, roman, refs = {}, set(), {}
    for row, ref in read_rule_rows(path, 2):
        if not row[1].isdigit():
            raise InputError(f"{path}:{ref.line}: the number must be written in digits, got {row[1]!r}")
        numbers[row[0].lower()] = int(row[1])
        refs[row[0].lower()] = ref
        if len(row) > 2 and row[2] == _ROMAN:
            roman.add(row[0].lower())
    return Ordinals(numbers, frozenset(roman), refs)


class OrdinalReadings:
    """The coordination stage's ordinal pattern (a mixin of
    :class:`~phenorules.stages.coordination.Coordination`: its ``rules``, ``kb`` and
    :meth:`~phenorules.stages.match.RefinesMatches.phrase_term`)."""

    @cached_property
    def number_partners(self) -> frozenset[str] | None:
        """The words that share an indexed set with some written form of a number (1 to
        99, the ordinals' forms), or None if a form is a function word (which such a
        test does not hold)."""
        word_sets = self.kb.word_sets
        forms = {*self.rules.ordinals.numbers, *map(str, range(100))}
        if forms & (word_sets.function_words | word_sets.suffix_words):
            return None
        base = word_sets.morphology.base
        return frozenset().union(*(word_sets.partners.get(base(form), ()) for form in forms))

    def rebuild_numbers(self, before: str, after: str, written: list[str], extents: tuple, is_range: bool, roman: bool, ref: RuleRef | None) -> Reading | None:
        """The ordinal reading: the numbers as one "N-M" term if the ontology has it, else
        each number (every one of a range) in each of its written forms; ``extents`` are
        the reading's (modifier, conjuncts, head)."""
        modifier, conjuncts, head = extents
        numbers = self.read_numbers(written, is_range, roman)
        if not numbers:
            return None
        number_refs = tuple(dict.fromkeys(r for word in written if (r := self.rules.ordinals.refs.get(word.lower())) is not None))
        # "N-M" stands for every number from N to M: a range, or consecutive numbers ("2 and 3
        # toe syndactyly"), never "1 and 5" (a term of the numbers 1 and 5 is another thing)
        joint = self.phrase_term(f"{before} {numbers[0]}-{numbers[-1]} {after}") if numbers == list(range(numbers[0], numbers[-1] + 1)) else None
        if joint is not None:
            return Reading(modifier, (conjuncts[0], conjuncts[-1]), head, (joint,), "ordinal", ref, number_refs)
        own = {self.rules.ordinals.number(word, roman): word for word in written}
        forms = [self.rules.ordinals.forms(n, own.get(n)) for n in numbers]
        found = [next(filter(None, (self.phrase_term(f"{before} {form} {after}") for form in options)), None) for options in forms]
        if is_range:
            conjuncts = (conjuncts[0],) + (conjuncts[0],) * (len(numbers) - 2) + (conjuncts[-1],)
        unnumbered = self.unnumbered_term(before, after) if None in found else None
        if unnumbered is not None:
            found = [ids or unnumbered for ids in found]
        elif None in found or len(set(found)) < 2:
            return None
        return Reading(modifier, conjuncts, head, tuple(found), "ordinal", ref, number_refs, unnumbered is not None)

    def read_numbers(self, written: list[str], is_range: bool, roman: bool) -> list[int]:
        """The numbers the conjuncts write, every one from the first to the last of a range
        (of ten at most); none if a conjunct is no number ("2nd and X")."""
        numbers = [self.rules.ordinals.number(word, roman) for word in written]
        if None in numbers:
            return []
        if is_range:
            return list(range(numbers[0], numbers[-1] + 1)) if numbers[0] < numbers[-1] <= numbers[0] + 9 else []
        return numbers

    def unnumbered_term(self, before: str, after: str) -> tuple[str, ...] | None:
        """The term of an adjective and its noun around numbers that name no term with
        them ("hypoplastic [3rd through] 5th fingernails": Hypoplastic fingernail for the
        3rd and the 4th), when both are written and are words HPO writes with numbers (the
        :meth:`may_fit` test of an ordinal reading's shared words)."""
        if not (before.strip() and after.strip()):
            return None
        number_partners = self.number_partners
        if number_partners is not None and not all(word in number_partners for word in self.kb.word_sets.content_words(f"{before} {after}")):
            return None
        return self.phrase_term(f"{before} {after}")
