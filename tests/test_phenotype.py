"""A mention's phenotype is a tuple of HPO ids in the core (empty: no term fits); the
PatientPheX adapter and the lexicon files write it as ids joined by ';' or '-1'."""

import shutil

from phenorules.core.article import text_article
from phenorules.kb.lexicon import lexicon_file_rows
from phenorules.kb.lexicon.tsv import format_ids, parse_ids
from phenorules.core.phenotype import association_values
from phenorules.stages.pipeline import build_pipeline
from phenorules.kb.resources import data_dir
from phenorules.formats.patientphex.identifiers import parse_identifier, task_identifier
from phenorules.core.phenotype import mention_rows
from phenorules.core.annotated import annotated_articles
from phenorules.formats.patientphex.records import to_record

from conftest import MINI_OBO


def test_lexicon_rows_are_read_as_id_tuples_and_written_back_the_same(tmp_path, mini_ontology):
    path = tmp_path / "extra.tsv"
    path.write_text("wobbly legs\t-1\nlip and palate clefts\tHP:0410030;HP:0000175\nataxic gait\tHP:0001251\n")
    rows = list(lexicon_file_rows(mini_ontology, path))
    assert rows == [
        ("wobbly legs", (), "extra.tsv:1"),
        ("lip and palate clefts", ("HP:0410030", "HP:0000175"), "extra.tsv:2"),
        ("ataxic gait", ("HP:0001251",), "extra.tsv:3"),
    ]
    assert [format_ids(ids) for _, ids, _ in rows] == ["-1", "HP:0410030;HP:0000175", "HP:0001251"]
    assert [parse_ids(format_ids(ids)) for _, ids, _ in rows] == [ids for _, ids, _ in rows]
    assert [mini_ontology.label(ids) for _, ids, _ in rows] == ["no HPO term", "Cleft lip; Cleft palate", "Ataxia"]


def test_the_task_identifier_round_trips_and_drops_a_minus_one_part():
    for ids in [(), ("HP:0001251",), ("HP:0410030", "HP:0000175")]:
        assert parse_identifier(task_identifier(ids)) == ids
    assert task_identifier(()) == "-1"
    assert parse_identifier("HP:0001251;-1") == ("HP:0001251",)
    assert association_values((), "wobbly legs") == ["wobbly legs"]
    assert association_values(("HP:0410030", "HP:0000175"), "x") == ["HP:0410030", "HP:0000175"]
    assert association_values(None, "x") == []


def test_a_mention_no_term_fits_is_unknown_in_the_core_and_minus_one_in_the_task_record(tmp_path):
    lexicons = tmp_path / "lexicons"
    shutil.copytree(data_dir("lexicons"), lexicons)
    with (lexicons / "extra_terms.tsv").open("a") as extra:
        extra.write("wobbly legs\t-1\n")
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False, "lexicon_dir": str(lexicons)})
    (result,) = annotated_articles(nlp, [text_article("T1", "He had wobbly legs and ataxia.")])
    assert [(p.text, p.hpo_ids, p.unknown, p.label) for p in result.phenotypes] == [
        ("wobbly legs", (), True, "no HPO term"),
        ("ataxia", ("HP:0001251",), False, "Ataxia"),
    ]
    record = to_record(result)
    assert [(e["text"], e["identifier"]) for e in record["entities"]] == [("wobbly legs", "-1"), ("ataxia", "HP:0001251")]
    assert [row["hpo_id"] for row in mention_rows(result.article.id, list(result.phenotypes))] == ["-1", "HP:0001251"]
    doc = nlp("He had wobbly legs and ataxia.")
    assert [span.kb_id_ for span in doc.spans["phenotypes"]] == ["NIL", "HP:0001251"]


def test_read_rules_stamps_each_row_with_its_file_line_and_name(tmp_path):
    from phenorules.kb.lexicon.tsv import RuleRef, read_grouped_rules, read_rules

    path = tmp_path / "things.tsv"
    path.write_text("# name\tvalue\n\nfirst\tx\n# a comment\nsecond\ty\n", encoding="utf-8")
    assert [(row, ref) for row, ref in read_rules(path, 2)] == [(["first", "x"], RuleRef("things.tsv", 3, "first")), (["second", "y"], RuleRef("things.tsv", 5, "second"))]
    assert [str(ref) for _, ref in read_rules(path, 2, name_column=1)] == ["things.tsv:3", "things.tsv:5"]
    assert read_grouped_rules(path, ("first", "second")) == {"first": [RuleRef("things.tsv", 3, "x")], "second": [RuleRef("things.tsv", 5, "y")]}
