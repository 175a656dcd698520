"""The assertion stage's negation on the NegEx test set (Chapman et al. 2001): text the rules were not fitted to.

Usage: PYTHONPATH=. python benchmarks/negex_testset.py Annotations-1-120.txt [--errors ERRORS.tsv]

The file (from the NegEx repository; never copied into this one) is a TSV with a header
row: report number, concept, sentence, status (Affirmed, Negated or Possible); the concept
is written in upper case inside its sentence. Each sentence is run through the pipeline's
stages up to the assertion stage; the phenotype mentions found there that overlap the
concept give way to one mention on exactly the concept's span, and the assertion stage
says whether it is negated. negspacy's plain ``Negex`` with its default clinical termset
runs on the same spans for reference. Printed: precision, recall and F1 of "Negated"
(Possible counts as not negated and is reported apart), overall and by the family of the
nearest cue phrase (``benchmarks/negex_cue_families.tsv``). ``--errors`` writes every
disagreement with the gold status, one per line.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from negspacy.negation import Negex
from negspacy.termsets import termset
from spacy.language import Language
from spacy.tokens import Doc

from phenorules.core.document import PHENOTYPES, make_text_doc, phenotype_spans, working
from phenorules.core.phenotype import Phenotype
from phenorules.core.errors import InputError, PhenorulesError
from phenorules.core.files import read_text
from phenorules.kb.lexicon.tsv import read_tsv
from phenorules.stages.pipeline import build_pipeline

STATUSES = ("Affirmed", "Negated", "Possible")
FAMILIES_FILE = Path(__file__).with_name("negex_cue_families.tsv")


@dataclass(frozen=True)
class Item:
    line: int
    concept: str
    sentence: str
    status: str
    span: tuple[int, int] | None  # the concept's characters in the sentence; None: not found


def read_testset(path: str) -> list[Item]:
    """The test set's rows after the header; a row that is not (report, concept, sentence,
    status) with a known status is an error naming its line."""
    rows = list(csv.reader(io.StringIO(read_text(path), newline=""), delimiter="\t"))
    items = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 4:
            raise InputError(f"{path}:{number}: expected 4 tab-separated columns (report, concept, sentence, status), got {len(row)}")
        _, concept, sentence, status = (cell.strip() for cell in row)
        if status not in STATUSES:
            raise InputError(f"{path}:{number}: unknown status {status!r}; expected one of {list(STATUSES)}")
        items.append(Item(number, concept, sentence, status, locate(concept, sentence)))
    return items


def locate(concept: str, sentence: str) -> tuple[int, int] | None:
    """(start, end) of the concept in its sentence: its first upper-case occurrence (any
    white space between words), else its first occurrence in any case."""
    words = concept.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word.upper()) for word in words)
    found = re.search(pattern, sentence) or re.search(pattern, sentence, re.IGNORECASE)
    return found.span() if found else None


def read_families(path: Path) -> re.Pattern:
    """One regex whose named groups are the cue families, phrases longest first."""
    phrases = sorted(((row[1].lower(), row[0]) for row, _ in read_tsv(path, 2)), key=lambda pair: -len(pair[0]))
    families = list(dict.fromkeys(family for _, family in phrases))
    alternatives = []
    for family in families:
        inner = "|".join(re.escape(phrase).replace(r"\ ", r"\s+") for phrase, name in phrases if name == family)
        alternatives.append((max(len(p) for p, name in phrases if name == family), rf"(?P<{family}>\b(?:{inner})\b)"))
    # The longest phrase of any family first, so that "no evidence of" wins over "no".
    return re.compile("|".join(regex for _, regex in sorted(alternatives, key=lambda pair: -pair[0])), re.IGNORECASE)


def cue_family(families: re.Pattern, item: Item) -> str:
    """The family of the nearest cue phrase before the concept, else after it, else "none"."""
    if item.span is None:
        return "none"
    start, end = item.span
    before = [m for m in families.finditer(item.sentence, 0, start)]
    if before:
        return before[-1].lastgroup
    after = families.search(item.sentence, end)
    return after.lastgroup if after else "none"


def concept_doc(nlp: Language, item: Item, stages: list[str]) -> Doc:
    """The sentence after ``stages``, its phenotype mentions overlapping the concept
    replaced by one mention on the concept's span (widened to whole tokens)."""
    doc = make_text_doc(nlp, item.sentence)
    for name in stages:
        doc = nlp.get_pipe(name)(doc)
    state = working(doc)
    concept = doc.char_span(*item.span, alignment_mode="expand")
    start, end = concept.start_char, concept.end_char
    others = [m for m in state.mentions if m.end <= start or m.start >= end]
    state.mentions = sorted([*others, Phenotype(start, end, state.text[start:end], (), "")], key=lambda m: (m.start, m.end))
    return doc


