"""Negated phenotypes with NegEx (Chapman et al. 2001), run by negspacy.

negspacy's ``Negex`` does the work: cue phrases from ``rules/negation_terms.tsv`` (four
families: pseudo, preceding and following negations, terminations), scope = the rest of
the sentence up to a termination. Changes on top:

* scope window: as in Chapman et al., a cue reaches only ``window`` words; phenotype
  mentions and punctuation do not count, so "no hypotonia, hyperextensible joints, or
  joint pain" is negated to its end but a long clause after the cue is not;
* asides: words inside brackets and list openers ("such as") do not count either, and
  for a cue written after its finding neither do comma-delimited asides ("Hearing loss,
  reported in other families, was absent here"); a cue before a quantified subject ("neither of the affected
  individuals presented with X") reaches ``wide_window`` words, and a copula's "not" ("the
  patient was not anemic") only ``narrow_window`` words: the finding is its predicate;
* sections: in ``skipped_sections`` (DISCUSS) a negation stands only in a sentence that
  speaks of the article's own cases (``rules/negation_scope.tsv``: "our patients",
  "the proband", "here"); the other negated findings there are about other patients and
  the literature, which annotators mark as present about as often as negated
  (docs/context.md);
* cues inside findings: a cue that is words of a phenotype mention ("[absence of speech],
  ataxia and hypotonia": Absent speech) names that finding and negates nothing; a mention
  it would have negated records it (``negex:in_mention:absence of``);
* cue matching (``CueMatcher``): a cue's words may stand apart by runs of spaces
  ("negative   for" in line-wrapped clinical notes), and a pseudo-negation cancels every
  cue that overlaps it ("was not only", "but not always");
* provenance: negspacy only sets ``span._.negex``; the cue that fired is appended to
  ``span._.provenance`` (``negex:preceding_negations:no evidence of``). A mention a cue
  would have negated records what kept it affirmed: a cue beyond its reach
  (``negex:beyond_reach:was not:narrow_window=2:negation_scope.tsv:35``, or
  ``...:window=5``), or a skipped section (``negex:skipped_section:DISCUSS:preceding_negations:no``);
  a negation a skipped section lets stand names the own-case row after the cue
  (``negex:own_case:DISCUSS:negation_scope.tsv:12``).

The cue choice is measured on PatientPheX: bare "not" and "without" are not cues.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

import numpy
from negspacy.negation import Negex
from spacy.attrs import IS_ALPHA, IS_DIGIT, IS_SPACE, LENGTH, SENT_START
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from ..document import PASSAGES, PHENOTYPES, doc_text
from ..intervals import Extents
from ..lexicon.tsv import RuleRef, read_grouped, read_grouped_rules
from ..resources import data_dir

FAMILIES = ("pseudo_negations", "preceding_negations", "following_negations", "termination")
SCOPE_KINDS = ("own_case", "wide_cue", "narrow_cue", "list_opener")
_NUMBER = "#"  # in an own-case reference: any number ("patient #" = "patient 2")


def read_termset(path: Path) -> dict[str, list[str]]:
    """negspacy's ``neg_termset`` from a (family, cue) TSV, cues in file order."""
    return read_grouped(path, FAMILIES, "cue family")


@dataclass(frozen=True)
class ScopeRules:
    own_case: re.Pattern  # a sentence about the article's own cases
    wide_cues: dict[str, RuleRef]  # cues (lower case) that reach wide_window words, with their rows
    narrow_cues: dict[str, RuleRef]  # cues (lower case) that reach only narrow_window words, with their rows
    list_openers: re.Pattern  # "such as": not counted in a window
    own_case_rows: tuple[tuple[re.Pattern, RuleRef], ...] = ()  # each own-case phrase and its row

    def own_case_row(self, found: re.Match) -> RuleRef | None:
        """The row of the own-case phrase ``own_case`` found."""
        return next((ref for pattern, ref in self.own_case_rows if pattern.fullmatch(found.group())), None)


