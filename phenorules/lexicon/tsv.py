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
