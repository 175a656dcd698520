"""What the stages and indexes ask again and again of the same words and phrases,
remembered: a bounded memo, forgotten all at once when full, so that a long run's memory
stays bounded while an article's words, which recur within it, are read once; and a text's
repeated words held as one string each."""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Remembered(dict, Generic[K, V]):
    """``memo[key]`` is ``read(key)``, read when first asked and remembered up to ``limit``
    keys; the next key beyond them forgets them all."""

    def __init__(self, read: Callable[[K], V], limit: int):
        super().__init__()
        self.read, self.limit = read, limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.read(key)
        return value


def one_object_each(strings: list[str]) -> list[str]:
    """``strings`` with each value one object: a long text's repeated words take the memory
    of its distinct words. A dict of this call's own does it at about half the cost of
    ``sys.intern``, whose interpreter-wide table each new word enters and each freed one
    leaves again."""
    first = {}.setdefault
    return list(map(first, strings, strings))
