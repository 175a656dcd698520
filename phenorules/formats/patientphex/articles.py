"""PatientPheX article records (``pmc_id``, ``pmid``, ``patient``, ``full_text``) as the
core's :class:`~phenorules.core.article.Article`, and its patients back as task records.

A PatientPheX patient id is ``O`` followed by the label the article calls the patient by
(``OII-1`` is "II-1", ``O1`` is "patient 1"): the label is decoded here, so the patient
stage reads labels, never task ids.
"""

from __future__ import annotations

from phenorules.core.article import Article, GivenMention, Passage, Patient

LABEL_PREFIX = "O"


def patient_label(patient_id: str) -> str | None:
    """The label an ``O`` + label id holds ('OII-1' -> 'II-1'); None for other ids."""
    if patient_id.startswith(LABEL_PREFIX) and len(patient_id) > len(LABEL_PREFIX):
        return patient_id[len(LABEL_PREFIX) :]
    return None


def to_patient(record: dict) -> Patient:
    """A task ``patient`` entry (``patient_id``, ``mention``) as a Patient."""
    mentions = tuple(GivenMention(m["offset"], m["offset"] + m["length"], m["text"]) for m in record.get("mention") or [])
    return Patient(record["patient_id"], patient_label(record["patient_id"]), mentions)


def to_article(record: dict) -> Article:
    """A checked task article (``io.read_articles``) as an Article."""
    passages = tuple(Passage(p["offset"], p["text"], p["section_type"], p["type"]) for p in record["full_text"])
    patients = tuple(to_patient(patient) for patient in record.get("patient") or [])
    return Article(record.get("pmc_id"), passages, record.get("pmid"), patients)


def patient_record(patient: Patient) -> dict:
    """A Patient as the task's ``patient`` entry."""
    mentions = [{"text": m.text, "offset": m.start, "length": m.end - m.start} for m in patient.mentions]
    return {"patient_id": patient.id, "mention": mentions}
