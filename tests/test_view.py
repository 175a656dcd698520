"""The HTML view (``annotate --html``): each phenotype a whole box with term, ids, patient
and flags; a legend of what occurs; a table of contents with each article's counts; the
PMID beside the id; every field of the input text or a quoted attribute value, never
markup (parsed here, and run in headless Chromium)."""

import json
import re

import pytest

from phenorules.core.annotated import annotated_articles
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.view import FLAGS, PATIENT_COLOURS, article_view, mention_flags, render_page
from chromium import HOSTILE, Elements, chromium_driver, injected

RECORD = {
    "pmc_id": "T<1>",
    "pmid": "31000001",
    "patient": [{"patient_id": "P1", "mention": []}, {"patient_id": "P2", "mention": []}],
    "full_text": [
        {"section_type": "TITLE", "type": "front", "offset": 0, "text": "Cleft palate & seizures"},
        {"section_type": "CASE", "type": "paragraph", "offset": 24, "text": "He had microcephaly and no oedema."},
        {"section_type": "CASE", "type": "paragraph", "offset": 59, "text": "His sister had short stature."},
    ],
}


def result_view(nlp, record=RECORD):
    """The article's view as the later stages would leave it: one negation by "no",
    patients on two mentions."""
    (result,) = annotated_articles(nlp, [to_article(record)])
    mentions = {mention.text: mention for mention in result.phenotypes}
    mentions["oedema"].flag("is_negated")
    mentions["oedema"].cues = [{"category": "NEGATED_EXISTENCE", "text": "no", "start": 0, "end": 2, "rule": "context_rules.tsv:85"}]
    mentions["microcephaly"].patients = ["P1"]
    mentions["short stature"].patients = ["P2"]
    return article_view(result)


def mark(html, text):
    """The box whose text is ``text``."""
    return re.search(r'<mark [^>]*><span class="text">' + re.escape(text) + r"</span>.*?</mark>", html).group()


def test_each_phenotype_shows_term_id_and_patient(mini_nlp):
    html = render_page([result_view(mini_nlp)], "test")
    box = mark(html, "microcephaly")
    assert box.startswith('<mark class="p0"') and ".p0 { --colour: %s; }" % PATIENT_COLOURS[0] in html
    assert "Microcephaly" in box and '<a href="https://hpo.jax.org/browse/term/HP:0000252">HP:0000252</a>' in box
    assert '<span class="patient">P1</span>' in box
    assert mark(html, "short stature").startswith('<mark class="p1 flag-family"') and '<span class="patient">P2</span>' in mark(html, "short stature")
    assert mark(html, "seizures").startswith('<mark class="none"')


def test_negated_phenotypes_show_the_flag_and_its_cue(mini_nlp):
    html = render_page([result_view(mini_nlp)], "test")
    assert mark(html, "oedema").startswith('<mark class="none flag-negated"')
    assert '<span class="flag">negated “no”</span>' in mark(html, "oedema")
    assert "flag-negated" not in mark(html, "microcephaly") and 'class="flag"' not in mark(html, "microcephaly")
    assert ".flag-negated .text" in html  # its look: struck through


def test_a_flag_is_a_field_and_the_cue_of_its_category():
    cues = [{"category": "FAMILY", "text": "Her father", "start": 0, "end": 10, "rule": "r:1"}, {"category": "NEGATED_EXISTENCE", "text": "was ruled out", "start": 20, "end": 33, "rule": "r:2"}]
    row = {"negated": True, "family": True, "uncertain": False, "assertion_cues": cues}
    assert mention_flags(row) == [{"field": "negated", "cue": "was ruled out"}, {"field": "family", "cue": "Her father"}]
    assert mention_flags({"negated": True}) == [{"field": "negated", "cue": ""}]
    assert mention_flags({"negated": False, "assertion_cues": cues[1:]}) == []
    assert [flag.field for flag in FLAGS] == ["negated", "uncertain", "hypothetical", "historical", "family"]


