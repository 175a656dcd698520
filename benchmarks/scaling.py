"""How the cost grows with one text's length: the spaCy component (``nlp.add_pipe("phenorules")``
on a blank English pipeline, the general profile) on one text of 0.16, 1.28 and 10.24 M
characters in three shapes — prose, the same prose one word per line, and mention-dense text
without a sentence end (HPO term names back to back, ", "-joined) — the CPU seconds of making
the Doc and of every pipe, and the ratios of each 8x step (at most 10x the time); the peak
memory of the patient stage at two text lengths (2x the text may cost at most 2.5x the
memory), on prose and on a case text that calls its patients "they" throughout; then
``phenorules predict`` on one prose article of 9.9 M characters: its peak memory and its
rate beside the rate of the input's articles.

Prose repeats the passages of ARTICLES.jsonl (default: the bundled example) in a seeded
order. Times are CPU seconds of this process (``time.process_time``), which other work on a
shared machine changes less than wall time.

Usage: python benchmarks/scaling.py [ARTICLES.jsonl] [--sizes 160000,1280000,10240000]
[--large CHARS] (0: no large article)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import spacy
from bench import measured

from phenorules.core.article import Article, Passage, Patient
from phenorules.core.document import make_article_doc
from phenorules.stages.pipeline import build_pipeline
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.io import read_articles

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
SIZES = (160_000, 1_280_000, 10_240_000)
LARGE = 9_900_000
BOUND = 10  # the most 8x the text may cost, in times the time
MEMORY_BOUND = 2.5  # the most 2x the text may cost the patient stage, in times the memory
MEMORY_SIZES = (250_000, 500_000)
LARGE_MIB = 600  # the most the large article may take
LARGE_RATE = 0.8  # the least share of the articles' rate the large article keeps
MIN_SHORT_CHARS = 100_000  # fewer, and the articles' time is mostly the start
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


def dense_text(names: list[str], chars: int) -> str:
    """HPO term names in a seeded random order, ', '-joined: a mention every few words and
    no sentence end."""
    rng, parts, length = random.Random(0), [], 0
    while length < chars:
        parts.append(names[rng.randrange(len(names))])
        length += len(parts[-1]) + 2
    return ", ".join(parts)[:chars]


def prose_text(passages: list, chars: int) -> str:
    """The passages one after another, a blank line between, repeated up to ``chars``."""
    return prose_article(passages, chars).text


def one_word_per_line(passages: list, chars: int) -> str:
    """The prose with every run of spaces a line break: a text a PDF extraction makes."""
    return "\n".join(prose_text(passages, chars).split(" "))


def timed(nlp, text: str) -> dict[str, float]:
    """CPU seconds of making the Doc and of each pipe."""
    seconds = {}
    clock = time.process_time()
    doc = nlp.make_doc(text)
    seconds["make_doc"], clock = time.process_time() - clock, time.process_time()
    for name, pipe in nlp.pipeline:
        doc = pipe(doc)
        seconds[name], clock = time.process_time() - clock, time.process_time()
    return seconds


def scaling_rows(kind: str, nlp, make, sizes: tuple[int, ...]) -> list[tuple[str, str]]:
    timed(nlp, make(sizes[0] // 8))  # what a stage loads on its first call is not the text's cost
    runs = [timed(nlp, make(size)) for size in sizes]
    totals = [sum(run.values()) for run in runs]
    ratios = [later / max(earlier, 1e-9) for earlier, later in zip(totals, totals[1:])]
    steps = [b / a for a, b in zip(sizes, sizes[1:])]
    within = all(ratio <= BOUND * step / 8 for ratio, step in zip(ratios, steps))
    label = lambda size: f"{size / 1e6:g}M" if size >= 1e6 else f"{size // 1000}k"  # noqa: E731
    times = ", ".join(f"{label(size)} {total:.2f} s" for size, total in zip(sizes, totals))
    shown = ", ".join(f"{label(b)}/{label(a)} {ratio:.1f}" for a, b, ratio in zip(sizes, sizes[1:], ratios))
    rows = [(f"component, {kind}", f"{times}; {shown}   target <= {BOUND} per 8x: {'ok' if within else 'MISSED'}")]
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


def predict_row(kind: str, source: str) -> tuple[str, float, float]:
    """``phenorules predict`` on ``source`` in a child process: wall seconds and the child's
    peak resident memory, its high-water mark after exec sampled from /proc (the rusage of a
    child counts the pages it shared with this large process before exec)."""
    phenorules = str(Path(sys.executable).with_name("phenorules"))
    with tempfile.TemporaryDirectory() as work:
        run = measured([phenorules, "predict", source, "-o", os.path.join(work, "out.jsonl"), "--quiet"], dict(os.environ), one_core=False)
    return kind, run["wall_s"], run["peak_rss_mib"]


def large_rows(articles: str, passages: list, chars: int) -> list[tuple[str, str]]:
    """``phenorules predict`` on the input's articles and on one prose article of ``chars``
    characters: the large article's peak memory, and its rate against the articles'."""
    article = prose_article(passages, chars)
    record = {
        "pmc_id": "large", "pmid": None,
        "patient": [{"patient_id": p.id, "mention": []} for p in article.patients],
        "full_text": [{"section_type": p.section_type, "type": p.type, "offset": p.offset, "text": p.text} for p in article.passages],
    }
    short_chars = sum(len(to_article(r).text) for r in read_articles(articles))
    with tempfile.TemporaryDirectory() as work:
        source, empty = os.path.join(work, "large.jsonl"), os.path.join(work, "empty.jsonl")
        Path(source).write_text(json.dumps(record) + "\n", encoding="utf-8")
        Path(empty).write_text(json.dumps({**record, "pmc_id": "empty", "full_text": []}) + "\n", encoding="utf-8")
        predict_row("warm-up", empty)  # the cache's entries made, if this code's are not there yet: the start is a warm one
        _, start, _ = predict_row("start", empty)
        _, short_wall, _ = predict_row("articles", articles)
        _, wall, peak = predict_row("large article", source)
    rate = chars / max(wall - start, 1e-9)
    rows = [(f"predict, one prose article of {chars / 1e6:g} M chars", f"{wall:.1f} s, peak {peak:.0f} MiB   target <= {LARGE_MIB} MB: {'ok' if peak <= LARGE_MIB * 1e6 / MIB else 'MISSED'}")]
    if short_chars < MIN_SHORT_CHARS:
        return rows + [("  its rate against the articles'", f"{rate:,.0f} chars/s; the input's {short_chars:,} chars are too few for a rate of their own")]
    short_rate = short_chars / max(short_wall - start, 1e-9)
    verdict = "ok" if rate >= LARGE_RATE * short_rate else "MISSED"
    return rows + [
        ("  its rate against the articles'", f"{rate:,.0f} against {short_rate:,.0f} chars/s (predict end to end, less a start on an empty article)   target >= {LARGE_RATE:.0%} of it: {verdict}")
    ]


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
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules")
    nlp.max_length = max(sizes) + 1  # spaCy's guard for its parser and NER, which this pipeline has not
    names = sorted(nlp.get_pipe("match").kb.ontology.names.values())
    passages = [passage for record in read_articles(articles) for passage in to_article(record).passages]
    random.Random(0).shuffle(passages)
    rows = scaling_rows("prose", nlp, lambda size: prose_text(passages, size), sizes)
    rows += scaling_rows("prose one word per line", nlp, lambda size: one_word_per_line(passages, size), sizes)
    rows += scaling_rows("mention-dense, no sentence end", nlp, lambda size: dense_text(names, size), sizes)
    rows += patients_memory_rows(build_pipeline(), passages)
    if options.large:
        rows += large_rows(articles, passages, options.large)
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
