"""Finding the trigger cues of :mod:`phenorules.assertion.rules` in a Doc."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

import numpy
from spacy.attrs import IS_SPACE
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from .rules import ContextRule


@dataclass(frozen=True)
class Cue:
    """A trigger found in a Doc: its row and its tokens ``doc[start:end]``."""

    rule: ContextRule
    start: int
    end: int

    def text(self, doc: Doc) -> str:
        """As written in the rules: lower case, single spaces."""
        return " ".join(doc[self.start : self.end].text.lower().split())


def not_cancelled(found: list[Cue]) -> list[Cue]:
    """The trigger cues of ``found`` that no pseudo-trigger of their category cancels, in
    text order (then by end and row)."""
    pseudo: dict[str, list[Cue]] = {}
    for cue in found:
        if cue.rule.direction == "pseudo":
            pseudo.setdefault(cue.rule.category, []).append(cue)
    reaches = {category: _Reach(cues) for category, cues in pseudo.items()}
    kept = [cue for cue in found if cue.rule.direction != "pseudo" and not (cue.rule.category in reaches and reaches[cue.rule.category].cancels(cue))]
    return sorted(kept, key=lambda cue: (cue.start, cue.end, cue.rule.ref))


class _Reach:
    """The pseudo-triggers of one category, sorted by start, with the furthest end among
    each prefix: whether one of them cancels a cue is one bisection.

    A pseudo-trigger ``p`` cancels a cue that overlaps it or starts right where it ends
    (``cue.start < p.end and cue.end > p.start``, or ``cue.start == p.end``), which for a
    cue of at least one token is ``p.start < cue.end and p.end >= cue.start``: among the
    pseudo-triggers that start before the cue ends, the furthest end reaches the cue's
    start."""

    def __init__(self, pseudo: list[Cue]):
        ordered = sorted(pseudo, key=lambda cue: cue.start)
        self.starts = [cue.start for cue in ordered]
        self.furthest = list(accumulate((cue.end for cue in ordered), max))

    def cancels(self, cue: Cue) -> bool:
        before = bisect_left(self.starts, cue.end)
        return before > 0 and self.furthest[before - 1] >= cue.start


class CueMatcher:
    """spaCy's phrase matcher over every row's phrases (lower case), with two additions.

    * Runs of spaces: the word tokenizer makes a run of spaces a token, which would stand
      between a cue's words ("negative   for" in line-wrapped clinical notes); around each
      run the phrase matcher runs again over the tokens less the runs (line breaks stay),
      within the longest cue's length, and adds the matches that span a run.
    * Pseudo-triggers: a pseudo row cancels every cue of its category that overlaps it or
      starts right after it ("not" in "was not only", "ruled out" in "to rule out").

    Holds only what the rules made: a call keeps nothing, so one matcher serves any number
    of documents at once.
    """

    def __init__(self, nlp: Language, rules: list[ContextRule]):
        self.matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.rules: dict[int, ContextRule] = {}
        self.longest = 1  # tokens in the longest cue
        for index, rule in enumerate(rules):
            patterns = [nlp.make_doc(phrase) for phrase in rule.phrases]
            key = f"phenorules_context_{index}"
            self.matcher.add(key, patterns)
            self.rules[nlp.vocab.strings[key]] = rule
            self.longest = max(self.longest, *(len(pattern) for pattern in patterns))

    def __call__(self, doc: Doc) -> list[Cue]:
        matches = set(self.matcher(doc)) | self.across_space_runs(doc)
        return not_cancelled([Cue(self.rules[match_id], start, end) for match_id, start, end in matches])

    def across_space_runs(self, doc: Doc) -> set[tuple[int, int, int]]:
        runs = [i for i in numpy.flatnonzero(doc.to_array(IS_SPACE)).tolist() if "\n" not in doc[i].text]
        dropped = set(runs)
        matches = set()
        for run in runs:
            kept = [i for i in range(max(0, run - self.longest), min(len(doc), run + self.longest + 1)) if i not in dropped]
            words = Doc(doc.vocab, words=[doc[i].text for i in kept])
            for match_id, start, end in self.matcher(words):
                if kept[end - 1] - kept[start] != end - 1 - start:  # spans a run
                    matches.add((match_id, kept[start], kept[end - 1] + 1))
        return matches
