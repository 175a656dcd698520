"""Annotation on a Dask cluster (``pip install 'phenorules[dask]'``): one pipeline per
worker process, built on the worker's first task and kept for the next ones.

Two ways in: :func:`predict_bag` maps a Dask bag of JSONL article lines (for instance
``dask.bag.read_text("s3://bucket/pmc-*.jsonl.gz")``) to a bag of prediction lines, for
code that already holds its corpus in Dask; ``phenorules predict IN -o OUT --scheduler
tcp://HOST:PORT`` streams a local corpus through the cluster's workers with everything
``predict`` does (any format in and out, input order, checks, ``--resume``), the
workers needing neither the input files nor a shared file system: they give back each
article's :class:`~phenorules.core.annotated.AnnotatedArticle`, and this process writes
the outputs. Docs: docs/scale.md.
"""

from __future__ import annotations

import threading
import uuid

from ..core.annotated import AnnotatedArticle
from ..core.errors import InputError
from ..formats import registry
from ..formats.patientphex import FORMAT as PATIENTPHEX
from ..formats.streaming import Item
from ..options import PipelineSettings
from .article_chunks import Pipelines, annotate_items

# The settings' key -> their pipelines, in each worker process. A worker's threads take
# turns with them (the stages are not written to be thread-safe, and the GIL would
# serialise them anyway): start workers with --nthreads 1 and as many processes as cores.
_PIPELINES: dict[str, Pipelines] = {}
_BUILDING = threading.Lock()
_ANNOTATING = threading.Lock()


def worker_pipelines(settings: PipelineSettings) -> Pipelines:
    """This process's pipelines for these settings, each built once (worker threads share
    them)."""
    with _BUILDING:
        return _PIPELINES.setdefault(settings.key(), Pipelines(settings))


def annotate_on_worker(items: list[Item], settings: PipelineSettings, on_error: str = "fail") -> list[AnnotatedArticle | None]:
    pipelines = worker_pipelines(settings)
    with _ANNOTATING:
        return annotate_items(pipelines, items, on_error)


def predict_partition(lines, source: str = "<bag>", settings: PipelineSettings | None = None, output_format: str = PATIENTPHEX) -> list[str]:
    """The output lines of one partition of PatientPheX JSONL article lines (blank lines
    skipped): the parts of a format written a line per article."""
    written = registry.get(output_format)
    if written.stream is None or written.stream.join is not None:
        raise InputError(f"format {output_format}: not written a line per article")
    items = [Item(source, number, PATIENTPHEX, raw=line.encode("utf-8") if isinstance(line, str) else line) for number, line in enumerate(lines, start=1)]
    results = annotate_on_worker(items, settings or PipelineSettings())
    return [written.part_of(result) for result in results if result is not None]


def predict_bag(lines, settings: PipelineSettings | None = None, output_format: str = PATIENTPHEX):
    """A Dask bag of PatientPheX JSONL article lines -> a bag of the lines of
    ``output_format`` (the predictions; ``evidence``), partition by partition, in the
    bag's order; each line ends in "\n", as ``dask.bag.read_text`` gives them.

    Each line is checked as ``predict`` checks it; errors name the partition's line, since
    a bag knows no file lines. Duplicate pmc_ids across partitions are not looked for.
    """
    return lines.map_partitions(predict_partition, settings=settings, output_format=output_format)


class ClusterWorkers:
    """The backend of ``predict --scheduler``: chunks of items submitted to the cluster,
    whose workers build their pipelines from the settings."""

    def __init__(self, address: str, settings: PipelineSettings, on_error: str = "fail"):
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install 'phenorules[dask]'") from None
        try:
            self.client = Client(address)  # waits distributed.comm.timeouts.connect (30 s)
        except (OSError, TimeoutError, ValueError) as error:
            raise InputError(f"--scheduler {address}: cannot connect: {error}") from None
        workers = self.client.scheduler_info().get("workers", {})
        self.jobs = max(1, sum(worker.get("nthreads", 1) for worker in workers.values()))
        self.settings = settings
        self.on_error = on_error
        self._run = uuid.uuid4().hex
        self._number = 0

    def submit(self, items: list[Item]):
        self._number += 1
        # One key per chunk: equal lines elsewhere in the corpus must not share a result.
        return self.client.submit(annotate_on_worker, items, self.settings, self.on_error, key=f"phenorules-{self._run}-{self._number}", retries=1)

    def close(self) -> None:
        self.client.close()
