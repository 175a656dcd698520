"""Aho-Corasick dictionary matching with word boundaries and exact offsets.

One automaton (pyahocorasick) holds every normalised lexicon key. The text is normalised
with a length-preserving map (:mod:`phenorules.kb.lexicon.normalize`), so a hit at ``[i, j)``
in the normal form is the span ``text[i:j]`` of the original. Hits that start or end
inside a word are dropped; combining marks are read through ("hypo\u0301tonia" is a hit,
and one ends after the marks of its last letter); overlapping hits are resolved longest-first, then leftmost,
and among the terms one key maps to, the entry with the best priority (curated files, term
names, exact synonyms, other synonyms; variants after their base forms), then the
lowest id.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence, TypeVar

import ahocorasick
from sortedcontainers import SortedList

from .lexicon import Entry, Lexicon
from .lexicon.normalize import grapheme_end, is_word_char, marks_in, normalize_text

_ABSENT = object()
_VALUE = itemgetter(1)


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    entry: Entry

    @property
    def length(self) -> int:
        return self.end - self.start


HEAD_CHARS, HEAD_STEP, GROUP_KEYS = 16, 4, 32
"""A key longer than HEAD_CHARS characters is stored in the automaton by a head: its first
HEAD_CHARS characters, or HEAD_STEP, 2 * HEAD_STEP, ... more where more than GROUP_KEYS keys
share them. The rest of each key (its tail) is compared with the text after a hit of its
head (:class:`LongKeys`). The HPO lexicon's 364,000 keys average 33 characters, and most of
a long key's characters are nodes no other key shares: whole, they take 2.75 M nodes, which
a start re-makes one by one from the cache; by their heads, 0.44 M. Over the shared file,
heads of 20 characters took twice the time to load, heads of 12 a third more time after
their hits; heads of 16 that stood for up to 11,000 keys ("abnormality of t") had a first
pass read 58,000 tails."""


class PhraseMatcher:
    """A compiled automaton over a lexicon's keys; resources.py caches it on disk as data.

    The automaton stores an int per key (a long key's head: an int per head, see
    :class:`LongKeys`); the key's entries are kept as one encoded row and decoded only when
    the key is hit, which keeps loading a cached matcher fast.
    """

    def __init__(self, lexicon: Lexicon, packed: bool = False):
        """``packed``: every row encoded now, as a cache file holds them (:class:`PackedRows`):
        what a build does while a forked process builds the word-set index, so that the
        cache's store, whose process the command waits for, only copies them; else each row
        is encoded when its key is hit."""
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        keys = sorted(lexicon.entries)  # the rows' order
        self.long_keys = LongKeys.of(keys, self.automaton)
        if keys:
            self.automaton.make_automaton()
        rows = LexiconRows(keys, lexicon.entries)
        self.rows: Sequence[str] = rows.packed() if packed else rows
        self._decoded: dict[int, tuple[int, tuple[Entry, ...]]] = {}

    def __getstate__(self) -> dict:
        return {"automaton": self.automaton, "rows": self.rows, "long_keys": self.long_keys}

    def __setstate__(self, state: dict) -> None:
        self.automaton, self.rows, self.long_keys, self._decoded = state["automaton"], state["rows"], state["long_keys"], {}

    def entries(self, index: int) -> tuple[int, tuple[Entry, ...]]:
        """(key length, entries) of the key stored at ``index``."""
        if index not in self._decoded:
            rows = self.rows
            self._decoded[index] = rows.entries(index) if isinstance(rows, PackedRows) else decode_entries(rows[index])
        return self._decoded[index]

    def row_of(self, key: str, default: Any = _ABSENT) -> int:
        """The row index of a lexicon key (as :meth:`entries` takes it); ``default`` for a
        string that is no key (KeyError without one)."""
        row = self._row(key)
        if row is None:
            if default is _ABSENT:
                raise KeyError(key)
            return default
        return row

    def _row(self, key: str) -> int | None:
        first_value = self.long_keys.first_value
        length = HEAD_CHARS
        while len(key) > length:  # a head of the key's?
            value = self.automaton.get(key[:length], None)
            if value is not None and value >= first_value:
                return self.long_keys.row(value - first_value, key[length:])
            length += HEAD_STEP
        value = self.automaton.get(key, None)  # the key whole, or a head that is a key
        if value is None or value < first_value:
            return value
        own = self.long_keys.own[value - first_value]
        return own if own >= 0 else None

    def hits(self, normal: str) -> list[tuple[int, int]]:
        """(last character, row) of every occurrence of a key in ``normal``, by last
        character, the longer key first at the same one (the order of pyahocorasick's
        ``iter``)."""
        found = list(self.automaton.iter(normal))
        first_value = self.long_keys.first_value
        if not found or max(found, key=_VALUE)[1] < first_value:  # no head hit
            return found
        out, longer = [], []
        group = self.long_keys.group
        for hit in found:
            if hit[1] < first_value:
                out.append(hit)
                continue
            last = hit[0]
            own, tails = group(hit[1] - first_value)
            if own >= 0:
                out.append((last, own))
            longer += [(last + len(tail), row) for tail, row in tails if normal.startswith(tail, last + 1)]
        if not longer:
            return out
        # merged in one sweep: each before the hits of shorter keys that end where it ends
        merged, done = [], 0
        for end, negative_length, row in sorted((end, -self.entries(row)[0], row) for end, row in longer):
            at = bisect_left(out, (end,), done)
            while at < len(out) and out[at][0] == end and self.entries(out[at][1])[0] > -negative_length:
                at += 1
            merged += out[done:at]
            merged.append((end, row))
            done = at
        return merged + out[done:]

    def candidates(self, text: str, normal: str | None = None) -> list[Match]:
        """Every word-bounded hit, with the best entry its key and surface allow; in a text
        with combining marks, the hits of the text without them, each from the first letter
        to the last mark of its last letter."""
        if not self.rows:
            return []
        normal = normalize_text(text) if normal is None else normal
        marks = marks_in(normal)
        if not marks:
            return self._candidates(text, normal)
        mark = re.compile(f"[{re.escape(marks)}]")
        kept = [i for run in re.finditer(f"[^{re.escape(marks)}]+", normal) for i in range(run.start(), run.end())]
        hits = self._candidates(mark.sub("", text), mark.sub("", normal))
        return [Match(kept[hit.start], grapheme_end(normal, kept[hit.end - 1] + 1), hit.entry) for hit in hits]

    def _candidates(self, text: str, normal: str) -> list[Match]:
        out = []
        for last, index in self.hits(normal):
            length, entries = self.entries(index)
            start, end = last - length + 1, last + 1
            if start > 0 and is_word_char(normal[start - 1]) and is_word_char(normal[start]):
                continue
            if end < len(normal) and is_word_char(normal[end]) and is_word_char(normal[end - 1]):
                continue
            entry = best_entry(entries, text[start:end])
            if entry is not None:
                out.append(Match(start, end, entry))
        return out

    def __call__(self, text: str) -> list[Match]:
        return resolve_overlaps(self.candidates(text))


class LongKeys:
    """The keys of a matcher stored by a head (:data:`HEAD_CHARS`), by head. The automaton's
    value for a head is ``first_value`` + its group's number; a group's keys are consecutive
    rows (the rows are in key order), their tails kept as one text with each tail's end,
    read the first time the head is hit. A head that is itself a key keeps its row as the
    group's own."""

    def __init__(self, first_value: int, own: array, first_row: array, first_tail: array, tails: "PackedRows"):
        self.first_value, self.own, self.first_row, self.first_tail, self.tails = first_value, own, first_row, first_tail, tails
        self._read: dict[int, tuple[int, tuple[tuple[str, int], ...]]] = {}

    def __getstate__(self) -> dict:
        return {name: value for name, value in vars(self).items() if name != "_read"}

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state, _read={})

    @classmethod
    def of(cls, keys: list[str], automaton: ahocorasick.Automaton) -> "LongKeys":
        """The long keys of ``keys`` (sorted), each key added to ``automaton``: a short one
        with its row, a long one's head with its group's value."""
        groups: tuple[array, array, array] = (array("q"), array("q"), array("q"))  # own, first_row, first_tail
        tails: list[str] = []
        _place(keys, 0, len(keys), HEAD_CHARS, automaton, groups, tails)
        return cls(len(keys), *groups, PackedRows.of(tails))

    def group(self, number: int) -> tuple[int, tuple[tuple[str, int], ...]]:
        """(the head's own row or -1, (tail, row) of each of its keys) of a group."""
        read = self._read.get(number)
        if read is None:
            first, end = self.first_tail[number], self.first_tail[number + 1] if number + 1 < len(self.first_tail) else len(self.tails)
            first_row = self.first_row[number] - first
            read = self._read[number] = (self.own[number], tuple((self.tails[i], first_row + i) for i in range(first, end)))
        return read

    def row(self, number: int, tail: str) -> int | None:
        """The row of the key of group ``number`` whose tail is ``tail``, or None."""
        return next((row for other, row in self.group(number)[1] if other == tail), None)


