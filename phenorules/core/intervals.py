"""Overlap queries on character extents, in logarithmic time each.

The stages compare every new mention with the mentions already there; scanning them all
for each one is quadratic, and an article of a few million characters holds a hundred
thousand mentions. :class:`Extents` sorts the extents once by start and keeps, over that
order, the running maximum of their ends and a segment tree of the maxima (de Berg et al.,
*Computational Geometry*, 3rd ed., ch. 10): whether any extent overlaps a range is one
binary search, and listing the k that do costs O((k + 1) log n). The ``intervaltree``
package answers the same queries, but its pure-Python nodes took 4.5 s to build over
100,000 extents, longer than a whole article takes here.

Extents are half-open ``[start, end)``: two extents overlap when each starts before the
other ends, as the stages' own tests (``a.start < b.end and b.start < a.end``) say.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from typing import Iterable


class Extents:
    """A fixed list of ``(start, end)`` extents, indexed for overlap queries."""

    def __init__(self, extents: Iterable[tuple[int, int]]):
        extents = list(extents)
        self.order = sorted(range(len(extents)), key=lambda i: extents[i][0])  # positions by start
        self.starts = [extents[i][0] for i in self.order]
        ends = [extents[i][1] for i in self.order]
        self.reach = list(accumulate(ends, max))  # reach[i]: the furthest end of the first i + 1
        self.size = 1
        while self.size < len(ends):
            self.size *= 2
        # tree[node] is the furthest end of the extents under node (leaves at size + i).
        tree = [-1] * (2 * self.size)
        tree[self.size : self.size + len(ends)] = ends
        for node in range(self.size - 1, 0, -1):
            tree[node] = max(tree[2 * node], tree[2 * node + 1])
        self.tree = tree

    def __len__(self) -> int:
        return len(self.starts)

    def overlaps_any(self, start: int, end: int) -> bool:
        """Whether an extent overlaps ``[start, end)``: of those starting before ``end``,
        one ends after ``start``."""
        before = bisect_left(self.starts, end)
        return before > 0 and self.reach[before - 1] > start

    def overlapping(self, start: int, end: int) -> list[int]:
        """The positions (in the given list, ascending) of the extents overlapping ``[start, end)``."""
        before = bisect_left(self.starts, end)
        if not before or self.reach[before - 1] <= start:
            return []
        tree, order, size, found = self.tree, self.order, self.size, []
        stack = [(1, 0, size)]  # (node, first leaf, leaves under it)
        while stack:
            node, first, width = stack.pop()
            if first >= before or tree[node] <= start:
                continue
            if width == 1:
                found.append(order[first])
                continue
            half = width // 2
            stack.append((2 * node + 1, first + half, half))
            stack.append((2 * node, first, half))
        return sorted(found)
