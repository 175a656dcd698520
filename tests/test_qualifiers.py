import pytest

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.stages.qualifiers import read_qualifiers

from conftest import MINI_OBO, hpo_mentions, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier


def mentions(nlp, text):
    doc = nlp(make_text_doc(nlp, text, section_type="CASE"))
    return [(span.text, task_identifier(span._.hpo_ids), stage_rules(span)[-1]) for span in doc.spans[PHENOTYPES]]


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


def _table(tmp_path, rows: str):
    table = tmp_path / "qualifiers.tsv"
    table.write_text(rows, encoding="utf-8")
    return table


@pytest.mark.parametrize(
    "rows, message",
    [
        ("# comment\nrecurrent\tepisodic\nrecurrent\tepisodic\n", r"qualifiers.tsv:3: 'recurrent' = 'episodic' is listed twice"),
        ("recurrent\tepisodic\nsince birth\tcongenital\tbehind\n", r"qualifiers.tsv:2: unknown position 'behind'; expected one of \['before', 'after'\]"),
    ],
)
def test_a_bad_qualifier_row_is_refused_naming_its_line(tmp_path, rows, message):
    with pytest.raises(InputError, match=message):
        read_qualifiers(_table(tmp_path, rows))


def _pipeline_with_qualifiers(tmp_path, rows: str):
    table = _table(tmp_path, rows)
    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"qualifiers": {"qualifiers_file": str(table)}})


def test_a_post_posed_qualifier_makes_the_longer_term_ending_after_it(tmp_path):
    nlp = _pipeline_with_qualifiers(tmp_path, "recurrent\tepisodic\nin episodes\tepisodic\tafter\n")
    assert mentions(nlp, "She had ataxia in episodes since infancy.") == [("ataxia in episodes", "HP:0002131", "qualifier:qualifiers.tsv:2")]
    # written before the head it is not read: the row says where the article writes it
    assert [m[:2] for m in mentions(nlp, "She had in episodes ataxia.")] == [("ataxia", "HP:0001251")]


def test_a_post_posed_qualifier_that_makes_no_other_term_stays_out_of_the_span(tmp_path):
    nlp = _pipeline_with_qualifiers(tmp_path, "in episodes\tepisodic\tafter\n")
    assert [m[:2] for m in mentions(nlp, "He had hypotonia in episodes.")] == [("hypotonia", "HP:0001252")]


def test_a_side_of_the_body_makes_the_one_sided_term(hpo_general_nlp):
    text = "Since infancy she had right-sided weakness, and weakness on the left side followed. Her left sided ptosis persisted."
    assert hpo_mentions(hpo_general_nlp, text) == [
        ("right-sided weakness", ("HP:0001269",)),  # Hemiparesis: 'Weakness of one side of body'
        ("weakness on the left side", ("HP:0001269",)),
        ("left sided ptosis", ("HP:0007687",)),  # Unilateral ptosis
    ]


def test_a_hyphenated_qualifier_row_is_one_qualifier_with_its_spaced_form(tmp_path):
    table = read_qualifiers(_table(tmp_path, "left-sided\tunilateral\nleft sided\tunilateral\nearly-onset\tearly-onset\n"))
    assert [(key, [form for form, _ in q.readings]) for key, q in table["before"].items()] == [("left sided", ["unilateral"]), ("early onset", ["early-onset"])]
