import pytest

from phenorules.document import PHENOTYPES, make_text_doc
from phenorules.errors import InputError
from phenorules.pipeline import build_pipeline
from phenorules.stages.qualifiers import read_qualifiers

from conftest import MINI_OBO


def mentions(nlp, text):
    doc = nlp(make_text_doc(nlp, text, section_type="CASE"))
    return [(span.text, span._.hpo_id, span._.provenance[-1]) for span in doc.spans[PHENOTYPES]]


def test_a_qualifier_read_through_its_equivalent_makes_the_longer_more_specific_term(mini_nlp):
    ((text, hpo_id, rule),) = mentions(mini_nlp, "She had recurrent ataxia.")
    assert (text, hpo_id) == ("recurrent ataxia", "HP:0002131")
    assert rule.startswith("qualifier:qualifiers.tsv:")


def test_a_qualifier_as_written_counts_too(mini_nlp):
    assert mentions(mini_nlp, "She had episodic ataxia.")[0][:2] == ("episodic ataxia", "HP:0002131")


def test_a_qualifier_that_makes_no_other_term_stays_out_of_the_span(mini_nlp):
    assert [m[:2] for m in mentions(mini_nlp, "He had mild hypotonia and recurrent seizures.")] == [("hypotonia", "HP:0001252"), ("seizures", "HP:0001250")]


def test_switching_the_stage_off_keeps_the_head():
    nlp = build_pipeline(hpo=MINI_OBO, disable=["qualifiers"], kb={"use_cache": False})
    assert "qualifiers" not in nlp.pipe_names
    assert [m[:2] for m in mentions(nlp, "She had recurrent ataxia.")] == [("ataxia", "HP:0001251")]


def test_an_anatomical_qualifier_reads_as_the_label_s_site_and_more_specific_only_refuses_a_sibling():
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False})
    assert [m[:2] for m in mentions(nlp, "Fundoscopy showed optic nerve pallor.")] == [("optic nerve pallor", "HP:0000543")]
    strict = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"qualifiers": {"more_specific_only": True}})
    assert [m[:2] for m in mentions(strict, "Fundoscopy showed optic nerve pallor.")] == [("pallor", "HP:0000980")]
    assert [m[:2] for m in mentions(strict, "She had recurrent ataxia.")] == [("recurrent ataxia", "HP:0002131")]


def test_a_qualifier_listed_twice_with_one_reading_is_refused(tmp_path):
    table = tmp_path / "qualifiers.tsv"
    table.write_text("# comment\nrecurrent\tepisodic\nrecurrent\tepisodic\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"qualifiers.tsv:3: 'recurrent' = 'episodic' is listed twice"):
        read_qualifiers(table)
