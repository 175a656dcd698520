"""A mention starts and ends on grapheme boundaries: never on a combining mark, never
between a letter and its marks, with phenorules' tokenizer and with spaCy's blank English
one, whatever marks stand before, inside or after a term."""

from __future__ import annotations

import unicodedata

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc

from conftest import MINI_OBO

ACUTE, DIAERESIS, ENCLOSING_CIRCLE, DEVANAGARI_SIGN = "\u0301", "\u0308", "\u20dd", "\u0903"  # Mn, Mn, Me, Mc


def is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


@pytest.fixture(scope="module")
def blank_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": MINI_OBO, "kb": {"use_cache": False}})
    return nlp


def ours(nlp, text: str):
    return nlp(make_text_doc(nlp, text))


def mentions(doc) -> list[tuple[str, int, int, tuple[str, ...]]]:
    return [(span.text, span.start_char, span.end_char, span._.hpo_ids) for span in doc.spans[PHENOTYPES]]


def assert_on_graphemes(doc) -> None:
    text = doc.text
    for span in [*doc.spans[PHENOTYPES], *doc.spans.get("phenotype_terms", []), *doc.ents]:
        assert not is_mark(text[span.start_char]), (text, span.text)
        assert span.end_char == len(text) or not is_mark(text[span.end_char]), (text, span.text)


@pytest.mark.parametrize(
    "text, found",
    [
        (f"({ACUTE}hypotonia)", [("hypotonia", 2, 11, ("HP:0001252",))]),  # spaCy's prefix rule leaves the mark of "(" on the word
        (f"a {ACUTE}hypotonia", [("hypotonia", 3, 12, ("HP:0001252",))]),
        (f"{ACUTE}hypotonia", [("hypotonia", 1, 10, ("HP:0001252",))]),
        (f"hypo{ACUTE}tonia", [(f"hypo{ACUTE}tonia", 0, 10, ("HP:0001252",))]),  # as "hypótonia" is
        (f"hypotonia{ACUTE}{DIAERESIS} and ataxia", [(f"hypotonia{ACUTE}{DIAERESIS}", 0, 11, ("HP:0001252",)), ("ataxia", 16, 22, ("HP:0001251",))]),
        (f"cleft lip and palate{ENCLOSING_CIRCLE}.", [(f"cleft lip and palate{ENCLOSING_CIRCLE}", 0, 21, ("HP:0410030", "HP:0000175"))]),
        (f"x{ACUTE}hypotonia", []),  # one word
    ],
)
def test_phenorules_tokens_keep_a_letter_with_its_marks(general_nlp, text, found):
    doc = ours(general_nlp, text)
    assert mentions(doc) == found
    assert_on_graphemes(doc)


@pytest.mark.parametrize(
    "text, found",
    [
        (f"({ACUTE}hypotonia)", [(f"({ACUTE}hypotonia", 0, 11, ("HP:0001252",))]),  # the tokens hold the "(" with its mark
        (f"a {ACUTE}hypotonia", []),  # the one token begins on the mark
        (f"{ACUTE}hypotonia", []),
        (f"hypo{ACUTE}tonia", [(f"hypo{ACUTE}tonia", 0, 10, ("HP:0001252",))]),
        (f"hypotonia{ACUTE}, ataxia{DEVANAGARI_SIGN}", [(f"hypotonia{ACUTE}", 0, 10, ("HP:0001252",)), (f"ataxia{DEVANAGARI_SIGN}", 12, 19, ("HP:0001251",))]),
    ],
)
def test_spacys_tokens_never_make_a_span_begin_on_a_mark(blank_nlp, text, found):
    doc = blank_nlp(text)
    assert mentions(doc) == found
    assert_on_graphemes(doc)


MARKS = st.text(st.characters(categories=["Mn", "Mc", "Me"]), max_size=3)


@settings(deadline=None)
@given(
    before=st.sampled_from(["", "She had ", "(", "She had (", "x-", "1. "]),
    term=st.sampled_from(["hypotonia", "cleft palate", "ataxia"]),
    marks=st.tuples(MARKS, MARKS, MARKS),
    inside=st.integers(min_value=1, max_value=5),
    after=st.sampled_from(["", ".", " and seizures.", ")"]),
)
def test_marks_around_and_inside_a_term_never_cut_a_grapheme(general_nlp, blank_nlp, before, term, marks, inside, after):
    """With phenorules' tokenizer the term is found from its first letter to the last mark
    of its last letter; with spaCy's, wherever a span is found, it is on graphemes."""
    leading, within, trailing = marks
    written = term[:inside] + within + term[inside:] + trailing
    text = before + leading + written + after
    doc = ours(general_nlp, text)
    assert_on_graphemes(doc)
    start = len(before + leading)
    assert (start, start + len(written)) in [(span.start_char, span.end_char) for span in doc.spans[PHENOTYPES]]
    assert_on_graphemes(blank_nlp(text))
