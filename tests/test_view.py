"""The HTML view: phenotypes labelled with term, id and patient; negated ones struck through."""

import re

from phenorules.document import PHENOTYPES, make_article_doc
from phenorules.tasks.patientphex.articles import to_article
from phenorules.view import NEGATED_STYLE, PATIENT_COLOURS, render_page

ARTICLE = to_article({
    "pmc_id": "T<1>",
    "pmid": None,
    "patient": [{"patient_id": "P1", "mention": []}, {"patient_id": "P2", "mention": []}],
    "full_text": [
        {"section_type": "TITLE", "type": "front", "offset": 0, "text": "Cleft palate & seizures"},
        {"section_type": "CASE", "type": "paragraph", "offset": 24, "text": "He had microcephaly and no oedema."},
        {"section_type": "CASE", "type": "paragraph", "offset": 59, "text": "His sister had short stature."},
    ],
})


def annotated(nlp):
    """The Doc as the later stages would leave it: one negation, patients on two spans."""
    doc = nlp(make_article_doc(nlp, ARTICLE))
    spans = {span.text: span for span in doc.spans[PHENOTYPES]}
    spans["oedema"]._.negex = True
    spans["microcephaly"]._.patient = ["P1"]
    spans["short stature"]._.patient = "P2"
    return doc


def mark(html, text):
    """The displaCy box around ``text``."""
    return re.search(r'<mark class="entity"[^>]*>(?:(?!</mark>).)*?>' + re.escape(text) + r"<(?:(?!</mark>).)*</mark>", html, re.S).group()


def test_each_phenotype_shows_term_id_and_patient(mini_nlp):
    html = render_page([annotated(mini_nlp)], "test")
    box = mark(html, "microcephaly")
    assert f"background: {PATIENT_COLOURS[0]}" in box
    assert "Microcephaly" in box and 'href="https://hpo.jax.org/browse/term/HP:0000252">HP:0000252</a>' in box
    assert ">P1</span>" in box
    assert f"background: {PATIENT_COLOURS[1]}" in mark(html, "short stature") and ">P2</span>" in mark(html, "short stature")


def test_negated_phenotypes_are_struck_through(mini_nlp):
    html = render_page([annotated(mini_nlp)], "test")
    assert f'<span style="{NEGATED_STYLE}">oedema</span>' in mark(html, "oedema")
    assert NEGATED_STYLE not in mark(html, "microcephaly")


def test_sections_head_their_passages_and_text_is_escaped(mini_nlp):
    html = render_page([annotated(mini_nlp)], "test")
    assert "<h1>T&lt;1&gt;</h1>" in html
    assert [title for title in re.findall(r"<h2[^>]*>(\w+)</h2>", html)] == ["TITLE", "CASE"]
    assert "Cleft palate</span>" in mark(html, "Cleft palate") and " &amp; " in html


def test_the_same_doc_gives_the_same_bytes(mini_nlp):
    assert render_page([annotated(mini_nlp)], "test") == render_page([annotated(mini_nlp)], "test")
