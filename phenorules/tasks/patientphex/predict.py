"""Running the pipeline over articles and turning Docs into PatientPheX submission records."""

from __future__ import annotations

from typing import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc

from ...article import Article
from ...document import PASSAGES, PHENOTYPES, annotate_articles, doc_text
from ...phenotype import Phenotype, association_values, phenotypes
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


def fallback_associations(doc: Doc) -> dict[str, list[str]]:
    """Every given patient gets the ids of non-negated mentions outside intro/discussion."""
    skipped = [(s.start_char, s.end_char) for s in doc.spans[PASSAGES] if s.label_ in FALLBACK_SKIPPED_SECTIONS]
    ids = {
        hpo_id
        for span in doc.spans[PHENOTYPES]
        if not span._.negex and not any(a <= span.start_char < b for a, b in skipped)
        for hpo_id in span._.hpo_ids
    }
    return {patient.id: sorted(ids) for patient in doc._.patients}


def to_record(article: Article, doc: Doc) -> dict:
    return _record(article, doc, phenotypes(doc))


def _record(article: Article, doc: Doc, found: list[Phenotype]) -> dict:
    associations = doc._.associations if doc._.associations is not None else fallback_associations(doc)
    return {
        "pmc_id": article.id,
        "pmid": article.pmid,
        "entities": [entity_record(phenotype) for phenotype in found],
        "association": [
            {"patient_id": patient.id, "phenotype": sorted(set(associations.get(patient.id, [])))}
            for patient in doc._.patients or ()
        ],
    }


def full_record(article: Article, doc: Doc) -> dict:
    """The submission record with what the other outputs (BioC, PubTator, Phenopackets)
    also need: the article's ``patient`` list (ids, given mentions and the ``subject``, the
    sex and age the text says of each; the text's proband when it lists none) and on each entity its ``label``, ``patients`` (attributed to, negated
    or not) and ``provenance``. The submission writer keeps only the task's fields."""
    found = phenotypes(doc)
    record = _record(article, doc, found)
    for entity, phenotype in zip(record["entities"], found):
        entity.update(
            label=phenotype.label,
            patients=list(phenotype.patients),
            provenance=list(phenotype.provenance),
            assertions=list(phenotype.assertions),
            assertion_cues=[dict(cue) for cue in phenotype.cues],
        )
    subjects = doc._.subjects or {}
    record["patient"] = [{**patient_record(patient), "subject": subjects.get(patient.id)} for patient in doc._.patients or ()]
    return record


def evidence_record(article: Article, doc: Doc) -> dict:
    """Why each phenotype went to its patients (``span._.patient_evidence``), one line per
    article: every attributed mention, per association (patient, phenotype) the mentions
    that made it with their chains of rule rows, and the mentions a stage dropped with the
    rule row that dropped them (``doc._.dropped``)."""
    evidence = [
        {"offset": span.start_char, "length": span.end_char - span.start_char, "text": span.text, "identifier": task_identifier(span._.hpo_ids), "note": "NO" if span._.negex else None, **reason}
        for span in doc.spans[PHENOTYPES]
        for reason in span._.patient_evidence or []
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
    dropped = [
        {"offset": start, "length": end - start, "text": doc_text(doc)[start:end], "identifier": task_identifier(hpo_ids), "rule": rule}
        for start, end, hpo_ids, rule in doc._.dropped or []
    ]
    return {"pmc_id": article.id, "evidence": evidence, "associations": associations, "dropped": dropped}


def predict(nlp: Language, articles: Iterable[Article]) -> Iterator[dict]:
    for article, doc in annotate_articles(nlp, articles):
        yield to_record(article, doc)


def predict_full(nlp: Language, articles: Iterable[Article]) -> Iterator[dict]:
    """:func:`full_record` of each article, in input order."""
    for article, doc in annotate_articles(nlp, articles):
        yield full_record(article, doc)


def predict_explained(nlp: Language, articles: Iterable[Article], evidence: list[dict], record=to_record) -> Iterator[dict]:
    """Like :func:`predict` (``record``: to_record or full_record), appending each article's
    evidence record to ``evidence``."""
    for article, doc in annotate_articles(nlp, articles):
        evidence.append(evidence_record(article, doc))
        yield record(article, doc)