def _phrases(phrases: list[str]) -> re.Pattern:
    """One regex for whole-word phrases, longest first; '#' is any number."""
    alternatives = [re.escape(p.lower()).replace(r"\ ", r"\s+").replace(re.escape(_NUMBER), r"\d+") for p in sorted(phrases, key=len, reverse=True)]
    return re.compile(rf"\b(?:{'|'.join(alternatives) or '(?!)'})\b", re.IGNORECASE)


def read_scope_rules(path: Path) -> ScopeRules:
    grouped = read_grouped_rules(path, SCOPE_KINDS, "kind")
    return ScopeRules(
        _phrases([ref.name for ref in grouped["own_case"]]),
        _cue_rows(grouped["wide_cue"]),
        _cue_rows(grouped["narrow_cue"]),
        _phrases([ref.name for ref in grouped["list_opener"]]),
        tuple((_phrases([ref.name]), ref) for ref in grouped["own_case"]),
    )


def _cue_rows(refs: list[RuleRef]) -> dict[str, RuleRef]:
    """Cue (lower case) -> its first row."""
    rows: dict[str, RuleRef] = {}
    for ref in refs:
        rows.setdefault(ref.name.lower(), ref)
    return rows


@Language.factory(
    "phenorules_negation",
    default_config={"terms_file": None, "scope_file": None, "window": 5, "wide_window": 10, "narrow_window": 2, "skipped_sections": ["DISCUSS"]},
)
def make_negation(
    nlp: Language,
    name: str,
    terms_file: str | None,
    scope_file: str | None,
    window: int,
    wide_window: int,
    narrow_window: int,
    skipped_sections: list[str],
):
    rules_dir = data_dir("rules")
    termset = read_termset(Path(terms_file) if terms_file else rules_dir / "negation_terms.tsv")
    scope = read_scope_rules(Path(scope_file) if scope_file else rules_dir / "negation_scope.tsv")
    return WindowedNegex(
        nlp, name, neg_termset=termset, span_keys=[PHENOTYPES], window=window, skipped_sections=frozenset(skipped_sections), scope=scope,
        wide_window=wide_window, narrow_window=narrow_window,
    )


def counted_words(doc: Doc, spans: list[Span], list_openers: re.Pattern) -> numpy.ndarray:
    """Per token: is it a word that uses up a cue's window?

    A word is an alphanumeric token outside phenotype mentions and outside brackets: the
    findings listed after a cue ("no A, B, C or D") and an aside ("no signs (clinical or
    radiological) of X") do not use up its window.
    """
    # The word tokenizer makes every alphanumeric run one token and every other character
    # (or white-space run) a token of its own, so words are the non-space tokens that are
    # longer than one character, alphabetic or numeric.
    alpha, digit, length, space = doc.to_array([IS_ALPHA, IS_DIGIT, LENGTH, IS_SPACE]).T
    counted = ((alpha == 1) | (digit == 1) | (length > 1)) & (space == 0)
    for span in spans:
        counted[span.start : span.end] = False
    text = doc_text(doc)
    asides = _bracketed(text) + [found.span() for found in list_openers.finditer(text)]
    for start, end in asides:
        inside = doc.char_span(start, end, alignment_mode="contract")
        if inside is not None:
            counted[inside.start : inside.end] = False
    return counted


def _bracketed(text: str) -> list[tuple[int, int]]:
    """(start, end) of the text inside each innermost pair of round brackets."""
    return [(found.start() + 1, found.end() - 1) for found in re.finditer(r"\([^()\n]*\)", text)]


def word_positions(counted: numpy.ndarray) -> list[int]:
    """For each token index (and len(doc)), how many counted words come before it."""
    return [0] + numpy.cumsum(counted).tolist()


def aside_free(doc: Doc, counted: numpy.ndarray) -> numpy.ndarray:
    """``counted`` less the words of comma-delimited asides (", reported in other
    families,"): what a cue written after its finding has to reach over."""
    counted = counted.copy()
    for found in re.finditer(r",[^,;.\n]*,", doc_text(doc)):
        inside = doc.char_span(found.start() + 1, found.end() - 1, alignment_mode="contract")
        if inside is not None:
            counted[inside.start : inside.end] = False
    return counted


