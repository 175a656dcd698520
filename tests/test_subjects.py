"""A patient's sex and age from the text around its mentions (rules/patient_subjects.tsv),
and the proband of a text that lists no patient; both reach the Phenopackets."""

import json

import pytest
from click.testing import CliRunner

from phenorules.core.article import Article, Passage, Patient
from phenorules.cli import main
from phenorules.core.document import PHENOTYPES, make_article_doc, make_text_doc
from phenorules.core.errors import InputError
from phenorules.patients.mentions import find_people
from phenorules.patients.subjects import SUBJECTS_FILE, find_subjects, read_subject, read_subject_rules
from phenorules.kb.resources import data_dir

from conftest import MINI_OBO


@pytest.fixture(scope="module")
def rules(mini_nlp):
    patients = mini_nlp.get_pipe("patients").rules
    return read_subject_rules(data_dir("rules") / SUBJECTS_FILE), patients


def said(texts, rules):
    subject_rules, patients = rules
    subject = read_subject(texts, subject_rules, patients.cues, patients.number_words)
    return subject.sex, subject.age


@pytest.mark.parametrize(
    "texts, sex, age",
    [
        (["a 7-year-old boy"], "male", (7.0, "year")),
        (["his 4-year-old sister"], "female", (4.0, "year")),
        (["Patient 3, aged 3 years"], None, (3.0, "year")),
        (["a 25-year-old woman"], "female", (25.0, "year")),
        (["a 6-month-old girl"], "female", (6.0, "month")),
        (["the infant, aged 10 days"], None, (10.0, "day")),
        (["a nine-year-old Caucasian girl"], "female", (9.0, "year")),
        (["P1 was 12 years of age"], None, (12.0, "year")),
        (["seizures began at age 5"], None, (5.0, "year")),
        (["a 7-year-old boy", "seizures began at the age of 2 years"], "male", (7.0, "year")),  # an age at an event yields to the age he is
        (["a 3-year-old boy", "the 5-year-old girl"], None, None),  # disagreeing: nothing guessed
        (["P1, a girl"], "female", None),
        (["the patient"], None, None),
    ],
)
def test_sex_and_age_rows(rules, texts, sex, age):
    assert said(texts, rules) == (sex, age)


def test_the_rows_that_found_them_are_named(rules):
    subject_rules, patients = rules
    subject = read_subject(["his 4-year-old sister"], subject_rules, patients.cues, patients.number_words)
    assert subject.sources == ("patient_subjects.tsv:6",) and subject_rules[0].source == "patient_subjects.tsv:6"


def subjects_of(text, patients, rules):
    subject_rules, patient_rules = rules
    people = find_people(text, patients, patient_rules)
    found = find_subjects(text, people, [p.id for p in patients], subject_rules, patient_rules.cues, patient_rules.number_words)
    return {patient_id: (subject.sex, subject.age) for patient_id, subject in found.items()}


def test_a_patient_described_only_in_the_text_gets_its_sex_and_age(rules):
    text = "Patient 1 was a 7-year-old boy with seizures. Patient 2, his 4-year-old sister, had ataxia. Their 35-year-old mother was healthy."
    patients = [Patient("P1", label="1"), Patient("P2", label="2")]
    assert subjects_of(text, patients, rules) == {"P1": ("male", (7.0, "year")), "P2": ("female", (4.0, "year"))}


def test_the_words_after_a_mention_stop_at_the_next_person_or_clause(rules):
    text = "Patient 1 had seizures; a 30-year-old woman was her mother. Patient 2 came with his 40-year-old father."
    patients = [Patient("P1", label="1"), Patient("P2", label="2")]
    assert subjects_of(text, patients, rules) == {"P1": (None, None), "P2": (None, None)}


def test_a_single_patient_takes_its_generic_mentions_but_not_a_relatives(rules):
    text = "A 25-year-old woman presented with ataxia. Her 3-year-old son had seizures."
    assert subjects_of(text, [Patient("proband")], rules) == {"proband": ("female", (25.0, "year"))}


def test_an_unknown_subject_kind_is_a_one_line_error_naming_the_row(tmp_path):
    path = tmp_path / SUBJECTS_FILE
    path.write_text("# name\tkind\tpattern\nolder\tage_now\t(?P<age>\\d+)\n")
    with pytest.raises(InputError, match=r"patient_subjects.tsv, line 2: unknown subject kind 'age_now'"):
        read_subject_rules(path)


# --- the proband of a text that lists no patient --------------------------------------

NOTE = "A 7-year-old boy was seen for seizures and hypotonia. His 4-year-old sister had ataxia. He had no cleft palate."


def test_plain_text_has_one_patient_who_takes_its_phenotypes_but_not_a_relatives(general_nlp):
    doc = general_nlp(make_text_doc(general_nlp, NOTE))
    assert [(span.text, span._.patient) for span in doc.spans[PHENOTYPES]] == [
        ("seizures", ["proband"]),
        ("hypotonia", ["proband"]),
        ("ataxia", []),
        ("cleft palate", ["proband"]),  # negated: an excluded feature, no association
    ]
    assert doc._.associations == {"proband": ["HP:0001250", "HP:0001252"]}
    assert doc._.subjects["proband"] == {"sex": "male", "age": [7.0, "year"], "sources": ["patient_subjects.tsv:6"]}


def test_given_patients_are_not_joined_by_a_proband(mini_nlp):
    article = Article("A1", (Passage(0, NOTE, "CASE"),), patients=(Patient("P1", label="1"),))
    doc = mini_nlp(make_article_doc(mini_nlp, article))
    assert list(doc._.associations) == ["P1"]


def test_plain_text_gives_the_probands_association_and_phenopacket(tmp_path):
    source = tmp_path / "note.txt"
    source.write_text(NOTE)
    directory = tmp_path / "pp"
    result = CliRunner().invoke(main, ["predict", str(source), "--phenopackets", str(directory), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    (record,) = map(json.loads, result.stdout.splitlines())
    assert record["association"] == [{"patient_id": "proband", "phenotype": ["HP:0001250", "HP:0001252"]}]
    (packet,) = [json.loads(path.read_text()) for path in directory.iterdir()]
    assert packet["subject"] == {"id": "note_proband", "sex": "MALE", "timeAtLastEncounter": {"age": {"iso8601duration": "P7Y"}}}
    assert [(f["type"]["id"], f.get("excluded", False)) for f in packet["phenotypicFeatures"]] == [("HP:0001250", False), ("HP:0001252", False), ("HP:0000175", True)]
