"""How PatientPheX writes a mention's phenotype (TASK.md): its HPO ids joined by ';' (a
compound mention), '-1' when no HPO term fits. It is the form of the lexicon files' id
cell, learned from its annotations, so one codec serves both:
:func:`phenorules.kb.lexicon.tsv.format_ids` and :func:`~phenorules.kb.lexicon.tsv.parse_ids`."""

from __future__ import annotations

from ...kb.lexicon.tsv import NO_TERM_CELL as NO_ID, format_ids as task_identifier, parse_ids as parse_identifier

__all__ = ["NO_ID", "task_identifier", "parse_identifier"]
