"""Reading, validating and writing PatientPheX JSONL files.

A bad input file must be fixable from the message alone, so every problem becomes one
``InputError`` line naming the file, the line, the article and the field. Output is written
deterministically (same predictions, same bytes) and atomically (never a half-written file).
"""

from __future__ import annotations

import io
import re
from typing import Any, Callable, Iterable

from phenorules.core.errors import ON_ERROR, InputError, warn
from phenorules.core.files import json_line, json_value, read_bytes
from phenorules.core.outputs import OutputFiles
from phenorules.core.article import passages_problem
from phenorules.core.shapes import NonEmpty, NonNegative, Shape, ShapeError, check, dotted, has_surrogate, surrogate_problem, SURROGATE_ESCAPE, type_problem

from .articles import to_article

# One ';'-separated part of an identifier: '-1' or a prefixed id. Looser than HP:\d{7} on
# purpose: the gold training file holds 'HP:000328' and 'MESH:D009069' and must still load.
ID_PART = re.compile(r"-1|[A-Za-z]+:[A-Za-z0-9]+")
_BOM = b"\xef\xbb\xbf"


class _Invalid(Exception):
    """A problem inside one article; read_articles adds the file, line and article."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem


# --- reading -------------------------------------------------------------------------


def read_articles(path: str, gold: bool = False, on_error: str = "fail") -> list[dict]:
    """Articles of a task JSONL file (``-``: standard input) in file order, each checked
    against the task format.

    ``gold`` says the file holds answers (a gold file): its ``entities`` and
    ``association`` are then required and checked (an identifier of another shape is
    scored as written, with a warning); otherwise they are ignored. ``on_error`` 'skip'
    leaves a bad article out with a warning instead of refusing the file.
    """
    return parse_articles(path, read_bytes(path), gold, on_error)


def parse_articles(path: str, data: bytes, gold: bool = False, on_error: str = "fail") -> list[dict]:
    """:func:`read_articles` for content already read; ``path`` names it in errors."""
    return _parse(path, data, lambda article: _check_article(article, gold), on_error)


def read_predictions(path: str) -> list[dict]:
    """Prediction records (pmc_id, pmid, entities, association), shape-checked only.

    Without the article text a span cannot be compared, so only keys and types are checked.
    """
    return _parse(path, read_bytes(path), _check_prediction)


def _parse(path: str, data: bytes, check: Callable[[Any], list[str] | None], on_error: str = "fail") -> list[dict]:
    """Parse every non-blank line, run ``check`` on it and refuse duplicate pmc_ids;
    with ``on_error`` 'skip', a bad line is reported as a warning and left out."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    records: list[dict] = []
    first_line: dict[str, int] = {}
    for lineno, raw in enumerate(io.BytesIO(data).readlines(), start=1):
        try:
            record = parse_line(path, lineno, raw, check)
            if record is None:
                continue
            check_unique(path, lineno, record["pmc_id"], first_line)
        except InputError as error:
            if on_error == "fail":
                raise
            warn(f"{error}; article skipped")
            continue
        records.append(record)
    return records


def parse_article_line(path: str, lineno: int, raw: bytes, gold: bool = False) -> dict | None:
    """One line of a task JSONL file as a checked article; None for a blank line.

    With a check of repeated pmc_ids this is :func:`read_articles` one line at a time, for
    readers that stream a file too large to hold.
    """
    return parse_line(path, lineno, raw, lambda article: _check_article(article, gold))


def parse_line(path: str, lineno: int, raw: bytes, check: Callable[[Any], list[str] | None]) -> dict | None:
    """Decode, parse and ``check`` one line (a BOM before the first is allowed); None for a
    blank one. The check's notes are warnings naming the place."""
    line = _decode_line(path, lineno, raw.removeprefix(_BOM) if lineno == 1 else raw)
    if not line.strip():
        return None
    record = _parse_json(path, lineno, line)
    pmc_id = record.get("pmc_id") if isinstance(record, dict) else None
    where = _where(path, lineno, pmc_id if isinstance(pmc_id, str) and pmc_id and not has_surrogate(pmc_id) else None)
    try:
        problem = surrogate_problem(record) if SURROGATE_ESCAPE.search(line) else None
        if problem is not None:
            raise _Invalid(*problem)
        notes = check(record) or []
    except _Invalid as problem:
        raise InputError(f"{where}: {problem}") from None
    for note in notes:
        warn(f"{where}: {note}")
    return record


def check_unique(path: str, lineno: int, pmc_id: str, first_line: dict[str, int]) -> None:
    """Refuse a pmc_id already in ``first_line`` (id -> line), else record it there."""
    if pmc_id in first_line:
        raise InputError(f"{_where(path, lineno, pmc_id)}: pmc_id: duplicate of line {first_line[pmc_id]}")
    first_line[pmc_id] = lineno


def _decode_line(path: str, lineno: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}, line {lineno}: not UTF-8 "
            f"(byte 0x{raw[error.start]:02x} at column {error.start + 1})"
        ) from None


def _parse_json(path: str, lineno: int, line: str) -> Any:
    return json_value(line, f"{path}, line {lineno}")


def _where(path: str, lineno: int, pmc_id: str | None) -> str:
    place = f"{path}, line {lineno}"
    return f"{place}, article {pmc_id}" if pmc_id is not None else place


# --- checking ------------------------------------------------------------------------


class PassageShape(Shape):
    section_type: str
    type: str
    offset: NonNegative
    text: str


class SpanShape(Shape):
    offset: NonNegative
    length: NonNegative
    text: str


