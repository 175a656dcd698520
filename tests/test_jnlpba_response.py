"""evalscope's XML answer format: what we write is read back, by evalscope's rules, to the same tags."""

import pytest

from phenorules.tasks.jnlpba.response import response_to_tags, to_response

SENTENCES = [
    # adjacent entities of the same type, and of different types
    (["IL-2", "IL-4", "and", "TNF-alpha", "promoter", "."], ["B-PROTEIN", "B-PROTEIN", "O", "B-DNA", "I-DNA", "O"]),
    # nested-looking: a shorter entity's text inside a later, longer one; entities at both ends
    (["IL-2", "binds", "the", "IL-2", "receptor", "alpha", "chain"], ["B-PROTEIN", "O", "O", "B-PROTEIN", "I-PROTEIN", "I-PROTEIN", "I-PROTEIN"]),
    # the same string twice with different types, brackets, and a '<' in the text
    (["IL-2", "gene", "(", "P", "<", "0.05", ")", "vs", "IL-2", "in", "Jurkat", "cells"], ["B-DNA", "I-DNA", "O", "O", "O", "O", "O", "O", "B-PROTEIN", "O", "B-CELL_LINE", "I-CELL_LINE"]),
    # every type, back to back
    (["p50", "mRNA", "c-fos", "HL-60", "monocytes"], ["B-PROTEIN", "B-RNA", "B-DNA", "B-CELL_LINE", "B-CELL_TYPE"]),
    (["no", "entity", "here"], ["O", "O", "O"]),
]


@pytest.mark.parametrize("tokens,tags", SENTENCES)
def test_response_round_trips_to_the_same_tags(tokens, tags):
    assert response_to_tags(to_response(tokens, tags), tokens) == tags


def test_response_form_is_evalscopes():
    tokens, tags = SENTENCES[0]
    assert to_response(tokens, tags) == "<response><protein>IL-2</protein> <protein>IL-4</protein> and <dna>TNF-alpha promoter</dna> .</response>"


def test_mismatched_closing_tag_takes_the_opening_type():
    tokens = ["IL-2", "binds"]
    assert response_to_tags("<response><protein>IL-2</dna> binds</response>", tokens) == ["B-PROTEIN", "O"]


def test_unclosed_tag_runs_to_the_next_tag_or_the_end():
    tokens = ["IL-2", "binds", "DNA"]
    assert response_to_tags("<response>IL-2 binds <dna>DNA</response>", tokens) == ["O", "O", "B-DNA"]


def test_changed_text_falls_back_to_searching_the_entity():
    tokens = ["IL-2", "binds", "NF-kB"]
    assert response_to_tags("Sure: <protein>NF-kB</protein>", tokens) == ["O", "O", "B-PROTEIN"]


def test_unknown_tag_names_are_kept_as_their_own_type():
    assert response_to_tags("<response><gene>IL-2</gene> x</response>", ["IL-2", "x"]) == ["B-gene", "O"]
