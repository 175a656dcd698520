"""Speed and memory, in one run: start-up (cold and warm cache), chars/s of the core and of
the full pipeline on one core (and each stage's share), ``phenorules predict`` end to end
beside FastHPOCR on the same file, ``--jobs 1`` against ``--jobs 2`` with peak memory per
process and in total, and the peak memory of a 200-article input against a 20-article one.

Usage: python benchmarks/bench.py [ARTICLES.jsonl] [--fasthpocr PYTHON]
(default input: the bundled example article). PYTHON is an interpreter with PyPI
``fasthpocr`` installed (``make bench`` builds .venv-bench); without it that row is skipped.
Targets are the ones of issue 15; each row says ok or MISSED.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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
    "cold_startup_s": 10,
    "cache_mib": 100,
    "warm_startup_s": 1.5,
    "full_chars_per_s": 600_000,
    "end_to_end_ratio": 0.8,
    "one_process_mib": 800,
    "jobs2_total_mib": 1300,
}

# In a fresh interpreter, so import and cache-loading costs are really paid. Each stage is
# timed on its own over every article (the stages run in order, as nlp.pipe runs them).
_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from phenorules.core.document import make_article_doc
from phenorules.stages.pipeline import build_pipeline
from phenorules.tasks.patientphex.articles import to_article
from phenorules.tasks.patientphex.io import prediction_line, read_articles
from phenorules.core.annotated import annotated
from phenorules.tasks.patientphex.predict import to_record
nlp = build_pipeline(disable=sys.argv[3:], profile=sys.argv[2])  # patientphex: the shared file is PatientPheX input
startup = time.perf_counter() - t0
startup_cpu = time.process_time()
articles = [to_article(record) for record in read_articles(sys.argv[1])]
chars = sum(len(p.text) for a in articles for p in a.passages)
seconds = {"make_doc": 0.0, **{name: 0.0 for name in nlp.pipe_names}, "records": 0.0}
mentions = 0
for article in articles:
    t = time.perf_counter(); doc = make_article_doc(nlp, article); seconds["make_doc"] += time.perf_counter() - t
    for name, stage in nlp.pipeline:
        t = time.perf_counter(); doc = stage(doc); seconds[name] += time.perf_counter() - t
    t = time.perf_counter(); line = prediction_line(to_record(annotated(article, doc))); seconds["records"] += time.perf_counter() - t
    mentions += line.count('"identifier"')
print(json.dumps({"startup_s": startup, "startup_cpu_s": startup_cpu, "run_s": sum(seconds.values()), "stages": seconds, "chars": chars,
                  "articles": len(articles), "mentions": mentions,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


class TreeMemory(threading.Thread):
    """Peak resident memory of a process and its descendants, sampled from /proc: the
    largest peak RSS (the kernel's high-water mark) of any one process, and the largest sum of PSS (shared pages split between
    the processes that share them: the memory the tree really takes)."""

    def __init__(self, pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_rss = self.peak_total_pss = 0
        self.peak_rss_by_role: dict[str, int] = {}
        self.peak_private_by_role: dict[str, int] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            total = 0
            for pid, role in self._tree():
                rss, pss, private = _memory(pid)
                total += pss
                self.peak_rss = max(self.peak_rss, rss)
                self.peak_rss_by_role[role] = max(self.peak_rss_by_role.get(role, 0), rss)
                self.peak_private_by_role[role] = max(self.peak_private_by_role.get(role, 0), private)
            self.peak_total_pss = max(self.peak_total_pss, total)
            time.sleep(self.interval)

    def _tree(self) -> list[tuple[int, str]]:
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        tree, frontier = [(self.pid, "parent")], [self.pid]
        while frontier:
            children = [pid for pid, parent in parents.items() if parent in frontier]
            tree += [(pid, "worker") for pid in children]
            frontier = children
        return tree

    def stop(self) -> None:
        self.done.set()
        self.join()


def _memory(pid: int) -> tuple[int, int, int]:
    """(peak RSS so far, PSS, private) bytes of a process. The peak is the kernel's
    high-water mark (VmHWM), exact whenever it is sampled; PSS and private memory are what
    the sample sees."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    except (OSError, ValueError):
        return 0, 0, 0
    kib = {name: int(fields.get(name, "0 kB").split()[0]) * 1024 for name in ("Pss", "Private_Clean", "Private_Dirty")}
    peak = int(status.get("VmHWM", "0 kB").split()[0]) * 1024
    return peak, kib["Pss"], kib["Private_Clean"] + kib["Private_Dirty"]


