"""Word lists of ``lexicons/`` (``english_words.txt.gz``, ``british_spellings.txt.gz``):
one normalised word a line, sorted by their UTF-8 bytes, gzip-compressed (made from SCOWL
by ``benchmarks/word_lists.py``; ``lexicons/SCOWL-LICENSE.txt``).

A list is asked whether it holds a word, a few times per document or per term word, so it
stays the file's bytes and is searched by bisection: the English list's 501,620 words are
4.7 MB as bytes, where a Python set of them would take 60 MB.
"""

from __future__ import annotations

import gzip
import zlib

from ...core.errors import InputError
from ...core.files import read_bytes


class WordList:
    """The words of a sorted list file, held as its bytes."""

    def __init__(self, data: bytes, name: str = "words"):
        self.data, self.name = data, name

    @classmethod
    def read(cls, path) -> "WordList":
        """The list at ``path``; a file that is not gzip, not sorted or not newline-ended is
        an error naming it."""
        try:
            data = gzip.decompress(read_bytes(str(path)))
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{path}: not a gzip-compressed word list ({exc})") from None
        lines = data.split(b"\n")
        if lines[-1] != b"" or any(a >= b for a, b in zip(lines, lines[1:-1])):
            raise InputError(f"{path}: the words are not one a line, sorted, each ended by a newline")
        return cls(b"\n" + data, str(path))

    def __contains__(self, word: str) -> bool:
        """Bisection over the lines: the line that holds the middle byte, compared."""
        data, target = self.data, word.encode()
        low, high = 1, len(data)  # byte offsets of line starts; data[0] is a newline
        while low < high:
            middle = (low + high) // 2
            start = data.rfind(b"\n", 0, middle) + 1  # at or after low: data[low - 1] is a newline
            end = data.find(b"\n", start)
            line = data[start:end]
            if line == target:
                return True
            if line < target:
                low = end + 1
            else:
                high = start
        return False
