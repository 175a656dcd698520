"""How each stage's cost grows with the text: dense and prose articles of 40k, 320k and 2.5 M
characters, the CPU seconds of every stage (the optional ones switched on) and of the
output records, and the ratios 320k/40k and 2.5M/320k (8x the text may cost at most 10x
the time); the peak memory of the patient stage at two text lengths (2x the text may cost
at most 2.5x the memory), on prose and on a case text that calls its patients "they"
throughout; then the time and peak memory of ``phenorules predict`` on one prose article
of 9.9 M characters.

Dense text is HPO term names back to back (", "-joined, one sentence, a mention every few
words); prose repeats the passages of ARTICLES.jsonl (default: the bundled example). Both
have two patients, known by their labels ("Patient 1", "P2"). Times are CPU seconds of
this process (``time.process_time``), which other work on a shared machine changes less
than wall time.

Usage: python benchmarks/scaling.py [ARTICLES.jsonl] [--sizes 40000,320000,2500000]
[--large CHARS] (0: no large article)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from phenorules.core.article import Article, Passage, Patient
from phenorules.core.document import make_article_doc
from phenorules.stages.pipeline import OPTIONAL_STAGES, build_pipeline
from phenorules.tasks.patientphex.articles import to_article
from phenorules.tasks.patientphex.io import prediction_line, read_articles
from phenorules.core.writer import jsonl_line
from phenorules.core.annotated import annotated
from phenorules.tasks.patientphex.predict import evidence_record, to_record

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
SIZES = (40_000, 320_000, 2_500_000)
LARGE = 9_900_000
BOUND = 10  # the most 8x the text may cost, in times the time
MEMORY_BOUND = 2.5  # the most 2x the text may cost the patient stage, in times the memory
MEMORY_SIZES = (250_000, 500_000)
MIB = 1024 * 1024
PATIENTS = (Patient("P1", "1"), Patient("P2", "2"))


def prose_article(passages: list, chars: int):
    """``passages`` (of several articles, in a seeded random order, so that every size reads
    alike text) one after another, repeated up to ``chars`` characters, with two patients
    known by their labels ("Patient 1", "P2")."""
    placed, offset = [], 0
    while offset < chars:
        passage = passages[len(placed) % len(passages)]
        text = passage.text[: chars - offset]
        placed.append(Passage(offset, text, passage.section_type, passage.type))
        offset += len(text) + 1
    return Article("prose", tuple(placed), None, PATIENTS)


def dense_article(names: list[str], chars: int):
    """HPO term names in a seeded random order, ', '-joined, as one case-report passage of
    two patients."""
    rng, parts, length = random.Random(0), [], 0
    while length < chars:
        parts.append(names[rng.randrange(len(names))])
        length += len(parts[-1]) + 2
    text = ", ".join(parts)[:chars]
    return Article("dense", (Passage(0, text, "CASE", "paragraph"),), None, PATIENTS)


def timed(nlp, article) -> dict[str, float]:
    """CPU seconds of making the Doc, of each stage, and of the submission and evidence lines."""
    seconds = {}
    clock = time.process_time()
    doc = make_article_doc(nlp, article)
    seconds["make_doc"], clock = time.process_time() - clock, time.process_time()
    for name, stage in nlp.pipeline:
        doc = stage(doc)
        seconds[name], clock = time.process_time() - clock, time.process_time()
    result = annotated(article, doc)
    prediction_line(to_record(result))
    seconds["records"], clock = time.process_time() - clock, time.process_time()
    jsonl_line(evidence_record(result))
    seconds["evidence"] = time.process_time() - clock
    return seconds


def scaling_rows(kind: str, nlp, make, sizes: tuple[int, ...]) -> list[tuple[str, str]]:
    runs = [timed(nlp, make(size)) for size in sizes]
    totals = [sum(run.values()) for run in runs]
    ratios = [later / max(earlier, 1e-9) for earlier, later in zip(totals, totals[1:])]
    within = all(ratio <= BOUND for ratio in ratios)
    label = lambda size: f"{size / 1e6:g}M" if size >= 1e6 else f"{size // 1000}k"  # noqa: E731
    times = ", ".join(f"{label(size)} {total:.2f} s" for size, total in zip(sizes, totals))
    steps = ", ".join(f"{label(b)}/{label(a)} {ratio:.1f}" for a, b, ratio in zip(sizes, sizes[1:], ratios))
    rows = [(f"scaling, {kind} text", f"{times}; {steps}   target <= {BOUND} per 8x: {'ok' if within else 'MISSED'}")]
    for name in runs[0]:
        stage_ratios = " ".join(f"{b[name] / max(a[name], 1e-3):.1f}" for a, b in zip(runs, runs[1:]))
        rows.append((f"  {name}", " / ".join(f"{run[name]:.2f}" for run in runs) + f" s   (ratios {stage_ratios})"))
    return rows


def told_article(chars: int) -> Article:
    """A case report that names its two patients once, then goes on about "they": every
    sentence a phenotype of both, each "they" continuing the focus of the one before."""
    sentences = ("They had hypotonia.", "Their seizures began at two years.", "They were seen again for ataxia.")
    told = " ".join(sentences[i % len(sentences)] for i in range(chars // 20))
    text = f"Patient 1 and P2 were born at term. {told}"[:chars]
    return Article("told", (Passage(0, text, "CASE", "paragraph"),), None, PATIENTS)


def stage_memory(nlp, article, stage_name: str) -> int:
    """The peak memory (bytes, tracemalloc) the stage ``stage_name`` allocates on ``article``."""
    doc = make_article_doc(nlp, article)
    for name, stage in nlp.pipeline:
        if name == stage_name:
            tracemalloc.start()
            doc = stage(doc)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            return peak
        doc = stage(doc)
    raise ValueError(f"no stage {stage_name}")


def patients_memory_rows(nlp, passages: list) -> list[tuple[str, str]]:
    """The patient stage's peak memory at two text lengths, of a prose and of a case text that
    talks about its patients as "they" throughout."""
    rows = []
    for kind, make in (("prose", lambda size: prose_article(passages, size)), ('"they" throughout', told_article)):
        peaks = [stage_memory(nlp, make(size), "patients") for size in MEMORY_SIZES]
        ratio = peaks[1] / max(peaks[0], 1)
        sizes = " and ".join(f"{size // 1000}k" for size in MEMORY_SIZES)
        figures = ", ".join(f"{peak / MIB:.1f} MiB" for peak in peaks)
        verdict = "ok" if ratio <= MEMORY_BOUND else "MISSED"
        rows.append((f"patients stage memory, {kind}", f"{sizes} chars: {figures}; x{ratio:.2f}   target <= {MEMORY_BOUND} per 2x: {verdict}"))
    return rows


def large_row(passages: list, chars: int) -> tuple[str, str]:
    """``phenorules predict`` on one prose article of ``chars`` characters: wall time and
    the peak resident memory of the process (its own high-water mark)."""
    article = prose_article(passages, chars)
    record = {
        "pmc_id": "large", "pmid": None,
        "patient": [{"patient_id": p.id, "mention": []} for p in article.patients],
        "full_text": [{"section_type": p.section_type, "type": p.type, "offset": p.offset, "text": p.text} for p in article.passages],
    }
    phenorules = str(Path(sys.executable).with_name("phenorules"))
    with tempfile.TemporaryDirectory() as work:
        source, out = os.path.join(work, "large.jsonl"), os.path.join(work, "out.jsonl")
        Path(source).write_text(json.dumps(record) + "\n", encoding="utf-8")
        started = time.perf_counter()
        subprocess.run([phenorules, "predict", source, "-o", out, "--quiet"], check=True)
        wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / MIB
    return (f"predict, one prose article of {chars / 1e6:g} M chars", f"{wall:.1f} s, peak {peak:.0f} MiB (start-up included)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("articles", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--large", type=int, default=LARGE, metavar="CHARS")
    options = parser.parse_args()
    articles = options.articles
    if not Path(articles).exists():
        print(f"scaling: {articles} not found; repeating the bundled example instead", file=sys.stderr)
        articles = str(EXAMPLE)
    sizes = tuple(int(size) for size in options.sizes.split(","))
    nlp = build_pipeline(enable=OPTIONAL_STAGES)  # every stage, the optional ones too
    names = sorted(nlp.get_pipe("match").kb.ontology.names.values())
    passages = [passage for record in read_articles(articles) for passage in to_article(record).passages]
    random.Random(0).shuffle(passages)
    rows = scaling_rows("dense", nlp, lambda size: dense_article(names, size), sizes)
    rows += scaling_rows("prose", nlp, lambda size: prose_article(passages, size), sizes)
    rows += patients_memory_rows(nlp, passages)
    if options.large:
        rows.append(large_row(passages, options.large))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
