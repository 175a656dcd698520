"""``phenorules predict`` over a corpus: in this process, on forked workers, or on a cluster.

Articles go to the annotators in chunks of :data:`~phenorules.run.article_chunks.CHUNK_ARTICLES`; at most
:data:`CHUNKS_IN_FLIGHT` chunks per worker are read ahead, and results are written in input
order as soon as they are next, so memory grows with the input only by the pmc_ids held
to refuse a repeat (:class:`FirstLines`, about 120 bytes an article). Each
article's prediction depends on that article alone, so the bytes out are the same for any
number of workers, and a resumed run's lines equal a whole run's.

Forked workers (``jobs`` > 1) share the pipeline the parent built before forking (copy on
write: the ontology, lexicon and automata are loaded once); they need the ``fork`` start
method (Linux, macOS).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, Iterator

from spacy.language import Language

from ..core.errors import InputError, PhenorulesError, warn
from ..formats.inputs import AUTO
from .progress import StreamProgress
from .article_chunks import Pipelines, Result, annotate_items, article_of, chunks
from ..formats.streaming import Item, input_paths, input_size, read_items
from ..core.outputs import OutputFiles
from ..core.partial import PartialOutput

CHUNKS_IN_FLIGHT = 3


class Done:
    """An already computed result with the interface of a future."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def in_order(submit: Callable[[list[Item]], object], parts: Iterable[list[Item]], window: int) -> Iterator[tuple[list[Item], list[Result]]]:
    """(chunk, results) in input order, with at most ``window`` chunks submitted and not
    yet returned (``submit`` gives an object with ``.result()``)."""
    pending: deque = deque()
    for part in parts:
        pending.append((part, submit(part)))
        if len(pending) >= window:
            part, future = pending.popleft()
            yield part, future.result()
    while pending:
        part, future = pending.popleft()
        yield part, future.result()


# --- forked workers ----------------------------------------------------------------------

_WORKER_PIPELINES: Pipelines | None = None  # the parent's pipelines, inherited by fork
_WORKER_EXPLAIN = False
_WORKER_ON_ERROR = "fail"


def _worker_signals() -> None:
    """Ctrl-C reaches the whole process group: the parent stops the run (its .partial
    kept) and shuts the workers down, so they ignore it. On Linux a worker also dies with
    its parent, rather than wait for work forever after a kill."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _annotate_in_worker(items: list[Item]) -> list[Result]:
    return annotate_items(_WORKER_PIPELINES, items, _WORKER_EXPLAIN, _WORKER_ON_ERROR)


class ForkedWorkers:
    """``jobs`` processes forked from this one after the pipeline is built."""

    def __init__(self, pipelines: Pipelines, jobs: int, explain: bool, on_error: str):
        global _WORKER_PIPELINES, _WORKER_EXPLAIN, _WORKER_ON_ERROR
        if "fork" not in multiprocessing.get_all_start_methods():
            raise InputError(f"--jobs {jobs}: needs the 'fork' start method, which this platform lacks; use --jobs 1")
        _WORKER_PIPELINES, _WORKER_EXPLAIN, _WORKER_ON_ERROR = pipelines, explain, on_error
        gc.collect()
        gc.freeze()  # the collector then leaves the shared objects' pages unwritten
        # A dead worker (killed, out of memory) fails the run instead of hanging it.
        self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_signals)
        self.pool.submit(int).result()  # fork them all now, before any output is opened
        self.jobs = jobs

    def submit(self, items: list[Item]):
        return self.pool.submit(_annotate_in_worker, items)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()


def worker_count(jobs: int) -> int:
    """``jobs``, with 0 meaning every core this process may use."""
    if jobs < 0:
        raise InputError(f"--jobs {jobs}: must be 0 (all cores) or more")
    if jobs == 0:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return jobs


# --- the command ------------------------------------------------------------------------


def predict_corpus(
    input_spec: str,
    output_path: str,
    explain_path: str | None = None,
    input_format: str = "auto",
    build: Callable[[str], Language] | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
    pipeline_settings: dict | None = None,
    on_error: str = "fail",
    profile: str = AUTO,
    outputs: OutputFiles | None = None,
) -> int:
    """Predict every article of ``input_spec`` into ``output_path`` (and the evidence into
    ``explain_path``); the number of articles annotated by this run.

    ``build`` makes the pipeline of a profile (here, for ``jobs`` 1 or forked workers:
    the first article's before the fork, another one an input needs where it is needed);
    with ``scheduler`` the Dask cluster's workers build their own from
    ``pipeline_settings``. ``profile`` ``auto`` gives each file the profile of its format
    (``inputs.format_profile``).
    ``on_error`` 'skip' leaves a bad article out with a warning instead of stopping.
    ``outputs`` are the command's output files (by default ones that know the input files).
    """
    paths = input_paths(input_spec)
    files = outputs or OutputFiles(paths)
    outputs = [PartialOutput(files, output_path, "predictions")] + ([PartialOutput(files, explain_path, "evidence")] if explain_path else [])
    keep = min(output.resumable(resume) for output in outputs)
    items = read_items(paths, input_format, on_error)
    first_item = next(items, None)  # format detection and its errors before the pipeline's start-up
    items = _chain(first_item, items)
    backend = None
    try:
        # Workers are forked before the outputs are opened, so that only this process
        # holds the .partial's lock: a killed run's lock dies with it.
        if scheduler:
            from .distributed import ClusterWorkers

            backend = ClusterWorkers(scheduler, {**(pipeline_settings or {}), "profile": profile}, explain_path is not None, on_error)
            submit, window = backend.submit, CHUNKS_IN_FLIGHT * backend.jobs
        else:
            pipelines = Pipelines(build, profile)
            if first_item is not None:
                pipelines(first_item.format)
            workers = worker_count(jobs)
            if workers > 1:
                backend = ForkedWorkers(pipelines, workers, explain_path is not None, on_error)
                submit, window = backend.submit, CHUNKS_IN_FLIGHT * workers
            else:
                submit, window = (lambda part: Done(annotate_items(pipelines, part, explain_path is not None, on_error))), 1
        kept = [output.start(keep) for output in outputs][0]  # the predictions' pmc_ids
        first_line = FirstLines(on_error)
        items = _skip_kept(items, kept, output_path, first_line, on_error)
        bar = StreamProgress(input_size(paths), quiet)
        annotated = 0
        for part, results in in_order(submit, chunks(items), window):
            done = _write_results(part, results, outputs, first_line)
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


def _write_results(part: list[Item], results: list[Result | None], outputs: list[PartialOutput], first_line: "FirstLines") -> int:
    """Write a chunk's results; the number of articles in it."""
    count = 0
    for item, result in zip(part, results):
        if result is None:
            continue
        pmc_id, prediction, evidence = result
        if not first_line.check(item, pmc_id):
            continue
        outputs[0].write(prediction)
        if evidence is not None:
            outputs[1].write(evidence)
        count += 1
    for output in outputs:
        output.flush()
    return count
