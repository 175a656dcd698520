"""Scanning a text with a regex only where it can match, with the same matches as ``finditer``.

Python's re tries a pattern that starts with a word boundary or a look-behind at every
position of the text, which is slow. From the pattern's parse tree come *start words*,
literal strings one of which every match starts with ('the', 'our', ... for "the
patient"), and *anchors*, literal strings one of which every match contains (the kinship
words of the kinship pattern), with *stop characters*: non-word characters that neither
the match nor its look-arounds can ever read (most punctuation for most patterns). So the
regex is tried only where a start word is, or else only in the chunks between stop
characters (no match crosses one) that hold an anchor. Where the words are too frequent
to pay, or the analysis does not understand the pattern, the text is scanned in full.

The words of a pattern that ignores case are looked up, lower-cased, in the lower-cased
text, which holds an ASCII letter wherever the pattern can match one in either case,
except at 'ı' and 'ſ' (which match 'i' and 's' case-insensitively but are their own
lower case): texts with those are scanned in full."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from typing import Iterator

try:
    from re import _constants as sre, _parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

_MAX_WORDS = 64
# Measured: below these densities of start and anchor words prefiltering is faster.
_CHARS_PER_START = 20
_CHARS_PER_CHUNK = 150
_NEUTRAL = frozenset({""})  # what a zero-width item adds to a literal run
_BOUNDARIES = {sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY, sre.AT_UNI_BOUNDARY, sre.AT_UNI_NON_BOUNDARY}
_SPACE = {sre.CATEGORY_SPACE, sre.CATEGORY_UNI_SPACE}
_WORDLIKE = {sre.CATEGORY_DIGIT, sre.CATEGORY_UNI_DIGIT, sre.CATEGORY_WORD, sre.CATEGORY_UNI_WORD}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT}
# A non-ASCII character the lower-cased text keeps although it matches an ASCII letter
# case-insensitively.
_ODD_FOLD = re.compile(r"(?-i:[^\x00-\x7f])(?<=[a-z])", re.IGNORECASE)


@dataclass(frozen=True)
class Prefilter:
    """Where a regex can match: at one of ``starts``, or in a chunk (between two ``stops``)
    with one of ``anchors``. Empty or None where the pattern gives none."""

    starts: tuple[str, ...]
    anchors: tuple[str, ...]
    stops: re.Pattern | None
    caseless: bool  # the pattern ignores case somewhere: the words are lower-cased

    def finditer(self, regex: re.Pattern, scanned: str, lowered: str) -> Iterator[re.Match]:
        """``regex.finditer(scanned)``; ``lowered`` is ``scanned.lower()``, of the same length."""
        where = lowered if self.caseless else scanned
        if not (self.caseless and _ODD_FOLD.search(lowered)):
            if self.starts and (hits := _rare_hits(where, self.starts, _CHARS_PER_START)) is not None:
                return _starting_at(regex, scanned, hits)
            if self.stops is not None and (hits := _rare_hits(where, self.anchors, _CHARS_PER_CHUNK)) is not None:
                return _in_chunks(regex, scanned, self.stops, hits)
        return regex.finditer(scanned)


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


def prefilter(pattern: str) -> Prefilter | None:
    """The prefilter of a pattern, None when none can be derived (or it matches empty text)."""
    parsed = sre_parse.parse(pattern)
    if parsed.getwidth()[0] == 0:
        return None
    ignorecase = bool(parsed.state.flags & sre.SRE_FLAG_IGNORECASE)
    starts = _prefix(list(parsed), ignorecase) or frozenset()
    anchors = _required(list(parsed), ignorecase) or frozenset()
    readable = _readable(list(parsed), ignorecase) if anchors else None
    if not starts and readable is None:
        return None
    stops = None if readable is None else re.compile("[^\\w" + "".join(sorted(set(readable))) + "]")
    if not _caseless(list(parsed), ignorecase):
        return Prefilter(_fewest(starts, str.startswith), _fewest(anchors, str.__contains__), stops, False)
    lower = {word.lower() for word in starts}, {word.lower() for word in anchors}
    return Prefilter(_fewest(lower[0], str.startswith), _fewest(lower[1], str.__contains__), stops, True)


def _fewest(words: set[str] | frozenset[str], covers) -> tuple[str, ...]:
    """The words not ``covers``-ed by another ('her' starts with 'he', 'grandfather'
    contains 'father'): wherever one of those is, one of these is too."""
    return tuple(sorted(w for w in words if not any(v != w and covers(w, v) for v in words)))


def _caseless(items: list, ignorecase: bool) -> bool:
    """Whether any part of a sequence ignores case."""
    return ignorecase or any(_caseless(body, flag) for op, av in items for body, flag in _inner(op, av, ignorecase) or ())


def _flags(av: tuple, ignorecase: bool) -> bool:
    """Whether a (?flags:...) group's body is case-insensitive."""
    _, add, remove, _ = av
    return bool((ignorecase or add & sre.SRE_FLAG_IGNORECASE) and not remove & sre.SRE_FLAG_IGNORECASE)