class PatientShape(Shape):
    patient_id: NonEmpty
    mention: list[SpanShape]


class EntityShape(SpanShape):
    identifier: str
    type: str
    note: str | None


class AssociationShape(Shape):
    patient_id: str
    phenotype: list[Any]  # each a non-empty string: checked with its own message


class HeaderShape(Shape):
    pmc_id: NonEmpty
    pmid: str | None = None  # plain corpora have none: optional, null on output


class ArticleShape(HeaderShape):
    full_text: list[PassageShape]
    patient: list[PatientShape]


class GoldArticleShape(ArticleShape):
    entities: list[EntityShape]
    association: list[AssociationShape]


class PredictionShape(HeaderShape):
    entities: list[EntityShape]
    association: list[AssociationShape]


def _shaped(model: type[Shape], record: Any) -> Any:
    """``record`` checked against ``model``; its first problem as _Invalid."""
    try:
        return check(model, record)
    except ShapeError as error:
        raise _Invalid(dotted(error.loc), type_problem(error)) from None


def _check_article(article: Any, gold: bool) -> list[str]:
    """Refuses a bad article (_Invalid); returns the warnings about an accepted one."""
    shaped = _shaped(GoldArticleShape if gold else ArticleShape, article)
    _check_passages(shaped.full_text)
    problem = passages_problem(to_article(article), "full_text")  # the field named as in the task's JSON
    if problem is not None:
        raise _Invalid(*problem)
    text = article_text(article)
    patient_ids = _check_patients(shaped.patient, text)
    notes: list[str] = []
    if gold:
        for i, entity in enumerate(shaped.entities):
            note = _check_entity(entity, f"entities[{i}]", text, lenient=True)
            notes.extend([note] if note else [])
        _check_association(shaped.association, patient_ids)
    return notes


def _check_prediction(record: Any) -> None:
    shaped = _shaped(PredictionShape, record)
    for i, entity in enumerate(shaped.entities):
        _check_entity(entity, f"entities[{i}]", None)
    _check_association(shaped.association, None)


def _check_passages(passages: list[PassageShape]) -> None:
    """Passages must come in text order without overlapping, so offsets index one string."""
    end = 0
    for i, passage in enumerate(passages):
        if passage.offset < end:
            raise _Invalid(
                f"full_text[{i}].offset",
                f"{passage.offset} overlaps or precedes the previous passage, which ends at {end}",
            )
        end = passage.offset + len(passage.text)


def _check_patients(patients: list[PatientShape], text: str) -> list[str]:
    ids: list[str] = []
    for i, patient in enumerate(patients):
        field = f"patient[{i}]"
        if patient.patient_id in ids:
            raise _Invalid(f"{field}.patient_id", f"duplicate patient {patient.patient_id!r}")
        ids.append(patient.patient_id)
        for j, mention in enumerate(patient.mention):
            _check_span(mention, f"{field}.mention[{j}]", text)
    return ids


def _check_entity(entity: EntityShape, field: str, text: str | None, lenient: bool = False) -> str | None:
    """``lenient`` (gold files): an identifier of another shape ('N', 'HP:0000252 ') is
    kept as written, and scored so, with a warning; annotated data holds such."""
    _check_span(entity, field, text)
    odd = not all(ID_PART.fullmatch(part) for part in entity.identifier.split(";"))
    problem = f"{_short(entity.identifier)} is not '-1' or ';'-joined ids like HP:0001250"
    if odd and not lenient:
        raise _Invalid(f"{field}.identifier", problem)
    return f"{field}.identifier: {problem}; scored as written" if odd else None


def _check_association(association: list[AssociationShape], patient_ids: list[str] | None) -> None:
    """Each entry names a known patient (when known) and lists phenotype strings."""
    for i, entry in enumerate(association):
        field = f"association[{i}]"
        if patient_ids is not None and entry.patient_id not in patient_ids:
            problem = f"{entry.patient_id!r} is not one of the article's patients"
            raise _Invalid(f"{field}.patient_id", problem)
        for j, phenotype in enumerate(entry.phenotype):
            if not isinstance(phenotype, str) or not phenotype:
                raise _Invalid(f"{field}.phenotype[{j}]", "expected a non-empty string")


def _check_span(span: SpanShape, field: str, text: str | None) -> None:
    """A mention's text must be exactly the article text at its offset and length."""
    if span.length == 0:
        raise _Invalid(f"{field}.length", "a mention cannot be empty")
    if text is not None and text[span.offset : span.offset + span.length] != span.text:
        actual = text[span.offset : span.offset + span.length]
        raise _Invalid(
            f"{field}.text",
            f"{_short(span.text)} does not equal the article text at offset {span.offset}, "
            f"length {span.length} ({_short(actual)})",
        )


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


# --- article text --------------------------------------------------------------------


def article_text(article: dict) -> str:
    """The whole text of a task article record, indexed by global offsets."""
    return to_article(article).text


# --- writing -------------------------------------------------------------------------


def write_predictions(path: str, records: Iterable[dict], outputs: OutputFiles | None = None) -> None:
    """Write one JSON line per record in the given order; ``path`` '-' means stdout;
    ``outputs`` is the command's.

    Entities and phenotype lists are put in a canonical order, so equal predictions give
    equal bytes whatever order the pipeline produced them in.
    """
    (outputs or OutputFiles()).write(path, (prediction_line(record) for record in records), "predictions")


def prediction_line(record: dict) -> str:
    """A record as its line of the predictions file."""
    return json_line(_canonical(record))


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
