"""One finding distributed over a list of parts, the coordination stage's
``distributed_list`` pattern: "pain in his wrists, elbows, shoulders, and knees" (wrist
pain; elbow pain; ...), "chest, spine, nail, or hair abnormalities". The words of a list
are ``rules/coordinated_lists.tsv``'s."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ..kb.lexicon.tsv import read_grouped
from .compounds import Compound, joined

LIST_WORD_KINDS = ("conjunction", "preposition", "determiner")
_WORD = r"[^\W_]+"
_LIST_ITEM = r"[^\W\d_][\w-]*"
_LIST_CONTEXT = 80  # characters read before and after a list for its finding


def read_list_words(path: Path) -> dict[str, tuple[str, ...]]:
    """Kind (conjunction, preposition, determiner) -> words, longest first."""
    words = read_grouped(path, LIST_WORD_KINDS)
    return {kind: tuple(sorted((word.lower() for word in listed), key=len, reverse=True)) for kind, listed in words.items()}


def phrase_alternation(phrases) -> str:
    """A regex alternative for each phrase; its spaces also match hyphens ('mild-to-moderate').
    No phrase (a rules file without rows of a kind): a pattern that never matches."""
    return "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in phrases) or "(?!)"


class DistributedLists:
    """The ``distributed_list`` pattern (a mixin of
    :class:`~phenorules.stages.coordination.Coordination`: its
    :meth:`~phenorules.stages.match.RefinesMatches.term`)."""

    def compile_lists(self, list_words: dict[str, tuple[str, ...]], min_list_items: int) -> None:
        """The patterns of a list of ``min_list_items`` items or more and of its finding."""
        words = {kind: phrase_alternation(listed) for kind, listed in list_words.items()}
        self.item_list = re.compile(
            rf"\b{_LIST_ITEM}(?:, {_LIST_ITEM}){{{min_list_items - 2},}},? (?:{words['conjunction']}) {_LIST_ITEM}\b", re.IGNORECASE
        )
        self.list_end = re.compile(rf",? (?:{words['conjunction']}) {_LIST_ITEM}\b", re.IGNORECASE)
        self.items_before_end = min_list_items - 1
        # Where a run of an item ends that ', ' or a list end follows: a place found by its
        # first character (',' or ' '), which re skips to in C, and then looked at
        # (core.patterns.LocatedPattern's locator); the run is the whole run before it.
        self.run_end = re.compile(rf"[, ](?<=[\w-][, ])(?<=(?=, |,? (?i:{words['conjunction']}) ).)")
        self.item_separator = re.compile(rf",? (?:{words['conjunction']}) |, ", re.IGNORECASE)
        self.finding_before = re.compile(
            rf"\b((?:{_WORD} ){{0,2}}{_WORD}) (?:{words['preposition']}) (?:(?:{words['determiner']}) )?$", re.IGNORECASE
        )
        self.finding_after = re.compile(rf"^ ({_WORD}(?: {_WORD}){{0,2}})\b", re.IGNORECASE)

    def distributed_lists(self, text: str) -> list[Compound]:
        """'contractures of the wrists, knees, hips, and ankles', 'chest, spine, nail, or
        hair abnormalities': one finding distributed over a list of parts. Every part must
        make a term with the finding (the longest finding that works, up to three words)."""
        out = []
        for found in self.item_lists(text):
            items = self.item_separator.split(found.group())
            before = self.finding_before.search(text, max(0, found.start() - _LIST_CONTEXT), found.start())
            if before is not None:
                compound = self.list_compound(items, before.group(1), before.start(1), found.end(), after=False)
                if compound is not None:
                    out.append(compound)
                    continue
            after = self.finding_after.search(text[found.end() : found.end() + _LIST_CONTEXT])
            if after is not None:
                compound = self.list_compound(items, after.group(1), found.start(), found.end(), after=True)
                if compound is not None:
                    out.append(compound)
        return out

    def item_lists(self, text: str) -> Iterator[re.Match]:
        """``self.item_list.finditer(text)``, with the regex tried only where a list starts.

        Python's re tries every position: inside a long run of items without a conjunction
        ("knee, knee, knee, ...") each try reads to the run's end, which is quadratic. A
        list's items are whole runs of word characters and hyphens (starting with a letter,
        or after a hyphen), joined by ', ', and after ``items_before_end`` of them or more
        comes its end (``list_end``: ', and wrists'). So the runs followed by ', ' or a
        conjunction are read once, each with whether ', ' joins it to the next and whether
        a list end follows it, and the regex is tried only at the runs from which such a
        chain reaches a list end."""
        runs = self.list_runs(text)
        linked = [i + 1 < len(runs) and runs[i + 1][0] == end + 2 and text[end : end + 2] == ", " and _ITEM_START.match(text, end + 2) is not None for i, (_, end) in enumerate(runs)]
        reaches_end = [False] * (len(runs) + 1)  # a list end follows the run or one it is joined to
        for i in range(len(runs) - 1, -1, -1):
            reaches_end[i] = (linked[i] and reaches_end[i + 1]) or self.list_end.match(text, runs[i][1]) is not None
        position = 0
        for i, (start, end) in enumerate(runs):
            last = i  # the run of the first list's items_before_end-th item
            while last < i + self.items_before_end - 1 and linked[last]:
                last += 1
            if end <= position or last < i + self.items_before_end - 1 or not reaches_end[last]:
                continue
            for first in range(max(start, position), end):
                if (first == start or text[first - 1] == "-") and _ITEM_START.match(text, first):
                    found = self.item_list.match(text, first)
                    if found is not None:
                        position = found.end()
                        yield found
                        break

    def list_runs(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of each whole run of word characters and hyphens that ', ' or a list
        end follows, in text order: each read back from where it ends, in the reversed text."""
        reverse, size = text[::-1], len(text)
        return [(end - _RUN.match(reverse, size - end).end() + size - end, end) for end in (found.start() for found in self.run_end.finditer(text))]

    def list_compound(self, items: list[str], finding: str, start: int, end: int, after: bool) -> Compound | None:
        """The compound for ``items`` sharing a finding (its words, longest first) written
        before the list ('pain in his ...') or after it ('... hair abnormalities')."""
        words = finding.split(" ")
        for size in range(len(words), 0, -1):
            head = " ".join(words[:size] if after else words[-size:])
            phrases = [[f"{item} {head}"] if after else [f"{head} of the {item}", f"{item} {head}"] for item in items]
            ids = [next((term for term in map(self.term, tried) if term is not None), None) for tried in phrases]
            if all(term is not None for term in ids):
                if after:
                    return Compound(start, end + 1 + len(head), joined(*ids), "coordination:distributed_list")
                return Compound(start + len(finding) - len(head), end, joined(*ids), "coordination:distributed_list")
        return None


_ITEM_START = re.compile(r"[^\W\d_]")
_RUN = re.compile(r"[\w-]+")
