"""Where ``predict`` annotates its chunks: in this process, or on forked workers (a Dask
cluster is :mod:`phenorules.run.distributed`); each backend's ``submit`` gives an object
with ``.result()``, which :func:`in_order` reads in input order.

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

from ..core.annotated import AnnotatedArticle
from ..core.errors import InputError
from ..formats.streaming import Item
from .article_chunks import Pipelines, annotate_items

CHUNKS_IN_FLIGHT = 3  # per worker, read ahead


class Done:
    """An already computed result with the interface of a future."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def in_order(submit: Callable[[list[Item]], object], parts: Iterable[list[Item]], window: int) -> Iterator[tuple[list[Item], list[AnnotatedArticle | None]]]:
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


class InProcess:
    """Each chunk annotated here, when it is submitted."""

    jobs = 1

    def __init__(self, pipelines: Pipelines, on_error: str):
        self.pipelines, self.on_error = pipelines, on_error

    def submit(self, items: list[Item]) -> Done:
        return Done(annotate_items(self.pipelines, items, self.on_error))

    def close(self) -> None:
        pass


# --- forked workers ----------------------------------------------------------------------

_WORKER_PIPELINES: Pipelines | None = None  # the parent's pipelines, inherited by fork
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


def _annotate_in_worker(items: list[Item]) -> list[AnnotatedArticle | None]:
    return annotate_items(_WORKER_PIPELINES, items, _WORKER_ON_ERROR)


class ForkedWorkers:
    """``jobs`` processes forked from this one after the pipeline is built."""

    def __init__(self, pipelines: Pipelines, jobs: int, on_error: str):
        global _WORKER_PIPELINES, _WORKER_ON_ERROR
        if "fork" not in multiprocessing.get_all_start_methods():
            raise InputError(f"--jobs {jobs}: needs the 'fork' start method, which this platform lacks; use --jobs 1")
        _WORKER_PIPELINES, _WORKER_ON_ERROR = pipelines, on_error
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