class WindowedNegex(Negex):
    """negspacy's NegEx with a word window, recording the firing cue in the provenance."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        neg_termset: dict[str, list[str]],
        span_keys: list[str],
        window: int,
        skipped_sections: frozenset[str],
        scope: ScopeRules,
        wide_window: int,
        narrow_window: int,
    ):
        super().__init__(nlp, name, neg_termset=neg_termset, span_keys=span_keys)
        self.window = window
        self.skipped_sections = skipped_sections
        self.scope = scope
        self.wide_window = wide_window
        self.narrow_window = narrow_window
        self._spans: list[Span] = []
        self._skipped: dict[int, str] = {}  # id of a span in a skipped section -> the section
        self._own_case: dict[int, str] = {}  # id of a span a skipped section leaves in scope -> why
        self._starts: list[int] = []
        self._words: list[int] = []
        self._words_after: list[int] = []

    def build_patterns(self) -> None:
        super().build_patterns()
        cues = [*self.pseudo_patterns, *self.preceding_patterns, *self.following_patterns, *self.termination_patterns]
        self.matcher = CueMatcher(self.matcher, max((len(cue) for cue in cues), default=1))

    def __call__(self, doc: Doc) -> Doc:
        mentions = doc.spans.get(PHENOTYPES, [])
        skipped = [(p.start, p.end, p.label_) for p in doc.spans.get(PASSAGES, []) if p.label_ in self.skipped_sections]
        self._spans = sorted(mentions, key=lambda span: (span.start, span.end))
        self._skipped, self._own_case = {}, {}
        if skipped:
            sections, sentences = Extents((start, end) for start, end, _ in skipped), Sentences(doc)
            for span in self._spans:
                self.skipped_section(doc, span, skipped, sections, sentences)
        self._starts = [span.start for span in self._spans]
        counted = counted_words(doc, list(mentions), self.scope.list_openers)
        self._words = word_positions(counted)
        self._words_after = word_positions(aside_free(doc, counted))
        try:
            return self.negex(doc)
        finally:
            self._spans, self._skipped, self._own_case, self._starts, self._words, self._words_after = [], {}, {}, [], [], []

    def skipped_section(self, doc: Doc, span: Span, skipped: list[tuple[int, int, str]], sections: Extents, sentences: "Sentences") -> None:
        """Note a mention in a skipped section (``sections`` indexes ``skipped``): out of
        negation's reach, unless its sentence is about the article's own cases (then with
        the own-case row)."""
        holding = sections.overlapping(span.start, span.start + 1)
        if not holding:
            return
        section = skipped[holding[0]][2]
        found = sentences.own_case(span.start, self.scope.own_case)
        if found is None:
            self._skipped[id(span)] = section
        else:
            self._own_case[id(span)] = f"negex:own_case:{section}:{self.scope.own_case_row(found)}"

    def process_negations(self, doc: Doc):
        """negspacy's: the cues by family, less those that start inside a pseudo-negation
        or right after it; the pseudo-negations are looked up by position, not scanned for
        each cue."""
        strings = self.nlp.vocab.strings
        pseudo_id = strings["pseudo"]
        matches = self.matcher(doc)
        pseudo = Extents((start, end) for match_id, start, end in matches if match_id == pseudo_id)
        families: dict[int, list] = {strings[family]: [] for family in ("Preceding", "Following", "Termination")}
        for match in matches:
            match_id, start, _ = match
            if match_id != pseudo_id and not pseudo.overlaps_any(start - 1, start + 1):  # pseudo start <= start <= pseudo end
                families[match_id].append(match)
        preceding, following, terminating = families.values()
        return preceding, following, terminating

    def negex(self, doc: Doc) -> Doc:
        """negspacy's, with each sub-sentence's cues cut from the sorted cue lists by
        bisection rather than filtered from all of them, and each mention handed only the
        cues that decide it (:meth:`cue_windows`)."""
        preceding, following, terminating = self.process_negations(doc)
        preceding_starts, following_starts = [m[1] for m in preceding], [m[1] for m in following]
        for boundary in self.termination_boundaries(doc, terminating):
            start, end = boundary
            sub_preceding = preceding[bisect_left(preceding_starts, start) : bisect_left(preceding_starts, end)]
            sub_following = following[bisect_left(following_starts, start) : bisect_left(following_starts, end)]
            spans = list(self.yield_spans_within_boundary(doc, boundary, self.span_keys))
            if spans:
                cues_of = self.cue_windows(doc, sub_preceding, sub_following)
                for span in spans:
                    self._apply_negation(span, *cues_of(span))
        return doc

    def cue_windows(self, doc: Doc, sub_preceding: list, sub_following: list):
        """span -> (preceding, following cues) that give :meth:`_apply_negation` the same
        outcome as all the sub-sentence's cues: of the cues before the mention, the
        nearest in reach not inside a mention, the first in reach inside one and the
        nearest out of reach; likewise after it. A long sentence ("no A, no B, ...") has
        as many cues as mentions, and handing each mention all of them is quadratic."""
        before = PrecedingCues(sub_preceding, lambda cue: self.reach(doc, cue), self.in_mention)
        after = FollowingCues(sub_following, self.in_mention)
        return lambda span: (before.deciding(span.start, self._words), after.deciding(span.end, self._words_after, self.window))

    def yield_spans_within_boundary(self, doc: Doc, boundary: tuple[int, int], span_keys: set[str]):
        """negspacy's scan over all spans, by bisection over the spans sorted once per doc."""
        start, end = boundary
        spans, i = self._spans, bisect_left(self._starts, start)  # by index: a slice would copy the rest of the spans
        while i < len(spans) and spans[i].start < end:
            if spans[i].end <= end:
                yield spans[i]
            i += 1

    def _apply_negation(self, span: Span, sub_preceding, sub_following) -> None:
        if span._.negex:
            return
        words, words_after = self._words, self._words_after
        doc = span.doc
        before = [m for m in sub_preceding if m[2] <= span.start]
        after = [m for m in sub_following if m[1] >= span.end]
        preceding = [m for m in before if words[span.start] - words[m[2]] <= self.reach(doc, m)]
        following = [m for m in after if words_after[m[1]] - words_after[span.end] <= self.window]
        finding_words = [m for m in preceding + following if self.in_mention(m)]
        if finding_words:  # not negated by them; recorded if it stays affirmed
            before, after = [m for m in before if m not in finding_words], [m for m in after if m not in finding_words]
            preceding, following = [m for m in preceding if m not in finding_words], [m for m in following if m not in finding_words]
        section = self._skipped.get(id(span))
        if section is not None:  # not negated here; recorded if a cue would have
            if preceding or following:
                self.record(span, f"negex:skipped_section:{section}:{firing_cue(span, preceding, following).removeprefix('negex:')}")
            return
        super()._apply_negation(span, preceding, following)
        if span._.negex:
            own_case = self._own_case.get(id(span))
            span._.provenance = [*(span._.provenance or []), firing_cue(span, preceding, following), *([own_case] if own_case else [])]
        else:
            cut_before, cut_after = [m for m in before if m not in preceding], [m for m in after if m not in following]
            if cut_before or cut_after:
                self.record(span, self.beyond_reach(doc, cut_before, cut_after))
            elif finding_words:
                _, start, end = finding_words[0]
                self.record(span, f"negex:in_mention:{cue_text(doc, start, end)}")

    def in_mention(self, cue) -> bool:
        """Whether the cue is words of a phenotype mention ("[absence of speech], ataxia"):
        the finding's own words, not a negation of the findings around it."""
        _, start, end = cue
        last = bisect_left(self._starts, start + 1)  # the mentions before it start at or before the cue
        # The one holding the cue starts last of them, or a few before with nested mentions.
        return any(span.start <= start and end <= span.end for span in self._spans[max(0, last - 4) : last])

    @staticmethod
    def record(span: Span, entry: str) -> None:
        if entry not in (span._.provenance or []):
            span._.provenance = [*(span._.provenance or []), entry]

    def beyond_reach(self, doc: Doc, cut_before, cut_after) -> str:
        """The provenance entry of the nearest preceding cue that did not reach the
        mention, else the nearest following one: the cue and the setting (with its row)
        that limited its reach."""
        preceding = bool(cut_before)
        _, start, end = max(cut_before, key=lambda m: (m[1], m[2])) if preceding else min(cut_after, key=lambda m: m[1])
        text = cue_text(doc, start, end)
        if preceding and text in self.scope.wide_cues:
            setting = f"wide_window={self.wide_window}:{self.scope.wide_cues[text]}"
        elif preceding and text in self.scope.narrow_cues:
            setting = f"narrow_window={self.narrow_window}:{self.scope.narrow_cues[text]}"
        else:
            setting = f"window={self.window}"
        return f"negex:beyond_reach:{text}:{setting}"


    def reach(self, doc: Doc, cue) -> int:
        """How many words a preceding cue reaches."""
        _, start, end = cue
        text = cue_text(doc, start, end)
        if text in self.scope.wide_cues:
            return self.wide_window
        return self.narrow_window if text in self.scope.narrow_cues else self.window


