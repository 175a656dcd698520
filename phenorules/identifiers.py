"""The identifier a phenotype mention carries: an HPO id, several joined by ';' (a compound
mention), or NO_ID for a phenotype no HPO term names."""

from __future__ import annotations

NO_ID = "-1"


def phenotype_values(identifier: str | None, text: str) -> list[str]:
    """The association entries a mention gives: its ids, or its text for a '-1' mention."""
    ids = [hpo_id for hpo_id in (identifier or "").split(";") if hpo_id and hpo_id != NO_ID]
    return ids if ids or identifier != NO_ID else [text]
