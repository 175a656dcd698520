"""GA4GH Phenopackets v2, one per given patient of an article, as phenopacket-store writes
them for a patient from a paper.

``id`` is the article and the patient (``PMID_20461149_P1``), ``subject.id`` the same; the
subject's ``sex`` and ``timeAtLastEncounter`` only where the rows of
``rules/patient_subjects.tsv`` find them where the text speaks of the patient ("Patient 2, his
4-year-old sister" is FEMALE, P4Y; :mod:`phenorules.patients.subjects`), or, for a record
without its text, in the patient's given mentions; never guessed. A text that lists no
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

import functools
import json
import math
import os
import re
from datetime import date, datetime, timezone

from .. import __version__
from ..core.errors import InputError
from ..core.source_date import source_date
from ..kb.ontology import Ontology
from ..core.article import Article, layout_passages
from ..patients.mentions import find_people
from ..patients.rules import load_patient_rules
from ..patients.subjects import SUBJECTS_FILE, find_subjects, read_subject, read_subject_rules
from ..kb.resources import data_dir, data_file
from ..kb.lexicon.tsv import parse_ids
from ..core.phenotype import ASSERTION_FLAGS, Phenotype, patient_features
from ..core.outputs import OutputFiles
from . import require

NEGATED = "NO"
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


def phenopackets_for_record(record: dict, ontology: Ontology, *, hpo_version: str | None = None, created: datetime | None = None) -> list[dict]:
    """One Phenopacket (a JSON dict) per given patient, in the record's patient order.

    ``record`` is a prediction record (``pmc_id``, ``pmid``, ``entities``, ``association``)
    with, when known, the article's ``patient`` list and each entity's ``patients`` and
    ``assertions`` (see ``formats.patientphex.records.full_record``): without them no sex,
    age or excluded feature can be stated, and the association is taken as it is.
    ``hpo_version`` defaults to the ontology's data-version; ``created`` is the command's
    ``--created`` (:func:`created_time`).
    """
    from google.protobuf import json_format

    phenopackets = require("phenopackets")
    article = _article_key(record)
    references = _references(record)
    meta = {
        "created": created_time(ontology, created),
        "createdBy": f"phenorules {__version__}",
        "resources": [dict(HPO_RESOURCE, version=hpo_version or ontology.data_version)],
        "phenopacketSchemaVersion": SCHEMA_VERSION,
        "externalReferences": references,
    }
    evidence = [{"evidenceCode": EVIDENCE_CODE, "reference": references[0]}] if references else []
    given = {patient["patient_id"]: patient for patient in record.get("patient") or []}
    associated = {entry["patient_id"]: entry["phenotype"] for entry in record.get("association") or []}
    order = list(given) + [patient_id for patient_id in associated if patient_id not in given]
    mentions = [_mention(entity) for entity in record.get("entities") or []]
    subjects = _subjects(article, list(given.values()))
    packets = []
    for patient_id in order:
        stated = patient_features(patient_id, associated.get(patient_id, []), mentions)
        features = [_feature(hpo_id, ontology, article, False, evidence) for hpo_id in stated.observed if HPO_ID.fullmatch(hpo_id)]
        features += [_feature(hpo_id, ontology, article, True, evidence) for hpo_id in stated.excluded if HPO_ID.fullmatch(hpo_id)]
        identifier = f"{article}_{patient_id}"
        subject = {"id": identifier}
        age, sex = subjects.get(patient_id, (None, None))
        if age:
            subject["timeAtLastEncounter"] = {"age": {"iso8601duration": age}}
        if sex:
            subject["sex"] = sex
        packet = {"id": identifier, "subject": subject, "phenotypicFeatures": features, "metaData": meta}
        message = json_format.ParseDict(packet, phenopackets.Phenopacket())  # the schema checks every field
        packets.append(json_format.MessageToDict(message))
    return packets


def write_phenopackets(directory: str, records, ontology: Ontology, outputs: OutputFiles | None = None, created: datetime | None = None) -> int:
    """Write each record's Phenopackets as ``DIR/<id>.json`` through the command's
    ``outputs``; returns how many were written. All the records' file names are claimed
    first: two packets whose ids give one file name (articles sharing a PMID, patients
    "P/1" and "P 1") are refused before any is written."""
    outputs = outputs or OutputFiles()
    named = []
    for record in records:
        for packet in phenopackets_for_record(record, ontology, created=created):
            path = os.path.join(directory, phenopacket_file_name(packet["id"]))
            what = f"Phenopacket {packet['id']} of article {record['pmc_id']}"
            outputs.claim(path, what, directory=directory)
            named.append((path, what, packet))
    for path, what, packet in named:
        outputs.write(path, [json.dumps(packet, indent=2, ensure_ascii=False) + "\n"], what)
    return len(named)


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


def phenopacket_file_name(identifier: str) -> str:
    return _FILE_UNSAFE.sub("_", identifier) + ".json"


def _article_key(record: dict) -> str:
    return f"PMID_{record['pmid']}" if record.get("pmid") else _pmcid(record["pmc_id"]).replace(":", "_")


def _pmcid(pmc_id: str) -> str:
    return f"PMC{pmc_id}" if pmc_id.isdigit() else pmc_id


def _references(record: dict) -> list[dict]:
    """The article's PMID and PMCID (an article read from plain text has neither)."""
    references = []
    if record.get("pmid"):
        references.append({"id": f"PMID:{record['pmid']}", "reference": f"https://pubmed.ncbi.nlm.nih.gov/{record['pmid']}"})
    pmcid = _pmcid(record["pmc_id"])
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


