"""Abbreviations of phenotypes: defined in the article, or common and unambiguous.

scispacy's implementation of Schwartz & Hearst (2003), "A simple algorithm for identifying
abbreviation definitions in biomedical text" (PSB 2003), finds the definitions "long form
(SF)" and "SF (long form)": its ``filter_matches`` picks the candidates and
``find_abbreviation`` aligns the letters. Ours are the search for parentheses (the
detector's own pattern ``( + )`` makes a match for every pair of brackets in an
article-sized Doc, which is quadratic) and "SF (long form)" with a long form of up to three
words, which ``filter_matches`` reads as a short form in brackets only: there the word
before the brackets is the short form when it is written as one (a capital after its first
letter: "DD", "CdLS"; not "delay (developmental delay)") and the brackets do not repeat it
("MODY (MODY 3)"). A short form whose long form is a
phenotype (a mention the match stage found ending the long form, or a lexicon term) is
that phenotype in the article. Undefined short forms are taken only from ``lexicons/abbreviations.tsv``
and only when the article does not use them as gene symbols nor define them with another
long form; a use that reads as an identifier ("ID: 51104") is never taken. The cues are
``rules/abbreviation_guards.tsv``. Which uses count is the ``bare_uses`` setting, as
annotation guidelines differ (docs/context.md): ``bracketed`` (default; articles) takes a
short form where it is written in brackets (the definition, a re-definition), as article
annotators mark bare uses ("the ID was severe", an undefined "VSD") in few articles;
``unnamed`` also takes the bare uses of an undefined short form when no other mention in
the text names its finding, as annotators of clinical notes mark them ("history of ADHD");
``notes`` does so in a text that defines no short form of its own (a clinical note; an
article defines its short forms, and its annotators leave the bare ones out); ``all`` takes
every use. ``defined_uses`` (the general profile; not PatientPheX's) also
takes every use of a short form the article defines, from its definition on ("Developmental
delay (DD) was noted. DD was evident by 9 months."). A bare use followed by a gene cue
("HCM genes") is the gene's or the disease's name, not a finding, and is never taken.

This stage is the one place deciding abbreviation matches: the short upper-case HPO
synonyms the dictionary matched ('ASD', 'MODY') are kept only on the same conditions; one
it drops is recorded on the Doc (``doc._.dropped``) with why: the guard row
(``abbreviation:gene_symbol:abbreviation_guards.tsv:6``, ``abbreviation:identifier:...``),
``abbreviation:gene_use:abbreviation_guards.tsv:6``,
``abbreviation:bare_use:bare_uses=bracketed``, a definition that is no phenotype
(``abbreviation:not_a_phenotype:defined:...``) or ``abbreviation:no_sense``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterator, NamedTuple

from scispacy.abbreviation import filter_matches, find_abbreviation, short_form_filter
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..core.document import GATHERS, DocState, placed, working
from ..core.phenotype import Phenotype
from ..core.errors import InputError, SettingError
from ..core.intervals import Extents
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon import is_abbreviation
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules, read_rules
from ..kb.ontology import Ontology
from ..kb.resources import data_file
from .knowledge import KB_CONFIG
from .match import RefinesMatches


@dataclass(frozen=True)
class Sense:
    """What a short form means in one article: the ids (None: not a phenotype) and why."""

    hpo_ids: tuple[str, ...] | None
    rule: str
    defined_at: int | None = None  # where the article defines it: 'long form (SF)'


class PieceSenses(NamedTuple):
    """What one piece of an article tells the stage (:meth:`Abbreviations.gather`): its
    definitions (short form -> the sense of its first, at the piece's offsets) and the ids its other
    mentions name (None where the setting reads none)."""

    definitions: dict[str, Sense]
    named: set[str] | None


class ArticleSenses(NamedTuple):
    """What the stage reads of the whole article: the short forms it uses as gene
    symbols, each short form's sense (:class:`Sense`, at the article's offsets) and the
    ids the mentions that are no short form name (None: no bare use of an undefined short
    form is taken)."""

    genes: dict[str, RuleRef]
    senses: dict[str, Sense]
    named: set[str] | None

    def at(self, offset: int) -> dict[str, Sense]:
        """The senses at the offsets of a Doc whose text starts at ``offset`` in the article."""
        if not offset:
            return self.senses
        return {short: sense if sense.defined_at is None else replace(sense, defined_at=sense.defined_at - offset) for short, sense in self.senses.items()}


def read_known_abbreviations(path: Path, ontology: Ontology) -> dict[str, Sense]:
    """Short form -> sense; a term the loaded ontology lacks (a small or older release)
    simply has no undefined abbreviation."""
    known = {}
    for (short, hpo_id, *_), ref in read_rules(path, 2):
        if not _HPO_ID.fullmatch(hpo_id):
            raise InputError(f"{path}:{ref.line}: {hpo_id!r} is not an HPO id (HP:0000000)")
        resolved = ontology.resolve(hpo_id)
        if resolved is not None:
            known[short] = Sense((resolved,), f"abbreviation:lexicon:{ref}")
    return known


_HPO_ID = re.compile(r"HP:\d{7}")
BARE_USES = ("bracketed", "notes", "unnamed", "all")
GUARD_SCOPES = ("article", "use")
BRACKETED = re.compile(r"\(([^()\n]{1,100})\)")
_NUMBER = "<number>"


class Guards(NamedTuple):
    """Regexes matched right after a short form, and each row's own, to name the row that fired."""

    gene_cue: re.Pattern  # after a short form anywhere in the article: used as a gene symbol
    identifier_cue: re.Pattern  # after a use: an identifier
    rows: tuple[tuple[str, re.Pattern, RuleRef], ...]  # (scope, cue, row)

    def row(self, scope: str, text: str, end: int) -> RuleRef | None:
        """The first row of ``scope`` whose cue follows ``text[:end]``."""
        return next((ref for row_scope, cue, ref in self.rows if row_scope == scope and cue.match(text, end)), None)