def _place(keys: list[str], low: int, high: int, length: int, automaton: ahocorasick.Automaton, groups: tuple[array, array, array], tails: list[str]) -> None:
    """Add ``keys[low:high]`` (sorted, longer than ``length`` - HEAD_STEP characters and
    sharing as many) to ``automaton``: a key of ``length`` characters or fewer whole, the
    others by their first ``length`` characters, or more where more than GROUP_KEYS share
    those. Each head's group goes into ``groups`` (its own row, first row and first tail),
    its keys' tails into ``tails``; a head's value is the count of keys + its group's number."""
    own, first_row, first_tail = groups
    row = low
    while row < high:
        key = keys[row]
        if len(key) <= length:
            automaton.add_word(key, row)
            row += 1
            continue
        head, end = key[:length], row + 1
        while end < high and keys[end].startswith(head):  # the keys a head begins are consecutive
            end += 1
        if end - row > GROUP_KEYS:
            _place(keys, row, end, length + HEAD_STEP, automaton, groups, tails)
        else:
            own.append(automaton.get(head, -1))  # a key sorts before the keys it begins
            first_row.append(row)
            first_tail.append(len(tails))
            automaton.add_word(head, len(keys) + len(own) - 1)
            tails += [key[length:] for key in keys[row:end]]
        row = end


