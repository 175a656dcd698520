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
from typing import Iterator

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

    def finditer(self, regex: re.Pattern, scanned: str, lowered: str) -> Iterator[re.Match]:
        """``regex.finditer(scanned)``; ``lowered`` is ``scanned.lower()``, of the same length."""
        where = lowered if self.caseless else scanned
        if not (self.caseless and _ODD_FOLD.search(lowered)):
            if self.starts and (hits := _rare_hits(where, self.starts, _CHARS_PER_START)) is not None:
                return _starting_at(regex, scanned, hits)
            if self.stops is not None and (hits := _rare_hits(where, self.anchors, _CHARS_PER_CHUNK)) is not None:
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


def _rare_hits(text: str, words: tuple[str, ...], chars_per_word: int) -> list[int] | None:
    """Every position where one of ``words`` starts, in order; None if they occur more than
    once per ``chars_per_word`` characters, where scanning the whole text is faster ('he'
    is in every 'the')."""
    budget = len(text) // chars_per_word
    hits = []
    for word in words:
        position = text.find(word)
        while position >= 0:
            if len(hits) == budget:
                return None
            hits.append(position)
            position = text.find(word, position + 1)
    return sorted(set(hits))


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