def read_guards(path: Path) -> Guards:
    """The cues of the guard file (scope ``article``: gene symbol; ``use``: identifier)."""
    cues = {
        scope: [(r"\d" if ref.name == _NUMBER else re.escape(ref.name) + (r"\b" if ref.name[-1:].isalnum() else ""), ref) for ref in refs]
        for scope, refs in read_grouped_rules(path, GUARD_SCOPES).items()
    }
    gene_cue, identifier_cue = (re.compile(rf"\s*(?:{'|'.join(cue for cue, _ in cues[scope]) or '(?!)'})", re.IGNORECASE) for scope in GUARD_SCOPES)
    rows = tuple((scope, re.compile(rf"\s*(?:{cue})", re.IGNORECASE), ref) for scope in GUARD_SCOPES for cue, ref in cues[scope])
    return Guards(gene_cue, identifier_cue, rows)


@Language.factory(
    "phenorules_abbreviations",
    default_config={"kb": KB_CONFIG, "lexicon_file": None, "guards_file": None, "bare_uses": "bracketed", "defined_uses": True, "spans": True},
)
def make_abbreviations(
    nlp: Language, name: str, kb: KnowledgeBase, lexicon_file: str | None, guards_file: str | None, bare_uses: str, defined_uses: bool
, spans: bool):
    if bare_uses not in BARE_USES:
        raise SettingError(f"abbreviations: bare_uses must be one of {list(BARE_USES)}, not {bare_uses!r}")
    known = read_known_abbreviations(
        data_file("lexicons", "abbreviations.tsv", lexicon_file), kb.ontology
    )
    guards = read_guards(data_file("rules", "abbreviation_guards.tsv", guards_file))
    return placed(Abbreviations(kb, known, guards, bare_uses, defined_uses), spans)


