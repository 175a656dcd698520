"""Speed and memory, every line with its target: the component's CPU time against spaCy's
blank English tokenizer over the same texts in one process (each profile), characters per
second, where the time goes (each stage's share of one pass), ``phenorules predict`` end to
end against FastHPOCR 0.1.4 in paired alternating runs on one core, warm and cold start and
``--help``, peak memory, ``--jobs 2`` against ``--jobs 1``. ``benchmarks/scaling.py`` (also
run by ``make bench``) prints how the cost grows with one text's length.

Usage: python benchmarks/bench.py [ARTICLES.jsonl] [--fasthpocr PYTHON] [--pairs N] [--cold N]
(default input: the bundled example article). PYTHON is an interpreter with PyPI
``fasthpocr`` installed (``make bench`` builds .venv-bench); without it that line is skipped.
Times of whole commands are wall seconds on one core (``taskset -c 0``), but for a first
start, which builds the lexicon over every core, and ``--jobs 2``; the in-process
ratios are CPU seconds (``time.process_time``), the least of three passes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
FASTHPOCR_RUN = Path(__file__).resolve().parent / "fasthpocr_run.py"
MIB = 1024 * 1024

TARGETS = {
    "tokenizer_ratio": {"patientphex": 2.0, "general": 3.0},
    "chars_per_s": {"patientphex": 800_000, "general": 500_000},
    "fasthpocr_ratio": 0.8,
    "warm_start_s": 1.0,
    "cold_start_s": 6.0,
    "help_s": 0.5,
    "cache_mib": 100,
    "predict_mib": 400,
}

# In a fresh interpreter: the pipeline of one profile, then PASSES passes over the articles,
# each timed stage by stage, beside spaCy's blank English tokenizer over the same texts.
_CHILD = r"""
import json, sys, time
import spacy
from phenorules.core.document import make_article_doc
from phenorules.stages.pipeline import build_pipeline
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.io import read_articles
nlp = build_pipeline(profile=sys.argv[2])
blank = spacy.blank("en")
articles = [to_article(record) for record in read_articles(sys.argv[1])]
texts = [article.text for article in articles]
passes = []
for _ in range(int(sys.argv[3])):
    clock = time.process_time()
    for text in texts:
        blank.make_doc(text)
    tokenizer = time.process_time() - clock
    stages = {"make_doc": 0.0, **{name: 0.0 for name in nlp.pipe_names}}
    for article in articles:
        clock = time.process_time(); doc = make_article_doc(nlp, article); stages["make_doc"] += time.process_time() - clock
        for name, pipe in nlp.pipeline:
            clock = time.process_time(); doc = pipe(doc); stages[name] += time.process_time() - clock
    passes.append({"tokenizer": tokenizer, "stages": stages})
