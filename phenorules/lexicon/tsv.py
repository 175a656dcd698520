"""Reading the tab-separated data files under ``lexicons/`` and ``rules/``."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import InputError


def read_tsv(path: str | Path, min_columns: int) -> Iterator[tuple[list[str], int]]:
    """Rows of a TSV file with their 1-based line numbers; '#' lines and blank lines skipped."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        row = [cell.strip() for cell in line.split("\t")]
        if len(row) < min_columns or not all(row[:min_columns]):
            raise InputError(f"{path}:{number}: expected {min_columns} tab-separated columns, got {line!r}")
        yield row, number