def _mention(entity: dict) -> Phenotype:
    """A record's entity as the core's mention: its ids, whom it is attributed to, its flags."""
    start = entity["offset"]
    mention = Phenotype(
        start,
        start + entity["length"],
        entity["text"],
        parse_ids(entity["identifier"]),
        entity.get("label") or "",
        list(entity.get("provenance") or ()),
        assertions=tuple(flag for flag in ASSERTION_FLAGS if flag in (entity.get("assertions") or ())),
        patients=list(entity.get("patients") or ()),
    )
    if entity.get("note") == NEGATED:
        mention.flag("is_negated")
    return mention


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


@functools.lru_cache(maxsize=1)
def _patient_rules():
    rules_dir = data_dir("rules")
    return load_patient_rules(
        rules_dir / "patient_mentions.tsv", rules_dir / "number_words.tsv", rules_dir / "patient_policy.tsv", rules_dir / "patient_cues.tsv"
    )


@functools.lru_cache(maxsize=1)
def _subject_rules():
    return read_subject_rules(data_file("rules", SUBJECTS_FILE))


def text_subjects(article: Article) -> dict[str, dict]:
    """Patient id -> ``Subject.data()`` of an article, read in its text as the patient
    stage reads it."""
    text = layout_passages(article.passages)
    rules = _patient_rules()
    people = find_people(text, article.patients, rules)
    found = find_subjects(text, people, [p.id for p in article.patients], _subject_rules(), rules.cues, rules.number_words)
    return {patient_id: subject.data() for patient_id, subject in found.items()}


def _subjects(article: str, patients: list[dict]) -> dict[str, tuple[str | None, str | None]]:
    """Patient id -> (ISO 8601 age, MALE/FEMALE): the record's ``subject`` (what the text
    says), else what the given mentions say; None where nothing is said or it disagrees."""
    subjects = {}
    rules = _patient_rules()
    for patient in patients:
        subject = patient.get("subject")
        if subject is None:
            subject = read_subject([m["text"] for m in patient.get("mention") or []], _subject_rules(), rules.cues, rules.number_words).data()
        problem = subject_problem(subject)
        if problem is not None:
            raise InputError(f"{article}: patient {patient['patient_id']}: {problem[0]}: {problem[1]}")
        age = _duration(*subject["age"]) if subject.get("age") else None
        subjects[patient["patient_id"]] = (age, subject["sex"].upper() if subject.get("sex") else None)
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
