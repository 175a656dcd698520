"""Coordinated and compound phenotypes: one mention for a phrase naming several terms.

Articles write coordinated findings with the shared word once: "atrial or ventricular
septal defects" (shared head), "cleft lip and palate" (shared modifier), "cleft lip/palate"
(the same inside one dictionary match), "mild to moderate intellectual disability" (a
severity range). The dictionary stage finds at most the conjunct written in full; this
stage rebuilds each elided phrase, keeps it only if the lexicon knows it as a term (the
match stage's automaton decides), and replaces the covered mentions by one mention over
the whole phrase whose ``hpo_ids`` are the ids of all its terms, as PatientPheX annotates
compounds. Rules: ``rules/coordination.tsv`` (conjunctions per pattern) and
``rules/severity_ranges.tsv``; the ``patterns`` setting says which patterns run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PHENOTYPE_LABEL, PHENOTYPES, doc_text
from ..errors import InputError, SettingError
from ..intervals import Extents
from ..knowledge_base import KnowledgeBase
from ..lexicon.tsv import read_grouped, read_tsv
from ..matcher import non_overlapping
from ..ontology import Ontology
from ..resources import data_dir
from .knowledge import KB_CONFIG
from .match import RefinesMatches

CONJUNCTION_PATTERNS = ("shared_head", "shared_modifier", "inner_modifier")
PATTERNS = (*CONJUNCTION_PATTERNS, "severity_range", "distributed_list")
# shared_head and shared_modifier are off by default: on PatientPheX the annotators mark
# only the conjunct written in full ("cerebral and [cerebellar atrophy]"); docs/context.md.
DEFAULT_PATTERNS = ["inner_modifier", "severity_range", "distributed_list"]
LIST_WORD_KINDS = ("conjunction", "preposition", "determiner")
_WORD = r"[^\W_]+"
_LIST_ITEM = r"[^\W\d_][\w-]*"
_CONTEXT_TOKENS = 8  # "mild to moderate " and "atrial or " are at most 6 tokens
_LIST_CONTEXT = 80  # characters read before and after a list for its finding


@dataclass(frozen=True)
class CoordinationRules:
    conjunctions: dict[str, tuple[str, ...]]  # pattern -> conjunctions, longest first
    severity_ranges: dict[str, str]  # "mild to moderate" -> "moderate"
    list_words: dict[str, tuple[str, ...]]  # kind (conjunction, preposition, determiner) -> words


def read_list_words(path: Path) -> dict[str, tuple[str, ...]]:
    """Kind (conjunction, preposition, determiner) -> words, longest first."""
    words = read_grouped(path, LIST_WORD_KINDS, "kind")
    return {kind: tuple(sorted((word.lower() for word in listed), key=len, reverse=True)) for kind, listed in words.items()}


def read_rules(coordination_file: Path, ranges_file: Path, lists_file: Path) -> CoordinationRules:
    conjunctions = read_grouped(coordination_file, CONJUNCTION_PATTERNS, "pattern")
    for pattern, listed in conjunctions.items():
        if not listed:
            raise InputError(f"{coordination_file}: no conjunction listed for pattern {pattern!r}")
    ranges = {" ".join(row[0].lower().split()): row[1].lower() for row, _ in read_tsv(ranges_file, 2)}
    conjunctions_first = {p: tuple(sorted(c, key=len, reverse=True)) for p, c in conjunctions.items()}
    return CoordinationRules(conjunctions_first, ranges, read_list_words(lists_file))


def _alternation(phrases) -> str:
    """A regex alternative for each phrase; its spaces also match hyphens ('mild-to-moderate')."""
    return "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in phrases)


@Language.factory(
    "phenorules_coordination",
    default_config={
        "kb": KB_CONFIG,
        "coordination_file": None,
        "ranges_file": None,
        "lists_file": None,
        "patterns": DEFAULT_PATTERNS,
        "min_list_items": 3,
    },
)
def make_coordination(
    nlp: Language,
    name: str,
    kb: KnowledgeBase,
    coordination_file: str | None,
    ranges_file: str | None,
    lists_file: str | None,
    patterns: list[str],
    min_list_items: int,
):
    unknown = sorted(set(patterns) - set(PATTERNS))
    if unknown:
        raise SettingError(f"unknown coordination pattern(s) {unknown}; expected some of {list(PATTERNS)}")
    if min_list_items < 2:
        raise SettingError(f"coordination: min_list_items must be at least 2, not {min_list_items}")
    rules_dir = data_dir("rules")
    rules = read_rules(
        Path(coordination_file) if coordination_file else rules_dir / "coordination.tsv",
        Path(ranges_file) if ranges_file else rules_dir / "severity_ranges.tsv",
        Path(lists_file) if lists_file else rules_dir / "coordinated_lists.tsv",
    )
    return Coordination(rules, kb, tuple(patterns), min_list_items)


@dataclass(frozen=True)
class Compound:
    start: int  # character offsets of the whole phrase
    end: int
    hpo_ids: tuple[str, ...]
    rule: str


class Context:
    """The text just before and after a mention, read only when a pattern asks for it.

    Cut from the cached ``doc_text``: ``Span.text`` makes a Token object per token.
    """

    def __init__(self, doc: Doc, span: Span):
        self.doc, self.span = doc, span

    @cached_property
    def before(self) -> tuple[str, int]:
        return self.window(max(0, self.span.start - _CONTEXT_TOKENS), self.span.start)

    @cached_property
    def after(self) -> tuple[str, int]:
        return self.window(self.span.end, self.span.end + _CONTEXT_TOKENS)

    def window(self, start: int, end: int) -> tuple[str, int]:
        """(text, start offset) of the tokens [start, end), as ``doc[start:end]`` has them."""
        window = self.doc[start:end]
        return doc_text(self.doc)[window.start_char : window.end_char], window.start_char


class Coordination(RefinesMatches):
    def __init__(self, rules: CoordinationRules, kb: KnowledgeBase, patterns: tuple[str, ...], min_list_items: int = 3):
        self.rules = rules
        self.kb = kb
        self.patterns = patterns
        conj = {p: _alternation(c) for p, c in rules.conjunctions.items()}
        self.word_and_conjunction = re.compile(rf"({_WORD})-?\s*,?\s*(?:{conj['shared_head']})\s*$", re.IGNORECASE)
        self.conjunction_and_word = re.compile(rf"\s*,?\s*(?:{conj['shared_modifier']})\s*({_WORD})", re.IGNORECASE)
        self.inner = re.compile(rf"({_WORD}(?:\s+{_WORD})+)\s*(?:{conj['inner_modifier']})\s*({_WORD})", re.IGNORECASE)
        # The text before a mention ends without its last token's trailing space.
        self.full_range = re.compile(rf"\b({_alternation(rules.severity_ranges)})\s*$", re.IGNORECASE)
        self.open_range = re.compile(rf"\b({_WORD})[\s-]+to[\s-]*$", re.IGNORECASE)
        words = {kind: _alternation(listed) or "(?!)" for kind, listed in rules.list_words.items()}
        self.item_list = re.compile(
            rf"\b{_LIST_ITEM}(?:, {_LIST_ITEM}){{{min_list_items - 2},}},? (?:{words['conjunction']}) {_LIST_ITEM}\b", re.IGNORECASE
        )
        self.list_end = re.compile(rf",? (?:{words['conjunction']}) {_LIST_ITEM}\b", re.IGNORECASE)
        self.items_before_end = min_list_items - 1
        # A run of an item that ', ' or a list end may follow (not from inside a run: that is quadratic in its length).
        self.list_run = re.compile(rf"(?<![\w-])[\w-]+(?=, |,? (?:{words['conjunction']}) )", re.IGNORECASE)
        self.item_separator = re.compile(rf",? (?:{words['conjunction']}) |, ", re.IGNORECASE)
        self.finding_before = re.compile(
            rf"\b((?:{_WORD} ){{0,2}}{_WORD}) (?:{words['preposition']}) (?:(?:{words['determiner']}) )?$", re.IGNORECASE
        )
        self.finding_after = re.compile(rf"^ ({_WORD}(?: {_WORD}){{0,2}})\b", re.IGNORECASE)

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(PHENOTYPES, []))
        starts = {span.start_char for span in spans}
        compounds = [c for span in spans for c in self.compounds(Context(doc, span), starts)]
        if "distributed_list" in self.patterns:
            compounds += self.distributed_lists(doc_text(doc))
        if compounds:
            doc.spans[PHENOTYPES] = merge(doc, spans, compounds, self.kb.ontology)
        return doc

    def compounds(self, context: Context, starts: set[int]) -> list[Compound]:
        """What each enabled pattern makes of the mention ``context.span`` (lists are
        found in the text, not around a mention: :meth:`distributed_lists`)."""
        makers = {
            "shared_head": lambda: self.shared_head(context),
            "shared_modifier": lambda: self.shared_modifier(context, starts),
            "inner_modifier": lambda: self.inner_modifier(context.span),
            "severity_range": lambda: self.severity_range(context),
        }
        found = (makers[pattern]() for pattern in self.patterns if pattern in makers)
        return [compound for compound in found if compound is not None]

    def shared_head(self, context: Context) -> Compound | None:
        """'atrial or [ventricular septal defects]': the word before borrows the mention's head."""
        span = context.span
        words = span.text.split(None, 1)
        if len(words) < 2:
            return None
        text, offset = context.before
        found = self.word_and_conjunction.search(text)
        hpo_ids = self.term(f"{found.group(1)} {words[1]}") if found else None
        if hpo_ids is None:
            return None
        return Compound(offset + found.start(), span.end_char, _joined(hpo_ids, span._.hpo_ids), "coordination:shared_head")

    def shared_modifier(self, context: Context, starts: set[int]) -> Compound | None:
        """'[cleft lip] and palate': the word after borrows the mention's modifier.

        Not when that word starts a mention of its own ('[hyperextensible joints], or
        [joint pain]').
        """
        span = context.span
        words = span.text.rsplit(None, 1)
        if len(words) < 2:
            return None
        text, offset = context.after
        found = self.conjunction_and_word.match(text)
        if found is None or offset + found.start(1) in starts:
            return None
        hpo_ids = self.term(f"{words[0]} {found.group(1)}")
        if hpo_ids is None:
            return None
        return Compound(span.start_char, offset + found.end(), _joined(span._.hpo_ids, hpo_ids), "coordination:shared_modifier")

    def inner_modifier(self, span: Span) -> Compound | None:
        """'cleft lip/palate' matched whole as a synonym of a broader term: split it.

        Only synonym matches are split, never a term's own name ('Aplasia/Hypoplasia of
        the thumb' stays one term).
        """
        if not span._.provenance or span._.provenance[0].startswith("name"):
            return None
        found = self.inner.fullmatch(span.text)
        if found is None:
            return None
        first = self.term(found.group(1))
        second = self.term(f"{found.group(1).rsplit(None, 1)[0]} {found.group(2)}")
        if first is None or second is None:
            return None
        return Compound(span.start_char, span.end_char, _joined(first, second), "coordination:inner_modifier")

    def severity_range(self, context: Context) -> Compound | None:
        """'mild to moderate [intellectual disability]': one mention, the listed degree's term.

        The dictionary may have taken the upper degree into the mention already
        ('mild to [moderate intellectual disability]').
        """
        span = context.span
        text, offset = context.before
        found, rest = self.full_range.search(text), span.text
        if found is not None:
            bounds = " ".join(re.split(r"[\s-]+", found.group(1).lower()))
        else:
            found = self.open_range.search(text)
            words = span.text.split(None, 1)
            if found is None or len(words) < 2:
                return None
            bounds, rest = f"{found.group(1).lower()} to {words[0].lower()}", words[1]
            if bounds not in self.rules.severity_ranges:
                return None
        hpo_ids = self.term(f"{self.rules.severity_ranges[bounds]} {rest}")
        if hpo_ids is None:
            return None
        return Compound(offset + found.start(), span.end_char, hpo_ids, f"coordination:severity_range:{bounds}")


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
        runs = [(found.start(), found.end()) for found in self.list_run.finditer(text)]
        joined = [i + 1 < len(runs) and runs[i + 1][0] == end + 2 and text[end : end + 2] == ", " and _ITEM_START.match(text, end + 2) is not None for i, (_, end) in enumerate(runs)]
        reaches_end = [False] * (len(runs) + 1)  # a list end follows the run or one it is joined to
        for i in range(len(runs) - 1, -1, -1):
            reaches_end[i] = (joined[i] and reaches_end[i + 1]) or self.list_end.match(text, runs[i][1]) is not None
        position = 0
        for i, (start, end) in enumerate(runs):
            last = i  # the run of the first list's items_before_end-th item
            while last < i + self.items_before_end - 1 and joined[last]:
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
                    return Compound(start, end + 1 + len(head), _joined(*ids), "coordination:distributed_list")
                return Compound(start + len(finding) - len(head), end, _joined(*ids), "coordination:distributed_list")
        return None


