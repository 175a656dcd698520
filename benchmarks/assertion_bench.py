"""The assertion stage on a hand-written assertion test set, beside medspaCy's ConText.

Usage: PYTHONPATH=. python benchmarks/assertion_bench.py [benchmarks/data/assertions.tsv]
       [--medspacy PYTHON] [--errors ERRORS.tsv]   (make assertions)

Each row of the set (category, sentence with its mention written [[like this]]) goes
through the pipeline's stages before the assertion stage; the mentions found there that
overlap the gold mention give way to one mention on exactly its span. The assertion stage
judges those spans, and medspaCy's ConText with its default rules (Harkema et al. 2009;
run by ``PYTHON``, a venv with medspacy, through ``benchmarks/medspacy_context_run.py``)
judges the very same spans, so only assertion is compared. Printed: precision, recall and
F1 of each category's flag over all rows (a row of another category flagged counts as a
false positive), and of "affirmed" (no flag at all).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from phenorules.assertion.rules import CATEGORIES, FLAGS
from phenorules.core.document import make_text_doc, working
from phenorules.core.phenotype import Phenotype
from phenorules.core.errors import InputError, PhenorulesError
from phenorules.kb.lexicon.tsv import read_tsv
from phenorules.stages.pipeline import build_pipeline

AFFIRMED = "AFFIRMED"
LABELS = (*CATEGORIES, AFFIRMED)
DEFAULT_SET = Path(__file__).parent / "data" / "assertions.tsv"
MEDSPACY_RUNNER = Path(__file__).with_name("medspacy_context_run.py")


@dataclass(frozen=True)
class Item:
    line: int
    category: str
    text: str
    span: tuple[int, int]


def read_set(path: Path) -> list[Item]:
    """The rows: a known category and exactly one [[mention]] ("\\n" in a sentence is a line break)."""
    items = []
    for row, line in read_tsv(path, 2):
        category, marked = row[0], row[1].replace("\\n", "\n")
        if category not in LABELS:
            raise InputError(f"{path}:{line}: unknown category {category!r}; expected one of {list(LABELS)}")
        start, end = marked.find("[["), marked.find("]]")
        if start < 0 or end < start or marked.count("[[") != 1 or marked.count("]]") != 1:
            raise InputError(f"{path}:{line}: expected one mention written [[like this]]")
        text = marked.replace("[[", "").replace("]]", "")
        items.append(Item(line, category, text, (start, end - 2)))
    return items


def spans_doc(nlp: Language, item: Item) -> Doc:
    """The sentence after the stages before assertion, the gold mention forced in (widened
    to whole tokens)."""
    doc = make_text_doc(nlp, item.text)
    for name in nlp.pipe_names[: nlp.pipe_names.index("assertion")]:
        doc = nlp.get_pipe(name)(doc)
    state = working(doc)
    start, end = gold_offsets(doc, item)
    others = [m for m in state.mentions if m.end <= start or m.start >= end]
    state.mentions = sorted([*others, Phenotype(start, end, state.text[start:end], (), "")], key=lambda m: (m.start, m.end))
    return doc


def labels(flags: dict[str, bool]) -> set[str]:
    found = {category for category in CATEGORIES if flags[FLAGS[category]]}
    return found or {AFFIRMED}


def ours(nlp: Language, docs: list[Doc], items: list[Item]) -> list[set[str]]:
    assertion = nlp.get_pipe("assertion")
    out = []
    for doc, item in zip(docs, items):
        mention = next(m for m in working(assertion(doc)).mentions if (m.start, m.end) == gold_offsets(doc, item))
        out.append(labels({flag: mention.flagged(flag) for flag in FLAGS.values()}))
    return out


def gold_offsets(doc: Doc, item: Item) -> tuple[int, int]:
    span = doc.char_span(*item.span, alignment_mode="expand")
    return span.start_char, span.end_char


def medspacy(python: str, docs: list[Doc], items: list[Item]) -> list[set[str]]:
    """medspaCy's verdicts on the same spans (every mention of each doc, the gold one among them)."""
    lines, targets = [], []
    for doc, item in zip(docs, items):
        spans = [(m.start, m.end) for m in working(doc).mentions]
        targets.append(spans.index(gold_offsets(doc, item)))
        lines.append(json.dumps({"text": doc.text, "spans": spans}))
    return [labels(flags[target]) for flags, target in zip(medspacy_flags(python, lines), targets)]


