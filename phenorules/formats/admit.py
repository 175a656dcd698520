"""What the readers of whole files share: their bytes decoded as UTF-8 (an error names the
line), and their articles admitted only if the pipeline can process them."""

from __future__ import annotations

from ..core.article import Article, article_fields, passages_problem
from ..core.errors import InputError, warn
from ..core.shapes import surrogate_problem


def decode(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{name}, line {line}: not UTF-8 (byte 0x{data[error.start]:02x})") from None


def admitted(name: str, articles: list[Article], on_error: str) -> list[Article]:
    """The articles the pipeline can process; the others refused (or, with ``on_error``
    'skip', left out with a warning) by name: a string holding a lone surrogate (which
    JSON may escape; also in the document as read, ``source``, written back by BioC),
    passages that would not lay out."""
    kept = []
    for article in articles:
        source = {"source": article.source} if article.source is not None else {}
        problem = surrogate_problem(article_fields(article) | source) or passages_problem(article)
        if problem is None:
            kept.append(article)
            continue
        message = f"{name}, article {article.id}: {problem[0]}: {problem[1]}"
        if on_error == "fail":
            raise InputError(message)
        warn(f"{message}; article skipped")
    return kept
