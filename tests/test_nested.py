"""The optional nested stage: terms inside a longer mention become mentions of their own."""

from phenorules.core.document import PHENOTYPES
from phenorules.stages.pipeline import build_pipeline

from conftest import MINI_OBO, stage_rules


def mentions(nlp, text):
    doc = nlp(text)
    return [(s.text, s._.hpo_ids, stage_rules(s)[-1]) for s in doc.spans[PHENOTYPES]]


def test_a_term_inside_a_longer_mention_is_a_mention_when_enabled(mini_nlp):
    text = "She had episodic ataxia and optic disc pallor."
    nested = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, enable=["nested"])
    assert [m[:2] for m in mentions(mini_nlp, text)] == [("episodic ataxia", ("HP:0002131",)), ("optic disc pallor", ("HP:0000543",))]
    assert mentions(nested, text) == [
        ("episodic ataxia", ("HP:0002131",), mentions(mini_nlp, text)[0][2]),
        ("ataxia", ("HP:0001251",), "nested"),
        ("optic disc pallor", ("HP:0000543",), mentions(mini_nlp, text)[1][2]),
        ("pallor", ("HP:0000980",), "nested"),
    ]


def test_nested_mentions_are_negated_with_their_outer_mention():
    nested = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, enable=["nested"])
    doc = nested("There was no episodic ataxia.")
    assert [(s.text, s._.negex) for s in doc.spans[PHENOTYPES]] == [("episodic ataxia", True), ("ataxia", True)]