def test_sections_head_their_passages_and_text_is_escaped(mini_nlp):
    html = render_page([result_view(mini_nlp)], "test")
    assert re.search(r"<h2>T&lt;1&gt;<span", html)
    assert re.findall(r"<h3>(\w+)</h3>", html) == ["TITLE", "CASE"]
    assert '<span class="text">Cleft palate</span>' in mark(html, "Cleft palate") and " &amp; " in html


def test_the_header_shows_the_pmid(mini_nlp):
    html = render_page([result_view(mini_nlp)], "test")
    assert '<span class="pmid">PMID <a href="https://pubmed.ncbi.nlm.nih.gov/31000001/">31000001</a></span>' in html


def test_the_legend_lists_only_what_occurs(mini_nlp):
    html = render_page([result_view(mini_nlp)], "test")
    legend = re.search(r'<p class="legend">(.*?)</p>', html).group(1)
    assert re.findall(r">([^<]+)</span>", legend) == ["P1", "P2", "no patient", "negated", "family"]
    plain = {**RECORD, "patient": [{"patient_id": "P1", "mention": []}, {"patient_id": "P3", "mention": []}]}
    view = result_view(mini_nlp, plain)
    for mention in view["mentions"]:
        mention["patients"], mention["negated"], mention["flags"] = ["P1"], False, []
    legend = re.search(r'<p class="legend">(.*?)</p>', render_page([view], "test")).group(1)
    assert re.findall(r">([^<]+)</span>", legend) == ["P1"]  # not P3, no patient, several or negated


def test_several_articles_get_a_table_of_contents_with_counts(mini_nlp, general_nlp):
    second = {**RECORD, "pmc_id": "T2", "pmid": None, "patient": []}  # a text of the general profile: about its proband
    html = render_page([result_view(mini_nlp), result_view(general_nlp, second)], "test")
    contents = re.search(r'<table class="contents" id="contents">.*?</table>', html, re.S).group()
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr><td>.*?</tr>", contents)]
    assert rows == [
        ['<a href="#article-1">T&lt;1&gt;</a>', "31000001", "5", "P1 (1), P2 (1)", "1", "0", "0", "0", "1"],  # negated ... family
        ['<a href="#article-2">T2</a>', "", "5", "P1 (1), proband (1), P2 (1)", "1", "0", "0", "0", "1"],  # no patients given: the text's proband
    ]
    assert re.findall(r'<article id="(article-\d)">', html) == ["article-1", "article-2"]


def test_the_same_doc_gives_the_same_bytes(mini_nlp):
    assert render_page([result_view(mini_nlp)], "test") == render_page([result_view(mini_nlp)], "test")


# --- hostile fields ------------------------------------------------------------------


def every_field(value: str) -> dict:
    """An article view with ``value`` in every field a page shows: ids, PMID, section,
    passage type, patient ids, text, label, HPO ids, provenance and the cue."""
    text = f"{value} had seizures {value}."
    start = len(value) + 5
    row = {
        "article": value, "start": start, "end": start + 8, "text": "seizures", "hpo_id": f"HP:0001250;{value}", "label": value,
        "negated": True, "patients": [value, value + "2"], "provenance": [value, "context:NEGATED_EXISTENCE:" + value],
        "assertion_cues": [{"category": "NEGATED_EXISTENCE", "text": value, "start": 0, "end": 1, "rule": value}],
    }
    return {
        "id": value, "pmid": value, "text": text, "patients": [value],
        "passages": [{"start": 0, "end": len(text), "section_type": value, "type": value}],
        "mentions": [{**row, "flags": mention_flags(row)}, {**row, "negated": False, "patients": [value], "flags": []}],
    }


