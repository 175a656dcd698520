"""The PatientPheX JSONL format in the registry (``phenorules.formats.registry``): articles
read from its lines, a line at a time, and results written as its submission lines, a
line per article as they come."""

from __future__ import annotations

from ...core.annotated import AnnotatedArticle
from ...core.article import Article
from ..registry import Format, Stream, register
from . import FORMAT, PROFILE
from .articles import to_article
from .io import parse_article_line, parse_articles, prediction_line
from .records import to_record


def read_jsonl(name: str, data: bytes, text_id: str | None, on_error: str) -> list[Article]:
    return [to_article(record) for record in parse_articles(name, data, on_error=on_error)]


def read_jsonl_line(name: str, lineno: int, raw: bytes) -> Article | None:
    record = parse_article_line(name, lineno, raw)
    return None if record is None else to_article(record)


def submission_line(result: AnnotatedArticle) -> str:
    """The result's line of the predictions file."""
    return prediction_line(to_record(result))


PATIENTPHEX = register(
    Format(
        FORMAT,
        "PatientPheX JSONL",
        "predictions",
        profile=PROFILE,
        extensions=(".jsonl", ".ndjson"),
        read=read_jsonl,
        stream=Stream(submission_line),
        read_line=read_jsonl_line,
    )
)
