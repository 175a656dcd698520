"""A chunk of articles, the unit of work of every backend of ``predict`` (this process,
forked workers, a Dask cluster): parsed where it is annotated (a JSONL line), annotated
with the pipeline of its format's profile, serialised as the lines the outputs take."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from spacy.language import Language

from ..formats import registry
from ..core.article import Article
from ..core.errors import InputError, warn
from ..formats.inputs import AUTO, format_profile
from ..formats.streaming import Item

CHUNK_ARTICLES = 4
LINE_FORMAT = "jsonl"  # the format of the lines a chunk gives (registry.Format.line, .explain)

# (pmc_id, prediction line, evidence line or None) for one article.
Result = tuple[str, str, "str | None"]


class Pipelines:
    """The pipeline for each input format, by its profile (``inputs.format_profile``), each
    built on first use: a corpus of PatientPheX JSONL and of text gets one of each."""

    def __init__(self, build: Callable[[str], Language], profile: str = AUTO):
        self.build = build
        self.profile = profile
        self.built: dict[str, Language] = {}

    def __call__(self, input_format: str) -> Language:
        chosen = format_profile(input_format, self.profile)
        if chosen not in self.built:
            self.built[chosen] = self.build(chosen)
        return self.built[chosen]


def annotate_items(pipelines: Callable[[str], Language], items: list[Item], explain: bool, on_error: str = "fail") -> list[Result | None]:
    """Parse (JSONL lines), annotate, each with the pipeline ``pipelines`` gives for its
    format, and serialise a chunk of articles: a result per item, None for a blank line
    (and, with ``on_error`` 'skip', for a bad one, with a warning)."""
    from ..core.annotated import annotate

    written = registry.get(LINE_FORMAT)
    articles = [article_of(item, on_error) for item in items]
    annotated = {}
    for input_format in dict.fromkeys(item.format for item, article in zip(items, articles) if article is not None):
        chosen = [i for i, (item, article) in enumerate(zip(items, articles)) if article is not None and item.format == input_format]
        for i, result in zip(chosen, annotate(pipelines(input_format), [articles[i] for i in chosen])):
            annotated[i] = result
    results: list[Result | None] = []
    for i, article in enumerate(articles):
        if article is None:
            results.append(None)
            continue
        result = annotated[i]
        results.append((article.id, written.line(result), written.explain(result) if explain else None))
    return results


def article_of(item: Item, on_error: str) -> Article | None:
    """The item's article, checked as ``read_input`` checks one; None for a blank line."""
    if item.raw is None:
        return item.article
    try:
        return registry.get(item.format).article_of_line(item.source, item.lineno, item.raw)
    except InputError as error:
        if on_error == "fail":
            raise
        warn(f"{error}; article skipped")
        return None


def chunks(items: Iterable[Item], size: int = CHUNK_ARTICLES) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
