"""Curated articles from the page, as PatientPheX prediction records and the export formats.

The page sends back, per article, the mentions /annotate found with the curator's
decision on each (``unreviewed``, ``accepted``, ``rejected``, ``changed`` with the new
id). A curated record is the full prediction record of that article
(``formats.patientphex.records.full_record``: the submission fields plus each entity's
label, patients and provenance, and the article's patient list) with the rejected
mentions left out, the changed ids in (their provenance says from which id), a
``curation`` field on every entity, and each patient's phenotypes taken from the kept
non-negated mentions attributed to it (the patients stage's rule), so an article nobody
touched exports its predicted record.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.errors import InputError
from ..formats.patientphex.records import record_result
from ..formats.phenopackets import phenopackets_of, subject_problem
from ..core.phenotype import ASSERTION_FLAGS, association_values
from ..kb.ontology import Ontology
from ..core.shapes import NonEmpty, Shape, ShapeError, check, dotted, type_problem
from ..kb.lexicon.tsv import parse_ids

STATUSES = ("unreviewed", "accepted", "rejected", "changed")

# Export format name -> (curated records, engine) -> the JSON objects, one a line.
Export = Callable[[list[dict], Any], list[dict]]
EXPORTS: dict[str, Export] = {
    "jsonl": lambda records, engine: records,
    "phenopackets": lambda records, engine: [packet for record in records for packet in phenopackets_of(record_result(record), engine.ontology)],
}


class GivenMentionShape(Shape):
    text: str


class CuratedPatientShape(Shape):
    """The task's patient list (ids and given mentions, where sex and age are read from,
    unless /annotate's ``subject`` says them: a JSON number, 4 as well as 4.0, for an age)."""

    patient_id: NonEmpty
    mention: list[GivenMentionShape] = []
    subject: dict | None = None


class CuratedMentionShape(Shape):
    status: str = "unreviewed"
    start: int
    end: int
    text: str
    hpo_id: str
    negated: bool = False
    uncertain: bool = False
    hypothetical: bool = False
    historical: bool = False
    family: bool = False
    assertion_cues: list[dict] = []
    patients: list[str] = []
    provenance: list[str] = []
    predicted_id: str = ""  # absent: hpo_id
    label: str = ""  # absent: the ontology's


class CuratedArticle(Shape):
    id: NonEmpty
    pmid: str | None = None
    patient: list[CuratedPatientShape] = []
    mentions: list[CuratedMentionShape]


class Curation(Shape):
    articles: list[CuratedArticle]


def curated_records(payload: Any, ontology: Ontology) -> list[dict]:
    """The records of ``{"articles": [...]}``; InputError names the field that is wrong."""
    try:
        curation = check(Curation, payload)
    except ShapeError as error:
        raise InputError(f"{dotted(error.loc, 'request')}: {type_problem(error)}") from None
    return [
        curated_record(article, raw.get("patient", []), ontology, f"articles[{i}]")
        for i, (article, raw) in enumerate(zip(curation.articles, payload["articles"]))
    ]


def curated_record(article: CuratedArticle, patient_list: list[dict], ontology: Ontology, place: str) -> dict:
    """One article's record; ``patient_list`` is its patient list as sent."""
    for i, patient in enumerate(article.patient):
        problem = None if patient.subject is None else subject_problem(patient.subject)
        if problem is not None:
            raise InputError(f"{place}.patient[{i}].{problem[0]}: {problem[1]}")
    found: dict[str, set[str]] = {patient.patient_id: set() for patient in article.patient}
    entities = []
    for i, mention in enumerate(article.mentions):
        where = f"{place}.mentions[{i}]"
        if mention.status not in STATUSES:
            raise InputError(f"{where}.status: {mention.status!r} is none of {', '.join(STATUSES)}")
        if not 0 <= mention.start < mention.end:
            raise InputError(f"{where}: start {mention.start} and end {mention.end} are no span")
        hpo_id = mention.hpo_id
        hpo_ids = _checked_ids(hpo_id, ontology, f"{where}.hpo_id")
        given = mention.model_fields_set
        predicted = mention.predicted_id if "predicted_id" in given else hpo_id
        if mention.status == "rejected":
            continue
        if mention.status == "changed" or "label" not in given:
            label = ontology.label(hpo_ids)
        else:
            label = mention.label
        provenance = list(mention.provenance)
        if mention.status == "changed":
            provenance.append(f"curation:changed_from:{predicted}")
        entities.append(
            {
                "identifier": hpo_id,
                "type": "Phenotype",
                "offset": mention.start,
                "length": mention.end - mention.start,
                "text": mention.text,
                "note": "NO" if mention.negated else None,
                "label": label,
                "patients": list(mention.patients),
                "provenance": provenance,
                "assertions": [flag for flag in ASSERTION_FLAGS if getattr(mention, flag.removeprefix("is_"))],
                "assertion_cues": list(mention.assertion_cues),
                "curation": mention.status,
            }
        )
        if mention.negated:  # a negated mention is an excluded feature, not an association
            continue
        for patient in mention.patients:
            if patient in found:
                found[patient].update(association_values(hpo_ids, mention.text))
    return {
        "pmc_id": article.id,
        "pmid": article.pmid,
        "entities": entities,
        "association": [{"patient_id": patient, "phenotype": sorted(values)} for patient, values in found.items()],
        "patient": patient_list,
    }


def _checked_ids(identifier: str, ontology: Ontology, place: str) -> tuple[str, ...]:
    """The ids of a task identifier, each a term of the ontology's phenotype branch."""
    hpo_ids = parse_ids(identifier)
    for part in hpo_ids:
        if part not in ontology:
            raise InputError(f"{place}: {part!r} is no term of the loaded ontology's phenotype branch")
    return hpo_ids