class Abbreviations(RefinesMatches):
    pieces = GATHERS  # the short forms the whole article defines, and uses as genes
    def __init__(
        self,
        kb: KnowledgeBase,
        known: dict[str, Sense],
        guards: Guards,
        bare_uses: str,
        defined_uses: bool,
    ):
        self.kb = kb
        self.known = known
        self.known_uses = forms_regex(sorted(known))  # one regex for the listed forms, made once
        self.guards = guards
        self.gene_cue, self.identifier_cue = guards.gene_cue, guards.identifier_cue
        self.bare_uses = bare_uses
        self.defined_uses = defined_uses

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        text, mentions = state.text, state.mentions
        short_forms = [self.dictionary_abbreviation(mention.text) for mention in mentions]
        found = state.carried or self.merged([(0, self.piece_senses(doc, state, short_forms))], text)
        genes, senses, named = found.genes, found.at(state.offset), found.named
        kept = []
        for mention, is_short in zip(mentions, short_forms):
            if not is_short:
                kept.append(mention)
                continue
            short = short_form(mention.text, senses)
            sense = senses.get(short)
            if sense is not None and self.takes(text, mention.start, mention.end, sense, named):
                kept.append(self.relabel(mention, sense, text))
            else:
                state.drop(mention, self.left_out(text, mention, sense, genes.get(short)))
        state.mentions = sorted(kept + self.uses(doc, state, kept, senses, named), key=lambda m: (m.start, m.end))

    def gather(self, doc: Doc) -> PieceSenses:
        state = working(doc)
        return self.piece_senses(doc, state, [self.dictionary_abbreviation(mention.text) for mention in state.mentions])

    def piece_senses(self, doc: Doc, state: DocState, short_forms: list[bool]) -> PieceSenses:
        """The definitions of a Doc's text, and the ids its mentions that are no short form
        name (only where ``bare_uses`` reads them)."""
        named = None
        if self.bare_uses in ("unnamed", "notes"):
            named = {hpo_id for mention, is_short in zip(state.mentions, short_forms) if not is_short for hpo_id in mention.hpo_ids}
        return PieceSenses(self.definitions(doc, state.text, state.mentions), named)

    def merged(self, gathered: list[tuple[int, PieceSenses]], text: str) -> ArticleSenses:
        """The article's senses: the first definition of each short form in it (the piece's
        offsets moved to the article's), then the lexicon's, unless the article uses it
        as a gene symbol."""
        genes = self.gene_symbols(text)
        senses: dict[str, Sense] = {}
        for offset, piece in gathered:
            for short, sense in piece.definitions.items():
                if short not in senses:
                    senses[short] = sense if not offset else replace(sense, defined_at=sense.defined_at + offset)
        for short, sense in self.known.items():
            if short not in senses and short not in genes:
                senses[short] = sense
        named = None
        if self.bare_uses in ("unnamed", "notes"):
            named = {hpo_id for _, piece in gathered for hpo_id in piece.named}
        if self.bare_uses == "notes" and any(sense.defined_at is not None for sense in senses.values()):
            named = None  # a text that defines its short forms: no bare use of an undefined one
        return ArticleSenses(genes, senses, named)

    def definitions(self, doc: Doc, text: str, mentions: list[Phenotype]) -> dict[str, Sense]:
        """Short form -> sense, from each first 'long form (SF)' or 'SF (long form)'
        definition in the article.

        The long form is a phenotype when the lexicon knows it as a whole ('profound
        [sensorineural hearing loss] (SNHL)' is SNHL, not the profound degree), else when
        a mention ends with it and covers it all ('[thiamine-responsive [megaloblastic
        anemia]] (TRMA)' is not anemia).
        """
        ends = {mention.end: mention for mention in mentions}
        senses: dict[str, Sense] = {}
        for long_form, short in aligned_definitions(doc, text):
            if short.text in senses:
                continue  # a later definition
            mention = ends.get(long_form.end_char)
            hpo_ids = self.term(long_form.text)  # '[profound [sensorineural hearing loss]] (SNHL)'
            if hpo_ids is None and mention is not None and mention.start <= long_form.start_char:
                hpo_ids = mention.hpo_ids
            senses[short.text] = Sense(hpo_ids, f"abbreviation:defined:{long_form.text}", short.start_char)
        return senses

    def takes(self, text: str, start: int, end: int, sense: Sense, named: set[str] | None) -> bool:
        """Whether the use text[start:end] of a short form is the phenotype ``sense``;
        ``named``: the ids the text's other mentions name (None: no bare use of an
        undefined short form is taken there, :meth:`unnamed_use`)."""
        if sense.hpo_ids is None or self.identifier_cue.match(text, end):
            return False
        if bracketed_use(text, start):
            return True
        if self.gene_cue.match(text, end):
            return False
        return self.bare_uses == "all" or self.unnamed_use(sense, named) or self.defined_use(sense, start)

    def defined_use(self, sense: Sense, start: int) -> bool:
        """A use of a short form the article defines, from the definition on, with ``defined_uses``."""
        return self.defined_uses and sense.defined_at is not None and start >= sense.defined_at

    def unnamed_use(self, sense: Sense, named: set[str] | None) -> bool:
        """An undefined short form whose finding no other mention names, with ``unnamed``,
        or ``notes`` in a text that defines no short form."""
        return self.bare_uses in ("unnamed", "notes") and named is not None and sense.defined_at is None and not named.intersection(sense.hpo_ids)

    def left_out(self, text: str, mention: Phenotype, sense: Sense | None, gene_row: RuleRef | None) -> str:
        """Why :meth:`takes` (or the lack of a sense) left the dictionary's short form out."""
        if sense is None:
            return f"abbreviation:gene_symbol:{gene_row}" if gene_row is not None else "abbreviation:no_sense"
        if sense.hpo_ids is None:
            return f"abbreviation:not_a_phenotype:{sense.rule.removeprefix('abbreviation:')}"
        identifier_row = self.guards.row("use", text, mention.end)
        if identifier_row is not None:
            return f"abbreviation:identifier:{identifier_row}"
        gene_row = self.guards.row("article", text, mention.end)
        if gene_row is not None:
            return f"abbreviation:gene_use:{gene_row}"
        return f"abbreviation:bare_use:bare_uses={self.bare_uses}"

    def dictionary_abbreviation(self, surface: str) -> bool:
        """Whether the dictionary matched ``surface`` through a case-sensitive abbreviation
        entry ('ASD'), not a term written in capitals ('ATAXIA' in a title)."""
        if not is_abbreviation(surface):
            return False
        return any(match.entry.case_sensitive for match in self.matcher(surface))

    def gene_symbols(self, text: str) -> dict[str, RuleRef]:
        """The listed short forms the article writes as genes ('ID gene', 'ADHD variants'),
        each with the guard row of its first such use."""
        genes: dict[str, RuleRef] = {}
        for use in regex_uses(self.known_uses, text):
            if use.short not in genes and self.gene_cue.match(text, use.end):
                genes[use.short] = self.guards.row("article", text, use.end)
        return genes

    def relabel(self, mention: Phenotype, sense: Sense, text: str) -> Phenotype:
        if mention.hpo_ids != sense.hpo_ids:
            mention.hpo_ids = sense.hpo_ids
            mention.label = self.kb.ontology.label(sense.hpo_ids)
        mention.provenance = [*mention.provenance, self.use_rule(sense, text, mention.start)]
        return mention

    def use_rule(self, sense: Sense, text: str, start: int) -> str:
        """The sense's rule, and for a bare use the setting that took it."""
        if bracketed_use(text, start):
            return sense.rule
        return f"{sense.rule}|defined_uses" if self.defined_use(sense, start) else f"{sense.rule}|bare_uses={self.bare_uses}"

    def uses(self, doc: Doc, state: DocState, mentions: list[Phenotype], senses: dict[str, Sense], named: set[str] | None) -> list[Phenotype]:
        """New mentions for every use of a phenotype short form not inside a mention yet."""
        text = state.text
        phenotype_shorts = sorted(short for short, sense in senses.items() if sense.hpo_ids is not None)
        taken = Extents((m.start, m.end) for m in mentions)
        out = []
        for start, end, short in _occurrences(text, phenotype_shorts):
            if taken.overlaps_any(start, end):
                continue
            sense = senses[short]
            if not self.takes(text, start, end, sense, named) or not state.aligned(doc, start, end):
                continue
            out.append(Phenotype(start, end, text[start:end], sense.hpo_ids, self.kb.ontology.label(sense.hpo_ids), [self.use_rule(sense, text, start)]))
        return out


