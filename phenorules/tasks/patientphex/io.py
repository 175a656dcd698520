"""Reading, validating and writing PatientPheX JSONL files.

A bad input file must be fixable from the message alone, so every problem becomes one
``InputError`` line naming the file, the line, the article and the field. Output is written
deterministically (same predictions, same bytes) and atomically (never a half-written file).
"""

from __future__ import annotations

import io
import json
import re
import sys
from typing import Any, Callable, Iterable

from phenorules.errors import InputError
from phenorules.files import read_bytes, write_atomically
from phenorules.passages import layout_passages

# One ';'-separated part of an identifier: '-1' or a prefixed id. Looser than HP:\d{7} on
# purpose: the gold training file holds 'HP:000328' and 'MESH:D009069' and must still load.
ID_PART = re.compile(r"-1|[A-Za-z]+:[A-Za-z0-9]+")

_JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


class _Invalid(Exception):
    """A problem inside one article; read_articles adds the file, line and article."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")


# --- reading -------------------------------------------------------------------------


def read_articles(path: str, annotated: bool = False) -> list[dict]:
    """Articles of a task JSONL file (``-``: standard input) in file order, each checked
    against the task format.

    ``annotated`` says the file holds answers (a gold file): its ``entities`` and
    ``association`` are then required and checked; otherwise they are ignored.
    """
    return parse_articles(path, read_bytes(path), annotated)


def parse_articles(path: str, data: bytes, annotated: bool = False) -> list[dict]:
    """:func:`read_articles` for content already read; ``path`` names it in errors."""
    return _parse(path, data, lambda article: _check_article(article, annotated))


def read_predictions(path: str) -> list[dict]:
    """Prediction records (pmc_id, pmid, entities, association), shape-checked only.

    Without the article text a span cannot be compared, so only keys and types are checked.
    """
    return _parse(path, read_bytes(path), _check_prediction)


def _parse(path: str, data: bytes, check: Callable[[Any], None]) -> list[dict]:
    """Parse every non-blank line, run ``check`` on it and refuse duplicate pmc_ids."""
    records: list[dict] = []
    first_line: dict[str, int] = {}
    for lineno, raw in enumerate(io.BytesIO(data).readlines(), start=1):
        record = parse_line(path, lineno, raw, check)
        if record is None:
            continue
        check_unique(path, lineno, record["pmc_id"], first_line)
        records.append(record)
    return records


def parse_article_line(path: str, lineno: int, raw: bytes, annotated: bool = False) -> dict | None:
    """One line of a task JSONL file as a checked article; None for a blank line.

    With :func:`check_unique` this is :func:`read_articles` one line at a time, for
    readers that stream a file too large to hold.
    """
    return parse_line(path, lineno, raw, lambda article: _check_article(article, annotated))


def parse_line(path: str, lineno: int, raw: bytes, check: Callable[[Any], None]) -> dict | None:
    """Decode, parse and ``check`` one line; None for a blank one."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}, line {lineno}: not UTF-8 "
            f"(byte 0x{raw[error.start]:02x} at column {error.start + 1})"
        ) from None
    if not line.strip():
        return None
    record = _parse_json(path, lineno, line)
    pmc_id = record.get("pmc_id") if isinstance(record, dict) else None
    try:
        check(record)
    except _Invalid as problem:
        raise InputError(f"{_where(path, lineno, pmc_id if isinstance(pmc_id, str) and pmc_id else None)}: {problem}") from None
    return record


def check_unique(path: str, lineno: int, pmc_id: str, first_line: dict[str, int]) -> None:
    """Refuse a pmc_id already in ``first_line`` (id -> line), else record it there."""
    if pmc_id in first_line:
        raise InputError(f"{_where(path, lineno, pmc_id)}: pmc_id: duplicate of line {first_line[pmc_id]}")
    first_line[pmc_id] = lineno


