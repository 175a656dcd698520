"""Autocomplete over the loaded ontology: term names and synonyms that contain the query.

A curator who changes an id types part of a name ("seiz", "cleft pal") or an id; the
answer is ranked so that what the query starts is first (whole string, then a word), then
what contains it, shorter strings before longer ones, one row per term.
"""

from __future__ import annotations

import re

from ..kb.ontology import Ontology

HPO_ID = re.compile(r"HP:\d{7}", re.IGNORECASE)
# Row: (lower-cased string, string as written, term id, where it comes from)
Row = tuple[str, str, str, str]


class TermIndex:
    def __init__(self, ontology: Ontology):
        self.ontology = ontology
        rows: list[Row] = []
        for hpo_id, name in ontology.names.items():
            rows.append((" ".join(name.lower().split()), name, hpo_id, "name"))
            for synonym in ontology.synonyms.get(hpo_id, ()):
                rows.append((" ".join(synonym.text.lower().split()), synonym.text, hpo_id, f"synonym:{synonym.scope}"))
        self.rows = rows

    def search(self, query: str, limit: int = 10) -> list[dict]:
        """Up to ``limit`` terms, best first: ``{"id", "label", "match", "source"}``."""
        wanted = " ".join(query.lower().split())
        if not wanted:
            return []
        if HPO_ID.fullmatch(wanted):
            found = self.ontology.resolve(wanted.upper())
            return [self._row(found, self.ontology.names[found], "id")] if found else []
        best: dict[str, tuple[tuple, Row]] = {}
        for row in self.rows:
            text = row[0]
            at = text.find(wanted)
            if at < 0:
                continue
            rank = 0 if at == 0 else 1 if f" {wanted}" in f" {text}" else 2
            key = (rank, len(text), text, row[2])
            if row[2] not in best or key < best[row[2]][0]:
                best[row[2]] = (key, row)
        ranked = sorted(best.values())[:limit]
        return [self._row(row[2], row[1], row[3]) for _, row in ranked]

    def label(self, hpo_id: str) -> str | None:
        return self.ontology.names.get(hpo_id)

    def _row(self, hpo_id: str, match: str, source: str) -> dict:
        return {"id": hpo_id, "label": self.ontology.names[hpo_id], "match": match, "source": source}
