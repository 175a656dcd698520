"""How PatientPheX writes a mention's phenotype (TASK.md): its HPO ids joined by ';' (a
compound mention), '-1' when no HPO term fits. The core's form is a tuple of ids, empty
when no term fits (:mod:`phenorules.phenotype`); these two functions translate."""

from __future__ import annotations

NO_ID = "-1"
SEPARATOR = ";"


def task_identifier(hpo_ids: tuple[str, ...]) -> str:
    """The task's identifier of a mention with ``hpo_ids``."""
    return SEPARATOR.join(hpo_ids) if hpo_ids else NO_ID


def parse_identifier(identifier: str) -> tuple[str, ...]:
    """The ids of a task identifier, in its order; none for '-1' (a '-1' part of a
    compound is dropped, as the scorer drops it)."""
    return tuple(part for part in identifier.split(SEPARATOR) if part != NO_ID)