_ITEM_START = re.compile(r"[^\W\d_]")


def _joined(*terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms' ids in text order without repeats ('hypo- and hyperpigmentation' is one id)."""
    out: list[str] = []
    for hpo_ids in terms:
        for hpo_id in hpo_ids:
            if hpo_id not in out:
                out.append(hpo_id)
    return tuple(out)


def merge(doc: Doc, spans: list[Span], compounds: list[Compound], ontology: Ontology) -> list[Span]:
    """Compounds (longest first) replace the mentions they overlap; result in text order.
    The compounds chosen never overlap each other (:func:`~phenorules.matcher.non_overlapping`),
    and the mentions each covers are looked up in an index of the mentions."""
    placed = [compound for compound in compounds if doc.char_span(compound.start, compound.end) is not None]
    index = Extents((s.start_char, s.end_char) for s in spans)
    chosen: list[Span] = []
    covered: set[int] = set()
    for compound in non_overlapping(placed, lambda c: (c.start - c.end, c.start, c.hpo_ids)):
        span = doc.char_span(compound.start, compound.end, label=PHENOTYPE_LABEL)
        inside = index.overlapping(compound.start, compound.end)
        span._.hpo_ids = compound.hpo_ids
        span._.hpo_label = ontology.label(compound.hpo_ids)
        span._.provenance = [p for i in inside for p in (spans[i]._.provenance or [])] + [compound.rule]
        covered.update(inside)
        chosen.append(span)
    kept = [s for i, s in enumerate(spans) if i not in covered]
    return sorted(kept + chosen, key=lambda s: (s.start_char, s.end_char))
