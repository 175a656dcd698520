"""A newcomer's first start: seconds until ``nlp.add_pipe("phenorules")`` has annotated
one sentence, in a new interpreter with an empty lexicon cache, then with the cache.

Usage: python benchmarks/first_start.py [--python PYTHON] [--runs N]

``--python`` is the interpreter of the environment to time; for a fresh install, make one
first (``python3 -m venv /tmp/fresh && /tmp/fresh/bin/pip install .``). Each cold run gets
a new empty ``PHENORULES_CACHE``; the time is measured inside the child, from before
``import spacy`` to the first Doc, so it is what a user's script waits for. The
median, least and most of the cold runs, one warm run and the cache's size are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import time
started = time.perf_counter()
import spacy
nlp = spacy.blank("en")
nlp.add_pipe("phenorules")
doc = nlp("The child was hypotonic, with cleft lip and palate.")
assert doc.ents, "no entity found"
print(time.perf_counter() - started)
"""


def ready_seconds(python: str, cache: Path) -> float:
    env = {**os.environ, "PHENORULES_CACHE": str(cache)}
    done = subprocess.run([python, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the environment to time")
    parser.add_argument("--runs", type=int, default=5, help="cold runs (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        cold = []
        for run in range(args.runs):
            cache = Path(scratch) / f"cache-{run}"
            cold.append(ready_seconds(args.python, cache))
            print(f"cold run {run + 1}: ready in {cold[-1]:.2f} s", flush=True)
        warm = ready_seconds(args.python, cache)
        size = sum(path.stat().st_size for path in cache.iterdir())
    print(
        f"first start, cold cache: median {statistics.median(cold):.2f} s (least {min(cold):.2f}, most {max(cold):.2f}, {len(cold)} runs); "
        f"warm cache {warm:.2f} s; cache {size / 2**20:.0f} MiB"
    )


if __name__ == "__main__":
    main()
