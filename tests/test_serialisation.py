"""A processed Doc survives every way spaCy hands Docs on: ``nlp.pipe(n_process=2)``,
``Doc.to_bytes``/``from_bytes`` and ``DocBin(store_user_data=True)``, with every entity,
span and extension value as serial processing gives it (types included: msgpack makes a
tuple a list, DocBin a list a tuple, and writes no Span). The spaCy component with the
full default ontology, on texts with coordinations, short forms, patients and every
assertion."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc, DocBin, Span

from phenorules.core.article import Article, Passage, Patient
from phenorules.component import PHENOTYPE_TERMS
from phenorules.core.document import DOC_EXTENSIONS, PHENOTYPES, SPAN_EXTENSIONS, make_article_doc
from phenorules.core.phenotype import ASSERTION_FLAGS

TEXTS = [
    "A 7-year-old boy had cleft lip and palate and short 4th and 5th toes. The ears were low-set and posteriorly rotated.",
    "Developmental delay (DD) was noted. DD was evident by 9 months. There was no evidence of seizures. Hypothyroidism is "
    "suspected but not confirmed. Return if fever occurs. She had a history of asthma. Her mother has ataxia. "
    "She has neurofibromatosis type 1.",
    "The nasal bridge was flat and broad. There were no atrial or ventricular septal defects.",
]
CASE = "Patient 1 had hypotonia and no atrial or ventricular septal defects. Patient 2, her brother, had microcephaly and brachydactyly."


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules")
    return nlp


def inputs(nlp) -> list[Doc]:
    article = Article("case-1", (Passage(0, CASE, "CASE"),), patients=(Patient("P1", label="1"), Patient("P2", label="2")))
    return [nlp.make_doc(text) for text in TEXTS] + [make_article_doc(nlp, article)]


def _value(value) -> object:
    """An extension value as compared: a Span by its extent, label and kb_id; anything
    else by repr, which tells a tuple from a list."""
    if isinstance(value, Span):
        return ("Span", value.start_char, value.end_char, value.label_, value.kb_id_)
    return repr(value)


def everything(doc: Doc) -> dict:
    spans = {
        group: [(span.start_char, span.end_char, span.label_, span.kb_id_, [(name, _value(span._.get(name))) for name in SPAN_EXTENSIONS]) for span in doc.spans[group]]
        for group in (PHENOTYPES, PHENOTYPE_TERMS)
    }
    return {
        "text": doc.text,
        "ents": [(ent.start_char, ent.end_char, ent.label_, ent.kb_id_) for ent in doc.ents],
        **spans,
        "doc": [(name, _value(doc._.get(name))) for name in DOC_EXTENSIONS],
    }


@pytest.fixture(scope="module")
def serial(nlp) -> list[dict]:
    return [everything(doc) for doc in nlp.pipe(inputs(nlp))]


def test_the_texts_hold_what_the_round_trips_must_keep(nlp):
    docs = list(nlp.pipe(inputs(nlp)))
    spans = [span for doc in docs for span in doc.spans[PHENOTYPES]]
    assert {flag for span in spans for flag in ASSERTION_FLAGS if span._.get(flag)} == set(ASSERTION_FLAGS)
    assert sum(span._.parts is not None for span in spans) >= 5  # coordinations, the predicative ones too
    assert any("abbreviation" in step for span in spans for step in span._.provenance)
    assert any(doc._.dropped for doc in docs)
    assert docs[-1]._.associations["P2"] and docs[-1]._.subjects


def test_processes_give_what_serial_processing_gives(nlp, serial):
    assert [everything(doc) for doc in nlp.pipe(inputs(nlp), n_process=2)] == serial


def test_a_doc_s_bytes_give_it_back(nlp, serial):
    docs = list(nlp.pipe(inputs(nlp)))
    assert [everything(Doc(nlp.vocab).from_bytes(doc.to_bytes())) for doc in docs] == serial


def test_a_docbin_with_user_data_gives_the_docs_back(nlp, serial):
    stored = DocBin(store_user_data=True, docs=nlp.pipe(inputs(nlp))).to_bytes()
    assert [everything(doc) for doc in DocBin().from_bytes(stored).get_docs(nlp.vocab)] == serial


def test_every_term_span_and_mention_has_a_tuple_of_ids_and_their_label(nlp):
    """A term of a coordination at an extent of its own ('ears were low-set' of the
    predicative 'ears were low-set and posteriorly rotated') has its own ids and label."""
    ontology = nlp.get_pipe("match").kb.ontology
    for doc in nlp.pipe(inputs(nlp)):
        for span in [*doc.spans[PHENOTYPES], *doc.spans[PHENOTYPE_TERMS]]:
            assert type(span._.hpo_ids) is tuple and span._.hpo_label == ontology.label(span._.hpo_ids), span.text
            assert span.kb_id_ in span._.hpo_ids
    doc = nlp("The ears were low-set and posteriorly rotated.")
    terms = {(span.text, span.kb_id_): span._.hpo_ids for span in doc.spans[PHENOTYPE_TERMS]}
    assert terms == {
        ("ears were low-set", "HP:0000369"): ("HP:0000369",),
        ("ears were low-set and posteriorly rotated", "HP:0000358"): ("HP:0000369", "HP:0000358"),
    }