def bracketed_use(text: str, start: int) -> bool:
    """Whether the short form at ``start`` is written in brackets: '(SNHL)'."""
    return text[start - 1 : start] == "("


def aligned_definitions(doc: Doc, text: str) -> Iterator[tuple[Span, Span]]:
    """(long form, short form) of every definition, in text order: scispacy's candidates
    for each pair of brackets, else 'SF (long form)' with the word before them."""
    return definitions_at(doc, bracketed(doc, text))


def definitions_at(doc: Doc, candidates: list[tuple[int, int, int]]) -> Iterator[tuple[Span, Span]]:
    """:func:`aligned_definitions` of the brackets ``candidates`` (:func:`bracketed`'s)."""
    for candidate in candidates:
        found = False
        for long_candidate, short_candidate in [*filter_matches([candidate], doc), *short_first(doc, *candidate[1:])]:
            short, long_form = find_abbreviation(long_candidate, short_candidate)
            if long_form is not None and not found:
                found = True
                yield long_form, short


def short_first(doc: Doc, start: int, end: int) -> list[tuple[Span, Span]]:
    """'SF (long form)' candidates scispacy leaves out: a long form of up to three words in
    brackets after a word written as a short form ("DD (developmental delay)")."""
    if start < 2 or end - start > 3 or doc[start - 1].text != "(":
        return []
    short, long_form = doc[start - 2 : start - 1], doc[start:end]
    if not (short_form_filter(short) and any(c.isupper() for c in short.text[1:])) or short.text.lower() in long_form.text.lower():
        return []  # not written as a short form, or a longer name of it: "MODY (MODY 3)", "PCR (RT-PCR)"
    return [(long_form, short)]


