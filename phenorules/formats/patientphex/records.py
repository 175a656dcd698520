"""PatientPheX submission records of annotated articles, and back: a record (with what
``full_record`` adds, or what a prediction file, the input articles and the evidence of
``--explain`` give) as the result it states, which the Phenopackets are written from."""

from __future__ import annotations

from typing import Iterable, Iterator

from spacy.language import Language

from ...core.annotated import AnnotatedArticle, annotated_articles, patient_associations
from ...core.article import Article, Patient
from ...core.phenotype import ASSERTION_FLAGS, Phenotype
from ...patients.subjects import mentions_subject
from .articles import patient_label, patient_record
from .identifiers import parse_identifier, task_identifier

NEGATED = "NO"  # an entity's note when the mention is negated


def entity_record(phenotype: Phenotype) -> dict:
    return {
        "identifier": task_identifier(phenotype.hpo_ids),
        "type": "Phenotype",
        "offset": phenotype.start,
        "length": phenotype.end - phenotype.start,
        "text": phenotype.text,
        "note": NEGATED if phenotype.negated else None,
    }


def to_record(result: AnnotatedArticle) -> dict:
    """The submission record: ``pmc_id``, ``pmid``, ``entities``, ``association``."""
    article = result.article
    associations = patient_associations(result)
    return {
        "pmc_id": article.id,
        "pmid": article.pmid,
        "entities": [entity_record(phenotype) for phenotype in result.phenotypes],
        "association": [
            {"patient_id": patient.id, "phenotype": sorted(set(associations.get(patient.id, [])))}
            for patient in result.patients
        ],
    }


def full_record(result: AnnotatedArticle) -> dict:
    """The submission record with what serve's answers and the Phenopackets also need: the
    article's ``patient`` list (ids, given mentions and the ``subject``, the sex and age the
    text says of each; the text's proband when it lists none) and on each entity its
    ``label``, ``patients`` (attributed to, negated or not) and ``provenance``. The
    submission writer keeps only the task's fields."""
    record = to_record(result)
    for entity, phenotype in zip(record["entities"], result.phenotypes):
        entity.update(
            label=phenotype.label,
            patients=list(phenotype.patients),
            provenance=list(phenotype.provenance),
            assertions=list(phenotype.assertions),
            assertion_cues=[dict(cue) for cue in phenotype.cues],
        )
    record["patient"] = patient_entries(result.patients, result.subjects)
    return record


def patient_entries(patients: Iterable[Patient], subjects: dict[str, dict]) -> list[dict]:
    """The record's ``patient`` list: each patient's task entry with its ``subject``, the sex
    and age the text says of it (``subjects``: patient id -> ``Subject.data()``)."""
    return [{**patient_record(patient), "subject": subjects.get(patient.id)} for patient in patients]


def predict(nlp: Language, articles: Iterable[Article]) -> Iterator[dict]:
    """:func:`to_record` of each article, in input order."""
    for result in annotated_articles(nlp, articles):
        yield to_record(result)


def with_patients(records: list[dict], patients: dict[str, list[dict]] | None, evidence: list[dict] | None) -> list[dict]:
    """Submission records completed with the input articles' ``patient`` lists (article id
    -> entries with their ``subject``) and the ``--explain`` evidence (whom each mention is
    attributed to, and its assertion flags), as ``full_record`` gives them directly."""
    patients = patients or {}
    attributed: dict[tuple, tuple[list[str], list[str]]] = {}
    for line in evidence or []:
        for reason in line.get("evidence") or []:
            key = (line["pmc_id"], reason["offset"], reason["length"], reason["identifier"])
            whom, flags = attributed.setdefault(key, ([], []))
            whom.extend(reason.get("patients") or [])
            flags.extend(flag for flag in reason.get("assertions") or [] if flag not in flags)
    completed = []
    for record in records:
        record = dict(record, entities=[dict(entity) for entity in record["entities"]])
        if record["pmc_id"] in patients:
            record["patient"] = patients[record["pmc_id"]]
        for entity in record["entities"]:
            key = (record["pmc_id"], entity["offset"], entity["length"], entity["identifier"])
            if key in attributed:
                whom, flags = attributed[key]
                entity["patients"], entity["assertions"] = sorted(set(whom)), flags
        completed.append(record)
    return completed


def record_result(record: dict) -> AnnotatedArticle:
    """The result a record states: its article's id and pmid (no text), the patients of its
    ``patient`` list (with their ``subject`` where it has one) and then those only its
    ``association`` names, each entity as a mention (with its ``patients`` and
    ``assertions`` where the record has them: :func:`full_record`, :func:`with_patients`),
    and its associations as they are."""
    listed = record.get("patient") or []
    associations = {entry["patient_id"]: entry["phenotype"] for entry in record.get("association") or []}
    patient_ids = list(dict.fromkeys([entry["patient_id"] for entry in listed] + list(associations)))
    patients = tuple(Patient(patient_id, patient_label(patient_id)) for patient_id in patient_ids)
    subjects = {entry["patient_id"]: _subject(entry) for entry in listed}
    article = Article(record["pmc_id"], (), record.get("pmid"), patients[: len(listed)])
    return AnnotatedArticle(article, tuple(entity_phenotype(entity) for entity in record.get("entities") or []), patients, associations, subjects)


def _subject(entry: dict) -> dict:
    """A listed patient's ``subject``, or what its given mentions say (the texts alone: a
    curated record's mentions have no offsets)."""
    subject = entry.get("subject")
    return subject if subject is not None else mentions_subject([mention["text"] for mention in entry.get("mention") or []])


def entity_phenotype(entity: dict) -> Phenotype:
    """A record's entity as the core's mention: its ids, whom it is attributed to, its flags."""
    start = entity["offset"]
    mention = Phenotype(
        start,
        start + entity["length"],
        entity["text"],
        parse_identifier(entity["identifier"]),
        entity.get("label") or "",
        list(entity.get("provenance") or ()),
        assertions=tuple(flag for flag in ASSERTION_FLAGS if flag in (entity.get("assertions") or ())),
        patients=list(entity.get("patients") or ()),
    )
    if entity.get("note") == NEGATED:
        mention.flag("is_negated")
    return mention
