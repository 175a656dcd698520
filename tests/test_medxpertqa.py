"""MedXpertQA: the measurement stage, question profiles, the scorer, both input layouts,
evalscope's prompt and response form, and the evaluate command, on hand-written
questions, a hand-written ontology and hand-written disease annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.formats.patientphex.identifiers import task_identifier

FIXTURES = Path(__file__).parent / "fixtures" / "medxpertqa"
OBO = str(FIXTURES / "hp.obo")
HPOA = str(FIXTURES / "phenotype.hpoa")
GENES = str(FIXTURES / "genes_to_phenotype.txt")
KNOWLEDGE_FILES = ["--hpo", OBO, "--annotations", HPOA, "--genes", GENES]
QUESTIONS = str(FIXTURES / "questions.jsonl")


@pytest.fixture(scope="module")
def nlp():
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(hpo=OBO, kb={"use_cache": False}, enable=("measurements",))


@pytest.fixture(scope="module")
def knowledge(nlp):
    from phenorules.tasks.medxpertqa.answer import pipeline_ontology
    from phenorules.tasks.medxpertqa.knowledge import load_knowledge

    return load_knowledge(pipeline_ontology(nlp), HPOA, GENES)


def findings(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [(span.text, task_identifier(span._.hpo_ids), span._.provenance[0]) for span in doc.spans[PHENOTYPES]]


# --- measurement stage -----------------------------------------------------------------


def test_measurements_outside_the_range_become_findings(nlp):
    found = findings(nlp, "Her temperature is 102°F (38.9°C), pulse is 110/min and platelets 40,000/µL.")
    assert [(text, hpo_id) for text, hpo_id, _ in found] == [
        ("temperature is 102°F", "HP:0001945"),
        ("pulse is 110/min", "HP:0001649"),
        ("platelets 40,000/µL", "HP:0001873"),
    ]
    assert found[0][2].startswith("rules/measurements.tsv:") and found[0][2].endswith(":temperature:above")


def test_normal_values_thresholds_and_pairs(nlp):
    assert findings(nlp, "Pulse is 80/min and temperature 37.0°C.") == []
    assert findings(nlp, "Treat when potassium < 3.5 mEq/L or when HbA1c is lower than 6.5%.") == []
    # a pair is one finding even when both numbers are out of range
    assert [f[1] for f in findings(nlp, "Blood pressure is 165/100 mmHg.")] == ["HP:0000822"]
    assert [f[1] for f in findings(nlp, "Serum K+ 2.9 mEq/L, Mg 1.2 mg/dL.")] == ["HP:0002900"]
    # "×10⁹/L" and "x 10^9/L" are one unit
    assert [f[1] for f in findings(nlp, "platelet count 40 ×10⁹/L")] == ["HP:0001873"]


def test_a_unit_in_brackets_after_the_name_is_a_table_heading(nlp):
    table = "| Platelet count (/mm3) | 40,000 | 150,000–450,000 |\n| Potassium (mEq/L): 4.1 |\n| BP (mm Hg) | 165/100 |"
    assert [(text, hpo_id) for text, hpo_id, _ in findings(nlp, table)] == [
        ("Platelet count (/mm3) | 40,000", "HP:0001873"),
        ("BP (mm Hg) | 165/100", "HP:0000822"),
    ]
    # a number followed by a unit of its own is not the heading's
    assert findings(nlp, "Platelet count (/mm3) 40 mg") == []


def test_a_named_finding_is_not_repeated_by_its_measurement(nlp):
    found = findings(nlp, "He had tachycardia; pulse was 130/min.")
    assert [(text, hpo_id) for text, hpo_id, _ in found] == [("tachycardia", "HP:0001649")]


def test_measurement_stage_can_be_switched_off():
    from phenorules.stages.pipeline import build_pipeline

    off = build_pipeline(hpo=OBO, disable=["measurements"], kb={"use_cache": False})
    assert "measurements" not in off.pipe_names
    assert findings(off, "Her temperature is 102°F.") == []


def test_bad_measurement_rows_name_the_line(tmp_path):
    from phenorules.stages.measurements import read_measurement_rules

    path = tmp_path / "measurements.tsv"
    path.write_text("pulse\tpulse\tmiddle\t/min\t60\t100\tHP:0001662\tHP:0001649\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"measurements.tsv:1: part 'middle'"):
        read_measurement_rules(path, {"HP:0001649"})
    path.write_text("pulse\tpulse\tvalue\t/min\tslow\t100\tHP:0001662\tHP:0001649\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"measurements.tsv:1: range bound 'slow'"):
        read_measurement_rules(path, {"HP:0001649"})


# --- input layouts ---------------------------------------------------------------------


def test_both_layouts_read_alike():
    from phenorules.tasks.medxpertqa.io import read_questions

    authors, evalscope = read_questions(QUESTIONS)
    assert authors.label == "B" and evalscope.label == "C"
    assert authors.options[1] == ("B", "Alpha fever syndrome")
    assert evalscope.options[2] == ("C", "Drug three")
    assert "Answer Choices" not in authors.stem and authors.stem.endswith("most likely diagnosis?")
    assert authors.groups == {"medical_task": "Diagnosis", "body_system": "Integumentary", "question_type": "Reasoning"}


@pytest.mark.parametrize(
    "record, message",
    [
        ({"id": "Q", "question": "q", "options": {"A": "x", "B": "y"}, "label": "C"}, "label: 'C' is not one of the options"),
        ({"id": "Q", "question": "q", "options": [{"letter": "A"}], "label": "A"}, r"options\[0\]"),
        ({"id": "Q", "question": "", "options": {"A": "x", "B": "y"}}, "question: expected a non-empty string"),
        ({"id": "Q", "question": "q", "options": {"A": "x", "B": "y"}, "label": ["A", "B"]}, "label: expected one letter"),
    ],
)
def test_bad_questions_name_the_line(tmp_path, record, message):
    from phenorules.tasks.medxpertqa.io import read_questions

    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"q.jsonl, line 1: {message}"):
        read_questions(str(path))


# --- profiles and scorer ---------------------------------------------------------------


def test_profile_has_present_excluded_and_option_knowledge(nlp, knowledge):
    from phenorules.tasks.medxpertqa.io import read_questions
    from phenorules.tasks.medxpertqa.profile import profile_record, question_profile

    profile = question_profile(nlp, knowledge, read_questions(QUESTIONS)[0])
    assert profile.present == {"HP:0001945", "HP:0001649", "HP:0000988"}  # fever and tachycardia from numbers
    assert profile.excluded == {"HP:0001250"}  # "no seizures"
    options = {o.letter: o for o in profile.options}
    assert options["B"].terms == {"HP:0001945", "HP:0001649", "HP:0000988"}  # the disease's annotations
    # "Beta bleeding disease" is the stem of both subtypes
    assert [ids for _, ids in options["C"].diseases] == [("OMIM:100002", "OMIM:100003")]
    assert not options["D"].speaks
    record = profile_record(profile, knowledge)
    assert "HP:0025142" in record["present_ancestors"]  # Constitutional symptom, above Fever
    assert record["excluded"] == [{"hpo_id": "HP:0001250", "label": "Seizure"}]


def test_disease_names_answer_to_their_stems_inversions_and_subtype_groups():
    from phenorules.tasks.medxpertqa.knowledge import name_keys, normalize

    assert normalize("Wilson's disease") == "wilson disease"  # possessive dropped
    assert normalize("Type III hyperlipoproteinemia") == "type 3 hyperlipoproteinemia"
    assert normalize("Glycogen storage disease Ia") == "glycogen storage disease 1a"
    assert normalize("I saw vitamin C") == "i saw vitamin c"  # a pronoun and a letter are no numerals
    assert name_keys("Teratoma, ovarian") == {"teratoma ovarian", "ovarian teratoma", "teratoma"}
    assert "type 3 hyperlipoproteinemia" in name_keys("Hyperlipoproteinemia, type III")
    assert {"glycogen storage disease 1", "glycogen storage disease type 1"} <= name_keys("Glycogen storage disease Ia")


def test_one_word_stems_name_a_family_that_is_no_hpo_term(tmp_path, knowledge):
    from phenorules.tasks.medxpertqa.knowledge import build_knowledge

    header = (Path(HPOA).read_text(encoding="utf-8").splitlines())[2]
    rows = [
        ("OMIM:1", "Zetaosis, type 1"),
        ("OMIM:2", "Zetaosis, type 2"),
        ("OMIM:3", "Kappaish, genital and ear anomalies"),
        ("OMIM:4", "Hypertension, essential"),
        ("OMIM:5", "Hypertension, pulmonary"),
    ]
    lines = [header] + [f"{d}\t{name}\t\tHP:0001873\tPMID:1\tPCS\t\t\t\t\tP\tHPO:test" for d, name in rows]
    path = tmp_path / "families.hpoa"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = build_knowledge(knowledge.ontology, str(path), GENES)
    assert built.diseases_named_in("Zetaosis") == [("zetaosis", ("OMIM:1", "OMIM:2"))]  # a family of two
    assert built.diseases_named_in("Kappaish") == []  # one disease's stem before a list
    assert built.diseases_named_in("Hypertension") == []  # an HPO term: the disease-like term speaks
    assert built.diseases_named_in("Essential hypertension") == [("essential hypertension", ("OMIM:4",))]


def test_information_content_comes_from_the_annotations(knowledge):
    import math

    # four diseases; Thrombocytopenia annotates two of them, the nervous system one
    assert knowledge.information_content["HP:0001873"] == pytest.approx(math.log(2))
    assert knowledge.information_content["HP:0000707"] == pytest.approx(math.log(4))
    assert "HP:0001250" not in knowledge.annotations["OMIM:100001"]  # a NOT annotation is left out


def test_resnik_and_query_similarity(knowledge):
    from phenorules.tasks.medxpertqa.knowledge import closure
    from phenorules.tasks.medxpertqa.phenomizer import query_similarity, resnik

    ic = knowledge.information_content
    assert resnik(knowledge, "HP:0001250", "HP:0002315") == pytest.approx(ic["HP:0000707"])  # common parent
    assert resnik(knowledge, "HP:0001250", "HP:0001873") == 0.0  # only the root in common
    profile = closure(knowledge, frozenset({"HP:0001873"}))
    assert query_similarity(knowledge, frozenset({"HP:0001873"}), profile) == pytest.approx(ic["HP:0001873"])
    # asymmetric: the query's unmatched term counts, the profile's extra terms do not
    both = frozenset({"HP:0001873", "HP:0001250"})
    assert query_similarity(knowledge, both, profile) == pytest.approx(ic["HP:0001873"] / 2)
    assert query_similarity(knowledge, frozenset({"HP:0001873"}), closure(knowledge, both)) == pytest.approx(ic["HP:0001873"])


def test_z_score_uses_the_exact_moments_of_all_random_queries(knowledge):
    import itertools
    import statistics

    from phenorules.tasks.medxpertqa.knowledge import closure
    from phenorules.tasks.medxpertqa.phenomizer import query_similarity, z_score

    population = [h for h, lineage in knowledge.lineage.items() if "HP:0000118" in lineage and h != "HP:0000118"]
    profile = frozenset({"HP:0001873", "HP:0001903"})
    query = frozenset({"HP:0001873", "HP:0001250"})
    # every two-term query of the hand-written ontology, enumerated
    null = [query_similarity(knowledge, frozenset(pair), closure(knowledge, profile)) for pair in itertools.combinations(population, 2)]
    expected = (query_similarity(knowledge, query, closure(knowledge, profile)) - statistics.fmean(null)) / statistics.pstdev(null)
    assert z_score(knowledge, query, profile) == pytest.approx(expected)
    # a profile that holds the query beats one as large that does not
    assert z_score(knowledge, query, profile) > z_score(knowledge, query, frozenset({"HP:0000988", "HP:0001649"}))


def test_simgic_is_the_ic_weighted_jaccard_index_of_the_closures(knowledge):
    from phenorules.tasks.medxpertqa.simgic import similarity

    ic = knowledge.information_content
    thrombocytopenia, anemia, blood = "HP:0001873", "HP:0001903", "HP:0001871"
    assert similarity(knowledge, frozenset({thrombocytopenia}), frozenset({thrombocytopenia})) == pytest.approx(1.0)
    # closures share Abnormality of blood (and the IC-0 roots); the union holds all three
    expected = ic[blood] / (ic[thrombocytopenia] + ic[anemia] + ic[blood])
    assert similarity(knowledge, frozenset({thrombocytopenia}), frozenset({anemia})) == pytest.approx(expected)
    # symmetric, and a profile predicting more than the query says scores lower
    assert similarity(knowledge, frozenset({anemia}), frozenset({thrombocytopenia})) == pytest.approx(expected)
    larger = frozenset({thrombocytopenia, "HP:0001744"})
    assert similarity(knowledge, frozenset({thrombocytopenia}), larger) < 1.0
    assert similarity(knowledge, frozenset({"HP:0001250"}), frozenset({thrombocytopenia})) == 0.0  # roots only
    assert similarity(knowledge, frozenset(), frozenset()) == 0.0


@pytest.mark.parametrize("similarity", ["simgic", "phenomizer"])
def test_answer_is_the_argmax_and_ties_go_to_the_first_letter(nlp, knowledge, similarity):
    from phenorules.tasks.medxpertqa.io import Question
    from phenorules.tasks.medxpertqa.profile import question_profile
    from phenorules.tasks.medxpertqa.score import answer

    question = Question("Q", "A boy has a temperature of 39.5°C and a skin rash.", (("A", "Gamma seizure disorder"), ("B", "Alpha fever syndrome")))
    result = answer(question_profile(nlp, knowledge, question), knowledge, similarity)
    assert result.letter == "B" and result.speaks and result.scores["B"] > result.scores["A"]
    tied = Question("Q", "A boy has a temperature of 39.5°C and a skin rash.", (("A", "Drug one"), ("B", "Alpha fever syndrome"), ("C", "Alpha fever syndrome")))
    result = answer(question_profile(nlp, knowledge, tied), knowledge, similarity)
    assert result.letter == "B" and result.scores["B"] == result.scores["C"] and "A" not in result.scores
    silent = Question("Q", "A boy has a temperature of 39.5°C.", (("A", "Drug one"), ("B", "Drug two")))
    result = answer(question_profile(nlp, knowledge, silent), knowledge, similarity)
    assert result.letter == "A" and not result.speaks


def test_an_option_naming_a_gene_stands_for_its_diseases(nlp, knowledge):
    from phenorules.tasks.medxpertqa.profile import option_profile

    assert knowledge.genes_named_in("Loss of ALFA1 and ALFA1 again") == [("ALFA1", ("OMIM:100001",))]
    assert knowledge.genes_named_in("Loss of alfa1") == []  # symbols are case-sensitive
    assert knowledge.genes_named_in("A BE variant") == []  # two-letter symbols are too ambiguous
    assert knowledge.genes_named_in("GONE9 mutation") == []  # its disease has no annotations
    option = option_profile(nlp, knowledge, "A", "Defective ALFA1 protein")
    assert option.genes == (("ALFA1", ("OMIM:100001",)),)
    assert option.terms == {"HP:0001945", "HP:0001649", "HP:0000988"}  # Alpha fever syndrome's annotations
    # a gene of two diseases stands for the terms at least half of them (one) have
    assert option_profile(nlp, knowledge, "B", "BETA2 deletion").terms == {"HP:0001873", "HP:0001903", "HP:0001744", "HP:0002240"}


# --- evalscope's prompt and response ---------------------------------------------------

PROMPT = (
    "Answer the following multiple choice question. The last line of your response should be of the following format: "
    "'ANSWER: [LETTER]' (without quotes) where [LETTER] is one of A,B,C,D. Think step by step before answering.\n\n"
    "A 30-year-old man has a temperature of 39.5°C, a pulse of 120/min and a skin rash. What is the most likely diagnosis?\n\n"
    "A) Gamma seizure disorder\nB) Alpha fever syndrome\nC) Beta bleeding disease\nD) Vitamin deficiency"
)


def test_prompt_is_parsed_and_answered_on_the_last_line(nlp, monkeypatch):
    from phenorules.tasks.medxpertqa.answer import answer_prompt, parse_prompt

    question = parse_prompt(PROMPT)
    assert question.letters == ("A", "B", "C", "D") and question.options[3] == ("D", "Vitamin deficiency")
    assert question.stem.startswith("A 30-year-old man")
    monkeypatch.setenv("PHENORULES_HPOA", HPOA)
    monkeypatch.setenv("PHENORULES_GENES", GENES)
    response = answer_prompt(PROMPT, nlp)
    assert response.splitlines()[-1] == "ANSWER: B"


def test_other_prompts_get_none(nlp):
    from phenorules.tasks.medxpertqa.answer import answer_prompt

    assert answer_prompt("What is the capital of France?", nlp) is None
    assert answer_prompt(PROMPT.replace("\nD) Vitamin deficiency", ""), nlp) is None  # letters promised but missing


# --- evaluate --------------------------------------------------------------------------


def test_wilson_interval():
    from phenorules.tasks.medxpertqa.evaluate import interval

    low, high = interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)


def test_the_split_is_a_fixed_hash_of_the_id():
    from phenorules.tasks.medxpertqa.evaluate import half

    # sha256("Text-1") starts with an even byte, sha256("Text-2") with an odd one
    assert [half("Text-1"), half("Text-2"), half("Text-1")] == ["dev", "held-out", "dev"]


def test_evaluate_command_prints_groups_and_intervals(tmp_path):
    answers = tmp_path / "answers.jsonl"
    result = CliRunner().invoke(main, ["medxpertqa", "evaluate", QUESTIONS, *KNOWLEDGE_FILES, "--answers", str(answers)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "| coverage (silent: first letter) |" in lines[0]
    assert lines[2] == "| all | 2 | 0.500 [0.095, 0.905] | 0.250 | 0.500 | 1/1 = 1.000 [0.207, 1.000] |"
    assert "| medical_task: Treatment | 1 | 0.000 [0.000, 0.793] | 0.250 | 0.000 | - |" in lines
    assert lines[3:5] == [
        "| split: dev | 1 | 1.000 [0.207, 1.000] | 0.250 | 1.000 | 1/1 = 1.000 [0.207, 1.000] |",
        "| split: held-out | 1 | 0.000 [0.000, 0.793] | 0.250 | 0.000 | - |",
    ]
    records = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [r["answer"] for r in records] == ["B", "A"]
    assert all(r["response"].splitlines()[-1] == f"ANSWER: {r['answer']}" for r in records)
    assert "phenotypes (simGIC): B 1.000, " in records[0]["response"]
    result = CliRunner().invoke(main, ["medxpertqa", "evaluate", QUESTIONS, *KNOWLEDGE_FILES, "--similarity", "phenomizer", "--answers", str(answers)])
    assert result.exit_code == 0 and result.output.splitlines()[2] == lines[2]
    assert "phenotypes (z against chance): B " in answers.read_text(encoding="utf-8")


def test_profile_command_writes_jsonl(tmp_path):
    out = tmp_path / "profiles.jsonl"
    result = CliRunner().invoke(main, ["medxpertqa", "profile", QUESTIONS, *KNOWLEDGE_FILES, "-o", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == ["Text-1", "Text-2"]
    assert [p["hpo_id"] for p in records[1]["present"]] == ["HP:0001873"]  # platelets 40,000/µL


def test_bad_annotation_file_is_one_line_error(tmp_path):
    bad = tmp_path / "bad.hpoa"
    bad.write_text("a\tb\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["medxpertqa", "evaluate", QUESTIONS, "--hpo", OBO, "--annotations", str(bad), "--genes", GENES])
    assert result.exit_code == 2
    assert "bad.hpoa:1: not an HPO annotation file" in result.output


def test_bad_genes_file_is_one_line_error(tmp_path):
    bad = tmp_path / "genes.txt"
    bad.write_text("gene_symbol\thpo_id\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["medxpertqa", "evaluate", QUESTIONS, "--hpo", OBO, "--annotations", HPOA, "--genes", str(bad)])
    assert result.exit_code == 2
    assert result.output.strip().endswith("genes.txt:1: not an HPO genes_to_phenotype file (no column disease_id)")
    bad.write_text("gene_symbol\tdisease_id\nALFA1\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["medxpertqa", "evaluate", QUESTIONS, "--hpo", OBO, "--annotations", HPOA, "--genes", str(bad)])
    assert result.exit_code == 2 and "genes.txt:2: expected 2 tab-separated columns, got 1" in result.output
