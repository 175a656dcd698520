"""Finding the trigger cues of :mod:`phenorules.assertion.rules` in a Doc."""

from __future__ import annotations

from dataclasses import dataclass

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
        found = [Cue(self.rules[match_id], start, end) for match_id, start, end in matches]
        pseudo: dict[str, list[Cue]] = {}
        for cue in found:
            if cue.rule.direction == "pseudo":
                pseudo.setdefault(cue.rule.category, []).append(cue)
        kept = [
            cue
            for cue in found
            if cue.rule.direction != "pseudo"
            and not any((cue.start < p.end and cue.end > p.start) or cue.start == p.end for p in pseudo.get(cue.rule.category, ()))
        ]
        return sorted(kept, key=lambda cue: (cue.start, cue.end, cue.rule.ref))

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
