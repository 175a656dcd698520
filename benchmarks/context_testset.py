"""ConText's test set (negation, temporality, experiencer) through the assertion stage on given spans, beside medspaCy's ConText.

Usage: PYTHONPATH=. python benchmarks/context_testset.py rsAnnotations-1-120-random.txt
       [--medspacy PYTHON] [--errors ERRORS.tsv]   (make assertions CONTEXT_SET=FILE)

The file (genConText's annotation of the NegEx test set, Chapman et al.; never copied into
this repository) is a TSV without a header: report number, an empty column, the concept,
its sentence (the concept written in upper case), negation (Affirmed, Negated),
temporality (Recent, Historical, and Hypothetical, which the file writes "Not
particular") and experiencer (Patient, or another person: "Other", "Family member").
Each sentence is a Doc of ``spacy.blank("en")`` whose one entity is the concept's span;
``phenorules_context`` (the assertion stage on anyone's spans, general profile settings)
judges it, and medspaCy's ConText with its default rules (run by ``PYTHON``, a venv with
medspacy, through ``benchmarks/medspacy_context_run.py``) judges the same span. Printed:
precision, recall and F1 of each category's flag (negated, hypothetical, historical,
family) over all located concepts, and the uncertain flags each system set (the set has
no such category).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import spacy
from spacy.language import Language

from phenorules.assertion.rules import FLAGS
from phenorules.core.errors import InputError, PhenorulesError
from phenorules.core.files import read_text

sys.path.insert(0, str(Path(__file__).parent))
from assertion_bench import medspacy_flags, table  # noqa: E402  (the same medspaCy run and table as the project's own set)
from negex_testset import locate  # noqa: E402  (the same concept location as the NegEx test set)

SCORED = ("NEGATED_EXISTENCE", "HYPOTHETICAL", "HISTORICAL", "FAMILY")
NEGATION = {"Affirmed": False, "Negated": True}
TEMPORALITY = {"Recent": None, "Historical": "HISTORICAL", "Hypothetical": "HYPOTHETICAL", "Not particular": "HYPOTHETICAL"}


@dataclass(frozen=True)
class Item:
    line: int
    sentence: str
    span: tuple[int, int] | None  # the concept's characters; None: not found in its sentence
    gold: frozenset[str]  # the categories the annotation gives it


def read_testset(path: str) -> list[Item]:
    """The rows; one that is not 7 columns with a known negation and temporality is an
    error naming its line."""
    items = []
    for number, row in enumerate(csv.reader(io.StringIO(read_text(path), newline=""), delimiter="\t"), start=1):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 7:
            raise InputError(f"{path}:{number}: expected 7 tab-separated columns (report, -, concept, sentence, negation, temporality, experiencer), got {len(row)}")
        _, _, concept, sentence, negation, temporality, experiencer = (cell.strip() for cell in row)
        if negation not in NEGATION:
            raise InputError(f"{path}:{number}: unknown negation {negation!r}; expected one of {list(NEGATION)}")
        if temporality not in TEMPORALITY:
            raise InputError(f"{path}:{number}: unknown temporality {temporality!r}; expected one of {list(TEMPORALITY)}")
        gold = {"NEGATED_EXISTENCE"} if NEGATION[negation] else set()
        gold |= {TEMPORALITY[temporality]} - {None}
        gold |= {"FAMILY"} if experiencer != "Patient" else set()
        items.append(Item(number, sentence, locate(concept, sentence), frozenset(gold)))
    return items


def context_pipeline() -> Language:
    """``spacy.blank("en")`` and the assertion stage on its entities."""
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules_context")
    return nlp


def ours(nlp: Language, items: list[Item]) -> list[set[str]]:
    context = nlp.get_pipe("phenorules_context")
    found = []
    for item in items:
        doc = nlp.make_doc(item.sentence)
        doc.ents = [doc.char_span(*item.span, label="CONCEPT", alignment_mode="expand")]
        (span,) = context(doc).ents
        found.append({category for category, flag in FLAGS.items() if span._.get(flag)})
    return found


def medspacy(python: str, items: list[Item]) -> list[set[str]]:
    """medspaCy's verdicts on the same spans."""
    lines = [json.dumps({"text": item.sentence, "spans": [list(item.span)]}) for item in items]
    return [{category for category, flag in FLAGS.items() if spans[0][flag]} for spans in medspacy_flags(python, lines)]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("testset", help="genConText's annotation of the NegEx test set (rsAnnotations-1-120-random.txt)")
    parser.add_argument("--medspacy", help="a Python with medspacy installed (its ConText runs on the same spans)")
    parser.add_argument("--errors", help="write the concepts phenorules gets wrong to this TSV")
    args = parser.parse_args(argv)
    items = read_testset(args.testset)
    located = [item for item in items if item.span is not None]
    systems = [("phenorules", ours(context_pipeline(), located))]
    if args.medspacy:
        systems.append(("medspaCy", medspacy(args.medspacy, located)))
    print(f"{len(items)} concepts, {len(located)} found in their sentence ({args.testset})")
    print(table(SCORED, [set(item.gold) for item in located], systems))
    print("uncertain flags (no such category in the set): " + ", ".join(f"{name} {sum('POSSIBLE_EXISTENCE' in found for found in predicted)}" for name, predicted in systems))
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as out:
            out.write("line\tgold\tphenorules\tsentence\n")
            for item, found in zip(located, systems[0][1]):
                if found & set(SCORED) != item.gold:
                    start, end = item.span
                    marked = f"{item.sentence[:start]}[[{item.sentence[start:end]}]]{item.sentence[end:]}"
                    out.write(f"{item.line}\t{','.join(sorted(item.gold))}\t{','.join(sorted(found))}\t{' '.join(marked.split())}\n")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except PhenorulesError as error:
        print(f"context_testset: {error}", file=sys.stderr)
        sys.exit(2)
