"""BioC JSON, as the PMC BioC API serves full-text articles, read as task-shaped articles.

The API (Comeau et al. 2019, "PMC text mining subset in BioC", Database) returns a list
of collections (or one collection): collection -> ``documents`` -> ``passages``, each
passage with its global ``offset``, ``text`` and ``infons`` holding ``section_type``
(TITLE, ABSTRACT, INTRO, ...) and ``type`` (front, paragraph, fig_caption, ...). These
are the fields the PatientPheX articles were made from, so a document maps to an article
field for field: ``id`` -> ``pmc_id``, the ``article-id_pmid`` infon -> ``pmid``, and no
patients (BioC has no patient list). Passages without those infons (other BioC sources)
get section type TEXT and type paragraph.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InputError

DEFAULT_SECTION_TYPE = "TEXT"
DEFAULT_PASSAGE_TYPE = "paragraph"
PMID_INFON = "article-id_pmid"


class _Invalid(Exception):
    """A problem at a place inside the JSON; parse_bioc adds the file name."""


def parse_bioc(path: str, text: str) -> list[dict]:
    """Articles of a BioC JSON text in document order; errors name the file and the place."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}, line {error.lineno}: malformed JSON at column {error.colno}: {error.msg}") from None
    collections = value if isinstance(value, list) else [value]
    articles: list[dict] = []
    seen: set[str] = set()
    try:
        for i, collection in enumerate(collections):
            place = f"collection {i}" if isinstance(value, list) else "collection"
            documents = _field(collection, "documents", list, place)
            for j, document in enumerate(documents):
                article = _article(document, f"{place}, documents[{j}]")
                if article["pmc_id"] in seen:
                    raise _Invalid(f"{place}, documents[{j}].id: duplicate document {article['pmc_id']!r}")
                seen.add(article["pmc_id"])
                articles.append(article)
    except _Invalid as problem:
        raise InputError(f"{path}: {problem}") from None
    return articles


def _article(document: Any, place: str) -> dict:
    document_id = _field(document, "id", str, place)
    if not document_id:
        raise _Invalid(f"{place}.id: empty string")
    infons = [_field(document, "infons", dict, place, default={})]
    passages = []
    end = 0
    for k, passage in enumerate(_field(document, "passages", list, place)):
        where = f"{place} ({document_id}), passages[{k}]"
        offset = _field(passage, "offset", int, where)
        text = _field(passage, "text", str, where, default="")
        passage_infons = _field(passage, "infons", dict, where, default={})
        if offset < end:
            raise _Invalid(f"{where}.offset: {offset} overlaps or precedes the previous passage, which ends at {end}")
        end = offset + len(text)
        infons.append(passage_infons)
        passages.append(
            {
                "section_type": str(passage_infons.get("section_type") or DEFAULT_SECTION_TYPE),
                "type": str(passage_infons.get("type") or DEFAULT_PASSAGE_TYPE),
                "offset": offset,
                "text": text,
            }
        )
    pmids = [str(found[PMID_INFON]) for found in infons if found.get(PMID_INFON)]
    return {"pmc_id": document_id, "pmid": pmids[0] if pmids else None, "patient": [], "full_text": passages}


_MISSING = object()


def _field(record: Any, key: str, kind: type, place: str, default: Any = _MISSING) -> Any:
    """``record[key]`` of the JSON type ``kind``, or _Invalid naming the place."""
    if not isinstance(record, dict):
        raise _Invalid(f"{place}: expected an object, got {type(record).__name__}")
    if key not in record:
        if default is _MISSING:
            raise _Invalid(f"{place}.{key}: missing")
        return default
    value = record[key]
    if type(value) is not kind or (kind is int and value < 0):  # JSON true is no offset
        expected = {int: "a non-negative integer", str: "a string", list: "an array", dict: "an object"}[kind]
        raise _Invalid(f"{place}.{key}: expected {expected}, got {json.dumps(value)[:40]}")
    return value
