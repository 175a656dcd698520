"""Sentence boundaries for scientific articles, as a spaCy component.

spaCy's rule-based ``sentencizer`` splits after every full stop, which cuts "et al." and
"Fig." in half. This component marks a sentence start after ., ! or ? (and closing quotes
or brackets that follow them) unless the token is a listed abbreviation
(``rules/sentence_abbreviations.txt``), and always at a passage start or a line break.
"""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Sequence

import numpy

from spacy.language import Language
from spacy.attrs import ORTH, SENT_START, SPACY
from spacy.tokens import Doc

from ..core.document import LOCAL, PASSAGES
from ..kb.lexicon.tsv import read_tsv
from ..kb.resources import data_file

_FINAL = {".", "!", "?"}
_CLOSERS = {")", "]", '"', "'", "\u201d", "\u2019"}


def read_word_list(path: Path) -> frozenset[str]:
    return frozenset(row[0].lower() for row, _ in read_tsv(path, 1))


@Language.factory("phenorules_sentences", default_config={"abbreviations_file": None})
def make_sentence_splitter(nlp: Language, name: str, abbreviations_file: str | None):
    path = data_file("rules", "sentence_abbreviations.txt", abbreviations_file)
    return SentenceSplitter(read_word_list(path))


class SentenceSplitter:
    pieces = LOCAL

    def __init__(self, abbreviations: frozenset[str]):
        self.abbreviations = abbreviations

    def __call__(self, doc: Doc) -> Doc:
        # Token texts from arrays: iterating the Doc makes a Token object per token.
        orth_and_space = doc.to_array([ORTH, SPACY]).reshape(-1, 2)
        words, breaks = _words_and_breaks(doc.vocab.strings, orth_and_space[:, 0])
        starts = self.sentence_starts(words, array("q", orth_and_space[:, 1].astype("int64").tobytes()), breaks)
        for span in doc.spans.get(PASSAGES, []):
            starts[span.start] = True
        # One bulk write: setting token.is_sent_start token by token is quadratic in spaCy.
        flags = numpy.where(starts, 1, -1).astype("int64").astype("uint64").reshape(-1, 1)
        doc.from_array([SENT_START], flags)
        return doc

    def sentence_starts(self, words: "TokenTexts", trailing: Sequence[int], breaks: list[int]) -> numpy.ndarray:
        """Whether each token starts a sentence, from the token texts alone. Only at the
        ``breaks`` (stops and line breaks) can a sentence end: the first token that is not
        a closing bracket or quote after one that ends a sentence starts the next."""
        starts = numpy.zeros(len(words), dtype=bool)
        if len(starts):
            starts[0] = True
        for i in breaks:
            if "\n" in words[i] or (self.ends_sentence(words, trailing, i) and _next_starts_sentence(words, i)):
                following = next((j for j in range(i + 1, len(words)) if words[j] not in _CLOSERS), None)
                if following is not None:
                    starts[following] = True
        return starts

    def ends_sentence(self, words: TokenTexts, trailing: Sequence[int], i: int) -> bool:
        """'.', '!' or '?' followed by white space, unless the stop ends an abbreviation."""
        if words[i] not in _FINAL or (not trailing[i] and i + 1 < len(words) and words[i + 1].strip()):
            return False
        if words[i] != "." or not i or trailing[i - 1]:
            return True
        word = words[i - 1] + "."
        j = i - 2  # "e.g." is four tokens: e . g .
        while j >= 1 and words[j] == "." and not trailing[j] and not trailing[j - 1]:
            word = words[j - 1] + "." + word
            j -= 2
        return word.lower() not in self.abbreviations and not _initial(word)


class TokenTexts:
    """The token texts of a Doc, read from its arrays: one string-store lookup per distinct
    token, and each token's text looked up when read (8 bytes a token, not a list of them)."""

    def __init__(self, texts: list[str], inverse: numpy.ndarray):
        self.texts, self.inverse = texts, array("q", inverse.astype("int64").tobytes())

    def __len__(self) -> int:
        return len(self.inverse)

    def __getitem__(self, index: int) -> str:
        return self.texts[self.inverse[index]]


def _words_and_breaks(strings, orths: numpy.ndarray) -> tuple[TokenTexts, list[int]]:
    """The token texts, and the indices of the stops and line breaks among them."""
    distinct, inverse = numpy.unique(orths, return_inverse=True)
    texts = [strings[orth] for orth in distinct.tolist()]
    breaks = [k for k, text in enumerate(texts) if text in _FINAL or ("\n" in text and not text.strip())]
    return TokenTexts(texts, inverse), numpy.flatnonzero(numpy.isin(inverse, breaks)).tolist()


def _initial(word: str) -> bool:
    """'J.' in 'J. Smith' or 'A.B.' is not a sentence end."""
    letters = word.replace(".", "")
    return letters.isalpha() and letters[0].isupper() and (len(letters) == 1 or word.count(".") == len(letters))


def _next_starts_sentence(words: TokenTexts, i: int) -> bool:
    """A stop ends a sentence unless the next word starts in lower case ('fig. 2' aside)."""
    for j in range(i + 1, len(words)):  # not words[i + 1:], a copy of the rest of the article
        if words[j].strip() or "\n" in words[j]:
            return not words[j][:1].islower()
    return True
