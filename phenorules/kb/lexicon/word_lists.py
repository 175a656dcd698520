"""Word lists of ``lexicons/`` (``english_words.txt.gz``, ``british_spellings.txt.gz``):
one normalised word a line, sorted by their UTF-8 bytes, gzip-compressed (made from SCOWL
by ``benchmarks/word_lists.py``; ``lexicons/SCOWL-LICENSE.txt``).

A list is asked whether it holds a word, once per distinct word of the texts or the terms,
so it stays the file's bytes, with the first word of every 4 kB as an index: the English
list's 501,620 words are 5.2 MB as bytes and 1,272 index words, where a Python set of them
would take 60 MB. The spelling stage reads it from a cache entry
(:func:`~phenorules.stages.spelling.cached_word_list`): Zstandard inflates it in a quarter
of gzip's time.
"""

from __future__ import annotations

import gzip
import zlib
from bisect import bisect_right
from operator import lt

from ...core.errors import InputError
from ...core.files import read_bytes


class WordList:
    """The words of a sorted list file, held as its bytes, with the first line after each
    ``block`` bytes as an index: a word is looked up by bisection of the index (in C), then
    one search of its block for the word between two newlines."""

    def __init__(self, data: bytes, name: str = "words", block: int = 4096):
        self.data, self.name = data, name
        self._starts = sorted({start for at in range(0, len(data), block) if (start := data.find(b"\n", at) + 1) and start < len(data)})  # line starts
        self._firsts = [data[start : data.find(b"\n", start)] for start in self._starts]

    @classmethod
    def read(cls, path, checked: bool = True) -> "WordList":
        """The list at ``path``; a file that is not gzip, or (``checked``) not sorted or not
        newline-ended, is an error naming it. A list the package ships is checked by its
        tests, not at each start (half a million lines split and compared)."""
        try:
            data = gzip.decompress(read_bytes(str(path)))
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{path}: not a gzip-compressed word list ({exc})") from None
        data = b"\n" + data
        if checked and not _sorted_lines(data):
            raise InputError(f"{path}: the words are not one a line, sorted, each ended by a newline")
        return cls(data, str(path))

    def __contains__(self, word: str) -> bool:
        target = word.encode()
        at = bisect_right(self._firsts, target) - 1  # the last block whose first line is not after the word
        if at < 0 or b"\n" in target:
            return False
        end = self._starts[at + 1] if at + 1 < len(self._starts) else len(self.data)
        return self.data.find(b"\n" + target + b"\n", self._starts[at] - 1, end) >= 0


def _sorted_lines(data: bytes, piece: int = 1 << 18) -> bool:
    """Whether ``data`` (a newline, then lines) holds lines in strictly increasing order, the
    last ended by a newline: split a piece of some 256 kB at a time, not into half a million
    objects at once (their memory stays with the process after they are freed)."""
    if not data.endswith(b"\n"):
        return False
    previous, start = None, 1
    while start < len(data):
        cut = max(data.rfind(b"\n", start, start + piece), data.find(b"\n", start))
        lines = data[start:cut].split(b"\n")
        if (previous is not None and lines[0] <= previous) or not all(map(lt, lines, lines[1:])):  # compared in C
            return False
        previous, start = lines[-1], cut + 1
    return True
