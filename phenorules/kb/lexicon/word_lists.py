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
from operator import lt

from ...core.errors import InputError
from ...core.files import read_bytes


class WordList:
    """The words of a sorted list file, held as its bytes."""

    def __init__(self, data: bytes, name: str = "words"):
        self.data, self.name = data, name

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
