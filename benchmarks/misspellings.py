"""Recall on generated misspellings of term names, and hits on an English word list
(phenorules/evaluation/misspellings.py).

    python benchmarks/misspellings.py [--hpo hp.obo] [--terms 500] [--seed 0] [--missed N]

Draws ``--terms`` names of the phenotype branch that hold a lexicon word of at least seven
letters and misspells that word once per edit kind; runs ``spacy.blank("en")`` with
``nlp.add_pipe("phenorules")`` on each sentence and its control and prints, per edit kind,
the cases whose term is found among those whose control is found. Then the words of
Webster's Second International (web2, the english-words package: a list the stage does not
read) of at least six letters (a seven-letter word with one dropped) that are no lexicon word, "It was WORD.", and the mentions
the spelling stage made of them.
"""

from __future__ import annotations

import argparse

import spacy

from phenorules.evaluation.misspellings import english_hits, misspelling_cases, misspelling_recall
from phenorules.kb.spelling import MIN_WRITTEN
from phenorules.kb.ontology import default_obo_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hpo", default=None)
    parser.add_argument("--terms", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--missed", type=int, default=0, help="print the first N cases missed")
    args = parser.parse_args()
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": args.hpo or str(default_obo_path())})
    kb = nlp.get_pipe("spelling").kb
    cases = misspelling_cases(kb.ontology, kb.spelling, args.terms, args.seed)
    print(f"{'edit':<15}{'found':>7}{'cases':>7}{'recall':>9}")
    for kind, (found, total) in misspelling_recall(nlp, cases).items():
        print(f"{kind:<15}{found:>7}{total:>7}{found / total:>9.4f}")
    if args.missed:
        from phenorules.evaluation.phrasing import found_ids

        missed = [case for case, ids in zip(cases, found_ids(nlp, (c.text for c in cases))) if case.hpo_id not in ids]
        for case in missed[: args.missed]:
            print(f"    missed ({case.kind}): {case.text}  {case.hpo_id}")
    from english_words import get_english_words_set

    checked, read, hits = english_hits(nlp, get_english_words_set(["web2"], lower=True, alpha=True))
    print(f"web2: {checked} words of {MIN_WRITTEN} letters or more that are no lexicon word; read as misspelt: {len(read)} ({', '.join(read)}); mentions made: {len(hits)} ({', '.join(hits)})")


if __name__ == "__main__":
    main()
