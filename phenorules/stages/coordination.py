"""Coordinated and compound phenotypes: one mention for a phrase naming several terms.

Articles write coordinated findings with the shared word once: "atrial or ventricular
septal defects" (shared head), "cleft lip and palate" (shared modifier), "cleft lip/palate"
(the same inside one dictionary match), "mild to moderate intellectual disability" (a
severity range). The dictionary stage finds at most the conjunct written in full; this
stage rebuilds each elided phrase, keeps it only if the lexicon knows it as a term (the
match stage's automaton decides), and replaces the covered mentions by one mention over
the whole phrase whose ``hpo_id`` joins the ids with ";", as PatientPheX annotates
compounds. Rules: ``rules/coordination.tsv`` (conjunctions per pattern) and
``rules/severity_ranges.tsv``; the ``patterns`` setting says which patterns run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PHENOTYPE_LABEL, PHENOTYPES, doc_text
from ..errors import InputError
from ..lexicon.tsv import read_tsv
from ..resources import data_dir
from .match import PhenotypeMatcher, RefinesMatches, match_stage

CONJUNCTION_PATTERNS = ("shared_head", "shared_modifier", "inner_modifier")
PATTERNS = (*CONJUNCTION_PATTERNS, "severity_range")
# shared_head and shared_modifier are off by default: on PatientPheX the annotators mark
# only the conjunct written in full ("cerebral and [cerebellar atrophy]"); docs/context.md.
DEFAULT_PATTERNS = ["inner_modifier", "severity_range"]
_WORD = r"[^\W_]+"
_CONTEXT_TOKENS = 8  # "mild to moderate " and "atrial or " are at most 6 tokens


@dataclass(frozen=True)
class CoordinationRules:
    conjunctions: dict[str, tuple[str, ...]]  # pattern -> conjunctions, longest first
    severity_ranges: dict[str, str]  # "mild to moderate" -> "moderate"


def read_rules(coordination_file: Path, ranges_file: Path) -> CoordinationRules:
    conjunctions: dict[str, list[str]] = {pattern: [] for pattern in CONJUNCTION_PATTERNS}
    for (pattern, conjunction, *_), number in read_tsv(coordination_file, 2):
        if pattern not in conjunctions:
            raise InputError(f"{coordination_file}:{number}: unknown pattern {pattern!r}; expected one of {list(CONJUNCTION_PATTERNS)}")
        conjunctions[pattern].append(conjunction)
    for pattern, listed in conjunctions.items():
        if not listed:
            raise InputError(f"{coordination_file}: no conjunction listed for pattern {pattern!r}")
    ranges = {" ".join(row[0].lower().split()): row[1].lower() for row, _ in read_tsv(ranges_file, 2)}
    return CoordinationRules({p: tuple(sorted(c, key=len, reverse=True)) for p, c in conjunctions.items()}, ranges)


def _alternation(phrases) -> str:
    """A regex alternative for each phrase; its spaces also match hyphens ('mild-to-moderate')."""
    return "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in phrases)


@Language.factory(
    "phenorules_coordination",
    default_config={"hpo": None, "coordination_file": None, "ranges_file": None, "patterns": DEFAULT_PATTERNS},
)
def make_coordination(
    nlp: Language, name: str, hpo: str | None, coordination_file: str | None, ranges_file: str | None, patterns: list[str]
):
    unknown = sorted(set(patterns) - set(PATTERNS))
    if unknown:
        raise ValueError(f"unknown coordination pattern(s) {unknown}; expected some of {list(PATTERNS)}")
    rules_dir = data_dir("rules")
    rules = read_rules(
        Path(coordination_file) if coordination_file else rules_dir / "coordination.tsv",
        Path(ranges_file) if ranges_file else rules_dir / "severity_ranges.tsv",
    )
    source = match_stage(nlp, hpo)
    return Coordination(rules, source, tuple(patterns))


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
    def __init__(self, rules: CoordinationRules, source: PhenotypeMatcher, patterns: tuple[str, ...]):
        self.rules = rules
        self.source = source
        self.patterns = patterns
        conj = {p: _alternation(c) for p, c in rules.conjunctions.items()}
        self.word_and_conjunction = re.compile(rf"({_WORD})-?\s*,?\s*(?:{conj['shared_head']})\s*$", re.IGNORECASE)
        self.conjunction_and_word = re.compile(rf"\s*,?\s*(?:{conj['shared_modifier']})\s*({_WORD})", re.IGNORECASE)
        self.inner = re.compile(rf"({_WORD}(?:\s+{_WORD})+)\s*(?:{conj['inner_modifier']})\s*({_WORD})", re.IGNORECASE)
        # The text before a mention ends without its last token's trailing space.
        self.full_range = re.compile(rf"\b({_alternation(rules.severity_ranges)})\s*$", re.IGNORECASE)
        self.open_range = re.compile(rf"\b({_WORD})[\s-]+to[\s-]*$", re.IGNORECASE)

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(PHENOTYPES, []))
        starts = {span.start_char for span in spans}
        compounds = [c for span in spans for c in self.compounds(Context(doc, span), starts)]
        if compounds:
            doc.spans[PHENOTYPES] = merge(doc, spans, compounds, self.names)
        return doc

    def compounds(self, context: Context, starts: set[int]) -> list[Compound]:
        """What each enabled pattern makes of the mention ``context.span``."""
        makers = {
            "shared_head": lambda: self.shared_head(context),
            "shared_modifier": lambda: self.shared_modifier(context, starts),
            "inner_modifier": lambda: self.inner_modifier(context.span),
            "severity_range": lambda: self.severity_range(context),
        }
        found = (makers[pattern]() for pattern in self.patterns)
        return [compound for compound in found if compound is not None]

    def shared_head(self, context: Context) -> Compound | None:
        """'atrial or [ventricular septal defects]': the word before borrows the mention's head."""
        span = context.span
        words = span.text.split(None, 1)
        if len(words) < 2:
            return None
        text, offset = context.before
        found = self.word_and_conjunction.search(text)
        hpo_id = self.term(f"{found.group(1)} {words[1]}") if found else None
        if hpo_id is None:
            return None
        return Compound(offset + found.start(), span.end_char, _joined(hpo_id, span._.hpo_id), "coordination:shared_head")

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
        hpo_id = self.term(f"{words[0]} {found.group(1)}")
        if hpo_id is None:
            return None
        return Compound(span.start_char, offset + found.end(), _joined(span._.hpo_id, hpo_id), "coordination:shared_modifier")

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
        hpo_id = self.term(f"{self.rules.severity_ranges[bounds]} {rest}")
        if hpo_id is None:
            return None
        return Compound(offset + found.start(), span.end_char, (hpo_id,), f"coordination:severity_range:{bounds}")


