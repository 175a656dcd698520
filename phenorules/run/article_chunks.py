"""A chunk of articles, the unit of work of every backend of ``predict`` (this process,
forked workers, a Dask cluster): parsed where it is annotated (a JSONL line), annotated
with the pipeline of its format's profile, each given back as an
:class:`~phenorules.core.annotated.AnnotatedArticle`, which every output is written from."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from spacy.language import Language

from ..core.annotated import AnnotatedArticle, annotated_articles
from ..core.article import Article
from ..core.errors import InputError, warn
from ..formats import registry
from ..formats.inputs import format_profile
from ..formats.streaming import Item
from ..options import PipelineSettings

CHUNK_ARTICLES = 4


class Pipelines:
    """The pipeline for each input format, by its profile (``inputs.format_profile``), each
    built from the one settings on first use: a corpus of PatientPheX JSONL and of text
    gets one of each."""

    def __init__(self, settings: PipelineSettings):
        self.settings = settings
        self.built: dict[str, Language] = {}

    def __call__(self, input_format: str) -> Language:
        chosen = format_profile(input_format, self.settings.profile)
        if chosen not in self.built:
            self.built[chosen] = self.settings.build(chosen)
        return self.built[chosen]


def annotate_items(pipelines: Callable[[str], Language], items: list[Item], on_error: str = "fail") -> list[AnnotatedArticle | None]:
    """Parse (JSONL lines) and annotate a chunk of articles, each with the pipeline
    ``pipelines`` gives for its format: a result per item, None for a blank line (and,
    with ``on_error`` 'skip', for a bad one, with a warning)."""
    articles = [article_of(item, on_error) for item in items]
    results: list[AnnotatedArticle | None] = [None] * len(items)
    for input_format in dict.fromkeys(item.format for item, article in zip(items, articles) if article is not None):
        chosen = [i for i, (item, article) in enumerate(zip(items, articles)) if article is not None and item.format == input_format]
        for i, result in zip(chosen, annotated_articles(pipelines(input_format), [articles[i] for i in chosen])):
            results[i] = result
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