def medspacy_flags(python: str, lines: list[str]) -> list[list[dict[str, bool]]]:
    """The five flags medspaCy's ConText gives each span of each JSON line {"text", "spans"},
    run by ``python`` (a venv with medspacy) through ``medspacy_context_run.py``."""
    with tempfile.TemporaryDirectory() as folder:  # not this repository: its entry points would load phenorules
        done = subprocess.run(
            [str(Path(python).absolute()), "-P", str(MEDSPACY_RUNNER.resolve())], input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=folder, check=False
        )
    if done.returncode:
        raise InputError(f"medspaCy run failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    return [json.loads(line) for line in done.stdout.splitlines()]


def prf(gold: list[set[str]], predicted: list[set[str]], label: str) -> tuple[int, int, int, float, float, float]:
    """Counts, precision, recall and F1 of one label over all rows (each row's gold labels
    and predicted labels)."""
    tp = sum(label in wanted and label in found for wanted, found in zip(gold, predicted))
    fp = sum(label not in wanted and label in found for wanted, found in zip(gold, predicted))
    fn = sum(label in wanted and label not in found for wanted, found in zip(gold, predicted))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return tp, fp, fn, precision, recall, f1


def table(labels_shown: tuple[str, ...], gold: list[set[str]], systems: list[tuple[str, list[set[str]]]]) -> str:
    """A Markdown row per label: its gold count and each system's precision, recall and F1."""
    header = "| category | n | " + " | ".join(f"{name} P | {name} R | {name} F1" for name, _ in systems) + " |"
    lines = [header, "|---|---:|" + "---:|" * (3 * len(systems))]
    for label in labels_shown:
        cells = []
        for _, predicted in systems:
            tp, fp, fn, p, r, f = prf(gold, predicted, label)
            cells += [f"{p:.4f} ({tp}/{tp + fp})", f"{r:.4f} ({tp}/{tp + fn})", f"{f:.4f}"]
        lines.append(f"| {label} | {sum(label in wanted for wanted in gold)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("testset", nargs="?", default=str(DEFAULT_SET), help="category<TAB>sentence with its [[mention]]")
    parser.add_argument("--medspacy", help="a Python with medspacy installed (its ConText runs on the same spans)")
    parser.add_argument("--errors", help="write the rows phenorules gets wrong to this TSV")
    args = parser.parse_args(argv)
    items = read_set(Path(args.testset))
    nlp = build_pipeline()
    docs = [spans_doc(nlp, item) for item in items]
    systems = [("phenorules", ours(nlp, docs, items))]
    if args.medspacy:
        systems.append(("medspaCy", medspacy(args.medspacy, docs, items)))
    sentences = len({item.text for item in items})
    print(f"{len(items)} mentions in {sentences} sentences ({args.testset})")
    print(table(LABELS, [{item.category} for item in items], systems))
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as out:
            out.write("line\tgold\tphenorules\tsentence\n")
            for item, found in zip(items, systems[0][1]):
                if found != {item.category}:
                    start, end = item.span
                    marked = f"{item.text[:start]}[[{item.text[start:end]}]]{item.text[end:]}"
                    out.write(f"{item.line}\t{item.category}\t{','.join(sorted(found))}\t{' '.join(marked.split())}\n")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except PhenorulesError as error:
        print(f"assertion_bench: {error}", file=sys.stderr)
        sys.exit(2)