class CueMatcher:
    """negspacy's cue phrase matcher with two changes.

    * Runs of spaces: the word tokenizer makes a run of spaces a token, which would stand
      between a cue's words ("negative   for" in line-wrapped clinical notes); around each
      run the phrase matcher runs again over the tokens less the runs (line breaks stay),
      within the longest cue's length, and adds the matches that span a run.
    * Overlaps: a pseudo-negation cancels every cue that overlaps it; negspacy cancels
      only a cue that starts inside it, so "was not" in "was not only" and "but not" in
      "but not always" would negate.
    """

    def __init__(self, matcher: PhraseMatcher, longest: int):
        self.matcher = matcher
        self.longest = longest  # tokens in the longest cue

    def __call__(self, doc: Doc) -> list[tuple[int, int, int]]:
        matches = set(self.matcher(doc))
        runs = [i for i in numpy.flatnonzero(doc.to_array(IS_SPACE)).tolist() if "\n" not in doc[i].text]
        dropped = set(runs)
        for run in runs:
            kept = [i for i in range(max(0, run - self.longest), min(len(doc), run + self.longest + 1)) if i not in dropped]
            words = Doc(doc.vocab, words=[doc[i].text for i in kept])
            for match_id, start, end in self.matcher(words):
                if kept[end - 1] - kept[start] != end - 1 - start:  # spans a run
                    matches.add((match_id, kept[start], kept[end - 1] + 1))
        pseudo_id = doc.vocab.strings["pseudo"]
        pseudo = Extents((start, end) for match_id, start, end in matches if match_id == pseudo_id)
        kept_matches = [(match_id, start, end) for match_id, start, end in matches if match_id == pseudo_id or not pseudo.overlaps_any(start, end)]
        return sorted(kept_matches, key=lambda match: (match[1], match[2], match[0]))


