"""spaCy components, one per stage, listed in order by ``rules/stages.tsv``, and the
knowledge base function they share; importing this package registers them."""

from __future__ import annotations

import importlib

from ..core.errors import SettingError
from ..kb.lexicon.tsv import read_rules
from ..kb.resources import data_file
from . import knowledge  # noqa: F401  (registers the knowledge base function)

STAGE_SWITCHES = ("required", "on", "optional")


def stage_factory(stage: str) -> str:
    """The spaCy factory of a stage: ``phenorules_STAGE``, made by ``phenorules.stages.STAGE``."""
    return f"phenorules_{stage}"


def read_stage_rows() -> tuple[tuple[str, str], ...]:
    """(stage, switch) of each row of ``rules/stages.tsv``, in the order the stages run."""
    rows = []
    for row, ref in read_rules(data_file("rules", "stages.tsv"), 2):
        if row[1] not in STAGE_SWITCHES:
            raise SettingError(f"{ref}: switch {row[1]!r} is not one of {list(STAGE_SWITCHES)}")
        rows.append((row[0], row[1]))
    return tuple(rows)


STAGE_ROWS = read_stage_rows()
for _stage, _ in STAGE_ROWS:
    importlib.import_module(f"{__name__}.{_stage}")  # registers the stage's factory
