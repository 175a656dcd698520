"""The generated misspelling suite (phenorules/evaluation/misspellings.py) on the full
ontology: its floors, and no mention of the spelling stage on an English word list it does
not read (Webster's Second, web2)."""

from __future__ import annotations

import pytest

from phenorules.evaluation.misspellings import english_hits, misspelling_cases, misspelling_recall
from phenorules.kb.spelling import EDITS

# A wrong letter (but a vowel for a vowel) is read only where no other lexicon word is within two
# edits; a random letter often brings one that near (0.77 of the 300 names, seed 0).
FLOORS = {"insertion": 0.85, "deletion": 0.65, "substitution": 0.72, "transposition": 0.85, "all": 0.80}


@pytest.fixture(scope="module")
def nlp():
    import spacy

    pipeline = spacy.blank("en")
    pipeline.add_pipe("phenorules")
    return pipeline


def test_generated_misspellings_reach_their_floors(nlp):
    kb = nlp.get_pipe("spelling").kb
    cases = misspelling_cases(kb.ontology, kb.spelling, terms=300, seed=0)
    assert {case.kind for case in cases} == set(EDITS)
    recall = misspelling_recall(nlp, cases)
    for kind, floor in FLOORS.items():
        found, total = recall[kind]
        assert total > 250 if kind != "all" else total > 1000
        assert found / total >= floor, (kind, found, total)


def test_no_english_word_of_another_list_becomes_a_mention(nlp):
    from english_words import get_english_words_set

    checked, read, hits = english_hits(nlp, get_english_words_set(["web2"], lower=True, alpha=True))
    assert checked > 150_000
    assert hits == []
