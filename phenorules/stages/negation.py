"""Negated phenotypes with NegEx (Chapman et al. 2001), run by negspacy.

negspacy's ``Negex`` does the work: cue phrases from ``rules/negation_terms.tsv`` (four
families: pseudo, preceding and following negations, terminations), scope = the rest of
the sentence up to a termination. Three changes on top:

* scope window: as in Chapman et al., a cue reaches only ``window`` words; phenotype
  mentions and punctuation do not count, so "no hypotonia, hyperextensible joints, or
  joint pain" is negated to its end but a long clause after the cue is not;
* sections: mentions in ``skipped_sections`` (DISCUSS) are left alone; negated findings
  there are about other patients and the literature, and annotators mark them as
  present about as often as negated (docs/context.md);
* provenance: negspacy only sets ``span._.negex``; the cue that fired is appended to
  ``span._.provenance`` (``negex:preceding_negations:no evidence of``).

The cue choice is measured on PatientPheX: bare "not" and "without" are not cues.
"""

from __future__ import annotations

from bisect import bisect_left
from pathlib import Path

import numpy
from negspacy.negation import Negex
from spacy.attrs import IS_ALPHA, IS_DIGIT, IS_SPACE, LENGTH
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PASSAGES, PHENOTYPES
from ..lexicon.tsv import read_grouped
from ..resources import data_dir

FAMILIES = ("pseudo_negations", "preceding_negations", "following_negations", "termination")


def read_termset(path: Path) -> dict[str, list[str]]:
    """negspacy's ``neg_termset`` from a (family, cue) TSV, cues in file order."""
    return read_grouped(path, FAMILIES, "cue family")


@Language.factory("phenorules_negation", default_config={"terms_file": None, "window": 5, "skipped_sections": ["DISCUSS"]})
def make_negation(nlp: Language, name: str, terms_file: str | None, window: int, skipped_sections: list[str]):
    path = Path(terms_file) if terms_file else data_dir("rules") / "negation_terms.tsv"
    termset = read_termset(path)
    return WindowedNegex(nlp, name, neg_termset=termset, span_keys=[PHENOTYPES], window=window, skipped_sections=frozenset(skipped_sections))


def word_positions(doc: Doc, spans: list[Span]) -> list[int]:
    """For each token index (and len(doc)), how many words come before it.

    A word is an alphanumeric token outside phenotype mentions: the
    findings listed after a cue ("no A, B, C or D") do not use up its window.
    """
    # The word tokenizer makes every alphanumeric run one token and every other character
    # (or white-space run) a token of its own, so words are the non-space tokens that are
    # longer than one character, alphabetic or numeric.
    alpha, digit, length, space = doc.to_array([IS_ALPHA, IS_DIGIT, LENGTH, IS_SPACE]).T
    counted = ((alpha == 1) | (digit == 1) | (length > 1)) & (space == 0)
    for span in spans:
        counted[span.start : span.end] = False
    return [0] + numpy.cumsum(counted).tolist()


class WindowedNegex(Negex):
    """negspacy's NegEx with a word window, recording the firing cue in the provenance."""

    def __init__(
        self, nlp: Language, name: str, neg_termset: dict[str, list[str]], span_keys: list[str], window: int, skipped_sections: frozenset[str]
    ):
        super().__init__(nlp, name, neg_termset=neg_termset, span_keys=span_keys)
        self.window = window
        self.skipped_sections = skipped_sections
        self._spans: list[Span] = []
        self._starts: list[int] = []
        self._words: list[int] = []

    def __call__(self, doc: Doc) -> Doc:
        skipped = [(p.start, p.end) for p in doc.spans.get(PASSAGES, []) if p.label_ in self.skipped_sections]
        self._spans = sorted(
            (span for span in doc.spans.get(PHENOTYPES, []) if not any(a <= span.start < b for a, b in skipped)),
            key=lambda span: (span.start, span.end),
        )
        self._starts = [span.start for span in self._spans]
        self._words = word_positions(doc, self._spans)
        try:
            return self.negex(doc)
        finally:
            self._spans, self._starts, self._words = [], [], []

    def yield_spans_within_boundary(self, doc: Doc, boundary: tuple[int, int], span_keys: set[str]):
        """negspacy's scan over all spans, by bisection over the spans sorted once per doc."""
        start, end = boundary
        for span in self._spans[bisect_left(self._starts, start) :]:
            if span.start >= end:
                break
            if span.end <= end:
                yield span

    def _apply_negation(self, span: Span, sub_preceding, sub_following) -> None:
        if span._.negex:
            return
        words = self._words
        preceding = [m for m in sub_preceding if m[2] <= span.start and words[span.start] - words[m[2]] <= self.window]
        following = [m for m in sub_following if m[1] >= span.end and words[m[1]] - words[span.end] <= self.window]
        super()._apply_negation(span, preceding, following)
        if span._.negex:
            span._.provenance = [*(span._.provenance or []), firing_cue(span, preceding, following)]


def firing_cue(span: Span, preceding, following) -> str:
    """The nearest preceding cue, else the nearest following one, as a provenance entry."""
    doc = span.doc
    if preceding:
        _, start, end = max(preceding, key=lambda m: (m[1], m[2]))
        return f"negex:preceding_negations:{doc[start:end].text.lower()}"
    _, start, end = min(following, key=lambda m: m[1])
    return f"negex:following_negations:{doc[start:end].text.lower()}"
