"""PatientPheX submission records (and the evidence of ``--explain``) of annotated articles."""

from __future__ import annotations

from typing import Iterable, Iterator

from spacy.language import Language

from ...core.annotated import AnnotatedArticle, annotate
from ...core.article import Article, Patient
from ...core.phenotype import Phenotype, association_values
from .articles import patient_record
from .identifiers import parse_identifier, task_identifier

# Without the patient stage every given patient gets every non-negated id found outside
# these sections (the floor the task statistics describe).
FALLBACK_SKIPPED_SECTIONS = frozenset({"INTRO", "DISCUSS"})


def entity_record(phenotype: Phenotype) -> dict:
    return {
        "identifier": task_identifier(phenotype.hpo_ids),
        "type": "Phenotype",
        "offset": phenotype.start,
        "length": phenotype.end - phenotype.start,
        "text": phenotype.text,
        "note": "NO" if phenotype.negated else None,
    }


def fallback_associations(result: AnnotatedArticle) -> dict[str, list[str]]:
    """Every given patient gets the ids of non-negated mentions outside intro/discussion."""
    skipped = [(p.offset, p.offset + len(p.text)) for p in result.article.passages if p.section_type in FALLBACK_SKIPPED_SECTIONS]
    ids = {
        hpo_id
        for phenotype in result.phenotypes
        if not phenotype.negated and not any(a <= phenotype.start < b for a, b in skipped)
        for hpo_id in phenotype.hpo_ids
    }
    return {patient.id: sorted(ids) for patient in result.patients}


def to_record(result: AnnotatedArticle) -> dict:
    """The submission record: ``pmc_id``, ``pmid``, ``entities``, ``association``."""
    article = result.article
    associations = result.associations if result.associations is not None else fallback_associations(result)
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


def evidence_record(result: AnnotatedArticle) -> dict:
    """Why each phenotype went to its patients (``Phenotype.evidence``), one line per
    article: every attributed mention with its assertion flags, per association (patient, phenotype) the mentions
    that made it with their chains of rule rows, and the mentions a stage dropped with the
    rule row that dropped them."""
    evidence = [
        {
            "offset": phenotype.start,
            "length": phenotype.end - phenotype.start,
            "text": phenotype.text,
            "identifier": task_identifier(phenotype.hpo_ids),
            "note": "NO" if phenotype.negated else None,
            "assertions": list(phenotype.assertions),
            **reason,
        }
        for phenotype in result.phenotypes
        for reason in phenotype.evidence
    ]
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for item in evidence:
        if item["note"] == "NO":  # stated absent: no association
            continue
        values = association_values(parse_identifier(item["identifier"]), item["text"])
        for patient_id in item["patients"]:
            for value in values:
                by_pair.setdefault((patient_id, value), []).append({"offset": item["offset"], "text": item["text"], "rule": item["rule"], "chain": item["chain"]})
    associations = [{"patient_id": p, "phenotype": v, "because": because} for (p, v), because in sorted(by_pair.items())]
    text = result.article.text if result.dropped else ""
    dropped = [
        {"offset": start, "length": end - start, "text": text[start:end], "identifier": task_identifier(hpo_ids), "rule": rule}
        for start, end, hpo_ids, rule in result.dropped
    ]
    return {"pmc_id": result.article.id, "evidence": evidence, "associations": associations, "dropped": dropped}


def predict(nlp: Language, articles: Iterable[Article]) -> Iterator[dict]:
    """:func:`to_record` of each article, in input order."""
    for result in annotate(nlp, articles):
        yield to_record(result)
