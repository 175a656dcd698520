"""Scanning a text with a regex only where it can match, with the same matches as ``finditer``.

Python's re tries a pattern that starts with a word boundary or a look-behind at every
position of the text, which is slow. A row of ``rules/patient_mentions.tsv`` declares, beside
its pattern, *start words*, literal strings one of which every match starts with ('the',
'our', ... for "the patient"), *anchors*, literal strings one of which every match contains
(the kinship words of the kinship pattern), and the characters the pattern and its
look-arounds can *read*: every other character (most punctuation for most patterns) is a
*stop*, which no match crosses. The regex is then tried only where a start word is, or
else only in the chunks between stops that hold an anchor. Where the words are too
frequent to pay, the text is scanned in full.

The words of a pattern that ignores case are looked up, lower-cased, in the lower-cased
text, which holds an ASCII letter wherever the pattern can match one in either case,
except at 'ı' and 'ſ' (which match 'i' and 's' case-insensitively but are their own
lower case): texts with those are scanned in full."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

import ahocorasick

# Measured: below these densities of start and anchor words prefiltering is faster.
_CHARS_PER_START = 20
_CHARS_PER_CHUNK = 150
# A non-ASCII character the lower-cased text keeps although it matches an ASCII letter
# case-insensitively.
_ODD_FOLD = re.compile(r"(?-i:[^\x00-\x7f])(?<=[a-z])", re.IGNORECASE)


@dataclass(frozen=True)
class Prefilter:
    """Where a regex can match: at one of ``starts``, or in a chunk (between two ``stops``)
    with one of ``anchors``. Empty or None where the pattern declares none."""

    starts: tuple[str, ...]
    anchors: tuple[str, ...]
    stops: re.Pattern | None
    caseless: bool  # the pattern ignores case somewhere: the words are looked up lower-cased

    def finditer(self, regex: re.Pattern, scanned: str, lowered: str, found: "Occurrences") -> Iterator[re.Match]:
        """``regex.finditer(scanned)``; ``lowered`` is ``scanned.lower()``, of the same length;
        ``found``: where this prefilter's words occur (:class:`WordScan`)."""
        if not (self.caseless and _ODD_FOLD.search(lowered)):
            if self.starts and (hits := _rare(found.starts, len(scanned) // _CHARS_PER_START)) is not None:
                return _starting_at(regex, scanned, hits)
            if self.stops is not None and (hits := _rare(found.anchors, len(scanned) // _CHARS_PER_CHUNK)) is not None:
                return _in_chunks(regex, scanned, self.stops, hits)
        return regex.finditer(scanned)


def prefilter(regex: re.Pattern, starts: tuple[str, ...], anchors: tuple[str, ...], reads: str | None) -> Prefilter | None:
    """The prefilter of a pattern from its declared words; ``reads`` is the body of a
    character class of all it can read (None: any character, so no chunks). None when
    nothing is declared."""
    if not starts and not (anchors and reads is not None):
        return None
    caseless = bool(regex.flags & re.IGNORECASE) or "(?i" in regex.pattern
    if caseless:
        starts, anchors = tuple(word.lower() for word in starts), tuple(word.lower() for word in anchors)
    stops = None if reads is None or not anchors else re.compile(f"[^{reads}]")
    return Prefilter(starts, anchors, stops, caseless)


def _rare(hits: list[int], budget: int) -> list[int] | None:
    """The positions ``hits`` (one per occurrence of a word), in order and each once; None
    if there are more than ``budget`` of them, where scanning the whole text is faster ('he'
    is in every 'the')."""
    return None if len(hits) > budget else sorted(set(hits))


class Occurrences(NamedTuple):
    """Where a prefilter's start words and anchors occur in one text: a position per
    occurrence of each word."""

    starts: list[int]
    anchors: list[int]


class WordScan:
    """Every prefilter's start words and anchors, found in a text in one Aho-Corasick pass
    over its lower-cased form (the words of the patterns that ignore case or scan that form)
    and one over the text itself (the others'), instead of a search per word and pattern."""

    def __init__(self, prefilters: Sequence[tuple[Prefilter | None, bool]]):
        """``prefilters``: each with whether its pattern scans the lower-cased text."""
        self.count = len(prefilters)
        self.automata: dict[bool, ahocorasick.Automaton] = {}
        keys: dict[bool, dict[str, list[tuple[int, bool]]]] = {True: {}, False: {}}
        for index, (found, scans_lowered) in enumerate(prefilters):
            if found is None:
                continue
            for is_start, words in ((True, found.starts), (False, found.anchors if found.stops is not None else ())):
                for word in words:
                    keys[found.caseless or scans_lowered].setdefault(word, []).append((index, is_start))
        for lowered, by_word in keys.items():
            if by_word:
                automaton = ahocorasick.Automaton()
                for word, owners in by_word.items():
                    automaton.add_word(word, (len(word), tuple(owners)))
                automaton.make_automaton()
                self.automata[lowered] = automaton

    def __call__(self, text: str, lowered: str) -> list[Occurrences]:
        """Per prefilter, in the order given: where its words occur."""
        found = [Occurrences([], []) for _ in range(self.count)]
        for in_lowered, automaton in self.automata.items():
            for last, (length, owners) in automaton.iter(lowered if in_lowered else text):
                position = last - length + 1
                for index, is_start in owners:
                    (found[index].starts if is_start else found[index].anchors).append(position)
        return found


def _starting_at(regex: re.Pattern, scanned: str, hits: list[int]) -> Iterator[re.Match]:
    """finditer's matches when every match starts at one of ``hits``."""
    end = 0
    for hit in hits:
        if hit >= end and (match := regex.match(scanned, hit)):
            end = match.end()
            yield match


def _in_chunks(regex: re.Pattern, scanned: str, stops: re.Pattern, hits: list[int]) -> Iterator[re.Match]:
    """finditer's matches when every match lies in a chunk without ``stops`` around a hit."""
    size, reverse, end = len(scanned), scanned[::-1], 0
    for hit in hits:
        if hit < end:
            continue
        before = stops.search(reverse, size - hit)
        after = stops.search(scanned, hit)
        end = after.start() if after else size
        yield from regex.finditer(scanned, size - before.start() if before else 0, end)