class KeysAsked:
    """Stands for the rows of a :class:`PhraseMatcher` not built in this process: each key
    asked for is given the next number, and its row is read of the matcher later
    (:meth:`~.word_sets.WordSetIndex.renumbered`). A word-set index built beside the matcher
    asks for 42,000 of the ontology lexicon's 364,000 keys: their rows alone would take a
    sort of them all, as the matcher takes."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def row_of(self, key: str) -> int:
        self.keys.append(key)
        return len(self.keys) - 1


class LexiconRows:
    """The rows of a matcher built from a lexicon, each encoded when it is read: a key that
    is hit, or every row when the cache is written (in a forked process), not 400,000 rows
    before the first text. Pickled as the list of rows."""

    def __init__(self, keys: list[str], entries: dict[str, list[Entry]]):
        self.keys, self.entries = keys, entries

    def packed(self) -> "PackedRows":
        """Every row encoded, as a cache file holds them. The entries are read in the
        lexicon's own order, the order in which they were made and lie in memory, then the
        rows laid out by key: in key order the 400,000 lists of entries lie scattered, and
        reading them waits on memory."""
        numbers: dict[str, int] = {}
        encoded = {key: encode_entries(len(key), entries, numbers).encode() for key, entries in self.entries.items()}
        return PackedRows.joined(list(map(encoded.__getitem__, self.keys)), list(numbers))

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, index: int) -> str:
        key = self.keys[index]
        return encode_entries(len(key), self.entries[key])

    def __iter__(self) -> Iterator[str]:
        return (encode_entries(len(key), self.entries[key]) for key in self.keys)

    def __reduce__(self):
        return list, (list(self),)


class PackedRows:
    """The encoded rows of a cached matcher, by row index: one UTF-8 text and each row's
    end offset. A row becomes a string only when its key is hit, so loading makes no
    string per key (400,000 of them for the HPO lexicon).

    With ``named``, the rows' records hold the number of their surface, source and rule
    in it, not the texts: a term's name and rule recur in the records of all its variant
    keys (the HPO lexicon's 371,000 records hold 40,000 surfaces and 500 rules), and the
    text a start inflates is a third as long. A row read as a string is written out as
    :func:`encode_entries` writes it; :meth:`entries` decodes the numbered form."""

    def __init__(self, text: bytes, ends: array, named: Sequence[str] | None = None):
        self.text, self.ends, self.named = text, ends, named

    @classmethod
    def of(cls, texts: Iterable[str]) -> "PackedRows":
        """Texts laid end to end (a :class:`LongKeys`' tails)."""
        return cls.joined([text.encode() for text in texts])

    @classmethod
    def numbered(cls, rows: Iterable[str]) -> "PackedRows":
        """Rows encoded (:func:`encode_entries`), numbered and laid end to end, as a cache
        file holds them."""
        numbers: dict[str, int] = {}
        return cls.joined([encode_entries(*decode_entries(row), numbers).encode() for row in rows], list(numbers))

    @classmethod
    def joined(cls, encoded: list[bytes], named: Sequence[str] | None = None) -> "PackedRows":
        """Rows encoded already, laid end to end."""
        return cls(b"".join(encoded), array("Q", accumulate(map(len, encoded))), named)

    def named_section(self) -> bytes:
        """:attr:`named` as a cache section holds it: each text ended by the record
        separator, which no cell holds."""
        return "".join(text + _RECORD for text in self.named).encode()

    @staticmethod
    def named_of(section: bytes) -> list[str]:
        """The texts of a :meth:`named_section`."""
        return section.decode().split(_RECORD)[:-1]

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, index: int) -> str:
        return self._stored(index) if self.named is None else encode_entries(*self.entries(index))

    def entries(self, index: int) -> tuple[int, tuple[Entry, ...]]:
        return decode_entries(self._stored(index), self.named)

    def _stored(self, index: int) -> str:
        start = self.ends[index - 1] if index else 0
        return self.text[start : self.ends[index]].decode()


_FIELD, _RECORD, _ID = "\x1f", "\x1e", "\x1d"


def encode_entries(length: int, entries: Sequence[Entry], numbers: dict[str, int] | None = None) -> str:
    """A row: its key's length, then a record per entry. With ``numbers`` (text -> number,
    added to), a record holds the number of its surface, source and rule (:class:`PackedRows`)."""
    named = (lambda text: text) if numbers is None else (lambda text: str(numbers.setdefault(text, len(numbers))))
    records = [
        _FIELD.join((str(priority), _ID.join(hpo_ids), named(surface), named(source), named(rule), "1" if case_sensitive else ""))
        for priority, hpo_ids, surface, source, rule, case_sensitive in entries
    ]
    return _RECORD.join([str(length)] + records)


def decode_entries(row: str, named: Sequence[str] | None = None) -> tuple[int, tuple[Entry, ...]]:
    """The key length and entries of a row; ``named``: the texts a numbered row's records
    name (:class:`PackedRows`)."""
    length, *records = row.split(_RECORD)
    entries = []
    for record in records:
        priority, hpo_ids, surface, source, rule, case_sensitive = record.split(_FIELD)
        if named is not None:
            surface, source, rule = named[int(surface)], named[int(source)], named[int(rule)]
        entries.append(Entry(int(priority), tuple(hpo_ids.split(_ID)) if hpo_ids else (), surface, source, rule, bool(case_sensitive)))
    return int(length), tuple(entries)


def best_entry(entries: Sequence[Entry], surface: str) -> Entry | None:
    """The first entry (they are sorted by priority) whose case rule accepts ``surface``."""
    for entry in entries:
        if not entry.case_sensitive or surface in (entry.surface, entry.surface + "s"):
            return entry
    return None


def resolve_overlaps(matches: Iterable[Match]) -> list[Match]:
    """Longest match wins; on equal length the leftmost, then the best entry; the result
    is in text order."""
    return non_overlapping(matches, lambda m: (-m.length, m.start, m.entry))


class Extent(Protocol):
    start: int
    end: int


E = TypeVar("E", bound=Extent)


def non_overlapping(candidates: Iterable[E], rank: Callable[[E], Any]) -> list[E]:
    """Greedy choice of non-empty spans: in ``rank`` order (ties in the given order), each
    candidate that overlaps none chosen before; the result is in text order.

    The chosen spans never overlap, so in text order their ends rise with their starts: a
    candidate overlaps one of them only if it overlaps its neighbours there, found by a
    binary search in a sorted list (sortedcontainers: O(log n) inserts, where a Python
    list's are O(n), quadratic over the tens of thousands of matches of a long text)."""
    chosen: list[E] = []
    extents = SortedList()  # (start, end) of the chosen, in text order
    for candidate in sorted(candidates, key=rank):
        i = extents.bisect_right((candidate.start, math.inf))  # the chosen starting at or before it come first
        if (i and extents[i - 1][1] > candidate.start) or (i < len(extents) and extents[i][0] < candidate.end):
            continue
        extents.add((candidate.start, candidate.end))
        chosen.append(candidate)
    return sorted(chosen, key=lambda chosen: chosen.start)
