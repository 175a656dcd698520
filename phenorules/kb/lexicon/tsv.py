"""Reading the tab-separated data files under ``lexicons/`` and ``rules/``.

A lexicon file's id cell writes a phenotype's ids as PatientPheX does, since the learned
lexicon is learned from its annotations: ids joined by ';' for a compound, '-1' for a
form no HPO term fits. :func:`parse_ids` and :func:`format_ids` are the only readers and
writers of that cell; everywhere else ids are a tuple (:mod:`phenorules.core.phenotype`).

Every row a rule is read from is stamped by :func:`read_rules` with a :class:`RuleRef`
(file, line, the row's name), whose one string form ``file.tsv:LINE`` is what provenance
writes of the row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ...core.errors import InputError
from ...core.files import read_text

NO_TERM_CELL = "-1"  # the id cell of a form no HPO term fits
_ID_SEPARATOR = ";"


def parse_ids(cell: str) -> tuple[str, ...]:
    """The ids of an id cell, in the cell's order; none for '-1' (a '-1' part of a
    compound is dropped)."""
    return tuple(part for part in cell.split(_ID_SEPARATOR) if part != NO_TERM_CELL)


def format_ids(hpo_ids: tuple[str, ...]) -> str:
    """The id cell of ``hpo_ids``: :func:`parse_ids` reads it back."""
    return _ID_SEPARATOR.join(hpo_ids) if hpo_ids else NO_TERM_CELL


@dataclass(frozen=True, order=True)
class RuleRef:
    """The data-file row a rule came from: the file's name, the row's 1-based line, and
    its name or key (first cell)."""

    file: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def read_tsv(path: str | Path, min_columns: int) -> Iterator[tuple[list[str], int]]:
    """Rows of a TSV file with their 1-based line numbers; '#' lines and blank lines skipped."""
    lines = read_text(str(path)).splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        row = [cell.strip() for cell in line.split("\t")]
        if len(row) < min_columns or not all(row[:min_columns]):
            raise InputError(f"{path}:{number}: expected {min_columns} tab-separated columns, got {line!r}")
        yield row, number


def read_rules(path: str | Path, min_columns: int, name_column: int = 0) -> Iterator[tuple[list[str], RuleRef]]:
    """The rows of :func:`read_tsv`, each with its :class:`RuleRef` (the file's name, the
    line, the cell ``name_column`` as the row's name)."""
    file = Path(path).name
    for row, number in read_tsv(path, min_columns):
        yield row, RuleRef(file, number, row[name_column])


def read_grouped(path: str | Path, groups: tuple[str, ...], group_column: int = 0) -> dict[str, list[str]]:
    """Kind -> values, in file order, of a two-column (kind, value) TSV, the column every
    grouped data file calls ``kind``; with ``group_column`` 1 the columns are (value, kind).
    A kind not in ``groups`` is an error naming the line ("unknown kind 'negations'")."""
    return {group: [ref.name for ref in refs] for group, refs in read_grouped_rules(path, groups, group_column).items()}


def read_grouped_rules(path: str | Path, groups: tuple[str, ...], group_column: int = 0) -> dict[str, list[RuleRef]]:
    """:func:`read_grouped` with each value as the :class:`RuleRef` of its row (the value
    is the row's name)."""
    grouped: dict[str, list[RuleRef]] = {group: [] for group in groups}
    for row, ref in read_rules(path, 2, name_column=1 - group_column):
        group = row[group_column]
        if group not in grouped:
            raise InputError(f"{path}:{ref.line}: unknown kind {group!r}; expected one of {list(groups)}")
        grouped[group].append(ref)
    return grouped
