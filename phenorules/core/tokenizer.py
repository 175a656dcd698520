"""A word tokenizer whose token boundaries include every dictionary-match boundary.

Tokens are runs of letters and digits, single other characters, and white space; spaCy's
default rules (prefixes, suffixes, exceptions) are not needed for phenotype matching, and
this is several times faster on long articles. A combining mark stays in the token of the
character before it ("hypotonia\u0301", "(\u0301"), so no token boundary cuts a grapheme
and a mention never starts on a mark. Registered so that ``nlp.config`` names it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

import spacy
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..kb.lexicon.normalize import marks_in
from .memo import one_object_each

# A word-character run or any other non-space character, with the one space after it
# (that token's trailing space), or a white-space run that is a token of its own, as in spaCy.
_PIECE = re.compile(r"([^\W_]+|\S)( ?)|(\s+)")


@lru_cache(maxsize=64)
def _pieces_with_marks(marks: str) -> re.Pattern:
    """:data:`_PIECE` where each character also takes the combining ``marks`` after it (a
    mark after white space, or at the start, is a token of its own)."""
    mark = f"[{re.escape(marks)}]"
    return re.compile(rf"((?:[^\W_]{mark}*)+|\S{mark}*)( ?)|(\s+)")


class WordTokenizer:
    def __init__(self, vocab: Vocab):
        self.vocab = vocab

    def __call__(self, text: str) -> Doc:
        pieces = self._pieces(text)
        # One string per distinct word, and the pieces gone before the Doc is made: a long
        # text's peak memory is its Doc's, not three copies of its words.
        words = one_object_each([token or white_space for token, _, white_space in pieces])
        spaces = [space == " " for _, space, _ in pieces]
        del pieces
        return Doc(self.vocab, words=words, spaces=spaces)

    def words(self, text: str) -> list[str]:
        """The tokens' texts, without a Doc (the assertion stage's cue phrases)."""
        return [token or white_space for token, _, white_space in self._pieces(text)]

    @staticmethod
    def _pieces(text: str) -> list[tuple[str, str, str]]:
        marks = marks_in(text)
        return (_pieces_with_marks(marks) if marks else _PIECE).findall(text)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        """As spaCy's ``Tokenizer.pipe``; negspacy tokenises its cue phrases with it."""
        for text in texts:
            yield self(text)

    # spaCy serialises the tokenizer with the pipeline; this one has no state to save.
    def to_bytes(self, **kwargs) -> bytes:
        return b""

    def from_bytes(self, data: bytes, **kwargs) -> "WordTokenizer":
        return self

    def to_disk(self, path, **kwargs) -> None:
        return None

    def from_disk(self, path, **kwargs) -> "WordTokenizer":
        return self


@spacy.registry.tokenizers("phenorules.WordTokenizer.v1")
def create_word_tokenizer():
    def make(nlp):
        return WordTokenizer(nlp.vocab)

    return make
