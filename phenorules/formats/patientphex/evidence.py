"""The evidence of ``predict --explain``: why each phenotype went to its patients, one JSON
line per article, with the mentions and ids written as the PatientPheX records write them;
a format of the registry (``evidence``) that ``predict`` streams beside its output, and the
reader of such a file for ``phenorules phenopackets --evidence``."""

from __future__ import annotations

from ...core.annotated import AnnotatedArticle
from ...core.errors import InputError
from ...core.files import json_line, json_value, read_text
from ...core.phenotype import association_values
from ..registry import Format, Stream, register
from .identifiers import parse_identifier, task_identifier


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


def read_evidence(path: str) -> list[dict]:
    """The records of an evidence file, each checked for what the Phenopackets read of it
    (whom each mention is attributed to, its flags); a bad line is one error naming it."""
    records = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        record = json_value(line, f"{path}, line {number}")
        problem = _evidence_problem(record)
        if problem is not None:
            raise InputError(f"{path}, line {number}: not an evidence record of predict --explain ({problem})")
        records.append(record)
    return records


def _evidence_problem(record: object) -> str | None:
    if not isinstance(record, dict) or not isinstance(record.get("pmc_id"), str) or not isinstance(record.get("evidence"), list):
        return "expected an object with pmc_id and evidence"
    for reason in record["evidence"]:
        if not isinstance(reason, dict) or not all(isinstance(reason.get(key), kind) for key, kind in (("offset", int), ("length", int), ("identifier", str), ("patients", list))):
            return "an evidence entry lacks offset, length, identifier or patients"
        if not isinstance(reason.get("assertions", []), list) or not all(isinstance(flag, str) for flag in reason.get("assertions", [])):
            return "an evidence entry's assertions are not a list of flags"
    return None


def evidence_line(result: AnnotatedArticle) -> str:
    """The result's line of the evidence file."""
    return json_line(evidence_record(result), sort_keys=True)


EVIDENCE = register(Format("evidence", "phenorules evidence JSONL (predict --explain)", "evidence", stream=Stream(evidence_line)))
