"""A word tokenizer whose token boundaries include every dictionary-match boundary.

Tokens are runs of letters and digits, single other characters, and white space; spaCy's
default rules (prefixes, suffixes, exceptions) are not needed for phenotype matching, and
this is several times faster on long articles. Registered so that ``nlp.config`` names it.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

import spacy
from spacy.tokens import Doc
from spacy.vocab import Vocab

# Word-character runs, white-space runs, and every other character on its own.
_PIECE = re.compile(r"[^\W_]+|\s+|.", re.DOTALL)


class WordTokenizer:
    def __init__(self, vocab: Vocab):
        self.vocab = vocab

    def __call__(self, text: str) -> Doc:
        words: list[str] = []
        spaces: list[bool] = []
        for piece in _PIECE.findall(text):
            if not piece.isspace():
                words.append(piece)
                spaces.append(False)
                continue
            if words and piece[0] == " ":  # one space after a word is that word's trailing space
                spaces[-1] = True
                piece = piece[1:]
            if piece:  # any other white space is a token of its own, as in spaCy
                words.append(piece)
                spaces.append(False)
        return Doc(self.vocab, words=words, spaces=spaces)

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