def _exact(items: list, ignorecase: bool) -> frozenset[str] | None:
    """The ASCII strings a sequence matches, if it matches only a few fixed ones."""
    found = _NEUTRAL
    for op, av in items:
        strings = _exact_item(op, av, ignorecase)
        if strings is None or len(found) * len(strings) > _MAX_WORDS:
            return None
        found = frozenset(a + b for a, b in product(found, strings))
    return found


def _exact_item(op, av, ignorecase: bool) -> frozenset[str] | None:
    if op is sre.LITERAL:
        return frozenset({chr(av)}) if chr(av).isascii() else None
    if op is sre.IN and all(kind is sre.LITERAL and chr(code).isascii() for kind, code in av):
        return frozenset(chr(code) for _, code in av)
    if op is sre.SUBPATTERN:
        return _exact(list(av[3]), _flags(av, ignorecase))
    if op is sre.BRANCH:
        return _union(_exact(list(branch), ignorecase) for branch in av[1])
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return _NEUTRAL
    return None


def _prefix(items: list, ignorecase: bool) -> frozenset[str] | None:
    """Non-empty strings one of which every match of a sequence starts with."""
    found = _NEUTRAL
    for op, av in items:
        exact = _exact_item(op, av, ignorecase)
        strings = exact if exact is not None else _inside(op, av, ignorecase, _prefix)
        if strings is None or len(found) * len(strings) > _MAX_WORDS:
            break
        found = frozenset(a + b for a, b in product(found, strings))
        if exact is None:
            break
    return None if "" in found else found


def _inside(op, av, ignorecase: bool, of) -> frozenset[str] | None:
    """What ``of`` (:func:`_prefix` or :func:`_required`) finds for one group, alternation
    or repeat taken at least once; None for any other item."""
    if op is sre.SUBPATTERN:
        return of(list(av[3]), _flags(av, ignorecase))
    if op is sre.BRANCH:
        return _union(of(list(branch), ignorecase) for branch in av[1])
    if op in _REPEATS and av[0] >= 1:
        return of(list(av[2]), ignorecase)
    return None


def _required(items: list, ignorecase: bool) -> frozenset[str] | None:
    """The most selective set of strings one of which every match of a sequence contains:
    a maximal run of fixed items, or what one item requires; None if there is none."""
    candidates, run = [], []
    for op, av in items + [(None, None)]:
        if op is not None and _exact_item(op, av, ignorecase) is not None:
            run.append((op, av))
            continue
        if run:
            candidates.append(_exact(run, ignorecase))
            run = []
        if op is not None:
            candidates.append(_inside(op, av, ignorecase, _required))
    useful = [c for c in candidates if c and "" not in c]
    return max(useful, key=lambda c: (min(map(len, c)), -len(c)), default=None)


def _union(sets) -> frozenset[str] | None:
    found: frozenset[str] = frozenset()
    for strings in sets:
        if not strings:
            return None
        found |= strings
    return found if len(found) <= _MAX_WORDS else None


def _readable(items: list, ignorecase: bool) -> list[str] | None:
    """Character-class parts for the non-word characters a sequence (look-arounds included)
    can read; None if it can read any character or uses anchors other than ``\\b``/``\\B``."""
    parts: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            if ignorecase and not chr(av).isascii():
                return None
            parts.append(f"\\U{av:08x}")
        elif op is sre.IN:
            for kind, value in av:
                if kind is sre.LITERAL and not (ignorecase and not chr(value).isascii()):
                    parts.append(f"\\U{value:08x}")
                elif kind is sre.RANGE and not ignorecase:
                    parts.append(f"\\U{value[0]:08x}-\\U{value[1]:08x}")
                elif kind is sre.CATEGORY and value in _SPACE:
                    parts.append("\\s")
                elif not (kind is sre.CATEGORY and value in _WORDLIKE):
                    return None
        elif op is sre.AT:
            if av not in _BOUNDARIES:
                return None
        else:
            inner = _inner(op, av, ignorecase)
            if inner is None:
                return None
            for body, flag in inner:
                found = _readable(body, flag)
                if found is None:
                    return None
                parts += found
    return parts


def _inner(op, av, ignorecase: bool) -> list[tuple[list, bool]] | None:
    """The sub-sequences of a compound item with their case flag; None for other items."""
    if op is sre.SUBPATTERN:
        return [(list(av[3]), _flags(av, ignorecase))]
    if op is sre.BRANCH:
        return [(list(branch), ignorecase) for branch in av[1]]
    if op in _REPEATS:
        return [(list(av[2]), ignorecase)]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [(list(av[1]), ignorecase)]
    return None
