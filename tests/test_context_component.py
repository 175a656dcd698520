"""phenorules_context: the assertion stage on the spans another component made (doc.ents or a
span group), in a pipeline phenorules did not build."""

import pytest
import spacy
from spacy.tokens import Doc, DocBin, Span

from phenorules.core.errors import SettingError

PATTERNS = [
    {"label": "PROBLEM", "pattern": [{"LOWER": word}]} for word in ("fever", "cough", "rash", "wheezing", "headache", "vomiting", "spleen", "anemia")
] + [{"label": "DRUG", "pattern": [{"LOWER": "ibuprofen"}]}, {"label": "PROBLEM", "pattern": [{"LOWER": "joint"}, {"LOWER": "pain"}, {"LOWER": "other"}, {"LOWER": "than"}, {"LOWER": "stiffness"}]}]


def ner_pipeline(config=None):
    """spacy.blank("en"), an entity ruler as someone's NER, and the component."""
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(PATTERNS)
    nlp.add_pipe("phenorules_context", config=config or {})
    return nlp


def verdicts(doc, spans=None):
    names = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")
    return [(span.text, {name.removeprefix("is_") for name in names if span._.get(name)}) for span in (doc.ents if spans is None else spans)]


def test_the_entities_of_another_component_are_judged_with_their_cues():
    doc = ner_pipeline()("She denies fever, night sweats or cough. Call us if a rash appears. Her father had wheezing. She takes ibuprofen.")
    assert verdicts(doc) == [("fever", {"negated"}), ("cough", {"negated"}), ("rash", {"hypothetical"}), ("wheezing", {"family"}), ("ibuprofen", set())]
    fever = doc.ents[0]
    assert fever._.assertion_cues == [{"category": "NEGATED_EXISTENCE", "text": "denies", "start": 4, "end": 10, "rule": fever._.assertion_cues[0]["rule"]}]
    assert fever._.assertion_cues[0]["rule"].startswith("context_rules.tsv:")
    assert fever._.provenance == [f"context:NEGATED_EXISTENCE:denies:{fever._.assertion_cues[0]['rule']}"]
    assert doc.ents[-1]._.assertion_cues is None and doc.ents[-1]._.provenance is None
    assert [sent.text for sent in doc.sents][:2] == ["She denies fever, night sweats or cough.", "Call us if a rash appears."]


def test_a_span_group_labels_and_categories_are_settings():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("phenorules_context", config={"span_key": "problems", "labels": ["PROBLEM"], "categories": ["NEGATED_EXISTENCE"]})
    doc = nlp.make_doc("No headache. Her mother has anemia and takes ibuprofen.")
    doc.spans["problems"] = [Span(doc, 1, 2, "PROBLEM"), Span(doc, 6, 7, "PROBLEM"), Span(doc, 9, 10, "DRUG")]
    doc = nlp(doc)
    # only negation is judged, and only the PROBLEM spans; doc.ents is left alone
    assert verdicts(doc, doc.spans["problems"]) == [("headache", {"negated"}), ("anemia", set()), ("ibuprofen", set())]
    assert doc.spans["problems"][2]._.provenance is None and not doc.ents


def test_a_cue_inside_an_entity_and_a_post_posed_participle():
    doc = ner_pipeline()("She denied any joint pain other than stiffness. The spleen is not enlarged.")
    # "other than" ends a scope, but not inside the entity; "not enlarged" negates the organ before it
    assert verdicts(doc) == [("joint pain other than stiffness", {"negated"}), ("spleen", {"negated"})]


def test_a_doc_judged_again_gets_the_same_verdicts_and_serialises():
    nlp = ner_pipeline()
    doc = nlp("No vomiting or headache. History of anemia.")
    again = nlp.get_pipe("phenorules_context")(doc)
    assert verdicts(again) == [("vomiting", {"negated"}), ("headache", {"negated"}), ("anemia", {"historical"})]
    assert again.ents[0]._.provenance == [f"context:NEGATED_EXISTENCE:no:{again.ents[0]._.assertion_cues[0]['rule']}"]
    restored = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert verdicts(restored) == verdicts(doc)
    (stored,) = DocBin(store_user_data=True, docs=[doc]).get_docs(nlp.vocab)
    assert verdicts(stored) == verdicts(doc)


def test_a_bad_setting_is_refused_naming_it():
    with pytest.raises(SettingError, match=r"phenorules_context.categories: \['NEGATION'\] is no category"):
        ner_pipeline({"categories": ["NEGATION"]})
    with pytest.raises(SettingError, match=r"phenorules_context.window: expected a positive number of words or null"):
        ner_pipeline({"window": 0})
    with pytest.raises(SettingError, match=r"phenorules_context.off_cues: \['nope'\] is no cue"):
        ner_pipeline({"off_cues": ["nope"]})


def test_the_window_setting_limits_the_reach_as_in_the_patientphex_profile():
    text = "She denies fever, dry and persistent night cough, sore throat, or rash."
    assert [found for _, found in verdicts(ner_pipeline()(text))] == [{"negated"}, {"negated"}, {"negated"}]
    assert [found for _, found in verdicts(ner_pipeline({"window": 3})(text))] == [{"negated"}, set(), set()]
