"""Tagging text with the learned lexicon and the rules of ``rules/jnlpba/``.

Stages, each leaving its name in the provenance of what it produced or changed:

1. dictionary: the Aho-Corasick :class:`~phenorules.kb.matcher.PhraseMatcher` over the learned
   lexicon (longest match wins);
2. head words (``head_words.tsv``): a phrase ending in a head word ("... cells",
   "... promoter") is an entity whose left edge is found by extending over learned
   modifiers, adjacent dictionary matches and never-seen symbols; when it is longer than
   the dictionary match there, it wins; the type among the listed ones is chosen by the
   modifiers' training types;
3. right extension: over following words that mostly close multi-word entities;
4. bracketed abbreviations: 'glucocorticoid receptors ( GR )' makes 'GR' a PROTEIN;
5. shapes (``shape_rules.tsv``): a symbol-shaped token nothing else covered.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from phenorules.core.errors import InputError
from phenorules.kb.lexicon import Entry
from phenorules.kb.lexicon.tsv import read_tsv
from phenorules.kb.matcher import PhraseMatcher, non_overlapping

from . import TYPES
from .learn import Modifiers, is_symbol, rule_tokens


@dataclass(frozen=True, order=True)
class Tagged:
    start: int
    end: int
    label: str
    provenance: tuple[str, ...]


@dataclass(frozen=True)
class HeadRule:
    name: str
    words: tuple[str, ...]
    types: tuple[str, ...]


@dataclass(frozen=True)
class ShapeRule:
    name: str
    pattern: re.Pattern
    label: str


def _check_type(label: str, place: str) -> str:
    if label not in TYPES:
        raise InputError(f"{place}: unknown type {label!r}")
    return label


def read_head_rules(path: str | Path) -> tuple[HeadRule, ...]:
    return tuple(
        HeadRule(row[0], tuple(row[1].lower().split()), tuple(_check_type(t, f"{path}:{n}") for t in row[2].split("|")))
        for row, n in read_tsv(path, 3)
    )


def read_shape_rules(path: str | Path) -> tuple[ShapeRule, ...]:
    rules = []
    for row, number in read_tsv(path, 3):
        try:
            pattern = re.compile(row[1])
        except re.error as error:
            raise InputError(f"{path}:{number}: bad regular expression: {error}") from None
        rules.append(ShapeRule(row[0], pattern, _check_type(row[2], f"{path}:{number}")))
    return tuple(rules)


@dataclass(frozen=True)
class TagConfig:
    min_modifier_share: float = 0.2  # a word extends a head phrase leftwards if at least this share of its occurrences is inside multi-word entities
    min_closing_share: float = 0.3  # a word extends an entity rightwards if at least this share of its occurrences closes one
    abbreviations: bool = True
    head_rules: bool = True
    shape_rules: bool = True


class Tagger:
    def __init__(self, matcher: PhraseMatcher, modifiers: Modifiers, heads: tuple[HeadRule, ...], shapes: tuple[ShapeRule, ...], config: TagConfig = TagConfig()):
        self.matcher, self.modifiers, self.heads, self.shapes, self.config = matcher, modifiers, heads, shapes, config

    def __call__(self, text: str) -> list[Tagged]:
        tokens = rule_tokens(text)
        words = [text[s:e].lower() for s, e in tokens]
        found = [Tagged(m.start, m.end, m.entry.hpo_ids[0], (lexicon_provenance(m.entry),)) for m in self.matcher(text)]
        if self.config.head_rules:
            found = resolve(found + self.head_phrases(text, tokens, words, found))
        found = self.extend_right(tokens, words, found)
        if self.config.abbreviations:
            found = sorted(found + self.abbreviations(text, tokens, found))
        if self.config.shape_rules:
            found = sorted(found + self.shape_tokens(text, tokens, found))
        return found

    def head_phrases(self, text: str, tokens: list[tuple[int, int]], words: list[str], found: list[Tagged]) -> list[Tagged]:
        ending_at = {t.end: t for t in found}
        index_of_start = {s: i for i, (s, _) in enumerate(tokens)}
        out = []
        for rule in self.heads:
            n = len(rule.words)
            for i in range(len(words) - n + 1):
                if tuple(words[i : i + n]) != rule.words:
                    continue
                j, parts = i, []
                while j > 0:
                    before = ending_at.get(tokens[j - 1][1])
                    if before is not None and before.start in index_of_start and index_of_start[before.start] < j:
                        j = index_of_start[before.start]
                        parts.extend(before.provenance)
                    elif self.modifiers.share_inside(words[j - 1]) >= self.config.min_modifier_share:
                        j -= 1
                    elif words[j - 1] not in self.modifiers.occurrences and is_symbol(text[slice(*tokens[j - 1])]):
                        j -= 1
                        parts.append("rule:unseen_symbol")
                    else:
                        break
                if j < i:
                    label = self.choose_type(rule.types, words[j:i])
                    out.append(Tagged(tokens[j][0], tokens[i + n - 1][1], label, (f"rule:{rule.name}",) + tuple(parts)))
        return out

    def extend_right(self, tokens: list[tuple[int, int]], words: list[str], found: list[Tagged]) -> list[Tagged]:
        """Extend each entity over following words that mostly close multi-word entities ('IkB' + 'alpha')."""
        index_of_end = {e: i for i, (_, e) in enumerate(tokens)}
        starts = {t.start for t in found}
        out = []
        for tagged in found:
            i = index_of_end.get(tagged.end)
            end = tagged.end
            while i is not None and i + 1 < len(tokens) and tokens[i + 1][0] not in starts:
                if self.modifiers.share_closing(words[i + 1]) < self.config.min_closing_share:
                    break
                i += 1
                end = tokens[i][1]
            if end != tagged.end:
                tagged = Tagged(tagged.start, end, tagged.label, tagged.provenance + ("rule:extend_right",))
            out.append(tagged)
        return out

    def abbreviations(self, text: str, tokens: list[tuple[int, int]], found: list[Tagged]) -> list[Tagged]:
        """'glucocorticoid receptors ( GR )': a symbol in brackets right after an entity is its
        abbreviation, of the same type, here and wherever else it occurs uncovered in the text."""
        index_of_end = {e: i for i, (_, e) in enumerate(tokens)}
        defined: dict[str, Tagged] = {}
        for tagged in found:
            i = index_of_end.get(tagged.end)
            if i is None or i + 3 >= len(tokens):
                continue
            opening, symbol, closing = (text[slice(*tokens[k])] for k in (i + 1, i + 2, i + 3))
            if opening == "(" and closing == ")" and is_symbol(symbol):
                defined.setdefault(symbol, tagged)
        out = []
        for start, end in tokens:
            definition = defined.get(text[start:end])
            if definition is not None and not any(t.start < end and start < t.end for t in found + out):
                out.append(Tagged(start, end, definition.label, ("rule:bracketed_abbreviation", f"defined_by:{text[definition.start:definition.end]}")))
        return out

    def choose_type(self, types: tuple[str, ...], words: list[str]) -> str:
        """Naive Bayes over the modifiers' inside-entity type counts (add-one); ties go to the first type."""
        if len(types) == 1:
            return types[0]

        def log_likelihood(label: str) -> float:
            total = 0.0
            for word in words:
                counts = self.modifiers.type_counts(word)
                total += math.log((counts.get(label, 0) + 1) / (sum(counts.get(t, 0) for t in types) + len(types)))
            return total

        return max(types, key=lambda t: (log_likelihood(t), -types.index(t)))

    def shape_tokens(self, text: str, tokens: list[tuple[int, int]], found: list[Tagged]) -> list[Tagged]:
        out = []
        for start, end in tokens:
            if any(t.start < end and start < t.end for t in found):
                continue
            for rule in self.shapes:
                if rule.pattern.fullmatch(text[start:end]):
                    out.append(Tagged(start, end, rule.label, (f"rule:{rule.name}",)))
                    break
        return out


def lexicon_provenance(entry: Entry) -> str:
    """'lexicon:<learned surface>=<type>|train:<annotated>/<occurrences>[|<variant rules>]'."""
    return f"lexicon:{entry.surface}={entry.hpo_ids[0]}|{entry.provenance}"


def resolve(candidates: list[Tagged]) -> list[Tagged]:
    """Longest first; on an equal span the dictionary (listed first) wins; result in text order."""
    return non_overlapping(candidates, lambda t: (t.start - t.end, t.start))