def _joined(*hpo_ids: str) -> tuple[str, ...]:
    """The ids in text order without repeats ('hypo- and hyperpigmentation' is one id)."""
    out: list[str] = []
    for hpo_id in hpo_ids:
        for part in hpo_id.split(";"):
            if part not in out:
                out.append(part)
    return tuple(out)


def merge(doc: Doc, spans: list[Span], compounds: list[Compound], names: dict[str, str]) -> list[Span]:
    """Compounds (longest first) replace the mentions they overlap; result in text order."""
    chosen: list[Span] = []
    for compound in sorted(compounds, key=lambda c: (c.start - c.end, c.start, c.hpo_ids)):
        if any(compound.start < s.end_char and s.start_char < compound.end for s in chosen):
            continue
        span = doc.char_span(compound.start, compound.end, label=PHENOTYPE_LABEL)
        if span is None:
            continue
        covered = [s for s in spans if s.start_char < compound.end and compound.start < s.end_char]
        span._.hpo_id = ";".join(compound.hpo_ids)
        span._.hpo_label = "; ".join(names.get(hpo_id, hpo_id) for hpo_id in compound.hpo_ids)
        span._.provenance = [p for s in covered for p in (s._.provenance or [])] + [compound.rule]
        chosen.append(span)
    kept = [s for s in spans if not any(s.start_char < c.end_char and c.start_char < s.end_char for c in chosen)]
    return sorted(kept + chosen, key=lambda s: (s.start_char, s.end_char))
