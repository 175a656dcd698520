"""Curated articles from the page, as PatientPheX prediction records and the export formats.

The page sends back, per article, the mentions /annotate found with the curator's
decision on each (``unreviewed``, ``accepted``, ``rejected``, ``changed`` with the new
id). A curated record is the full prediction record of that article
(``tasks.patientphex.predict.full_record``: the submission fields plus each entity's
label, patients and provenance, and the article's patient list) with the rejected
mentions left out, the changed ids in (their provenance says from which id), a
``curation`` field on every entity, and each patient's phenotypes taken from the kept
non-negated mentions attributed to it (the patients stage's rule), so an article nobody
touched exports its predicted record.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import InputError
from ..formats.phenopackets import phenopackets_for_record
from ..ontology import Ontology

STATUSES = ("unreviewed", "accepted", "rejected", "changed")
NO_ID = "-1"

# Export format name -> (curated records, engine) -> the JSON objects, one a line.
Export = Callable[[list[dict], Any], list[dict]]
EXPORTS: dict[str, Export] = {
    "jsonl": lambda records, engine: records,
    "phenopackets": lambda records, engine: [packet for record in records for packet in phenopackets_for_record(record, engine.ontology)],
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
    patient_list = _patients(_field(article, "patient", list, place, default=[]), f"{place}.patient")
    found: dict[str, set[str]] = {patient["patient_id"]: set() for patient in patient_list}
    entities = []
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
        provenance = _strings(_field(mention, "provenance", list, where, default=[]), f"{where}.provenance")
        predicted = _field(mention, "predicted_id", str, where, default=hpo_id)
        if status == "rejected":
            continue
        if status == "changed" or "label" not in mention:
            label = "; ".join(ontology.names.get(part, part) for part in hpo_id.split(";"))
        else:
            label = _field(mention, "label", str, where)
        if status == "changed":
            provenance = provenance + [f"curation:changed_from:{predicted}"]
        entities.append(
            {
                "identifier": hpo_id,
                "type": "Phenotype",
                "offset": start,
                "length": end - start,
                "text": text,
                "note": "NO" if negated else None,
                "label": label,
                "patients": attributed,
                "provenance": provenance,
                "curation": status,
            }
        )
        if negated:  # a negated mention is an excluded feature, not an association
            continue
        for patient in attributed:
            if patient in found:
                found[patient].update(phenotype_values(hpo_id, text))
    return {
        "pmc_id": article_id,
        "pmid": pmid,
        "entities": entities,
        "association": [{"patient_id": patient, "phenotype": sorted(values)} for patient, values in found.items()],
        "patient": patient_list,
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


def _patients(values: list, place: str) -> list[dict]:
    """The task's patient list (ids and given mentions, where sex and age are read from)."""
    for i, patient in enumerate(values):
        if not _field(patient, "patient_id", str, f"{place}[{i}]"):
            raise InputError(f"{place}[{i}].patient_id: empty string")
        for j, mention in enumerate(_field(patient, "mention", list, f"{place}[{i}]", default=[])):
            _field(mention, "text", str, f"{place}[{i}].mention[{j}]")
    return values


def _strings(values: list, place: str) -> list[str]:
    if not all(isinstance(value, str) for value in values):
        raise InputError(f"{place}: expected an array of strings")
    return values