print(json.dumps({"chars": sum(map(len, texts)), "articles": len(articles), "passes": passes}))
"""


class TreeMemory(threading.Thread):
    """Peak memory of a process and its descendants, sampled from /proc: the largest peak
    RSS (the kernel's high-water mark, read from /proc/PID/status) of any one process and,
    if asked (``pss``), the largest sum of PSS (shared pages split between the processes
    that share them: the memory the tree really takes), read from /proc/PID/smaps_rollup.
    Reading smaps_rollup walks the page tables of the processes measured, every 50 ms: it
    made a first start 11 % slower, so only a measurement of shared memory reads it."""

    def __init__(self, pid: int, pss: bool = False, interval: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.pss, self.interval = pid, pss, interval
        self.peak_rss = self.peak_total_pss = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            tree = self._tree()
            self.peak_rss = max(self.peak_rss, *map(_peak_rss, tree))
            if self.pss:
                self.peak_total_pss = max(self.peak_total_pss, sum(map(_pss, tree)))
            time.sleep(self.interval)

    def _tree(self) -> list[int]:
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        tree, frontier = [self.pid], [self.pid]
        while frontier:
            children = [pid for pid, parent in parents.items() if parent in frontier]
            tree += children
            frontier = children
        return tree

    def stop(self) -> None:
        self.done.set()
        self.join()


def _peak_rss(pid: int) -> int:
    """The peak RSS bytes of a process so far (VmHWM: exact whenever it is sampled)."""
    try:
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    except OSError:
        return 0
    return int(status.get("VmHWM", "0 kB").split()[0]) * 1024


def _pss(pid: int) -> int:
    """The PSS bytes of a process, as the sample sees it."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    except (OSError, ValueError):
        return 0
    return int(fields.get("Pss", "0 kB").split()[0]) * 1024


def measured(command: list[str], env: dict, one_core: bool = True, pss: bool = False) -> dict:
    """Wall time, exit status, output and peak memory of ``command`` (with ``pss``, the peak
    sum of PSS of its processes too: :class:`TreeMemory`)."""
    pin = ["taskset", "-c", "0"] if one_core and _has("taskset") else []
    started = time.perf_counter()
    process = subprocess.Popen(pin + command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    memory = TreeMemory(process.pid, pss)
    memory.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    memory.stop()
    if process.returncode:
        sys.exit(f"bench: {' '.join(command[:3])} failed: {stderr.strip().splitlines()[-1] if stderr.strip() else process.returncode}")
    return {"wall_s": wall, "stdout": stdout, "peak_rss_mib": memory.peak_rss / MIB, "total_pss_mib": memory.peak_total_pss / MIB if pss else None}


def _has(program: str) -> bool:
    return subprocess.run(["sh", "-c", f"command -v {program}"], capture_output=True).returncode == 0


def in_process(articles: str, env: dict, profile: str, passes: int = 3) -> dict:
    """The least CPU of ``passes`` passes: the component's (Doc made, every pipe) and the
    blank tokenizer's, and the stages of the component's least pass."""
    result = measured([sys.executable, "-c", _CHILD, articles, profile, str(passes)], env)
    run = json.loads(result["stdout"].strip().splitlines()[-1])
    best = min(run["passes"], key=lambda one: sum(one["stages"].values()))
    tokenizer = min(one["tokenizer"] for one in run["passes"])
    return {**run, "component_s": sum(best["stages"].values()), "tokenizer_s": tokenizer, "stages": best["stages"]}


def predict_command(articles: str, out: str, *options: str) -> list[str]:
    return [str(Path(sys.executable).with_name("phenorules")), "predict", articles, "-o", out, "--quiet", *options]


def fasthpocr_index(python: str, obo: str | None = None) -> Path:
    """FastHPOCR's index of ``obo`` (default: phenorules' ontology), built once per
    ontology file beside the interpreter's venv."""
    from phenorules.kb.ontology import default_obo_path

    obo = str(obo or default_obo_path())
    digest = hashlib.sha256(Path(obo).read_bytes()).hexdigest()[:16]
    index_dir = Path(python).resolve().parent.parent / f"fasthpocr-index-{digest}"
    if not (index_dir / "hp.index").exists():
        subprocess.run([python, str(FASTHPOCR_RUN), "index", obo, str(index_dir)], check=True, capture_output=True)
    return index_dir


def paired_ratios(first: list[str], second: list[str], env: dict, pairs: int) -> tuple[list[float], list[float], list[float]]:
    """Wall seconds of ``first`` and ``second`` run by turns on one core (the order of each
    pair alternating, so that neither always runs on a warmer machine), and each pair's ratio."""
    a, b = [], []
    for pair in range(pairs):
        order = ((first, a), (second, b)) if pair % 2 == 0 else ((second, b), (first, a))
        for command, times in order:
            times.append(measured(command, env)["wall_s"])
    return a, b, [x / y for x, y in zip(a, b)]


def median_wall(command: list[str], env: dict, runs: int, fresh_cache: bool = False) -> tuple[float, list[float]]:
    """The median wall seconds of ``runs`` runs of ``command`` on one core; with
    ``fresh_cache`` each run gets a new empty cache directory (a first start) and the
    machine's cores, over which the lexicon is built."""
    times = []
    for _ in range(runs):
        if fresh_cache:
            with tempfile.TemporaryDirectory() as cache:
                times.append(measured(command, {**env, "PHENORULES_CACHE": cache}, one_core=False)["wall_s"])
        else:
            times.append(measured(command, env)["wall_s"])
    return statistics.median(times), times


def one_article(articles: str, directory: str) -> str:
    """The input's first article alone: what a start is timed on."""
    path = os.path.join(directory, "one.jsonl")
    first = next(line for line in Path(articles).read_text(encoding="utf-8").splitlines() if line.strip())
    Path(path).write_text(first + "\n", encoding="utf-8")
    return path


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def shares(stages: dict[str, float]) -> str:
    total = sum(stages.values())
    return ", ".join(f"{name} {seconds / total:.0%}" for name, seconds in sorted(stages.items(), key=lambda item: -item[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("articles", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--fasthpocr", metavar="PYTHON", default=None)
    parser.add_argument("--pairs", type=int, default=7, help="paired runs against FastHPOCR (default 7)")
    parser.add_argument("--cold", type=int, default=7, help="first starts timed (default 7)")
    options = parser.parse_args()
    articles = options.articles
    if not Path(articles).exists():
        print(f"bench: {articles} not found; measuring the bundled example instead", file=sys.stderr)
        articles = str(EXAMPLE)
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, PHENORULES_CACHE=cache, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        one = one_article(articles, work)
        cold, cold_times = median_wall(predict_command(one, os.path.join(work, "cold.jsonl")), env, options.cold, fresh_cache=True)
        for profile in ("patientphex", "general"):  # both profiles' entries cached
            measured(predict_command(one, os.path.join(work, "warm.jsonl"), "--profile", profile), env)
        cache_mib = sum(path.stat().st_size for path in Path(cache).iterdir()) / MIB
        warm, warm_times = median_wall(predict_command(one, os.path.join(work, "warm.jsonl")), env, 5)
        help_s, _ = median_wall([str(Path(sys.executable).with_name("phenorules")), "--help"], env, 5)
        profiles = {profile: in_process(articles, env, profile) for profile in ("patientphex", "general")}
        single = measured(predict_command(articles, os.path.join(work, "jobs1.jsonl")), env)
        double = measured(predict_command(articles, os.path.join(work, "jobs2.jsonl"), "--jobs", "2"), env, one_core=False, pss=True)
        same = Path(work, "jobs1.jsonl").read_bytes() == Path(work, "jobs2.jsonl").read_bytes()
        fast = None
        if options.fasthpocr:
            ours, theirs, ratios = paired_ratios(
                predict_command(articles, os.path.join(work, "paired.jsonl")),
                [options.fasthpocr, str(FASTHPOCR_RUN), "annotate", str(fasthpocr_index(options.fasthpocr)), articles],
                env, options.pairs,
            )
            fast = (statistics.median(ours), statistics.median(theirs), ratios)

    first = profiles["patientphex"]
    rows.append(("input", f"{articles} ({first['articles']} articles, {first['chars']:,} chars)"))
    for profile, run in profiles.items():
        ratio, rate = run["component_s"] / run["tokenizer_s"], run["chars"] / run["component_s"]
        target, rate_target = TARGETS["tokenizer_ratio"][profile], TARGETS["chars_per_s"][profile]
        rows += [
            (f"{profile}: component / blank tokenizer", f"{ratio:.2f} ({run['component_s']:.2f} s against {run['tokenizer_s']:.2f} s CPU)   target <= {target}: {verdict(ratio <= target)}"),
            (f"{profile}: characters per second", f"{rate:,.0f} (one core, the component's CPU)   target >= {rate_target:,}: {verdict(rate >= rate_target)}"),
            (f"{profile}: where the time goes", shares(run["stages"])),
        ]
    if fast:
        ours, theirs, ratios = fast
        ratio = statistics.median(ratios)
        rows.append(
            (
                "predict / FastHPOCR, paired",
                f"median ratio {ratio:.2f} of {len(ratios)} pairs ({min(ratios):.2f}-{max(ratios):.2f}; medians {ours:.2f} s and {theirs:.2f} s, start-up included)"
                f"   target <= {TARGETS['fasthpocr_ratio']}: {verdict(ratio <= TARGETS['fasthpocr_ratio'])}",
            )
        )
    else:
        rows.append(("predict / FastHPOCR, paired", "skipped (no --fasthpocr PYTHON; make bench builds .venv-bench)"))
    spread = lambda times: f"{min(times):.2f}-{max(times):.2f}"  # noqa: E731
    rows += [
        ("warm start", f"{warm:.2f} s median of {len(warm_times)} ({spread(warm_times)}; predict on one article, cached lexicon)   target <= {TARGETS['warm_start_s']} s: {verdict(warm <= TARGETS['warm_start_s'])}"),
        ("cold start", f"{cold:.2f} s median of {len(cold_times)} ({spread(cold_times)}; the same, each with an empty cache, every core)   target <= {TARGETS['cold_start_s']} s: {verdict(cold <= TARGETS['cold_start_s'])}"),
        ("--help", f"{help_s:.2f} s median of 5   target <= {TARGETS['help_s']} s: {verdict(help_s <= TARGETS['help_s'])}"),
        ("cache on disk, both profiles", f"{cache_mib:.0f} MiB   target <= {TARGETS['cache_mib']} MiB: {verdict(cache_mib <= TARGETS['cache_mib'])}"),
        ("predict, peak memory", f"{single['peak_rss_mib']:.0f} MiB ({single['wall_s']:.2f} s)   target <= {TARGETS['predict_mib']} MB: {verdict(single['peak_rss_mib'] * MIB <= TARGETS['predict_mib'] * 1e6)}"),
        ("predict --jobs 2", f"{double['wall_s']:.2f} s on two cores, {'the bytes of --jobs 1' if same else 'OTHER BYTES than --jobs 1'}; {double['total_pss_mib']:.0f} MiB in total (peak sum of PSS)"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
