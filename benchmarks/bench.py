"""Speed and memory of the whole pipeline: start-up (cold and warm cache), characters per
second over a PatientPheX file, and peak resident memory. Targets: >= 500,000 chars/s on
one core, warm start-up < 3 s.

Usage: python benchmarks/bench.py [ARTICLES.jsonl]
(default input: the bundled example article). The full pipeline is measured, and the
core (sentences + match) beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"

# Runs in a fresh interpreter so import and cache-loading costs are really paid.
_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from phenorules.pipeline import build_pipeline
from phenorules.tasks.patientphex.io import read_articles, write_predictions
from phenorules.tasks.patientphex.predict import predict
nlp = build_pipeline(disable=sys.argv[3:])
startup = time.perf_counter() - t0
articles = read_articles(sys.argv[1])
chars = sum(len(p["text"]) for a in articles for p in a["full_text"])
t1 = time.perf_counter()
records = list(predict(nlp, articles))
run = time.perf_counter() - t1
write_predictions(sys.argv[2], records)
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"startup_s": startup, "run_s": run, "chars": chars, "articles": len(articles),
                  "mentions": sum(len(r["entities"]) for r in records), "peak_mib": peak_mib,
                  "total_s": time.perf_counter() - t0}))
"""


def run_child(articles: str, cache: str, disable: list[str]) -> dict:
    env = dict(os.environ, PHENORULES_CACHE=cache, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
        # taskset pins the run to one core where available, so the figure is per core.
        pin = ["taskset", "-c", "0"] if _has_taskset() else []
        result = subprocess.run(pin + [sys.executable, "-c", _CHILD, articles, out.name, *disable], env=env, capture_output=True, text=True, check=False)
    if result.returncode:
        sys.exit(f"bench: the pipeline failed: {result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.returncode}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _has_taskset() -> bool:
    return subprocess.run(["sh", "-c", "command -v taskset"], capture_output=True).returncode == 0


def main() -> None:
    from phenorules.pipeline import REQUIRED_STAGES, stage_names

    articles = sys.argv[1] if len(sys.argv) > 1 and Path(sys.argv[1]).exists() else str(EXAMPLE)
    optional = [name for name in stage_names() if name not in REQUIRED_STAGES]
    with tempfile.TemporaryDirectory() as cache:
        cold = run_child(articles, cache, [])
        full = min((run_child(articles, cache, []) for _ in range(3)), key=lambda r: r["total_s"])
        core = min((run_child(articles, cache, optional) for _ in range(3)), key=lambda r: r["total_s"])
    rows = [
        ("input", f"{articles} ({full['articles']} articles, {full['chars']:,} chars)"),
        ("mentions found", f"{full['mentions']:,}"),
        ("start-up, cold cache", f"{cold['startup_s']:.2f} s (ontology read + lexicon + automaton built and cached)"),
        ("start-up, warm cache", f"{full['startup_s']:.2f} s   target < 3 s: {'ok' if full['startup_s'] < 3 else 'MISSED'}"),
    ]
    for name, run in (("full pipeline", full), ("core (" + " + ".join(sorted(REQUIRED_STAGES)) + ")", core)):
        rate = run["chars"] / run["run_s"]
        rows.append((f"throughput, {name}", f"{rate:,.0f} chars/s on one core   target >= 500,000: {'ok' if rate >= 500_000 else 'MISSED'}"))
    rows += [
        ("whole run, warm", f"{full['total_s']:.2f} s (start-up + all articles, full pipeline)"),
        ("peak memory", f"{full['peak_mib']:.0f} MiB"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
