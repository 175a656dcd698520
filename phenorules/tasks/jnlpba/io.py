"""Readers for the two JNLPBA distributions: brat standoff (training) and IOB2 (test).

Type names are read case-insensitively and kept in evalscope's upper case (``PROTEIN``,
``CELL_TYPE``...), so tags from either file compare equal to evalscope's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from phenorules.core.errors import InputError
from phenorules.core.files import read_text

from . import TYPES


@dataclass(frozen=True, order=True)
class Entity:
    start: int
    end: int
    label: str
    text: str


@dataclass(frozen=True)
class Document:
    """One abstract: its text and annotated entities, sorted by offset."""

    doc_id: str
    text: str
    entities: tuple[Entity, ...]


@dataclass(frozen=True)
class Sentence:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]


def canonical_type(name: str, place: str) -> str:
    label = name.upper()
    if label not in TYPES:
        raise InputError(f"{place}: unknown entity type {name!r} (expected one of {', '.join(TYPES)})")
    return label


def canonical_tag(tag: str, place: str) -> str:
    """'B-cell_type' -> 'B-CELL_TYPE'; 'O' stays."""
    if tag == "O":
        return tag
    prefix, _, name = tag.partition("-")
    if prefix not in ("B", "I") or not name:
        raise InputError(f"{place}: bad IOB2 tag {tag!r}")
    return f"{prefix}-{canonical_type(name, place)}"


def read_standoff_document(txt_path: Path) -> Document:
    """A brat ``.txt`` and its ``.ann``: text-bound annotations (``T``) only, checked against the text."""
    text = read_text(str(txt_path))
    ann_path = txt_path.with_suffix(".ann")
    entities = []
    for number, line in enumerate(read_text(str(ann_path)).splitlines(), start=1):
        if not line.startswith("T"):
            continue
        place = f"{ann_path}:{number}"
        try:
            _, info, surface = line.split("\t")
            name, start, end = info.split(" ")
            start, end = int(start), int(end)
        except ValueError:
            raise InputError(f"{place}: expected 'T<n>\\t<type> <start> <end>\\t<text>', got {line!r}") from None
        if not 0 <= start < end <= len(text):
            raise InputError(f"{place}: offsets {start} {end} are not 0 <= start < end <= {len(text)} (the text's length)")
        if text[start:end] != surface:
            raise InputError(f"{place}: text at {start}-{end} is {text[start:end]!r}, not {surface!r}")
        entities.append(Entity(start, end, canonical_type(name, place), surface))
    return Document(txt_path.stem, text, tuple(sorted(entities)))


def read_standoff(directory: str | Path) -> list[Document]:
    """Every ``*.txt``/``.ann`` pair of a brat folder, in file-name order."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a folder of brat .txt/.ann files")
    paths = sorted(directory.glob("*.txt"))
    if not paths:
        raise InputError(f"{directory}: no .txt files")
    return [read_standoff_document(path) for path in paths]


def read_iob2_documents(path: str | Path) -> list[list[Sentence]]:
    """``token<TAB>tag`` lines, a blank line between sentences; a ``-DOCSTART-`` or ``###``
    line starts a new document (a file without them is one document)."""
    path = Path(path)
    documents: list[list[Sentence]] = [[]]
    tokens: list[str] = []
    tags: list[str] = []
    for number, line in enumerate(read_text(str(path)).splitlines() + [""], start=1):
        if line.startswith(("###", "-DOCSTART-")) or not line.strip():
            if tokens:
                documents[-1].append(Sentence(tuple(tokens), tuple(tags)))
                tokens, tags = [], []
            if line.strip() and documents[-1]:
                documents.append([])
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0]:
            raise InputError(f"{path}:{number}: expected 'token<TAB>tag', got {line!r}")
        tokens.append(parts[0])
        tags.append(canonical_tag(parts[1], f"{path}:{number}"))
    documents = [d for d in documents if d]
    if not documents:
        raise InputError(f"{path}: no sentences")
    return documents


def read_iob2(path: str | Path) -> list[Sentence]:
    """Every sentence of an IOB2 file, in order."""
    return [sentence for document in read_iob2_documents(path) for sentence in document]


def token_offsets(tokens: tuple[str, ...] | list[str]) -> list[tuple[int, int]]:
    """Character spans of the tokens in ``' '.join(tokens)``: evalscope's input text."""
    offsets, cursor = [], 0
    for token in tokens:
        offsets.append((cursor, cursor + len(token)))
        cursor += len(token) + 1
    return offsets


def spans_to_tags(spans: list[tuple[int, int, str]], offsets: list[tuple[int, int]]) -> list[str]:
    """IOB2 tags of the tokens each (start, end, label) span overlaps; earlier spans win a token."""
    tags = ["O"] * len(offsets)
    for start, end, label in sorted(spans):
        inside = [i for i, (s, e) in enumerate(offsets) if s < end and e > start and tags[i] == "O"]
        for position, i in enumerate(inside):
            tags[i] = f"{'B' if position == 0 else 'I'}-{label}"
    return tags
