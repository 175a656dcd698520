"""GA4GH Phenopackets v2, one per given patient of an article, as phenopacket-store writes
them for a patient from a paper.

``id`` is the article and the patient (``PMID_20461149_P1``), ``subject.id`` the same; the
subject's ``sex`` and ``timeAtLastEncounter`` only where the rows of
``rules/patient_subjects.tsv`` find them where the text speaks of the patient ("Patient 2, his
4-year-old sister" is FEMALE, P4Y; :mod:`phenorules.patients.subjects`), or, for a record
without its text, in the patient's given mentions; never guessed. A text that lists no
patient has one, its proband.
One ``phenotypicFeature`` per HPO id: the patient's association, less the ids stated of it
only hypothetically or as a relative's (``is_hypothetical``, ``is_family``: not the
patient's phenotype), and ``excluded`` for a negated mention attributed to it that the
association does not hold; each cites the
article (``ECO:0000033`` author statement supported by traceable reference, the PMID or
PMCID). ``metaData`` names the HPO release loaded, phenorules' version and the article.
The message is built with the ``phenopackets`` protobuf bindings, so every field name and
type is the schema's; the dict is what ``json_format.MessageToDict`` gives.
"""

from __future__ import annotations

import functools
import json
import os
import re
from datetime import datetime, timezone

from .. import __version__
from ..errors import InputError
from ..ontology import Ontology
from ..article import Article, layout_passages
from ..patients.mentions import find_people
from ..patients.rules import load_patient_rules
from ..patients.subjects import SUBJECTS_FILE, find_subjects, read_subject, read_subject_rules
from ..resources import data_dir, data_file
from ..lexicon.tsv import parse_ids
from ..writer import Writer
from . import require

NEGATED = "NO"
NOT_OWN_FLAGS = frozenset({"is_hypothetical", "is_family"})  # a mention with one states no phenotype of the patient
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
_FILE_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def phenopackets_for_record(record: dict, ontology: Ontology, *, hpo_version: str | None = None) -> list[dict]:
    """One Phenopacket (a JSON dict) per given patient, in the record's patient order.

    ``record`` is a prediction record (``pmc_id``, ``pmid``, ``entities``, ``association``)
    with, when known, the article's ``patient`` list and each entity's ``patients`` (see
    ``tasks.patientphex.predict.full_record``): without them no sex, age or excluded
    feature can be stated. ``hpo_version`` defaults to the ontology's data-version.
    """
    from google.protobuf import json_format

    phenopackets = require("phenopackets")
    article = _article_key(record)
    references = _references(record)
    meta = {
        "createdBy": f"phenorules {__version__}",
        "resources": [dict(HPO_RESOURCE, version=hpo_version or ontology.data_version)],
        "phenopacketSchemaVersion": SCHEMA_VERSION,
        "externalReferences": references,
    }
    created = _created()
    if created:
        meta["created"] = created
    evidence = [{"evidenceCode": EVIDENCE_CODE, "reference": references[0]}] if references else []
    given = {patient["patient_id"]: patient for patient in record.get("patient") or []}
    associated = {entry["patient_id"]: entry["phenotype"] for entry in record.get("association") or []}
    order = list(given) + [patient_id for patient_id in associated if patient_id not in given]
    excluded = _excluded_ids(record)
    not_own = _not_own_ids(record)
    subjects = _subjects(list(given.values()))
    packets = []
    for patient_id in order:
        present = sorted({value for value in associated.get(patient_id, []) if HPO_ID.fullmatch(value)} - not_own.get(patient_id, set()))
        absent = sorted(excluded.get(patient_id, set()) - set(present))
        features = [_feature(hpo_id, ontology, article, False, evidence) for hpo_id in present]
        features += [_feature(hpo_id, ontology, article, True, evidence) for hpo_id in absent]
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


def write_phenopackets(directory: str, records, ontology: Ontology, writer: Writer | None = None) -> int:
    """Write each record's Phenopackets as ``DIR/<id>.json`` through the command's
    ``writer``; returns how many were written. All the records' file names are claimed
    first: two packets whose ids give one file name (articles sharing a PMID, patients
    "P/1" and "P 1") are refused before any is written."""
    writer = writer or Writer()
    named = []
    for record in records:
        for packet in phenopackets_for_record(record, ontology):
            path = os.path.join(directory, phenopacket_file_name(packet["id"]))
            what = f"Phenopacket {packet['id']} of article {record['pmc_id']}"
            writer.claim(path, what)
            named.append((path, what, packet))
    for path, what, packet in named:
        writer.write(path, [json.dumps(packet, indent=2, ensure_ascii=False) + "\n"], what)
    return len(named)


