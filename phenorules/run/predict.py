"""``phenorules predict``, one flow for every format: read (any registered format, a line
or a file at a time) -> annotate in chunks (in this process, on forked workers, or on a
Dask cluster) -> :class:`~phenorules.core.annotated.AnnotatedArticle` -> write (the
output's format, the evidence of ``--explain``, the Phenopackets), in input order.

Articles go to the annotators in chunks of :data:`~phenorules.run.article_chunks.CHUNK_ARTICLES`; at most
:data:`~phenorules.run.parallel.CHUNKS_IN_FLIGHT` chunks per worker are read ahead, and
results are written as soon as they are next, so memory grows with the input only by the
pmc_ids held to refuse a repeat (:class:`FirstLines`, about 120 bytes an article). Each
article's result depends on that article alone, so the bytes out are the same for any
backend and number of workers, and a resumed run's equal a whole run's.
"""

from __future__ import annotations

from typing import Iterator, Protocol

from ..core.annotated import AnnotatedArticle
from ..core.errors import InputError, PhenorulesError, warn
from ..formats.inputs import AUTO
from ..formats.streaming import Item, input_size, read_items
from ..options import PipelineSettings
from .article_chunks import Pipelines, article_of, chunks
from .parallel import CHUNKS_IN_FLIGHT, ForkedWorkers, InProcess, in_order, worker_count
from .progress import StreamProgress


class Output(Protocol):
    """What ``predict`` writes (:mod:`phenorules.run.outputs`)."""

    path: str

    def resumable(self, resume: bool) -> int | None: ...
    def start(self, keep: int) -> list[str]: ...
    def check(self, results: list[AnnotatedArticle]) -> None: ...
    def write(self, results: list[AnnotatedArticle]) -> None: ...
    def finish(self) -> None: ...
    def abandon(self) -> None: ...
    def close(self) -> None: ...


def predict_corpus(
    paths: list[str],
    outputs: list[Output],
    settings: PipelineSettings,
    input_format: str = AUTO,
    on_error: str = "fail",
    jobs: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
) -> int:
    """Annotate every article of the files ``paths`` into ``outputs`` (the first names the
    articles a resumed run keeps); the number of articles annotated by this run. Each
    chunk goes first to the outputs that keep nothing of a stopped run (``resumable``
    None: the Phenopackets, rewritten), then to the others, so that what a resumed run
    keeps was written everywhere.

    The pipeline of each input format's profile is built from ``settings``: here (before
    the workers of ``jobs`` > 1 are forked, the first article's), or by each worker of
    the Dask cluster at ``scheduler``. ``on_error`` 'skip' leaves a bad article out with a
    warning instead of stopping.
    """
    resumable = [output.resumable(resume) for output in outputs]
    keep = min((kept for kept in resumable if kept is not None), default=0)
    in_turn = [output for output, kept in zip(outputs, resumable) if kept is None] + [output for output, kept in zip(outputs, resumable) if kept is not None]
    items = read_items(paths, input_format, on_error)
    first_item = next(items, None)  # format detection and its errors before the pipeline's start-up
    items = _chain(first_item, items)
    backend = None
    try:
        # Workers are forked before the outputs are opened, so that only this process
        # holds the .partial's lock: a killed run's lock dies with it.
        backend = _backend(settings, first_item, jobs, scheduler, on_error)
        kept = [output.start(keep) for output in outputs][0]  # the ids of the articles kept
        first_line = FirstLines(on_error)
        items = _skip_kept(items, kept, outputs[0].path, first_line, on_error)
        bar = StreamProgress(input_size(paths), quiet)
        annotated = 0
        for part, results in in_order(backend.submit, chunks(items), CHUNKS_IN_FLIGHT * backend.jobs):
            done = _write_chunk(part, results, in_turn, first_line)
            annotated += done
            bar.update(done, part[-1].end)
        bar.close()
        for output in outputs:
            output.finish()
        return annotated
    except (PhenorulesError, ValueError):  # bad input or settings: nothing to resume
        for output in outputs:
            output.abandon()
        raise
    finally:
        for output in outputs:
            output.close()
        if backend is not None:
            backend.close()


def _backend(settings: PipelineSettings, first_item: Item | None, jobs: int, scheduler: str | None, on_error: str):
    """What annotates the chunks: a Dask cluster's workers, forked workers or this process."""
    if scheduler:
        from .distributed import ClusterWorkers

        return ClusterWorkers(scheduler, settings, on_error)
    pipelines = Pipelines(settings)
    if first_item is not None:
        pipelines(first_item.format)
    workers = worker_count(jobs)
    return ForkedWorkers(pipelines, workers, on_error) if workers > 1 else InProcess(pipelines, on_error)


def _chain(first: Item | None, rest: Iterator[Item]) -> Iterator[Item]:
    if first is not None:
        yield first
        yield from rest


def _skip_kept(items: Iterator[Item], kept: list[str], output_path: str, first_line: "FirstLines", on_error: str) -> Iterator[Item]:
    """The items after the ``kept`` ones, which must be the input's first articles."""
    position = 0
    for item in items:
        if position == len(kept):
            yield item
            continue
        article = article_of(item, on_error)
        if article is None or not first_line.check(item, article.id):
            continue
        if article.id != kept[position]:
            raise InputError(
                f"{output_path}: cannot resume: its line {position + 1} is article {kept[position]}, "
                f"the input's article {position + 1} is {article.id} ({item.source}, line {item.lineno})"
            )
        position += 1
    if position < len(kept):
        raise InputError(f"{output_path}: cannot resume: it holds {len(kept)} articles, the input only {position}")


class FirstLines:
    """Refuses a pmc_id seen before in the input, in any of its files (as ``read_articles``
    refuses one within a file): the ids of the whole input are held, with where each was."""

    def __init__(self, on_error: str = "fail"):
        self.sources: dict[str, int] = {}  # file -> its number
        self.first: dict[str, int] = {}  # pmc_id -> file number << 32 | line
        self.on_error = on_error

    def check(self, item: Item, pmc_id: str) -> bool:
        """True for an id not seen before; a repeat is refused, or with ``on_error`` 'skip'
        reported and False."""
        source = self.sources.setdefault(item.source, len(self.sources))
        place = self.first.get(pmc_id)
        if place is None:
            self.first[pmc_id] = source << 32 | item.lineno
            return True
        earlier_source, earlier_line = list(self.sources)[place >> 32], place & 0xFFFFFFFF
        if earlier_source == item.source:
            earlier = f"line {earlier_line}"
        else:
            earlier = f"{earlier_source}, line {earlier_line}" if earlier_line else earlier_source
        here = f"{item.source}, line {item.lineno}" if item.lineno else item.source
        error = InputError(f"{here}, article {pmc_id}: pmc_id: duplicate of {earlier}")
        if self.on_error == "fail":
            raise error
        warn(f"{error}; article skipped")
        return False


def _write_chunk(part: list[Item], results: list[AnnotatedArticle | None], outputs: list[Output], first_line: FirstLines) -> int:
    """Write a chunk's results to every output, each checked by all of them first; the
    number of articles in it."""
    written = [result for item, result in zip(part, results) if result is not None and first_line.check(item, result.article.id)]
    for output in outputs:
        output.check(written)
    for output in outputs:
        output.write(written)
    return len(written)
