"""Annotation on a Dask cluster (``pip install 'phenorules[dask]'``): one pipeline per
worker process, built on the worker's first task and kept for the next ones.

Two ways in: :func:`predict_bag` maps a Dask bag of JSONL article lines (for instance
``dask.bag.read_text("s3://bucket/pmc-*.jsonl.gz")``) to a bag of prediction lines, for
code that already holds its corpus in Dask; ``phenorules predict IN -o OUT --scheduler
tcp://HOST:PORT`` streams a local corpus through the cluster's workers with everything
``predict`` does (input order, checks, ``--resume``), the workers needing neither the
input files nor a shared file system. Docs: docs/scale.md.
"""

from __future__ import annotations

import json
import threading
import uuid

from ..core.errors import InputError
from .article_chunks import Result, annotate_items
from ..formats.inputs import AUTO, format_profile
from ..formats.streaming import Item

# (hpo, disabled stages, enabled stages, stage settings, profile) -> the pipeline, in each worker process. A worker's threads take
# turns with it (the stages are not written to be thread-safe, and the GIL would serialise
# them anyway): start workers with --nthreads 1 and as many processes as cores.
_PIPELINES: dict[tuple, object] = {}
_BUILDING = threading.Lock()
_ANNOTATING = threading.Lock()


def worker_pipeline(
    hpo: str | None = None, disable: tuple[str, ...] = (), enable: tuple[str, ...] = (), stage_config: dict | None = None, profile: str = format_profile("jsonl")
):
    """This process's pipeline for these settings, built once (worker threads share it);
    the articles are PatientPheX JSONL lines unless ``predict`` says otherwise."""
    key = (hpo, tuple(disable), tuple(enable), json.dumps(stage_config or {}, sort_keys=True), profile)
    with _BUILDING:
        if key not in _PIPELINES:
            from ..stages.pipeline import build_pipeline

            _PIPELINES[key] = build_pipeline(disable=disable, stage_config=stage_config, hpo=hpo, enable=enable, profile=profile)
        return _PIPELINES[key]


def annotate_on_worker(items: list[Item], settings: dict, explain: bool, on_error: str = "fail") -> list[Result | None]:
    def pipelines(input_format: str):
        profile = format_profile(input_format, settings.get("profile", AUTO))
        return worker_pipeline(settings.get("hpo"), tuple(settings.get("disable", ())), tuple(settings.get("enable", ())), settings.get("stage_config"), profile)

    with _ANNOTATING:
        return annotate_items(pipelines, items, explain, on_error)


def predict_partition(lines, source: str = "<bag>", hpo: str | None = None, disable: tuple[str, ...] = ()) -> list[str]:
    """Prediction lines for one partition of JSONL article lines (blank lines skipped)."""
    items = [Item(source, number, raw=line.encode("utf-8") if isinstance(line, str) else line) for number, line in enumerate(lines, start=1)]
    nlp = worker_pipeline(hpo, tuple(disable))
    with _ANNOTATING:
        results = annotate_items(lambda _: nlp, items, explain=False)
    return [prediction for _, prediction, _ in filter(None, results)]


def predict_bag(lines, hpo: str | None = None, disable: tuple[str, ...] = ()):
    """A Dask bag of article lines (JSONL) -> a bag of prediction lines, partition by partition,
    in the bag's order; each line ends in "\n", as ``dask.bag.read_text`` gives them.

    Each line is checked as ``predict`` checks it; errors name the partition's line, since
    a bag knows no file lines. Duplicate pmc_ids across partitions are not looked for.
    """
    return lines.map_partitions(predict_partition, hpo=hpo, disable=tuple(disable))


class ClusterWorkers:
    """The backend of ``predict --scheduler``: chunks of items submitted to the cluster."""

    def __init__(self, address: str, settings: dict, explain: bool, on_error: str = "fail"):
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
        self.explain = explain
        self.on_error = on_error
        self._run = uuid.uuid4().hex
        self._number = 0

    def submit(self, items: list[Item]):
        self._number += 1
        # One key per chunk: equal lines elsewhere in the corpus must not share a result.
        return self.client.submit(annotate_on_worker, items, self.settings, self.explain, self.on_error, key=f"phenorules-{self._run}-{self._number}", retries=1)

    def close(self) -> None:
        self.client.close()