def with_patients(records: list[dict], patients: dict[str, list[dict]] | None, evidence: list[dict] | None) -> list[dict]:
    """Submission records completed with the input articles' ``patient`` lists (article id
    -> entries with their ``subject``) and the ``--explain`` evidence (whom each negated
    mention is attributed to), as ``full_record`` gives them directly."""
    patients = patients or {}
    attributed: dict[tuple, list[str]] = {}
    for line in evidence or []:
        for reason in line.get("evidence") or []:
            key = (line["pmc_id"], reason["offset"], reason["length"], reason["identifier"])
            attributed.setdefault(key, []).extend(reason.get("patients") or [])
    completed = []
    for record in records:
        record = dict(record, entities=[dict(entity) for entity in record["entities"]])
        if record["pmc_id"] in patients:
            record["patient"] = patients[record["pmc_id"]]
        for entity in record["entities"]:
            key = (record["pmc_id"], entity["offset"], entity["length"], entity["identifier"])
            if key in attributed:
                entity["patients"] = sorted(set(attributed[key]))
        completed.append(record)
    return completed


def phenopacket_file_name(identifier: str) -> str:
    return _FILE_UNSAFE.sub("_", identifier) + ".json"


def check_directory(directory: str) -> None:
    """Fail now, naming the directory, if Phenopackets could not be written into it."""
    if not os.path.isdir(directory):
        parent = os.path.dirname(os.path.abspath(directory))
        if os.path.exists(directory) or not os.path.isdir(parent):
            raise InputError(f"{directory}: cannot write Phenopackets: not a directory")
        try:
            os.mkdir(directory)
        except OSError as error:
            raise InputError(f"{directory}: cannot write Phenopackets: {error.strerror}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{directory}: cannot write Phenopackets: directory is not writable")


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


def _created() -> str | None:
    """``metaData.created`` from ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention);
    left out otherwise, so the same input gives the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return None
    if not epoch.isdigit():
        raise InputError(f"SOURCE_DATE_EPOCH: {epoch!r} is not a number of seconds")
    return datetime.fromtimestamp(int(epoch), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _excluded_ids(record: dict) -> dict[str, set[str]]:
    """Patient id -> HPO ids of the negated mentions attributed to it."""
    excluded: dict[str, set[str]] = {}
    for entity in record.get("entities") or []:
        if entity.get("note") != NEGATED:
            continue
        ids = [part for part in parse_ids(entity["identifier"]) if HPO_ID.fullmatch(part)]
        for patient_id in entity.get("patients") or []:
            excluded.setdefault(patient_id, set()).update(ids)
    return excluded


def _not_own_ids(record: dict) -> dict[str, set[str]]:
    """Patient id -> HPO ids its attributed mentions state only hypothetically or of a
    relative (every mention of the id for that patient has one of those flags)."""
    flagged: dict[str, set[str]] = {}
    own: dict[str, set[str]] = {}
    for entity in record.get("entities") or []:
        ids = [part for part in parse_ids(entity["identifier"]) if HPO_ID.fullmatch(part)]
        other = bool(set(entity.get("assertions") or ()) & NOT_OWN_FLAGS)
        for patient_id in entity.get("patients") or []:
            (flagged if other else own).setdefault(patient_id, set()).update(ids)
    return {patient_id: ids - own.get(patient_id, set()) for patient_id, ids in flagged.items()}


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


def _subjects(patients: list[dict]) -> dict[str, tuple[str | None, str | None]]:
    """Patient id -> (ISO 8601 age, MALE/FEMALE): the record's ``subject`` (what the text
    says), else what the given mentions say; None where nothing is said or it disagrees."""
    subjects = {}
    rules = _patient_rules()
    for patient in patients:
        subject = patient.get("subject")
        if subject is None:
            subject = read_subject([m["text"] for m in patient.get("mention") or []], _subject_rules(), rules.cues, rules.number_words).data()
        age = _duration(*subject["age"]) if subject["age"] else None
        subjects[patient["patient_id"]] = (age, subject["sex"].upper() if subject["sex"] else None)
    return subjects


def _duration(value: float, unit: str) -> str | None:
    """'P10Y' for (10, 'year'), 'P1Y6M' for 1.5 years; None where a unit would be rounded."""
    if value.is_integer():
        return f"P{int(value)}{_UNITS[unit]}"
    months = (value - int(value)) * 12
    if unit == "year" and abs(months - round(months)) < 1e-9:
        return f"P{int(value)}Y{round(months)}M"
    return None