class PrecedingCues:
    """The preceding cues of a sub-sentence, grouped by reach and by whether they lie inside
    a mention, each group sorted by end: a cue is in a mention's reach when at most its
    reach of counted words lie between its end and the mention, so the group's cues in
    reach are a range of it, found by bisection. Cues are a few tokens long, so the
    nearest (the latest start) and the first of a range lie within that many tokens of
    its top or bottom end."""

    def __init__(self, cues: list, reach, in_mention):
        groups: dict[tuple[int, bool], list] = {}
        for cue in cues:
            groups.setdefault((reach(cue), in_mention(cue)), []).append(cue)
        self.groups = {key: sorted(group, key=lambda cue: (cue[2], cue[1])) for key, group in groups.items()}
        self.ends = {key: [cue[2] for cue in group] for key, group in self.groups.items()}
        self.longest = max((cue[2] - cue[1] for cue in cues), default=0)

    def deciding(self, start: int, words: list[int]) -> list:
        """Of the cues ending at or before token ``start`` (``words``: counted words before
        each token): the latest in reach outside mentions, the first in reach inside one,
        the latest out of reach; in text order."""
        free = inside = out_of_reach = None
        for (reach, in_mention), group in self.groups.items():
            ends = self.ends[(reach, in_mention)]
            before = bisect_right(ends, start)
            split = bisect_left(ends, bisect_left(words, words[start] - reach), 0, before)  # in reach from here
            if in_mention:
                inside = _earliest(group, ends, split, before, self.longest, inside)
            else:
                free = _latest(group, ends, split, before, free)
            out_of_reach = _latest(group, ends, 0, split, out_of_reach)
        return sorted((cue for cue in (free, inside, out_of_reach) if cue is not None), key=lambda cue: (cue[1], cue[2]))