def bracketed(doc: Doc, text: str) -> list[tuple[int, int, int]]:
    """(0, start, end) tokens inside each '( ... )' with no nested bracket or line break:
    the candidates scispacy's ``filter_matches`` expects."""
    return [candidate for found in BRACKETED.finditer(text) if (candidate := bracket_candidate(doc, found)) is not None]


def bracket_candidate(doc: Doc, found: re.Match) -> tuple[int, int, int] | None:
    """(0, start, end) of the tokens inside the brackets of ``found`` (a match of
    :data:`BRACKETED`), or of the tokens that hold them where a tokenizer keeps the closing
    bracket with the last word (spaCy's English one makes "8)" a token: an emoticon); None
    if there are none."""
    inside = doc.char_span(found.start(1), found.end(1)) or doc.char_span(found.start(1), found.end(1), alignment_mode="expand")
    return (0, inside.start, inside.end) if inside is not None and len(inside) else None


def short_form(text: str, senses: dict[str, Sense]) -> str:
    """'VSDs' is a use of 'VSD'."""
    return text[:-1] if text not in senses and text.endswith("s") else text


_ALPHANUMERIC = re.compile(r"[^\W_]")


class Use(NamedTuple):
    """A use of a short form: where it is written, plural 's' included."""

    start: int
    end: int
    short: str


def forms_regex(shorts: list[str]) -> re.Pattern:
    """Case-sensitive whole-word uses of the short forms, plural 's' allowed: the forms,
    longest first, each not right after a letter or digit, then its 's', if any, and then no
    letter or digit. The look-behind follows each literal, so that the regex starts with
    literals: Python's re searches for those much faster than for a look-behind."""
    forms = "|".join(re.escape(short) + rf"(?<![^\W_](?s:.){{{len(short)}}})" for short in sorted(filter(None, shorts), key=len, reverse=True))
    return re.compile(rf"({forms})s?(?![^\W_])" if forms else "(?!)")


def regex_uses(regex: re.Pattern, text: str) -> list[Use]:
    """The uses :func:`forms_regex` finds, left to right and not overlapping."""
    return [Use(found.start(), found.end(), found.group(1)) for found in regex.finditer(text)]


def _occurrences(text: str, shorts: list[str]) -> list[Use]:
    """The uses :func:`forms_regex` of the short forms finds, each form's places found by a
    regex of its own (:func:`_form_regex`): an article's own forms, for which one regex of
    them all would be compiled for each article, while one form recurs in many."""
    ranked = sorted(filter(None, shorts), key=len, reverse=True)
    starting: dict[int, list[int]] = {}  # position -> the ranks of the short forms written there
    for rank, short in enumerate(ranked):
        form = _form_regex(short)
        found = form.search(text)
        while found is not None:
            starting.setdefault(found.start(), []).append(rank)
            found = form.search(text, found.start() + 1)
    uses: list[Use] = []
    reach = 0
    for start in sorted(starting):
        if start < reach:
            continue
        for rank in starting[start]:  # in rank order: each short form's places were listed in turn
            end = start + len(ranked[rank])
            if text.startswith("s", end) and not _ALPHANUMERIC.match(text, end + 1):
                end += 1
            elif _ALPHANUMERIC.match(text, end):
                continue
            uses.append(Use(start, end, ranked[rank]))
            reach = end
            break
    return uses


@lru_cache(maxsize=4096)
def _form_regex(short: str) -> re.Pattern:
    """A short form not right after a letter or digit (the look-behind after the literal):
    :func:`forms_regex`'s alternative for it, written apart, as the test compares the two."""
    return re.compile(re.escape(short) + rf"(?<![^\W_](?s:.){{{len(short)}}})")
