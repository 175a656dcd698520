"""The assertion stage's data: ConText trigger rows (``rules/context_rules.tsv``) and the
scope phrases (``rules/assertion_scope.tsv``), each read by the one rule loader."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from pathlib import Path

from ..core.errors import InputError
from ..core.patterns import LocatedPattern, located
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules, read_rules

CATEGORIES = ("NEGATED_EXISTENCE", "POSSIBLE_EXISTENCE", "HYPOTHETICAL", "HISTORICAL", "FAMILY")
# The Span attribute each category sets: medspaCy's names.
FLAGS = {
    "NEGATED_EXISTENCE": "is_negated",
    "POSSIBLE_EXISTENCE": "is_uncertain",
    "HYPOTHETICAL": "is_hypothetical",
    "HISTORICAL": "is_historical",
    "FAMILY": "is_family",
}
DIRECTIONS = ("forward", "backward", "bidirectional", "terminate", "pseudo", "section")
SCOPE_KINDS = ("own_case", "list_opener", "scope_break")
_NUMBER = "#"  # in an own-case reference: any number ("patient #" = "patient 2")
_ALTERNATIVES = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class ContextRule:
    """One trigger row: the cue phrases it stands for (its alternatives spelt out), what it
    asserts, which way it looks, and how many words it reaches (None: the stage's window)."""

    phrases: tuple[str, ...]
    category: str
    direction: str
    max_scope: int | None
    ref: RuleRef


def expand(cue: str) -> tuple[str, ...]:
    """Every phrase a cue with ``{a|b|}`` alternatives stands for, lower case, single spaces."""
    parts = _ALTERNATIVES.split(cue)
    literals, choices = parts[0::2], [group.split("|") for group in parts[1::2]]
    phrases = dict.fromkeys(
        " ".join((literals[0] + "".join(choice + literal for choice, literal in zip(chosen, literals[1:]))).lower().split()) for chosen in product(*choices)
    )
    return tuple(phrase for phrase in phrases if phrase)


def read_context_rules(path: Path) -> list[ContextRule]:
    """The rows of a (cue, category, direction[, max_scope]) TSV; a bad cell is an error
    naming its line."""
    rules = []
    for row, ref in read_rules(path, 3):
        cue, category, direction = row[:3]
        if category not in CATEGORIES:
            raise InputError(f"{path}:{ref.line}: unknown category {category!r}; expected one of {list(CATEGORIES)}")
        if direction not in DIRECTIONS:
            raise InputError(f"{path}:{ref.line}: unknown direction {direction!r}; expected one of {list(DIRECTIONS)}")
        scope = row[3] if len(row) > 3 else ""
        if scope and not (scope.isdigit() and int(scope) > 0):
            raise InputError(f"{path}:{ref.line}: max_scope {scope!r} is not a positive number of words")
        if "{" in _ALTERNATIVES.sub("", cue) or "}" in _ALTERNATIVES.sub("", cue):
            raise InputError(f"{path}:{ref.line}: unbalanced braces in cue {cue!r}")
        rules.append(ContextRule(expand(cue), category, direction, int(scope) if scope else None, ref))
    return rules


@dataclass(frozen=True)
class ScopeRules:
    own_case: re.Pattern | LocatedPattern  # a sentence about the article's own cases
    list_openers: re.Pattern | LocatedPattern  # "such as": not counted in a window
    own_case_rows: tuple[tuple[re.Pattern, RuleRef], ...] = ()  # each own-case phrase and its row
    breaks: re.Pattern | LocatedPattern = re.compile("(?!)")  # where every scope ends inside a sentence: an inline header

    def own_case_row(self, found: re.Match) -> RuleRef | None:
        """The row of the own-case phrase ``own_case`` found."""
        return next((ref for pattern, ref in self.own_case_rows if pattern.fullmatch(found.group())), None)


def phrases_regex(phrases: list[str]) -> str:
    """One regex (to ignore case with) for whole-word phrases, longest first; '#' is any number."""
    alternatives = [re.escape(p.lower()).replace(r"\ ", r"\s+").replace(re.escape(_NUMBER), r"\d+") for p in sorted(phrases, key=len, reverse=True)]
    return rf"\b(?:{'|'.join(alternatives) or '(?!)'})\b"


def read_scope_rules(path: Path) -> ScopeRules:
    grouped = read_grouped_rules(path, SCOPE_KINDS)
    return ScopeRules(
        located(phrases_regex([ref.name for ref in grouped["own_case"]]), re.IGNORECASE),
        located(phrases_regex([ref.name for ref in grouped["list_opener"]]), re.IGNORECASE),
        tuple((re.compile(phrases_regex([ref.name]), re.IGNORECASE), ref) for ref in grouped["own_case"]),  # fullmatch only
        located("|".join(f"(?:{checked_regex(path, ref)})" for ref in grouped["scope_break"]) or "(?!)"),
    )


def checked_regex(path: Path, ref: RuleRef) -> str:
    """A row's regex, refused with its line if it does not compile."""
    try:
        re.compile(ref.name)
    except re.error as error:
        raise InputError(f"{path}:{ref.line}: {ref.name!r} is no regular expression: {error}") from None
    return ref.name
