"""The PatientPheX JSONL format in the registry (``phenorules.formats.registry``): articles
read from its lines, results written as its submission lines, ``--explain`` evidence and
the full record serve answers with."""

from __future__ import annotations

from ...core.article import Article
from ..registry import Format, register
from ...core.files import json_line
from . import PROFILE
from .articles import to_article
from .io import parse_article_line, parse_articles, prediction_line
from .records import evidence_record, full_record, to_record


def read_jsonl(name: str, data: bytes, text_id: str | None, on_error: str) -> list[Article]:
    return [to_article(record) for record in parse_articles(name, data, on_error=on_error)]


def read_jsonl_line(name: str, lineno: int, raw: bytes) -> Article | None:
    record = parse_article_line(name, lineno, raw)
    return None if record is None else to_article(record)


JSONL = register(
    Format(
        "jsonl",
        "PatientPheX JSONL",
        "predictions",
        profile=PROFILE,
        extensions=(".jsonl", ".ndjson"),
        read=read_jsonl,
        write=lambda results: "".join(prediction_line(to_record(result)) for result in results),
        line=lambda result: prediction_line(to_record(result)),
        explain=lambda result: json_line(evidence_record(result), sort_keys=True),
        record=full_record,
        read_line=read_jsonl_line,
    )
)