def test_hostile_strings_in_every_field_stay_text():
    """The page with markup in every field has the elements and attributes of the page
    with plain words there, and shows the markup as text."""
    plain, hostile = Elements(render_page([every_field("x")], "x")), Elements(render_page([every_field(HOSTILE)], HOSTILE))
    assert hostile.tags == plain.tags
    assert not [name for _, name, _ in hostile.attributes if name.startswith("on")]
    assert {value.split(":")[0] for tag, name, value in hostile.attributes if name == "href" and not value.startswith("#")} == {"https"}
    assert "".join(hostile.text).count(HOSTILE) >= 8  # title, h1, contents, h2, PMID, section, text, label, patient, cue
    assert "49" not in "".join(hostile.text)  # {{ 7*7 }} is not evaluated


def test_hostile_input_file_stays_text(mini_nlp):
    """Through the reader and the pipeline: markup in section_type, type, pmc_id, pmid,
    patient ids and passage text."""
    record = {
        "pmc_id": HOSTILE, "pmid": HOSTILE, "patient": [{"patient_id": HOSTILE, "mention": []}],
        "full_text": [{"section_type": HOSTILE, "type": HOSTILE, "offset": 0, "text": f"He had seizures. {HOSTILE} No microcephaly."}],
    }
    article = to_article(record)
    (result,) = annotated_articles(mini_nlp, [article])
    view = article_view(result)
    assert [m["text"] for m in view["mentions"]] == ["seizures", "microcephaly"]
    allowed = set(Elements(render_page([every_field("x")], "x")).tags)
    assert set(Elements(render_page([view], HOSTILE)).tags) <= allowed


@pytest.mark.parametrize("width", [1280, 560])
def test_in_chromium_nothing_injected_runs_and_boxes_stay_whole(mini_nlp, tmp_path, width):
    from selenium.webdriver.common.by import By

    hostile = tmp_path / "hostile.html"
    hostile.write_text(render_page([every_field(HOSTILE)], "view"), encoding="utf-8")
    example = tmp_path / "example.html"
    example.write_text(render_page([result_view(mini_nlp), every_field("a longer phenotype mention label")], "view"), encoding="utf-8")
    driver = chromium_driver(tmp_path, tmp_path / "profile", width=width, height=900)
    try:
        driver.get(hostile.as_uri())
        for box in driver.find_elements(By.TAG_NAME, "mark"):
            driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))", box)
        assert injected(driver) == [] and driver.title == "view"
        driver.get(example.as_uri())
        boxes = driver.find_elements(By.TAG_NAME, "mark")
        assert len(boxes) == 6  # of the two mentions of one span, one box
        assert [len(driver.execute_script("return arguments[0].getClientRects()", box)) for box in boxes] == [1] * 6
    finally:
        driver.quit()


def test_annotate_html_of_a_hostile_file_has_no_injected_markup(tmp_path):
    """``phenorules annotate X.jsonl --html``: a section_type (and every other field) with
    markup gives no element, attribute or handler of its own."""
    from click.testing import CliRunner

    from phenorules.cli import main
    from conftest import MINI_OBO

    record = {
        "pmc_id": "PMC1", "pmid": HOSTILE, "patient": [{"patient_id": HOSTILE, "mention": []}],
        "full_text": [
            {"section_type": HOSTILE, "type": HOSTILE, "offset": 0, "text": f"He had seizures. {HOSTILE}"},
            {"section_type": "CASE", "type": "paragraph", "offset": 500, "text": "No microcephaly."},
        ],
    }
    source, page = tmp_path / "x.jsonl", tmp_path / "view.html"
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["annotate", str(source), "--html", str(page), "--quiet", "--hpo", MINI_OBO])
    assert result.exit_code == 0, result.output
    elements = Elements(page.read_text(encoding="utf-8"))
    assert not {"img", "svg", "script"} & {tag for tag, _ in elements.tags}
    assert not [name for _, name, _ in elements.attributes if name.startswith("on")]
    assert HOSTILE in "".join(elements.text)
