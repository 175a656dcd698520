"""Reading the tab-separated data files under ``lexicons/`` and ``rules/``."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import InputError
from ..files import read_text


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


def read_grouped(path: str | Path, groups: tuple[str, ...], what: str, group_column: int = 0) -> dict[str, list[str]]:
    """Group -> values, in file order, of a two-column (group, value) TSV; with
    ``group_column`` 1 the columns are (value, group). A group not in ``groups`` is an error
    naming the line ("unknown cue family 'negations'")."""
    grouped: dict[str, list[str]] = {group: [] for group in groups}
    for row, number in read_tsv(path, 2):
        group, value = row[group_column], row[1 - group_column]
        if group not in grouped:
            raise InputError(f"{path}:{number}: unknown {what} {group!r}; expected one of {list(groups)}")
        grouped[group].append(value)
    return grouped
