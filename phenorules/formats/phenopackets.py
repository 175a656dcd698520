"""GA4GH Phenopackets v2, one per given patient of an article, as phenopacket-store writes
them for a patient from a paper.

Written from an :class:`~phenorules.core.annotated.AnnotatedArticle`, as every output is
(a prediction record is read back as one: ``formats.patientphex.records.record_result``).
``id`` is the article and the patient (``PMID_20461149_P1``), ``subject.id`` the same; the
subject's ``sex`` and ``timeAtLastEncounter`` only where the rows of
``rules/patient_subjects.tsv`` find them where the text speaks of the patient ("Patient 2, his
4-year-old sister" is FEMALE, P4Y; :mod:`phenorules.patients.subjects`), or, where the text
was not read, in the patient's given mentions; never guessed. A text that lists no
patient has one, its proband.
One ``phenotypicFeature`` per HPO id, observed or ``excluded`` as
:func:`phenorules.core.phenotype.patient_features` states it from the patient's association and
the mentions attributed to it; each cites the article (``ECO:0000033`` author statement
supported by traceable reference, the PMID or PMCID). ``metaData`` names the HPO release
loaded, phenorules' version and the article, and ``created`` (:func:`created_time`: never
the clock, so the same input gives the same bytes). The message is built with the
``phenopackets`` protobuf bindings, so every field name and type is the schema's; the dict
is what ``json_format.MessageToDict`` gives.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import date, datetime, timezone
from typing import Iterable

from .. import __version__
from ..core.errors import InputError
from ..core.source_date import source_date
from ..kb.ontology import Ontology
from ..core.annotated import AnnotatedArticle, patient_associations
from ..core.article import Article
from ..patients.subjects import mentions_subject
from ..core.phenotype import patient_features
from ..core.outputs import OutputFiles
from . import require

EVIDENCE_CODE = {"id": "ECO:0000033", "label": "author statement supported by traceable reference"}
HPO_RESOURCE = {
    "id": "hp",
    "name": "human phenotype ontology",
    "url": "http://purl.obolibrary.org/obo/hp.owl",
    "namespacePrefix": "HP",
    "iriPrefix": "http://purl.obolibrary.org/obo/HP_",
}
SCHEMA_VERSION = "2.0"
HPO_ID = re.compile(r"HP:\d{7}")
_UNITS = {"year": "Y", "month": "M", "week": "W", "day": "D"}
_SEXES = ("male", "female")
_RELEASE_DATE = re.compile(r"releases/(\d{4}-\d{2}-\d{2})")  # data-version: hp/releases/2025-01-16
_UNDATED = datetime(1970, 1, 1, tzinfo=timezone.utc)  # created of a release that names no date
_FILE_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def phenopackets_of(result: AnnotatedArticle, ontology: Ontology, *, hpo_version: str | None = None, created: datetime | None = None) -> list[dict]:
    """One Phenopacket (a JSON dict) per patient of the result, in its order. The
    association is the patient stage's (without it, the floor:
    :func:`~phenorules.core.annotated.patient_associations`); a mention states an excluded
    feature, or leaves an id unstated, by its flags and the patients it is attributed to.
    ``hpo_version`` defaults to the ontology's data-version; ``created`` is the command's
    ``--created`` (:func:`created_time`)."""
    from google.protobuf import json_format

    phenopackets = require("phenopackets")
    article = _article_key(result.article)
    references = _references(result.article)
    meta = {
        "created": created_time(ontology, created),
        "createdBy": f"phenorules {__version__}",
        "resources": [dict(HPO_RESOURCE, version=hpo_version or ontology.data_version)],
        "phenopacketSchemaVersion": SCHEMA_VERSION,
        "externalReferences": references,
    }
    evidence = [{"evidenceCode": EVIDENCE_CODE, "reference": references[0]}] if references else []
    associations = patient_associations(result)
    subjects = _subjects(article, result)
    packets = []
    for patient in result.patients:
        stated = patient_features(patient.id, associations.get(patient.id, []), result.phenotypes)
        features = [_feature(hpo_id, ontology, article, False, evidence) for hpo_id in stated.observed if HPO_ID.fullmatch(hpo_id)]
        features += [_feature(hpo_id, ontology, article, True, evidence) for hpo_id in stated.excluded if HPO_ID.fullmatch(hpo_id)]
        identifier = f"{article}_{patient.id}"
        subject = {"id": identifier}
        age, sex = subjects[patient.id]
        if age:
            subject["timeAtLastEncounter"] = {"age": {"iso8601duration": age}}
        if sex:
            subject["sex"] = sex
        packet = {"id": identifier, "subject": subject, "phenotypicFeatures": features, "metaData": meta}
        message = json_format.ParseDict(packet, phenopackets.Phenopacket())  # the schema checks every field
        packets.append(json_format.MessageToDict(message))
    return packets


def write_phenopackets(directory: str, results: Iterable[AnnotatedArticle], ontology: Ontology, outputs: OutputFiles | None = None, created: datetime | None = None) -> int:
    """Write the results' Phenopackets as ``DIR/<id>.json`` through the command's
    ``outputs``; returns how many were written. All their file names are claimed first:
    two packets whose ids give one file name (articles sharing a PMID, patients "P/1" and
    "P 1") are refused before any is written, as is one that an earlier call wrote."""
    outputs = outputs or OutputFiles()
    named = []
    for result in results:
        for packet in phenopackets_of(result, ontology, created=created):
            path = os.path.join(directory, phenopacket_file_name(packet["id"]))
            what = f"Phenopacket {packet['id']} of article {result.article.id}"
            outputs.claim(path, what, directory=directory)
            named.append((path, what, packet))
    for path, what, packet in named:
        outputs.write(path, [json.dumps(packet, indent=2, ensure_ascii=False) + "\n"], what)
    return len(named)


def phenopacket_file_name(identifier: str) -> str:
    return _FILE_UNSAFE.sub("_", identifier) + ".json"


def _article_key(article: Article) -> str:
    return f"PMID_{article.pmid}" if article.pmid else _pmcid(article.id).replace(":", "_")


def _pmcid(pmc_id: str) -> str:
    return f"PMC{pmc_id}" if pmc_id.isdigit() else pmc_id


def _references(article: Article) -> list[dict]:
    """The article's PMID and PMCID (an article read from plain text has neither)."""
    references = []
    if article.pmid:
        references.append({"id": f"PMID:{article.pmid}", "reference": f"https://pubmed.ncbi.nlm.nih.gov/{article.pmid}"})
    pmcid = _pmcid(article.id)
    if pmcid.startswith("PMC") and pmcid[3:].isdigit():
        references.append({"id": f"PMCID:{pmcid}", "reference": f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/"})
    return references


def created_time(ontology: Ontology, created: datetime | None = None) -> str:
    """``metaData.created``, never the clock: ``SOURCE_DATE_EPOCH`` when set, else
    ``created`` (a command's ``--created``), else the loaded HPO release's date (its
    data-version ``hp/releases/YYYY-MM-DD``) at 00:00:00Z, else (a release that names no
    date) 1970-01-01T00:00:00Z; in UTC, to the second."""
    when = source_date() or created or _release_date(ontology.data_version) or _UNDATED
    return when.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def _release_date(data_version: str) -> datetime | None:
    found = _RELEASE_DATE.search(data_version)
    try:
        day = date.fromisoformat(found.group(1)) if found else None
    except ValueError:  # 2025-13-45
        return None
    return None if day is None else datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _feature(hpo_id: str, ontology: Ontology, article: str, excluded: bool, evidence: list[dict]) -> dict:
    current = ontology.resolve(hpo_id)
    if current is None:
        raise InputError(f"{article}: {hpo_id} is not a phenotype term of the loaded HPO release {ontology.data_version} ({ontology.path})")
    feature = {"type": {"id": current, "label": ontology.names[current]}}
    if excluded:
        feature["excluded"] = True
    if evidence:
        feature["evidence"] = evidence
    return feature


def _subjects(article: str, result: AnnotatedArticle) -> dict[str, tuple[str | None, str | None]]:
    """Patient id -> (ISO 8601 age, MALE/FEMALE): the result's ``subjects`` (what the text
    says), else what the given mentions say; None where nothing is said or it disagrees."""
    subjects = {}
    for patient in result.patients:
        subject = result.subjects.get(patient.id)
        if subject is None:
            subject = mentions_subject([mention.text for mention in patient.mentions])
        problem = subject_problem(subject)
        if problem is not None:
            raise InputError(f"{article}: patient {patient.id}: {problem[0]}: {problem[1]}")
        age = _duration(*subject["age"]) if subject.get("age") else None
        subjects[patient.id] = (age, subject["sex"].upper() if subject.get("sex") else None)
    return subjects


def subject_problem(subject: object) -> tuple[str, str] | None:
    """(field, problem) of a patient's ``subject`` that a Phenopacket cannot state: ``sex``
    is male, female or null, ``age`` [a number of at least 0, a unit of year, month, week,
    day] or null (a number: 4 as well as 4.0)."""
    if not isinstance(subject, dict):
        return "subject", "expected an object with sex and age, or null"
    sex, age = subject.get("sex"), subject.get("age")
    if sex is not None and sex not in _SEXES:
        return "subject.sex", f"{sex!r} is none of {', '.join(_SEXES)}, null"
    if age is None:
        return None
    if not isinstance(age, (list, tuple)) or len(age) != 2:
        return "subject.age", "expected [number, unit] or null"
    value, unit = age
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return "subject.age", f"{value!r} is no number of at least 0"
    if unit not in _UNITS:
        return "subject.age", f"unit {unit!r} is none of {', '.join(_UNITS)}"
    return None


def _duration(value: float, unit: str) -> str | None:
    """'P10Y' for (10, 'year') or (10.0, 'year'), 'P1Y6M' for 1.5 years; None where a unit
    would be rounded."""
    if float(value).is_integer():
        return f"P{int(value)}{_UNITS[unit]}"
    months = (value - int(value)) * 12
    if unit == "year" and abs(months - round(months)) < 1e-9:
        return f"P{int(value)}Y{round(months)}M"
    return None
