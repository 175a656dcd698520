"""Assertions on phenotype mentions with ConText (Harkema et al. 2009, J Biomed Inform 42:839).

ConText extends NegEx (Chapman et al. 2001) from negation to five properties of a finding:
negated, uncertain ("possible"), hypothetical ("return if", "at risk for"), historical
("history of") and experienced by someone else (a relative). Trigger cues
(``rules/context_rules.tsv``, one row each: cue, category, direction, optional reach) open a
scope that runs forward, backward or both from the cue to the end of the sentence, stopped
earlier by a terminating cue of the same category, by a nearer cue of the same category
(even one out of its own reach), by a scope break (an inline header of a note,
``rules/assertion_scope.tsv``) or by the row's ``max_scope``; pseudo-triggers cancel the
cues they overlap; section headers ("Family history:") govern their section. Each mention gets the
flags ``is_negated``, ``is_uncertain``, ``is_hypothetical``, ``is_historical`` and
``is_family`` (``negex`` is ``is_negated``), the cues that set them in
``span._.assertion_cues``, and each fired row in its provenance
(``context:NEGATED_EXISTENCE:no evidence of:context_rules.tsv:92``).

What the scope learnt on biomedical articles:

* a word window (``window``, the patientphex profile's; None, the default, is ConText's
  sentence): a cue reaches ``window`` words (or its row's ``max_scope``); phenotype
  mentions, punctuation, bracketed asides and list openers ("such as") do not count, and
  for a cue written after its finding neither do comma-delimited asides ("Hearing loss,
  reported in other families, was absent here");
* sections: in ``skipped_sections`` (DISCUSS) an assertion stands only in a sentence that
  speaks of the article's own cases (``rules/assertion_scope.tsv``: "our patients",
  "the proband", "here"); the other findings there are about other patients and the
  literature (docs/context.md);
* cues inside findings: a cue that is words of a phenotype mention ("[absence of speech],
  ataxia and hypotonia": Absent speech) names that finding and asserts nothing, and a
  terminating cue there ends no scope; a backward cue that ends a mention after its first
  word is its predicate ("[pupils not dilated]") and asserts it.

A mention a cue would have reached records what kept it plain: the cue beyond its reach
(``context:beyond_reach:NEGATED_EXISTENCE:was not:max_scope=2:context_rules.tsv:117``, or
``...:window=5``), a skipped section or a cue inside a finding. Everything a call needs is
made in the call: one pipeline serves many threads at once.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy
from spacy.attrs import IS_SPACE, SENT_START
from spacy.language import Language
from spacy.tokens import Doc

from ..assertion.cues import Cue, CueMatcher, context_cues
from ..assertion.rules import CATEGORIES, FLAGS, ScopeRules, read_scope_rules
from ..core.document import LOCAL, PASSAGES, DocState, MentionStage, placed, working
from ..core.phenotype import Phenotype
from ..core.errors import SettingError
from ..core.intervals import Extents
from ..core.patterns import LocatedPattern
from ..kb.resources import data_file

FORWARD = frozenset({"forward", "bidirectional"})
BACKWARD = frozenset({"backward", "bidirectional"})
_HEADER = re.compile(r"\n[ \t]*[A-Z][A-Za-z /&,()-]{1,60}:")  # the next section header of a note


@Language.factory(
    "phenorules_assertion",
    default_config={"rules_file": None, "scope_file": None, "window": None, "skipped_sections": ["DISCUSS"], "off_cues": [], "spans": True},
)
def make_assertion(
    nlp: Language, name: str, rules_file: str | None, scope_file: str | None, window: int | None, skipped_sections: list[str], off_cues: list[str], spans: bool
):
    """``window``: the words a cue without a ``max_scope`` reaches (None: to the end of its
    sentence, ConText's scope); ``off_cues``: rows (by their cue cell) that do not fire, a
    corpus's convention (rules/profiles.tsv)."""
    return placed(context_stage(nlp, "assertion", rules_file, scope_file, window, skipped_sections, off_cues, CATEGORIES), spans)


def context_stage(
    nlp: Language, name: str, rules_file: str | None, scope_file: str | None, window: int | None, skipped_sections: list[str], off_cues: list[str], categories
) -> "ConText":
    """The stage over the rows of ``categories`` less ``off_cues``; a setting that names no
    row, no category or no reach is an error naming the component ``name``."""
    if window is not None and not (isinstance(window, int) and not isinstance(window, bool) and window > 0):
        raise SettingError(f"{name}.window: expected a positive number of words or null (the sentence), got {window!r}")
    unknown_categories = sorted(set(categories) - set(CATEGORIES))
    if unknown_categories:
        raise SettingError(f"{name}.categories: {unknown_categories} is no category; the categories are {list(CATEGORIES)}")
    rules, tokens = context_cues(nlp, data_file("rules", "context_rules.tsv", rules_file))
    unknown = sorted(set(off_cues) - {rule.ref.name for rule in rules})
    if unknown:
        raise SettingError(f"{name}.off_cues: {unknown} is no cue of the rules file")
    kept = [i for i, rule in enumerate(rules) if rule.ref.name not in set(off_cues) and rule.category in set(categories)]
    scope = read_scope_rules(data_file("rules", "assertion_scope.tsv", scope_file))
    return ConText(CueMatcher(nlp, [rules[i] for i in kept], [tokens[i] for i in kept]), scope, window, frozenset(skipped_sections))


@dataclass
class _Words:
    """Per document: the mentions in text order and the word counts a cue's reach is measured in."""

    mentions: list[_Mention]
    starts: list[int]  # token start of each mention
    before: numpy.ndarray  # counted words before each token index (and len(doc))
    after: numpy.ndarray  # the same without comma-delimited asides, for cues after their finding
    findings: frozenset[Cue] = frozenset()  # cues that are words of a phenotype mention


class ConText(MentionStage):
    """The stage: the cue matcher and scope phrases its rows made, and its settings; each
    call works on its own Doc only."""

    pieces = LOCAL

    def __init__(self, cues: CueMatcher, scope: ScopeRules, window: int | None, skipped_sections: frozenset[str]):
        self.cues = cues
        self.scope = scope
        self.window = window
        self.skipped_sections = skipped_sections

    def apply(self, doc: Doc) -> None:
        self.assert_mentions(doc, working(doc))

    def assert_mentions(self, doc: Doc, state: DocState) -> None:
        """Set the flags, cues and provenance of ``state.mentions``, records of ``doc``
        (the pipeline's, or spans another component made: :mod:`phenorules.stages.context`)."""
        if not state.mentions:
            return
        mentions = sorted((_Mention(doc, state, record) for record in state.mentions), key=lambda span: (span.start, span.end))
        for mention in state.mentions:  # a Doc run again starts plain
            mention.assertions, mention.cues = (), []
        spaces = doc.to_array(IS_SPACE) == 1
        counted = counted_words(doc, state, mentions, self.scope.list_openers, spaces)
        words = _Words(mentions, [span.start for span in mentions], word_positions(counted), word_positions(aside_free(doc, state, counted)))
        sentence_starts = sentence_token_starts(doc)
        skipped = self.skipped(doc, state.text, mentions, sentence_starts)
        cues = self.cues(doc, spaces, sentences_holding(words.starts, sentence_starts, len(doc)))
        words.findings = {cue for cue in cues if cue.rule.direction != "terminate" and in_mention(cue, words)}
        breaks = [found.start() for found in self.scope.breaks.finditer(state.text)]
        cuts = sorted({*sentence_starts, *(index for index in (state.token_extent(doc, at, at + 1)[0] for at in breaks) if not inside_mention(index, words))})
        by_category: dict[str, list[Cue]] = {}
        for cue in cues:
            by_category.setdefault(cue.rule.category, []).append(cue)
        for category in CATEGORIES:
            mine = by_category.get(category)
            if mine:
                self.assert_category(doc, category, mine, words, skipped, cuts)
                self.assert_sections(doc, state.text, [cue for cue in mine if cue.rule.direction == "section"], words, skipped, breaks)

    def skipped(self, doc: Doc, text: str, mentions: list[_Mention], sentence_starts: list[int]) -> dict[int, tuple[str, str | None]]:
        """Index of each mention in a skipped section -> (section, the own-case row that
        lets assertions stand in its sentence, or None); sections and sentences found by
        bisection."""
        sections = sorted((p.start, p.end, p.label_) for p in doc.spans.get(PASSAGES, []) if p.label_ in self.skipped_sections)
        found: dict[int, tuple[str, str | None]] = {}
        if not sections:
            return found
        section_starts, own_case = [start for start, _, _ in sections], {}
        for index, span in enumerate(mentions):
            at = bisect_right(section_starts, span.start) - 1
            if at < 0 or span.start >= sections[at][1]:
                continue
            sentence = bisect_right(sentence_starts, span.start) - 1
            if sentence not in own_case:
                first, last = sentence_starts[sentence], (sentence_starts[sentence + 1] if sentence + 1 < len(sentence_starts) else len(doc)) - 1
                own = self.scope.own_case.search(text, doc[first].idx, doc[last].idx + len(doc[last]))
                own_case[sentence] = None if own is None else str(self.scope.own_case_row(own))
            found[index] = (sections[at][2], own_case[sentence])
        return found

    def assert_category(self, doc: Doc, category: str, cues: list[Cue], words: _Words, skipped, cuts: list[int]) -> None:
        """ConText's scope for one category: the sentence, cut at each scope break (an inline
        header; ``cuts``: the tokens that start a sentence or a break outside a mention) and
        at each terminating cue outside a mention; a mention wholly inside one
        piece is asserted by the nearest cue on each side in that piece, if it reaches it.
        Each piece's cues are indexed once (:class:`_Side`), so a mention finds the cues
        that decide it by bisection: "no A, no B, ..." is not quadratic. A backward cue that
        ends a mention after its first word is its predicate ("pupils not dilated")."""
        terminating = (cue.start for cue in cues if cue.rule.direction == "terminate" and not inside_mention(cue.start, words))
        bounds = sorted({*cuts, *terminating, len(doc)})
        forward = [cue for cue in cues if cue.rule.direction in FORWARD]
        backward = [cue for cue in cues if cue.rule.direction in BACKWARD]
        forward_starts, backward_starts = [cue.start for cue in forward], [cue.start for cue in backward]
        predicates = {cue.end: cue for cue in sorted(backward, key=lambda cue: (cue.start, cue.rule.ref), reverse=True)}  # the longest per end
        with_cues = {bisect_right(bounds, cue.start) - 1 for cue in (*forward, *backward)}  # the pieces a mention may be decided in
        sides: dict[int, tuple[_Side, _Side]] = {}
        for index, span in enumerate(words.mentions):
            piece = bisect_right(bounds, span.start) - 1
            start, end = bounds[piece], bounds[piece + 1]
            if span.end > end or piece not in with_cues:
                continue
            if piece not in sides:
                sides[piece] = (
                    _Side(forward[bisect_left(forward_starts, start) : bisect_left(forward_starts, end)], True, self, words),
                    _Side(backward[bisect_left(backward_starts, start) : bisect_left(backward_starts, end)], False, self, words),
                )
            before, after = sides[piece]
            predicate = predicates.get(span.end)
            if predicate is not None and predicate.start > span.start:
                self.judge(doc, category, span, _Deciding(None, None, None), _Deciding(predicate, None, None), skipped.get(index))
            elif before.cues or after.cues:
                self.judge(doc, category, span, before.deciding(span), after.deciding(span), skipped.get(index))

    def judge(self, doc: Doc, category: str, span: _Mention, before: "_Deciding", after: "_Deciding", skipped) -> None:
        section, own_case = skipped or (None, None)
        if before.reaching or after.reaching:
            cue = before.reaching or after.reaching
            if section is not None and own_case is None:
                record(span, f"context:skipped_section:{section}:{category}:{cue.text(doc)}:{cue.rule.ref}")
            else:
                assert_span(doc, span, category, cue, f"context:own_case:{section}:{own_case}" if own_case else None)
        elif section is None or own_case is not None:
            if before.beyond or after.beyond:
                record(span, beyond_reach(doc, category, before.beyond or after.beyond, self.window))
            elif before.finding or after.finding:
                record(span, f"context:in_mention:{category}:{(before.finding or after.finding).text(doc)}")

    def assert_sections(self, doc: Doc, text: str, headers: list[Cue], words: _Words, skipped, breaks: list[int]) -> None:
        """A header cue at the start of a line governs the mentions up to the next header of
        the note or the end of its passage; at the start of a sentence, up to its end; either
        stops at the next scope break (an inline header: ``breaks``, their characters)."""
        if not headers:
            return  # a category without a header cue makes no Span of each passage
        passages = list(doc.spans.get(PASSAGES, []))
        passage_index = Extents((p.start, p.end) for p in passages)
        for cue in headers:
            head = doc[cue.start]
            before = head.idx  # back over the spaces and tabs before the cue (not a copy of the text before it)
            while before and text[before - 1] in " \t":
                before -= 1
            line_start = head.idx == 0 or (before > 0 and text[before - 1] == "\n")
            if not (line_start or head.is_sent_start):
                continue
            end_char = doc[cue.end - 1].sent.end_char
            if line_start:
                holding = passage_index.overlapping(cue.start, cue.start + 1)
                passage = passages[holding[0]] if holding else None
                end_char = passage.end_char if passage is not None else len(text)
                following = _HEADER.search(text, doc[cue.end - 1].idx, end_char)
                end_char = following.start() if following else end_char
            later = bisect_left(breaks, doc[cue.end - 1].idx)
            end_char = min(end_char, breaks[later]) if later < len(breaks) else end_char
            for index in range(bisect_left(words.starts, cue.end), len(words.mentions)):
                span = words.mentions[index]
                if span.start_char >= end_char:
                    break
                section, own_case = skipped.get(index, (None, None))
                if section is None or own_case is not None:
                    assert_span(doc, span, cue.rule.category, cue, None)

    def reach(self, cue: Cue) -> float:
        """The words a cue reaches: its row's ``max_scope``, else the window, else the rest
        of its sentence (the stage cuts every scope at the sentence end)."""
        return cue.rule.max_scope or self.window or math.inf


class _Mention:
    """A mention as the stage reads it: its record and its extent in tokens (the unit the
    cues are found in) and in characters."""

    __slots__ = ("record", "start", "end", "start_char", "end_char")

    def __init__(self, doc: Doc, state: DocState, record: Phenotype):
        self.record, self.start_char, self.end_char = record, record.start, record.end
        self.start, self.end = state.token_extent(doc, record.start, record.end)


def assert_span(doc: Doc, span: _Mention, category: str, cue: Cue, also: str | None) -> None:
    """Set the category's flag on the mention, with the cue and its row."""
    mention, flag = span.record, FLAGS[category]
    if mention.flagged(flag):
        return
    mention.flag(flag)
    cue_span = doc[cue.start : cue.end]
    mention.cues = [
        *mention.cues,
        {"category": category, "text": cue_span.text, "start": cue_span.start_char, "end": cue_span.end_char, "rule": str(cue.rule.ref)},
    ]
    mention.provenance = [*mention.provenance, f"context:{category}:{cue.text(doc)}:{cue.rule.ref}", *([also] if also else [])]


def record(span: _Mention, entry: str) -> None:
    if entry not in span.record.provenance:
        span.record.provenance = [*span.record.provenance, entry]


def beyond_reach(doc: Doc, category: str, cue: Cue, window: int) -> str:
    """The provenance entry of the nearest cue that did not reach the mention, with the
    reach that stopped it."""
    setting = f"max_scope={cue.rule.max_scope}:{cue.rule.ref}" if cue.rule.max_scope else f"window={window}"
    return f"context:beyond_reach:{category}:{cue.text(doc)}:{setting}"


@dataclass(frozen=True)
class _Deciding:
    """The cues on one side of a mention that decide it: the nearest in reach (not words of
    a finding), the first in reach that is words of a finding, the nearest out of reach."""

    reaching: Cue | None
    finding: Cue | None
    beyond: Cue | None


class _Side:
    """The cues of a piece on one side of its mentions (forward cues before them, backward
    ones after), grouped by reach and by being words of a finding, each group sorted by
    the end that faces the mention. A cue reaches a mention when at most its reach of
    counted words lie between, so a group's cues in reach are a range of it, found by
    bisection; cues are a few tokens long, so the nearest or first of a range lies within
    that many tokens of its end."""

    def __init__(self, cues: list[Cue], forward: bool, stage: "ConText", words: _Words):
        self.cues, self.forward, self.words = cues, forward, words
        groups: dict[tuple[int, bool], list[Cue]] = {}
        for cue in cues:
            groups.setdefault((stage.reach(cue), cue in words.findings), []).append(cue)
        face = (lambda cue: (cue.end, cue.start)) if forward else (lambda cue: (cue.start, cue.end))
        self.groups = {key: sorted(group, key=lambda cue: (*face(cue), cue.rule.ref)) for key, group in groups.items()}
        self.faces = {key: [cue.end if forward else cue.start for cue in group] for key, group in self.groups.items()}
        self.longest = max((cue.end - cue.start for cue in cues), default=0)

    def deciding(self, span: _Mention) -> _Deciding:
        reaching, finding, beyond, blocking = [], [], [], []
        for (reach, is_finding), group in self.groups.items():
            faces = self.faces[(reach, is_finding)]
            if self.forward:  # cues ending at or before the mention; in reach from ``split`` on
                last = bisect_right(faces, span.start)
                counts = self.words.before
                # A reach to the sentence's end takes every cue; a float searched in the int
                # array would make numpy copy it as floats, for each mention.
                split = 0 if reach == math.inf else bisect_left(faces, int(counts.searchsorted(counts[span.start] - reach, "left")), 0, last)
                (finding if is_finding else reaching).extend(self._near(group, split, last, from_end=not is_finding))
                far = self._near(group, 0, split, from_end=True)
            else:  # cues starting at or after the mention's end; in reach up to ``split``
                first = bisect_left(faces, span.end)
                counts = self.words.after
                split = len(group) if reach == math.inf else bisect_left(faces, int(counts.searchsorted(counts[span.end] + reach, "right")), first)
                (finding if is_finding else reaching).extend(self._near(group, first, split, from_end=False))
                far = self._near(group, split, len(group), from_end=False)
            beyond.extend(far)
            blocking.extend(() if is_finding else far)
        near, block = self.nearest(reaching), self.nearest(blocking)
        if near is not None and block is not None and self.nearer(block, near):
            near = None  # ConText: a nearer cue of the category, out of reach, ends the scope of those behind it
        return _Deciding(near, min(finding, key=cue_order, default=None), self.nearest(beyond))

    def nearest(self, cues: list[Cue]) -> Cue | None:
        """The cue nearest the mention: forward, the latest start (then end); backward, the
        earliest start; the first of equals in the cue matcher's order."""
        ordered = sorted(cues, key=cue_order)
        if self.forward:
            return max(ordered, key=lambda cue: (cue.start, cue.end), default=None)
        return min(ordered, key=lambda cue: cue.start, default=None)

    def nearer(self, cue: Cue, other: Cue) -> bool:
        return (cue.start, cue.end) > (other.start, other.end) if self.forward else cue.start < other.start

    def _near(self, group: list[Cue], low: int, high: int, from_end: bool) -> list[Cue]:
        """The cues of the sorted range ``group[low:high]`` that can be its nearest or first:
        those within the longest cue's length of the range's end (``from_end``) or start.
        Read by index: a slice would copy the range, quadratic over a long sentence."""
        face = (lambda cue: cue.end) if self.forward else (lambda cue: cue.start)
        near: list[Cue] = []
        for i in range(high - 1, low - 1, -1) if from_end else range(low, high):
            cue = group[i]
            if near and abs(face(cue) - face(near[0])) > self.longest:
                break
            near.append(cue)
        return near


def cue_order(cue: Cue) -> tuple:
    """The cue matcher's order: by start, end and row."""
    return (cue.start, cue.end, cue.rule.ref)


def inside_mention(token: int, words: _Words) -> bool:
    """Whether a mention holds the token and starts before it: a cut there would cut it."""
    last = bisect_left(words.starts, token)  # the mentions that start before the token
    return any(span.start < token < span.end for span in words.mentions[max(0, last - 4) : last])


def in_mention(cue: Cue, words: _Words) -> bool:
    """Whether the cue is words of a phenotype mention ("[absence of speech], ataxia"): the
    finding's own words, not an assertion about the findings around it."""
    last = bisect_left(words.starts, cue.start + 1)  # the mentions that start at or before the cue
    # The one holding the cue starts last of them, or a few before with nested mentions.
    return any(span.start <= cue.start and cue.end <= span.end for span in words.mentions[max(0, last - 4) : last])


def sentence_token_starts(doc: Doc) -> list[int]:
    starts = numpy.flatnonzero(doc.to_array([SENT_START]).astype("int64").reshape(-1) == 1).tolist()
    return starts if starts and starts[0] == 0 else [0, *starts]


def counted_words(doc: Doc, state: DocState, spans: list[_Mention], list_openers: re.Pattern | LocatedPattern, spaces: numpy.ndarray) -> numpy.ndarray:
    """Per token: is it a word that uses up a cue's window? (``spaces``: per token, is it
    white space)

    A word is an alphanumeric token outside phenotype mentions and outside brackets: the
    findings listed after a cue ("no A, B, C or D") and an aside ("no signs (clinical or
    radiological) of X") do not use up its window.
    """
    # The word tokenizer makes every alphanumeric run one token and every other character
    # (or white-space run) a token of its own, so words are the non-space tokens that are
    # longer than one character, alphabetic or numeric: only a one-character token's
    # character is read (a quarter of the tokens; no attribute array of every token).
    starts, ends = state.token_bounds(doc)
    lengths, text = ends - starts, state.text
    counted = (lengths > 1) & ~spaces
    single = numpy.flatnonzero(lengths == 1)
    counted[single] = [char.isalpha() or char.isdigit() for char in map(text.__getitem__, starts[single].tolist())]
    asides = [(found.start() + 1, found.end() - 1) for found in re.finditer(r"\([^()\n]*\)", text)]
    asides += [found.span() for found in list_openers.finditer(text)]
    mentions = numpy.array([(span.start, span.end) for span in spans], dtype="int64").reshape(-1, 2)
    return counted & ~covered(len(doc), numpy.concatenate([mentions, state.inner_tokens(doc, asides)]))


def sentences_holding(mention_starts: list[int], sentence_starts: list[int], length: int) -> numpy.ndarray:
    """Per token: is it in a sentence where a mention starts? Only there can a cue that
    starts in it decide one: a scope never leaves its sentence (the pseudo-triggers and
    section headers, which do, the cue matcher finds everywhere)."""
    bounds = numpy.array([*sentence_starts, length], dtype="int64")
    holding = numpy.unique(numpy.searchsorted(bounds, numpy.array(mention_starts, dtype="int64"), side="right") - 1)
    return covered(length, numpy.stack([bounds[holding], bounds[holding + 1]], axis=1))


def covered(length: int, extents: numpy.ndarray) -> numpy.ndarray:
    """Per index of ``range(length)``: whether one of the ``[start, end)`` rows of
    ``extents`` holds it (a count of the extents open at each index, from their ends)."""
    opened = numpy.zeros(length + 1, dtype="int64")
    extents = extents[extents[:, 0] < extents[:, 1]]
    numpy.add.at(opened, extents[:, 0], 1)
    numpy.add.at(opened, extents[:, 1], -1)
    return numpy.cumsum(opened[:length]) > 0


def word_positions(counted: numpy.ndarray) -> numpy.ndarray:
    """For each token index (and len(doc)), how many counted words come before it."""
    return numpy.concatenate((numpy.zeros(1, dtype="int64"), numpy.cumsum(counted, dtype="int64")))


def aside_free(doc: Doc, state: DocState, counted: numpy.ndarray) -> numpy.ndarray:
    """``counted`` less the words of comma-delimited asides (", reported in other
    families,"): what a cue written after its finding has to reach over."""
    asides = [(found.start() + 1, found.end() - 1) for found in re.finditer(r",[^,;.\n]*,", state.text)]
    return counted & ~covered(len(doc), state.inner_tokens(doc, asides))