def _parse_json(path: str, lineno: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(
            f"{path}, line {lineno}: malformed JSON at column {error.colno}: {error.msg}"
        ) from None


def _where(path: str, lineno: int, pmc_id: str | None) -> str:
    place = f"{path}, line {lineno}"
    return f"{place}, article {pmc_id}" if pmc_id is not None else place


# --- checking ------------------------------------------------------------------------


def _check_article(article: Any, annotated: bool) -> None:
    _check_header(article)
    passages = _get(article, "full_text", list, "full_text")
    _check_passages(passages)
    text = article_text(article)
    patients = _get(article, "patient", list, "patient")
    patient_ids = _check_patients(patients, text)
    if annotated:
        entities = _get(article, "entities", list, "entities")
        for i, entity in enumerate(entities):
            _check_entity(entity, f"entities[{i}]", text)
        association = _get(article, "association", list, "association")
        _check_association(association, patient_ids)


def _check_prediction(record: Any) -> None:
    _check_header(record)
    for i, entity in enumerate(_get(record, "entities", list, "entities")):
        _check_entity(entity, f"entities[{i}]", None)
    _check_association(_get(record, "association", list, "association"), None)


def _check_header(record: Any) -> None:
    if not isinstance(record, dict):
        raise _Invalid("article", f"expected object, got {_json_type(record)}")
    if not _get(record, "pmc_id", str, "pmc_id"):
        raise _Invalid("pmc_id", "empty string")
    _get(record, "pmid", (str, type(None)), "pmid")


def _check_passages(passages: list) -> None:
    """Passages must come in text order without overlapping, so offsets index one string."""
    end = 0
    for i, passage in enumerate(passages):
        field = f"full_text[{i}]"
        _object(passage, field)
        _get(passage, "section_type", str, f"{field}.section_type")
        _get(passage, "type", str, f"{field}.type")
        offset = _non_negative(passage, "offset", field)
        text = _get(passage, "text", str, f"{field}.text")
        if offset < end:
            raise _Invalid(
                f"{field}.offset",
                f"{offset} overlaps or precedes the previous passage, which ends at {end}",
            )
        end = offset + len(text)


def _check_patients(patients: list, text: str) -> list[str]:
    ids: list[str] = []
    for i, patient in enumerate(patients):
        field = f"patient[{i}]"
        _object(patient, field)
        patient_id = _get(patient, "patient_id", str, f"{field}.patient_id")
        if not patient_id:
            raise _Invalid(f"{field}.patient_id", "empty string")
        if patient_id in ids:
            raise _Invalid(f"{field}.patient_id", f"duplicate patient {patient_id!r}")
        ids.append(patient_id)
        for j, mention in enumerate(_get(patient, "mention", list, f"{field}.mention")):
            _check_span(mention, f"{field}.mention[{j}]", text)
    return ids


def _check_entity(entity: Any, field: str, text: str | None) -> None:
    _check_span(entity, field, text)
    identifier = _get(entity, "identifier", str, f"{field}.identifier")
    if not all(ID_PART.fullmatch(part) for part in identifier.split(";")):
        raise _Invalid(
            f"{field}.identifier",
            f"{_short(identifier)} is not '-1' or ';'-joined ids like HP:0001250",
        )
    _get(entity, "type", str, f"{field}.type")
    _get(entity, "note", (str, type(None)), f"{field}.note")


def _check_association(association: list, patient_ids: list[str] | None) -> None:
    """Each entry names a known patient (when known) and lists phenotype strings."""
    for i, entry in enumerate(association):
        field = f"association[{i}]"
        _object(entry, field)
        patient_id = _get(entry, "patient_id", str, f"{field}.patient_id")
        if patient_ids is not None and patient_id not in patient_ids:
            problem = f"{patient_id!r} is not one of the article's patients"
            raise _Invalid(f"{field}.patient_id", problem)
        phenotypes = _get(entry, "phenotype", list, f"{field}.phenotype")
        for j, phenotype in enumerate(phenotypes):
            if not isinstance(phenotype, str) or not phenotype:
                raise _Invalid(f"{field}.phenotype[{j}]", "expected a non-empty string")


def _check_span(span: Any, field: str, text: str | None) -> None:
    """A mention's text must be exactly the article text at its offset and length."""
    _object(span, field)
    offset = _non_negative(span, "offset", field)
    length = _non_negative(span, "length", field)
    if length == 0:
        raise _Invalid(f"{field}.length", "a mention cannot be empty")
    claimed = _get(span, "text", str, f"{field}.text")
    if text is not None and text[offset : offset + length] != claimed:
        actual = text[offset : offset + length]
        raise _Invalid(
            f"{field}.text",
            f"{_short(claimed)} does not equal the article text at offset {offset}, "
            f"length {length} ({_short(actual)})",
        )


def _get(record: dict, key: str, kind: type | tuple[type, ...], field: str) -> Any:
    """``record[key]``, or _Invalid naming the field when it is missing or ill-typed."""
    if key not in record:
        raise _Invalid(field, "missing")
    value = record[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if type(value) not in kinds:  # type(), not isinstance(): JSON true is no integer
        expected = " or ".join(_JSON_TYPES[k] for k in kinds)
        raise _Invalid(field, f"expected {expected}, got {_json_type(value)}")
    return value


def _non_negative(record: dict, key: str, field: str) -> int:
    value = _get(record, key, int, f"{field}.{key}")
    if value < 0:
        raise _Invalid(f"{field}.{key}", f"negative ({value})")
    return value


def _object(value: Any, field: str) -> None:
    if not isinstance(value, dict):
        raise _Invalid(field, f"expected object, got {_json_type(value)}")


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


# --- article text --------------------------------------------------------------------


def article_text(article: dict) -> str:
    """The whole article text, indexed by global offsets."""
    return layout_passages(article["full_text"])


# --- writing -------------------------------------------------------------------------


def write_predictions(path: str, records: Iterable[dict]) -> None:
    """Write one JSON line per record in the given order; ``path`` '-' means stdout.

    Entities and phenotype lists are put in a canonical order, so equal predictions give
    equal bytes whatever order the pipeline produced them in.
    """
    _write_lines(path, (prediction_line(record) for record in records), "predictions")


def prediction_line(record: dict) -> str:
    """A record as its line of the predictions file."""
    return json.dumps(_canonical(record), ensure_ascii=False) + "\n"


def jsonl_line(record: dict) -> str:
    """A record as a JSON line as it is (keys sorted): the ``--explain`` evidence file."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def write_jsonl(path: str, records: Iterable[dict], what: str = "records") -> None:
    """Write records as JSON lines, as they are (keys sorted); '-' means stdout."""
    _write_lines(path, (jsonl_line(record) for record in records), what)


def _write_lines(path: str, lines: Iterable[str], what: str) -> None:
    if path == "-":
        sys.stdout.writelines(lines)
        sys.stdout.flush()
    else:
        write_atomically(path, lines, what)


_ENTITY_KEYS = ("identifier", "type", "offset", "length", "text", "note")


def _canonical(record: dict) -> dict:
    entities = {_entity_tuple(entity) for entity in record.get("entities", [])}
    return {
        "pmc_id": record["pmc_id"],
        "pmid": record.get("pmid"),
        "entities": [
            dict(zip(_ENTITY_KEYS, entity)) for entity in sorted(entities, key=_entity_order)
        ],
        "association": [
            {"patient_id": entry["patient_id"], "phenotype": sorted(set(entry["phenotype"]))}
            for entry in record.get("association", [])
        ],
    }



def _entity_tuple(entity: dict) -> tuple:
    """Hashable entity in output key order, so exact duplicates collapse."""
    return (
        entity["identifier"],
        entity.get("type", "Phenotype"),
        entity["offset"],
        entity["length"],
        entity["text"],
        entity.get("note"),
    )


def _entity_order(entity: tuple) -> tuple:
    """(offset, length, identifier), then the other fields so ties sort the same way too."""
    identifier, kind, offset, length, text, note = entity
    return (offset, length, identifier, note is not None, note or "", kind, text)
