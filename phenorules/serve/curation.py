"""Curated articles from the page, as PatientPheX prediction records and the export formats.

The page sends back, per article, the mentions /annotate found with the curator's
decision on each (``unreviewed``, ``accepted``, ``rejected``, ``changed`` with the new
id). A curated record is what ``phenorules predict`` writes for that article, with the
rejected mentions left out, the changed ids in, a ``curation`` field on every entity,
and each patient's phenotypes taken from the kept mentions attributed to it (the same
rule as the patients stage, so an article nobody touched exports its predicted record).
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import InputError
from ..ontology import Ontology

STATUSES = ("unreviewed", "accepted", "rejected", "changed")
NO_ID = "-1"

# Export format name -> (curated records, engine) -> the JSON objects, one a line.
Export = Callable[[list[dict], Any], list[dict]]
EXPORTS: dict[str, Export] = {
    "jsonl": lambda records, engine: records,
}


def curated_records(payload: Any, ontology: Ontology) -> list[dict]:
    """The records of ``{"articles": [...]}``; InputError names the field that is wrong."""
    articles = _field(payload, "articles", list, "request")
    return [curated_record(article, ontology, f"articles[{i}]") for i, article in enumerate(articles)]


def curated_record(article: Any, ontology: Ontology, place: str = "article") -> dict:
    article_id = _field(article, "id", str, place)
    if not article_id:
        raise InputError(f"{place}.id: empty string")
    pmid = _field(article, "pmid", (str, type(None)), place, default=None)
    patients = _strings(_field(article, "patients", list, place, default=[]), f"{place}.patients")
    entities = []
    found: dict[str, set[str]] = {patient: set() for patient in patients}
    for i, mention in enumerate(_field(article, "mentions", list, place)):
        where = f"{place}.mentions[{i}]"
        status = _field(mention, "status", str, where, default="unreviewed")
        if status not in STATUSES:
            raise InputError(f"{where}.status: {status!r} is none of {', '.join(STATUSES)}")
        start, end = _field(mention, "start", int, where), _field(mention, "end", int, where)
        if not 0 <= start < end:
            raise InputError(f"{where}: start {start} and end {end} are no span")
        text = _field(mention, "text", str, where)
        hpo_id = _checked_id(_field(mention, "hpo_id", str, where), ontology, f"{where}.hpo_id")
        negated = _field(mention, "negated", bool, where, default=False)
        attributed = _strings(_field(mention, "patients", list, where, default=[]), f"{where}.patients")
        if status == "rejected":
            continue
        entities.append(
            {
                "identifier": hpo_id,
                "type": "Phenotype",
                "offset": start,
                "length": end - start,
                "text": text,
                "note": "NO" if negated else None,
                "curation": status,
            }
        )
        for patient in attributed:
            if patient in found:
                found[patient].update(phenotype_values(hpo_id, text))
    return {
        "pmc_id": article_id,
        "pmid": pmid,
        "entities": entities,
        "association": [{"patient_id": patient, "phenotype": sorted(found[patient])} for patient in patients],
    }


def phenotype_values(hpo_id: str, text: str) -> list[str]:
    """The association entries of a mention: its ids, or its text for a '-1' mention."""
    ids = [part for part in hpo_id.split(";") if part != NO_ID]
    return ids or [text]


def _checked_id(hpo_id: str, ontology: Ontology, place: str) -> str:
    for part in hpo_id.split(";"):
        if part != NO_ID and part not in ontology:
            raise InputError(f"{place}: {part!r} is no term of the loaded ontology's phenotype branch")
    return hpo_id


_MISSING = object()
_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", list: "an array", dict: "an object"}


def _field(record: Any, key: str, kind, place: str, default: Any = _MISSING) -> Any:
    if not isinstance(record, dict):
        raise InputError(f"{place}: expected an object")
    if key not in record:
        if default is _MISSING:
            raise InputError(f"{place}.{key}: missing")
        return default
    value = record[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if type(value) not in kinds:  # type(): JSON true is no integer
        names = " or ".join(_TYPE_NAMES.get(k, "null") for k in kinds)
        raise InputError(f"{place}.{key}: expected {names}")
    return value


def _strings(values: list, place: str) -> list[str]:
    if not all(isinstance(value, str) for value in values):
        raise InputError(f"{place}: expected an array of strings")
    return values