def concept_mention(doc: Doc, item: Item) -> Phenotype:
    start, end = item.span
    return next(m for m in working(doc).mentions if m.start <= start and m.end >= end)


def concept_span(doc: Doc, item: Item):
    start, end = item.span
    return next(span for span in doc.spans[PHENOTYPES] if span.start_char <= start and span.end_char >= end)


def verdicts(nlp: Language, items: list[Item]) -> tuple[list[bool], list[bool], list[str]]:
    """Per located item: negated by our stage, by plain negspacy, and our firing cue."""
    before = nlp.pipe_names[: nlp.pipe_names.index("assertion")]
    assertion = nlp.get_pipe("assertion")
    reference = Negex(nlp, "negex_reference", neg_termset=termset("en_clinical").get_patterns(), span_keys=[PHENOTYPES])
    ours, plain, cues = [], [], []
    for item in items:
        doc = concept_doc(nlp, item, before)
        mention = concept_mention(assertion(doc), item)
        ours.append(mention.negated)
        cues.append(next((p for p in reversed(mention.provenance) if p.startswith("context:NEGATED_EXISTENCE:")), "") if mention.negated else "")
        bare = concept_doc(nlp, item, ["sentences"])
        phenotype_spans(bare)
        plain.append(bool(concept_span(reference(bare), item)._.negex))
    return ours, plain, cues


def prf(gold: list[bool], predicted: list[bool]) -> tuple[int, int, int, float, float, float]:
    tp = sum(g and p for g, p in zip(gold, predicted))
    fp = sum(p and not g for g, p in zip(gold, predicted))
    fn = sum(g and not p for g, p in zip(gold, predicted))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return tp, fp, fn, precision, recall, f1


def table(items: list[Item], ours: list[bool], plain: list[bool], families: list[str]) -> str:
    """Markdown table: rows overall and per cue family, columns ours and plain negspacy."""
    gold = [item.status == "Negated" for item in items]
    lines = [
        "| family | n | negated | ours P | ours R | ours F1 | negspacy P | negspacy R | negspacy F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups = [("all", list(range(len(items))))]
    for family in sorted(set(families)):
        groups.append((family, [i for i, name in enumerate(families) if name == family]))
    for name, rows in groups:
        g = [gold[i] for i in rows]
        cells = []
        for predicted in (ours, plain):
            tp, fp, fn, p, r, f = prf(g, [predicted[i] for i in rows])
            cells += [f"{p:.4f} ({tp}/{tp + fp})", f"{r:.4f} ({tp}/{tp + fn})", f"{f:.4f}"]
        lines.append(f"| {name} | {len(rows)} | {sum(g)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("testset", help="the NegEx test set TSV (Annotations-1-120.txt)")
    parser.add_argument("--errors", help="write the disagreements with the gold status to this TSV")
    args = parser.parse_args(argv)
    items = read_testset(args.testset)
    located = [item for item in items if item.span is not None]
    pattern = read_families(FAMILIES_FILE)
    families = [cue_family(pattern, item) for item in located]
    ours, plain, cues = verdicts(build_pipeline(), located)
    print(f"{len(items)} sentences, {len(located)} with the concept found in its sentence ({len(items) - len(located)} left out)")
    print(table(located, ours, plain, families))
    possible = [i for i, item in enumerate(located) if item.status == "Possible"]
    print(f"Possible: {len(possible)}, predicted negated by ours {sum(ours[i] for i in possible)}, by negspacy {sum(plain[i] for i in possible)}")
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as out:
            out.write("line\tgold\tours\tnegspacy\tfamily\tcue\tsentence\n")
            for item, mine, theirs, family, cue in zip(located, ours, plain, families, cues):
                if mine != (item.status == "Negated"):
                    start, end = item.span
                    marked = f"{item.sentence[:start]}[[{item.sentence[start:end]}]]{item.sentence[end:]}"
                    out.write(f"{item.line}\t{item.status}\t{int(mine)}\t{int(theirs)}\t{family}\t{cue}\t{' '.join(marked.split())}\n")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except PhenorulesError as error:
        print(f"negex_testset: {error}", file=sys.stderr)
        sys.exit(2)