def _latest(cues: list, ends: list[int], low: int, high: int, best):
    """``best`` or the cue of ``cues[low:high]`` (sorted by end) that starts last (then ends last)."""
    for i in range(high - 1, low - 1, -1):
        if best is not None and ends[i] <= best[1]:
            break  # it and all below start before the best
        if best is None or (cues[i][1], cues[i][2]) > (best[1], best[2]):
            best = cues[i]
    return best


def _earliest(cues: list, ends: list[int], low: int, high: int, longest: int, best):
    """``best`` or the cue of ``cues[low:high]`` (sorted by end) that starts first (then
    ends first); no cue is longer than ``longest`` tokens."""
    for i in range(low, high):
        if best is not None and ends[i] - longest > best[1]:
            break  # it and all above start after the best
        if best is None or (cues[i][1], cues[i][2]) < (best[1], best[2]):
            best = cues[i]
    return best


class FollowingCues:
    """The following cues of a sub-sentence in text order: a cue is in reach of a mention
    when at most ``window`` counted words lie between the mention's end and the cue's
    start, so the cues in reach are a range of them."""

    def __init__(self, cues: list, in_mention):
        self.cues = cues
        self.starts = [cue[1] for cue in cues]
        inside = [in_mention(cue) for cue in cues]
        # next_free[i] / next_inside[i]: the first cue from i on outside / inside a mention
        self.next_free, self.next_inside = [len(cues)] * (len(cues) + 1), [len(cues)] * (len(cues) + 1)
        for i in range(len(cues) - 1, -1, -1):
            self.next_free[i] = self.next_free[i + 1] if inside[i] else i
            self.next_inside[i] = i if inside[i] else self.next_inside[i + 1]

    def deciding(self, end: int, words_after: list[int], window: int) -> list:
        """Of the cues starting at or after token ``end``: the first in reach outside
        mentions, the first in reach inside one, the first out of reach; in text order."""
        first = bisect_left(self.starts, end)
        last = bisect_right(words_after, words_after[end] + window) - 1  # the last token in reach
        beyond = bisect_right(self.starts, last, first)
        chosen = {self.next_free[first], self.next_inside[first]}
        return [self.cues[i] for i in sorted(chosen | {beyond}) if i < beyond or i == beyond < len(self.cues)]


class Sentences:
    """The sentence holding a token, as ``Span.sent`` finds it (back to the sentence's
    first token, on to the next sentence start), by bisection over the sentence starts;
    ``Span.sent`` walks the tokens, which is quadratic in a long sentence's mentions."""

    def __init__(self, doc: Doc):
        self.doc = doc
        self.starts = numpy.flatnonzero(doc.to_array([SENT_START]).astype("int64") == 1).tolist()
        self._own_case: dict[int, re.Match | None] = {}

    def own_case(self, token: int, own_case: re.Pattern) -> re.Match | None:
        """The first own-case phrase in the sentence of ``token``, searched once per sentence."""
        i = bisect_right(self.starts, token) - 1
        if i not in self._own_case:
            start = self.starts[i] if i >= 0 else 0
            end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.doc)
            sentence = self.doc[start:end]
            self._own_case[i] = own_case.search(doc_text(self.doc), sentence.start_char, sentence.end_char)
        return self._own_case[i]


def cue_text(doc: Doc, start: int, end: int) -> str:
    """A matched cue as written in the termset: lower case, single spaces."""
    return " ".join(doc[start:end].text.lower().split())


def firing_cue(span: Span, preceding, following) -> str:
    """The nearest preceding cue, else the nearest following one, as a provenance entry."""
    doc = span.doc
    if preceding:
        _, start, end = max(preceding, key=lambda m: (m[1], m[2]))
        return f"negex:preceding_negations:{cue_text(doc, start, end)}"
    _, start, end = min(following, key=lambda m: m[1])
    return f"negex:following_negations:{cue_text(doc, start, end)}"