def measured(command: list[str], env: dict, one_core: bool = True) -> dict:
    """Wall time, exit status, output and peak memory of ``command``."""
    pin = ["taskset", "-c", "0"] if one_core and _has("taskset") else []
    started = time.perf_counter()
    process = subprocess.Popen(pin + command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    memory = TreeMemory(process.pid)
    memory.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    memory.stop()
    if process.returncode:
        sys.exit(f"bench: {' '.join(command[:3])} failed: {stderr.strip().splitlines()[-1] if stderr.strip() else process.returncode}")
    return {"wall_s": wall, "stdout": stdout, "peak_rss_mib": memory.peak_rss / MIB, "total_pss_mib": memory.peak_total_pss / MIB,
            "by_role_mib": {role: rss / MIB for role, rss in memory.peak_rss_by_role.items()},
            "private_by_role_mib": {role: size / MIB for role, size in memory.peak_private_by_role.items()}}


def _has(program: str) -> bool:
    return subprocess.run(["sh", "-c", f"command -v {program}"], capture_output=True).returncode == 0


def child_run(articles: str, env: dict, disable: list[str], profile: str = "patientphex") -> dict:
    result = measured([sys.executable, "-c", _CHILD, articles, profile, *disable], env)
    return json.loads(result["stdout"].strip().splitlines()[-1])


def predict_run(articles: str, env: dict, jobs: int, out_dir: str) -> dict:
    out = os.path.join(out_dir, f"pred-{jobs}.jsonl")
    phenorules = str(Path(sys.executable).with_name("phenorules"))
    result = measured([phenorules, "predict", articles, "-o", out, "--jobs", str(jobs), "--quiet"], env, one_core=jobs == 1)
    result["output"] = Path(out).read_bytes()
    return result


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


def fasthpocr_run(python: str, articles: str, env: dict) -> dict:
    """FastHPOCR end to end (its index built beforehand, once per ontology file)."""
    return measured([python, str(FASTHPOCR_RUN), "annotate", str(fasthpocr_index(python)), articles], env)


def scaled_inputs(articles: str, directory: str) -> tuple[str, str]:
    """A 20-article file (the first lines) and a 200-article one (the lines repeated with
    new pmc_ids), for the memory-against-input-size row."""
    lines = [line for line in Path(articles).read_text(encoding="utf-8").splitlines() if line.strip()]
    small, large = os.path.join(directory, "20.jsonl"), os.path.join(directory, "200.jsonl")
    with open(small, "w", encoding="utf-8") as handle:
        for i in range(20):
            record = json.loads(lines[i % len(lines)])
            handle.write(json.dumps({**record, "pmc_id": f"{record['pmc_id']}-{i // len(lines)}"}) + "\n")
    with open(large, "w", encoding="utf-8") as handle:
        for i in range(200):
            record = json.loads(lines[i % len(lines)])
            handle.write(json.dumps({**record, "pmc_id": f"{record['pmc_id']}-{i // len(lines)}"}) + "\n")
    return small, large


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    from phenorules.stages.pipeline import REQUIRED_STAGES, stage_names

    parser = argparse.ArgumentParser()
    parser.add_argument("articles", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--fasthpocr", metavar="PYTHON", default=None)
    options = parser.parse_args()
    articles = options.articles
    if not Path(articles).exists():
        print(f"bench: {articles} not found; measuring the bundled example instead", file=sys.stderr)
        articles = str(EXAMPLE)
    optional = [name for name in stage_names() if name not in REQUIRED_STAGES]
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, PHENORULES_CACHE=cache, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        cold = child_run(articles, env, [])
        cache_mib = sum(path.stat().st_size for path in Path(cache).iterdir()) / MIB
        full = min((child_run(articles, env, []) for _ in range(2)), key=lambda r: r["run_s"])
        core = min((child_run(articles, env, optional) for _ in range(2)), key=lambda r: r["run_s"])
        general = child_run(articles, env, [], "general")
        one = predict_run(articles, env, 1, work)
        two = predict_run(articles, env, 2, work)
        fast = fasthpocr_run(options.fasthpocr, articles, env) if options.fasthpocr else None
        small, large = scaled_inputs(articles, work)
        memory_small = predict_run(small, env, 1, work)
        memory_large = predict_run(large, env, 1, work)

    full_rate, core_rate = full["chars"] / full["run_s"], core["chars"] / core["run_s"]
    general_rate = general["chars"] / general["run_s"]
    stages = ", ".join(f"{name} {seconds:.2f}" for name, seconds in full["stages"].items())
    rows += [
        ("input", f"{articles} ({full['articles']} articles, {full['chars']:,} chars, {full['mentions']:,} mentions)"),
        (
            "start-up, cold cache",
            f"{cold['startup_s']:.2f} s, CPU {cold['startup_cpu_s']:.2f} s (ontology read, lexicon and automata built and cached)"
            f"   target <= {TARGETS['cold_startup_s']} s: {verdict(cold['startup_s'] <= TARGETS['cold_startup_s'])}",
        ),
        ("cache on disk", f"{cache_mib:.0f} MiB   target <= {TARGETS['cache_mib']} MiB: {verdict(cache_mib <= TARGETS['cache_mib'])}"),
        (
            "start-up, warm cache",
            f"{full['startup_s']:.2f} s, CPU {full['startup_cpu_s']:.2f} s   target <= {TARGETS['warm_startup_s']} s: {verdict(full['startup_s'] <= TARGETS['warm_startup_s'])}",
        ),
        ("throughput, full pipeline", f"{full_rate:,.0f} chars/s, one core   target >= {TARGETS['full_chars_per_s']:,}: {verdict(full_rate >= TARGETS['full_chars_per_s'])}"),
        (
            "  with the general profile",
            f"{general_rate:,.0f} chars/s, one core (what text, BioC and the spaCy component get)   target >= {TARGETS['full_chars_per_s']:,}: "
            f"{verdict(general_rate >= TARGETS['full_chars_per_s'])}",
        ),
        ("  seconds per stage", stages),
        (f"throughput, core ({' + '.join(sorted(REQUIRED_STAGES))})", f"{core_rate:,.0f} chars/s, one core"),
        ("end to end, phenorules", f"{one['wall_s']:.2f} s (predict --jobs 1 on one core, warm cache, start-up included)"),
    ]
    if fast:
        ratio = one["wall_s"] / fast["wall_s"]
        rows += [
            ("end to end, FastHPOCR", f"{fast['wall_s']:.2f} s (its index built beforehand; {fast['stdout'].strip()} annotations; peak {fast['peak_rss_mib']:.0f} MiB)"),
            ("phenorules / FastHPOCR", f"{ratio:.2f}   target <= {TARGETS['end_to_end_ratio']}: {verdict(ratio <= TARGETS['end_to_end_ratio'])}"),
        ]
    else:
        rows.append(("end to end, FastHPOCR", "skipped (no --fasthpocr PYTHON; make bench builds .venv-bench)"))
    same = verdict(one["output"] == two["output"]).replace("ok", "same bytes").replace("MISSED", "DIFFERENT BYTES")
    worker, worker_private = two["by_role_mib"].get("worker", 0), two["private_by_role_mib"].get("worker", 0)
    rows += [
        ("predict --jobs 1", f"{one['wall_s']:.2f} s, peak {one['peak_rss_mib']:.0f} MiB   target <= {TARGETS['one_process_mib']} MB: {verdict(one['peak_rss_mib'] * MIB <= TARGETS['one_process_mib'] * 1e6)}"),
        ("predict --jobs 2", f"{two['wall_s']:.2f} s (two cores), {same}; peak RSS parent {two['by_role_mib'].get('parent', 0):.0f} MiB, largest worker {worker:.0f} MiB ({worker_private:.0f} MiB of it its own, the rest shared with the parent)"),
        ("  --jobs 2 in total", f"{two['total_pss_mib']:.0f} MiB (peak sum of PSS: shared pages counted once)   target <= {TARGETS['jobs2_total_mib']} MB: {verdict(two['total_pss_mib'] * MIB <= TARGETS['jobs2_total_mib'] * 1e6)}"),
        ("memory, 20 vs 200 articles", f"{memory_small['peak_rss_mib']:.0f} MiB vs {memory_large['peak_rss_mib']:.0f} MiB peak (predict --jobs 1; {memory_small['wall_s']:.1f} s vs {memory_large['wall_s']:.1f} s)   200 not more than 20 (+2%): {verdict(memory_large['peak_rss_mib'] <= memory_small['peak_rss_mib'] * 1.02)}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
