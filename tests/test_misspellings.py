"""The generated misspelling suite (phenorules/evaluation/misspellings.py) on the full
ontology: its floors, and no mention of the spelling stage on an English word list it does
not read (Webster's Second, web2)."""

from __future__ import annotations

import pytest

from phenorules.evaluation.misspellings import english_hits, misspelling_cases, misspelling_recall
from phenorules.kb.spelling import EDITS

# A wrong letter (but a vowel for a vowel) is read only where no other lexicon word is within two
# edits; a random letter often brings one that near. 0.85 of all is the floor the stage is held to.
FLOORS = {"insertion": 0.9, "deletion": 0.8, "substitution": 0.75, "transposition": 0.9, "all": 0.85}


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


def test_a_misspelt_first_word_of_the_longest_names_gives_the_whole_term(nlp):
    """The window around a misspelt word reaches the end of the longest term it may begin."""
    kb = nlp.get_pipe("spelling").kb
    names = sorted(
        (name for name in kb.ontology.names.values() if name.replace(" ", "").isalpha() and name.split()[0].lower() in kb.spelling.word_set),
        key=lambda name: (-len(name.split()), name),
    )[:20]
    assert len(names[-1].split()) >= 9
    found = 0
    for name in names:
        first = name.split()[0].lower()
        written = first[0] + first[2] + first[1] + first[3:]  # the second and third letters swapped
        if nlp.get_pipe("spelling").reading(written) is None:
            continue
        doc = nlp(f"The patient had {written}{name[len(first):]}.")
        assert [span.text for span in doc.spans["phenotypes"]] == [f"{written}{name[len(first):]}"], name
        found += 1
    assert found >= 10
