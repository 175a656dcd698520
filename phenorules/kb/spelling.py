"""The lexicon's long words, and which of them a written word is one edit from.

A symmetric-delete index (SymSpell: Garbe 2012, "1000x faster spelling correction
algorithm"): every word of the lexicon's keys of at least MIN_LENGTH letters is listed
under each form it makes with one letter deleted. A written word is then one edit from a
listed word exactly when the word itself, or one of its own one-letter deletions, is the
word or one of its deletions; the candidates so found are checked with the restricted
Damerau-Levenshtein distance (insertion, deletion, substitution, transposition of two
neighbouring letters). A look-up is len(word) + 1 bisections, and no alphabet is
enumerated.

The forms are held as their CRC-32 in two parallel arrays sorted by it (the hash, the
word's place): 1.4 MB that a cache reads as bytes, where a dict of the 177,000 forms
took 31 MB and a tenth of a second to unpack at each start. Two forms of one hash only
add a candidate, which the distance check drops: the words found are the same.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Iterable
from zlib import crc32

import numpy
import srsly

from ..core.memo import Remembered
from .cache_file import little_endian, numbers_of

MIN_LENGTH = 7  # letters of a long word of the lexicon
MIN_WRITTEN = MIN_LENGTH - 1  # letters of a misspelt word: a long word with one letter dropped
EDITS = ("insertion", "deletion", "substitution", "transposition")  # what the written word did to the lexicon word
_KEPT = 100_000  # written words whose candidates are remembered between texts
_WORD = re.compile(r"[^\W_]+")  # a word, as the word table reads one
_U32 = "I" if array("I").itemsize == 4 else "L"  # the array type of a CRC-32


@dataclass
class SpellingIndex:
    """The long words of a lexicon and the SymSpell index of their one-letter deletions."""

    words: list[str]  # sorted
    hashes: array  # the CRC-32 of each form (a word, or a word less one letter), sorted
    places: array  # the place in ``words`` of the word each of ``hashes`` stands for

    @classmethod
    def build(cls, keys: Iterable[str]) -> "SpellingIndex":
        """The index of the words of ``keys`` (normalised lexicon keys) that are all letters
        and at least MIN_LENGTH long."""
        tokens = set(" ".join(keys).split())  # keys are normalised: words apart by one space, or by punctuation
        long_tokens = (token for token in tokens if len(token) >= MIN_LENGTH)
        words = sorted({word for token in long_tokens for word in _WORD.findall(token) if len(word) >= MIN_LENGTH and word.isalpha()})
        hashes: list[int] = []
        places: list[int] = []
        for place, word in enumerate(words):
            forms = {word} | _deletions(word)
            hashes.extend(map(_form_hash, forms))
            places.extend(repeat(place, len(forms)))
        by_hash, by_place = numpy.array(hashes, dtype=numpy.uint32), numpy.array(places, dtype=numpy.uint32)
        order = numpy.lexsort((by_place, by_hash))  # by hash, then place: the same bytes whatever the hash seed
        return cls(words, array(_U32, by_hash[order].tolist()), array(_U32, by_place[order].tolist()))

    @cached_property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    def candidates(self, written: str) -> tuple[str, ...]:
        """The lexicon words one edit from ``written`` (a normalised word of letters), sorted;
        none for a lexicon word itself."""
        return self._candidates[written]

    @cached_property
    def _candidates(self) -> Remembered[str, tuple[str, ...]]:
        return Remembered(self._look_up, _KEPT)

    def _look_up(self, written: str) -> tuple[str, ...]:
        if len(written) < MIN_WRITTEN or written in self.word_set:
            return ()
        return tuple(sorted(self._within_one(written)))

    def _within_one(self, form: str) -> set[str]:
        """The words equal to ``form`` or one edit from it."""
        words, hashes, places = self.words, self.hashes, self.places
        found: set[int] = set()
        for deleted in {form} | _deletions(form):
            key = _form_hash(deleted)
            at = bisect_left(hashes, key)
            while at < len(hashes) and hashes[at] == key:
                found.add(places[at])
                at += 1
        return {words[place] for place in found if words[place] == form or edit_of(form, words[place]) is not None}

    @cached_property
    def letters(self) -> str:
        return "".join(sorted(set("".join(self.words))))

    def within_two(self, written: str) -> set[str]:
        """The words within two edits of ``written``: those one edit from it or from one of
        its one-edit forms (a letter deleted, inserted or replaced, with the letters of the
        index's words, or two neighbouring letters swapped). Some 55 look-ups per letter of
        the word: asked only of the few words a reading hangs on."""
        letters = self.letters
        forms = {written} | _deletions(written)
        forms.update(written[:i] + written[i + 1] + written[i] + written[i + 2 :] for i in range(len(written) - 1))
        forms.update(written[:i] + letter + written[i + 1 :] for i in range(len(written)) for letter in letters)
        forms.update(written[:i] + letter + written[i:] for i in range(len(written) + 1) for letter in letters)
        return set().union(*map(self._within_one, forms))

    def to_bytes(self) -> bytes:
        """The index as msgpack data (a cache section): the words, and the two arrays as
        little-endian bytes."""
        return srsly.msgpack_dumps({"words": self.words, "hashes": little_endian(self.hashes), "places": little_endian(self.places)})

    @classmethod
    def from_bytes(cls, data: bytes) -> "SpellingIndex":
        """The index of :meth:`to_bytes` (``srsly.msgpack.loads`` leaves the garbage collector
        as it is)."""
        state = srsly.msgpack.loads(data, raw=False, use_list=True)
        return cls(state["words"], numbers_of(_U32, state["hashes"]), numbers_of(_U32, state["places"]))


def _form_hash(form: str) -> int:
    return crc32(form.encode())


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def edit_of(written: str, word: str) -> str | None:
    """The one edit (of :data:`EDITS`) that makes ``written`` of the lexicon word ``word``, or
    None when they are equal or further apart."""
    if written == word or abs(len(written) - len(word)) > 1:
        return None
    first = next((i for i, (a, b) in enumerate(zip(written, word)) if a != b), min(len(written), len(word)))
    if len(written) == len(word):
        if written[first + 1 :] == word[first + 1 :]:
            return "substitution"
        swapped = written[first : first + 2] == word[first : first + 2][::-1]
        return "transposition" if swapped and written[first + 2 :] == word[first + 2 :] else None
    if len(written) > len(word):
        return "insertion" if written[first + 1 :] == word[first:] else None
    return "deletion" if written[first:] == word[first + 1 :] else None
