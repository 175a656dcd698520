"""Patient attribution on tiny hand-written articles (mini ontology, no shared data)."""

import json

import pytest
from click.testing import CliRunner
import hypothesis
from hypothesis import strategies as st

from phenorules.cli import main
from phenorules.core.article import Article, GivenMention, Passage, Patient
from phenorules.core.document import PHENOTYPES, make_article_doc, working
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.patients.mentions import NAMED, OTHER, RELATIVE, find_people, roman_value
from phenorules.patients.rules import read_policy
from phenorules.kb.resources import data_dir
from phenorules.formats.patientphex.articles import patient_label, to_article, to_patient
from phenorules.formats.patientphex.io import article_text

from conftest import MINI_OBO


def article(passages, patients, pmc_id="T1"):
    """A task article from (section, type, text) passages; patients maps id -> given mention texts."""
    full_text, offset = [], 0
    for section, kind, text in passages:
        full_text.append({"section_type": section, "type": kind, "offset": offset, "text": text})
        offset += len(text) + 1
    text = article_text({"full_text": full_text})
    patient_list = []
    for patient_id, given in patients.items():
        mentions = [{"text": g, "offset": text.index(g), "length": len(g)} for g in given]
        patient_list.append({"patient_id": patient_id, "mention": mentions})
    return {"pmc_id": pmc_id, "pmid": None, "patient": patient_list, "full_text": full_text}


def associations(nlp, art):
    doc = nlp(make_article_doc(nlp, to_article(art)))
    return doc._.associations


@pytest.fixture(scope="module")
def rules(mini_nlp):
    return mini_nlp.get_pipe("patients").rules


def named(text, patients, rules):
    return [(m.text, m.patients) for m in find_people(text, [to_patient(p) for p in patients], rules).mentions if m.role == NAMED]


def test_pedigree_label_spellings_share_one_patient(rules):
    text = "Individual II.1 and II:2 were seen. Later patient II-1 returned, then III-2; II\u20131 again."
    patients = [{"patient_id": "OII-1", "mention": []}, {"patient_id": "OIII:2", "mention": []}]
    found = named(text, patients, rules)
    assert ("II.1", ("OII-1",)) in found and ("II-1", ("OII-1",)) in found and ("II\u20131", ("OII-1",)) in found
    assert ("III-2", ("OIII:2",)) in found
    others = [m.text for m in find_people(text, [to_patient(p) for p in patients], rules).mentions if m.role == OTHER]
    assert others == ["II:2"]  # a pedigree member who is not listed


def test_numbered_labels_patient_p_and_roman(rules):
    text = "Patient 1 and P2 differ. In patient II the onset was late; case 1 was mild. Patients 1 and 2 were cousins."
    patients = [{"patient_id": "O1", "mention": []}, {"patient_id": "OP2", "mention": []}]
    found = named(text, patients, rules)
    assert found[0] == ("Patient 1 and P2", ("O1", "OP2"))
    assert ("patient II", ("OP2",)) in found and ("case 1", ("O1",)) in found
    assert ("Patients 1 and 2", ("O1", "OP2")) in found
    assert roman_value("IV") == 4 and roman_value("XIV") == 14 and roman_value("IIa") is None


def test_labels_from_given_mentions_of_p_ids(rules):
    text = "Patient 1 had a fever. Patient 2 too. The father of patient 1 was well."
    patients = [
        {"patient_id": "P1", "mention": [{"text": "Patient 1", "offset": 0, "length": 9}]},
        {"patient_id": "P2", "mention": [{"text": "Patient 2", "offset": 23, "length": 9}]},
    ]
    mentions = find_people(text, [to_patient(p) for p in patients], rules).mentions
    assert [(m.text, m.role, m.patients) for m in mentions] == [
        ("Patient 1", NAMED, ("P1",)),
        ("Patient 2", NAMED, ("P2",)),
        ("The father of patient 1", RELATIVE, ()),
    ]


def test_multi_patient_paragraph_goes_to_the_nearest_patient(mini_nlp):
    art = article(
        [("CASE", "paragraph", "II-1 had seizures and microcephaly. II-2 had hypotonia. She also had short stature.")],
        {"OII-1": ["II-1"], "OII-2": ["II-2"]},
    )
    assert associations(mini_nlp, art) == {"OII-1": ["HP:0000252", "HP:0001250"], "OII-2": ["HP:0001252", "HP:0004322"]}


def test_heading_naming_a_patient_carries_to_its_paragraphs(mini_nlp):
    art = article(
        [
            ("CASE", "title_2", "Patient 1"),
            ("CASE", "paragraph", "A boy was born at term. Ataxia began at age 2."),
            ("CASE", "title_2", "Patient 2"),
            ("CASE", "paragraph", "Hypertelorism was noted at birth."),
            ("CASE", "title_2", "Genetic analysis"),
            ("CASE", "paragraph", "Microcephaly is common in this syndrome."),
        ],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": ["HP:0001251"], "O2": ["HP:0000316"]}


def test_family_history_goes_to_a_listed_relative_and_otherwise_to_nobody(mini_nlp):
    passages = [("CASE", "paragraph", "The patient had seizures. His mother had hearing loss. He also had ataxia.")]
    single = article(passages, {"P1": ["The patient"]})
    assert associations(mini_nlp, single) == {"P1": ["HP:0001250", "HP:0001251"]}
    with_mother = article(passages, {"P1": ["The patient"], "P2": ["mother"]})
    assert associations(mini_nlp, with_mother) == {"P1": ["HP:0001250", "HP:0001251"], "P2": ["HP:0000365"]}


def test_patients_described_only_by_age_and_sex(mini_nlp):
    art = article(
        [
            ("ABSTRACT", "abstract", "We report a five-year-old female and a nine-year-old male."),
            ("RESULTS", "paragraph", "The 5-year-old girl had seizures since infancy. The 9-year-old boy had ataxia and hypotonia."),
            ("DISCUSS", "paragraph", "A 3-year-old boy reported before had microcephaly."),
        ],
        {"P1": ["a five-year-old female"], "P2": ["a nine-year-old male"]},
    )
    assert associations(mini_nlp, art) == {"P1": ["HP:0001250"], "P2": ["HP:0001251", "HP:0001252"]}


def test_section_policy_background_and_discussion(mini_nlp):
    art = article(
        [
            ("INTRO", "paragraph", "The syndrome causes seizures and microcephaly."),
            ("CASE", "paragraph", "A 4-year-old boy had ataxia."),
            ("DISCUSS", "paragraph", "Hypotonia is frequent. Our patient also had short stature."),
        ],
        {"P1": ["A 4-year-old boy"]},
    )
    assert associations(mini_nlp, art) == {"P1": ["HP:0001251", "HP:0004322"]}


def test_an_article_without_case_sections_tells_cases_in_its_paragraphs(mini_nlp):
    art = article(
        [
            ("INTRO", "paragraph", "Seizures are common in this disease."),
            ("INTRO", "paragraph", "Patient 1 is a girl. She was born at term. Hypotonia was noted at 2 months."),
        ],
        {"O1": ["Patient 1"], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": ["HP:0001252"], "O2": []}


def test_negated_phenotypes_keep_their_patient_but_give_no_association(mini_nlp):
    art = article([("CASE", "paragraph", "The patient had seizures and hypotonia.")], {"P1": ["The patient"]})
    doc = make_article_doc(mini_nlp, to_article(art))
    for name, component in mini_nlp.pipeline:
        if name == "patients":
            for mention in working(doc).mentions:
                if mention.text == "hypotonia":
                    mention.flag("is_negated")
        doc = component(doc)
    assert doc._.associations == {"P1": ["HP:0001250"]}
    negated = [s for s in doc.spans[PHENOTYPES] if s.text == "hypotonia"][0]
    assert negated._.patient == ["P1"]  # stated not to have it: a Phenopacket's excluded feature


def test_evidence_names_the_rule_and_the_patient_mention(mini_nlp):
    art = article([("CASE", "paragraph", "II-2 had ataxia.")], {"OII-1": [], "OII-2": []})
    doc = mini_nlp(make_article_doc(mini_nlp, to_article(art)))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.patient == ["OII-2"]
    assert span._.patient_evidence == [
        {
            "patients": ["OII-2"],
            "rule": "pedigree_label",
            "section": "CASE",
            "patient_mention": {"text": "II-2", "offset": 0, "rule": "pedigree_label", "source": "patient_mentions.tsv:11"},
            "chain": ["mention 'II-2'@0: pedigree_label (patient_mentions.tsv:11)", "nearest patient mention before it in the sentence"],
        }
    ]
    assert span._.provenance[-1] == "patient:pedigree_label"


def test_predict_explain_writes_evidence_beside_an_unchanged_submission(tmp_path):
    art = article([("CASE", "paragraph", "II-2 had ataxia.")], {"OII-2": []})
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(art) + "\n", encoding="utf-8")
    runner = CliRunner()
    plain, explained = tmp_path / "plain.jsonl", tmp_path / "explained.jsonl"
    evidence = tmp_path / "evidence.jsonl"
    assert runner.invoke(main, ["predict", str(source), "-o", str(plain), "--hpo", MINI_OBO]).exit_code == 0
    result = runner.invoke(main, ["predict", str(source), "-o", str(explained), "--hpo", MINI_OBO, "--explain", str(evidence)])
    assert result.exit_code == 0, result.output
    assert explained.read_bytes() == plain.read_bytes()
    (line,) = evidence.read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert record["pmc_id"] == "T1" and record["evidence"][0]["text"] == "ataxia"
    assert record["evidence"][0]["patients"] == ["OII-2"]
    (association,) = record["associations"]
    assert (association["patient_id"], association["phenotype"]) == ("OII-2", "HP:0001251")
    assert association["because"][0]["chain"][0] == "mention 'II-2'@0: pedigree_label (patient_mentions.tsv:11)"


def test_disabling_the_stage_falls_back_to_every_patient(tmp_path):
    from phenorules.stages.pipeline import build_pipeline

    nlp = build_pipeline(disable=["patients"], hpo=MINI_OBO, kb={"use_cache": False})
    doc = nlp(make_article_doc(nlp, to_article(article([("CASE", "paragraph", "II-2 had ataxia.")], {"OII-1": [], "OII-2": []}))))
    assert doc._.associations is None


def test_a_bad_policy_value_is_one_clear_error(tmp_path):
    text = (data_dir("rules") / "patient_policy.tsv").read_text(encoding="utf-8").replace("mode.CASE\tcarry", "mode.CASE\tsometimes")
    path = tmp_path / "policy.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="mode.CASE must be one of"):
        read_policy(path)


def test_an_unlisted_label_in_brackets_belongs_to_the_mention_before_it(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The proband (II:2) had ataxia. The twin brother (II-1) had hypotonia.")],
        {"P1": ["The proband"]},
    )
    assert associations(mini_nlp, art) == {"P1": ["HP:0001251"]}


def test_a_kinship_apposition_names_the_patient_it_follows(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 1 had microcephaly. Patient 2, his 4-year-old sister, had short stature.")],
        {"P1": ["Patient 1"], "P2": ["Patient 2"]},
    )
    assert associations(mini_nlp, art) == {"P1": ["HP:0000252"], "P2": ["HP:0004322"]}


# --- the discourse model: one small article per phenomenon --------------------------------

ATAXIA, SEIZURE, HYPOTONIA, MICROCEPHALY = "HP:0001251", "HP:0001250", "HP:0001252", "HP:0000252"


def test_pronouns_go_to_the_patient_of_their_sex(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The proband was a girl. She had ataxia. Her brother was seen later. He had seizures and she had hypotonia.")],
        {"P1": ["girl"], "P2": ["Her brother"]},
    )
    assert associations(mini_nlp, art) == {"P1": [ATAXIA, HYPOTONIA], "P2": [SEIZURE]}


def test_plural_references_give_each_meant_patient_the_phenotype(mini_nlp):
    passages = [
        ("CASE", "paragraph", "Patient 1 was a boy. Patient 2 was his sister. Both siblings had seizures."),
        ("CASE", "paragraph", "All three patients had ataxia."),
    ]
    art = article(passages, {"P1": ["Patient 1"], "P2": ["Patient 2"], "P3": []})
    assert associations(mini_nlp, art) == {"P1": [SEIZURE, ATAXIA], "P2": [SEIZURE, ATAXIA], "P3": [ATAXIA]}
    listed = article(
        [("CASE", "paragraph", "Patients 1-3 had hypotonia. Patient 3 was seen. All three patients had ataxia.")],
        {"O1": [], "O2": [], "O3": []},
    )
    assert associations(mini_nlp, listed) == {"O1": [ATAXIA, HYPOTONIA], "O2": [ATAXIA, HYPOTONIA], "O3": [ATAXIA, HYPOTONIA]}


def test_our_patients_are_not_a_cited_case_or_a_listed_parent(mini_nlp):
    art = article(
        [
            ("CASE", "paragraph", "II-1 and II-2 were examined. The father was healthy."),
            ("CASE", "paragraph", "Our patients had microcephaly."),
            ("DISCUSS", "paragraph", "Ataxia was seen in the patient reported by Smith."),
        ],
        {"OII-1": [], "OII-2": [], "P1": ["the patient reported by Smith"], "P2": ["The father"]},
    )
    result = associations(mini_nlp, art)
    assert result == {"OII-1": [MICROCEPHALY], "OII-2": [MICROCEPHALY], "P1": [ATAXIA], "P2": []}


def test_they_continue_a_plural_focus_only(mini_nlp):
    art = article(
        [("CASE", "paragraph", "II-1 and II-2 were born at term. They had hypotonia."), ("CASE", "paragraph", "II-3 came later. They had seizures.")],
        {"OII-1": [], "OII-2": [], "OII-3": []},
    )
    assert associations(mini_nlp, art) == {"OII-1": [HYPOTONIA], "OII-2": [HYPOTONIA], "OII-3": []}


def test_an_anaphor_that_continues_the_focus_cites_the_mention_that_named_it_not_every_anaphor_between(mini_nlp):
    # Each "they" stands for the patients "II-1 and II-2" named: its chain is itself and that
    # mention, however many "they" came before (a chain per phenotype that grew with the
    # section made memory quadratic in the text).
    told = " ".join(["They had hypotonia.", "They had seizures.", "They were seen again."] * 30)
    art = article([("CASE", "paragraph", f"II-1 and II-2 were born at term. {told}")], {"OII-1": [], "OII-2": []})
    doc = mini_nlp(make_article_doc(mini_nlp, to_article(art)))
    chains = [span._.patient_evidence[0]["chain"] for span in doc.spans[PHENOTYPES]]
    assert len(chains) == 60 and all(chain[0].startswith("mention 'They'@") for chain in chains)
    assert {tuple(chain[1:]) for chain in chains} == {
        ("mention 'II-1 and II-2'@0: coordination (patient_mentions.tsv:11)", "nearest patient mention before it in the sentence")
    }


def test_a_comparison_shares_the_phenotype_and_keeps_the_focus(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 2 was a boy. Similar to patient 1, he had ataxia. He also had seizures.")],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [ATAXIA], "O2": [SEIZURE, ATAXIA]}
    unlike = article([("CASE", "paragraph", "Patient 2 was a boy. Unlike patient 1, he had ataxia.")], {"O1": [], "O2": []})
    assert associations(mini_nlp, unlike) == {"O1": [], "O2": [ATAXIA]}


def test_bracketed_aliases_keep_a_list_of_patients_whole(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Children (individuals 6 [IV-6] and 7 [IV-7]) presented with ataxia. V:5 (15 years old) and V:7 had seizures.")],
        {"OIV-6": [], "OIV-7": [], "OV:5": [], "OV:7": []},
    )
    assert associations(mini_nlp, art) == {"OIV-6": [ATAXIA], "OIV-7": [ATAXIA], "OV:5": [SEIZURE], "OV:7": [SEIZURE]}


def test_a_postposed_relative_takes_the_phenotype(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The proband had ataxia. Patient 1 was seen again; hypotonia and seizures in the mother were noted. Patient 1 was examined; microcephaly in patient 2 was known.")],
        {"O1": ["The proband"], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [ATAXIA], "O2": [MICROCEPHALY]}


def test_the_elder_sister_and_an_apposition_resolve_to_listed_patients(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The proband (III-2) had ataxia. The elder sister had seizures."), ("CASE", "paragraph", "The index case also had hypotonia.")],
        {"OIII-2": ["The proband"], "P2": ["sister"]},
    )
    assert associations(mini_nlp, art) == {"OIII-2": [ATAXIA, HYPOTONIA], "P2": [SEIZURE]}


def test_a_table_row_or_column_naming_a_patient_gets_its_phenotypes(mini_nlp):
    table = "Feature\tPatient 1\tPatient 2\nSeizures\t+\t-\nHypotonia\tyes\t+\nPatient 2\tataxia"
    art = article([("TABLE", "table_caption", "Clinical features."), ("TABLE", "table", table)], {"O1": [], "O2": []})
    assert associations(mini_nlp, art) == {"O1": [SEIZURE, HYPOTONIA], "O2": [ATAXIA, HYPOTONIA]}


def test_policy_mode_follows_the_article_shape(tmp_path):
    path = tmp_path / "policy.tsv"
    text = (data_dir("rules") / "patient_policy.tsv").read_text(encoding="utf-8")
    path.write_text(text + "mode.single.DISCUSS\tparagraph\tx\nmode.nocase.METHODS\tcarry\tx\n", encoding="utf-8")
    policy = read_policy(path)
    assert policy.mode("DISCUSS", True, ("single", "case"))[0] == "paragraph"
    assert policy.mode("DISCUSS", True, ("multi", "case"))[0] == "sentence"
    assert policy.mode("METHODS", True, ("multi", "nocase")) == ("carry", "mode.nocase.METHODS")
    assert policy.cite("mode.nocase.METHODS").startswith("mode.nocase.METHODS=carry (policy.tsv:")


def test_a_general_statement_does_not_carry_the_patient(mini_nlp):
    art = article(
        [
            ("CASE", "paragraph", "The patient was a boy with ataxia. The syndrome is characterized by seizures. Smith et al. saw hypotonia. He had microcephaly."),
        ],
        {"P1": ["The patient"]},
    )
    assert associations(mini_nlp, art) == {"P1": [MICROCEPHALY, ATAXIA]}


def test_in_a_single_patient_article_cited_people_take_their_phenotypes(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The patient was a boy with ataxia. Females carrying the variant had seizures. These four patients had hypotonia. He had microcephaly.")],
        {"P1": ["The patient"]},
    )
    assert associations(mini_nlp, art) == {"P1": [MICROCEPHALY, ATAXIA]}


def test_a_listed_sibling_as_subject_becomes_the_one_talked_about(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The proband was a girl. She had ataxia. Her younger sister was born at term. She had seizures. Her mother was examined. She had hypotonia.")],
        {"P1": ["The proband"], "P2": ["Her younger sister"], "P3": ["Her mother"]},
    )
    assert associations(mini_nlp, art) == {"P1": [ATAXIA], "P2": [SEIZURE, HYPOTONIA], "P3": []}


def test_a_parent_s_phenotype_is_not_the_patient_s(mini_nlp):
    art = article(
        [("CASE", "paragraph", "The patient was a boy with ataxia. The pregnancy was complicated by maternal seizures. He had microcephaly.")],
        {"P1": ["The patient"]},
    )
    assert associations(mini_nlp, art) == {"P1": [MICROCEPHALY, ATAXIA]}


def test_a_comparison_shares_only_its_clause(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 1 was a girl. Patient 2 was a boy. He had, like patient 1, ataxia, he also presented seizures and hypotonia.")],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [ATAXIA], "O2": [SEIZURE, ATAXIA, HYPOTONIA]}


def test_a_figure_between_a_heading_and_its_text_does_not_end_the_patient(mini_nlp):
    art = article(
        [
            ("CASE", "title_2", "Patient 1"),
            ("FIG", "fig_caption", "Patient 2 had ataxia."),
            ("CASE", "paragraph", "She had seizures."),
        ],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [SEIZURE], "O2": [ATAXIA]}


def test_a_case_heading_in_another_section_carries_its_patient(mini_nlp):
    art = article(
        [
            ("METHODS", "title_2", "Case description"),
            ("METHODS", "paragraph", "Patient 1 was a girl born at term."),
            ("METHODS", "paragraph", "Seizures began at age 2."),
            ("METHODS", "title_2", "Sequencing"),
            ("METHODS", "paragraph", "Patient 2 was sequenced."),
            ("METHODS", "paragraph", "Ataxia is frequent in this syndrome."),
        ],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [SEIZURE], "O2": []}


def test_similar_to_that_of_a_patient_is_a_comparison(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 1 had seizures. Patient 2 had a course similar to that of patient 1, with ataxia.")],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [SEIZURE, ATAXIA], "O2": [ATAXIA]}


def test_they_after_controls_in_its_sentence_means_the_controls(mini_nlp, rules):
    text = "Patients 1 and 2 had seizures. Healthy controls were excluded if they had ataxia. They also had hypotonia."
    others = [m.text for m in find_people(text, [to_patient({"patient_id": "O1", "mention": []}), to_patient({"patient_id": "O2", "mention": []})], rules).mentions if m.role == OTHER]
    assert others == ["Healthy controls"]
    art = article([("CASE", "paragraph", text)], {"O1": [], "O2": []})
    assert associations(mini_nlp, art) == {"O1": [SEIZURE, HYPOTONIA], "O2": [SEIZURE, HYPOTONIA]}


def test_a_label_in_the_possessive_before_a_kinship_word_is_not_the_patient(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 1 was a boy with hypotonia. Patient 2 (P2), P1's older brother, was born at term. He had seizures.")],
        {"O1": [], "O2": []},
    )
    assert associations(mini_nlp, art) == {"O1": [HYPOTONIA], "O2": [SEIZURE]}


def test_the_relative_of_a_list_of_labelled_patients_is_the_relative(mini_nlp):
    text = "Case 1P1 was a girl with hypotonia. Case 1P2 was her sister. Case 1P3 was a man (the father of cases 1P1 and 1P2). He had seizures."
    art = article([("RESULTS", "paragraph", text)], {"O1P1": ["Case 1P1"], "O1P2": ["Case 1P2"], "O1P3": ["Case 1P3"]})
    assert associations(mini_nlp, art) == {"O1P1": [HYPOTONIA], "O1P2": [], "O1P3": [SEIZURE]}


def test_the_stage_reads_the_label_given_with_a_patient_not_its_id(mini_nlp):
    text = "II-2 had ataxia."
    given = Article("T1", (Passage(0, text, "CASE", "paragraph"),), patients=(Patient("first"), Patient("second", label="II-2")))
    doc = mini_nlp(make_article_doc(mini_nlp, given))
    assert [span._.patient for span in doc.spans[PHENOTYPES]] == [["second"]]


def test_the_patientphex_adapter_decodes_o_label_ids():
    assert [patient_label(i) for i in ("OII-1", "O1", "OP2", "P1", "O")] == ["II-1", "1", "P2", None, None]
    patient = to_patient({"patient_id": "OII-1", "mention": [{"text": "II-1", "offset": 4, "length": 4}]})
    assert patient == Patient("OII-1", "II-1", (GivenMention(4, 8, "II-1"),))


def test_a_relatives_finding_never_goes_to_the_proband(mini_nlp):
    art = article([("CASE", "paragraph", "The proband had hypotonia and a family history of microcephaly.")], {"P1": ["The proband"]})
    assert associations(mini_nlp, art) == {"P1": ["HP:0001252"]}
    doc = mini_nlp(make_article_doc(mini_nlp, to_article(art)))
    family = next(span for span in doc.spans[PHENOTYPES] if span.text == "microcephaly")
    assert family._.is_family and family._.patient == [] and family._.provenance[-1] == "patient:unattributed:is_family"
    every = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"patients": {"unattributed": []}})
    assert associations(every, art) == {"P1": ["HP:0000252", "HP:0001252"]}  # the flag is what keeps it off


def test_a_family_cue_that_names_a_listed_patient_keeps_the_finding_with_that_patient(mini_nlp):
    art = article(
        [("CASE", "paragraph", "Patient 1 had hypotonia. Her brother, Patient 2, had seizures.")],
        {"P1": ["Patient 1"], "P2": ["Patient 2"]},
    )
    assert associations(mini_nlp, art)["P2"] == ["HP:0001250"]


def _patient_rules():
    from phenorules.patients.rules import load_patient_rules

    rules = data_dir("rules")
    return load_patient_rules(rules / "patient_mentions.tsv", rules / "number_words.tsv", rules / "patient_policy.tsv", rules / "patient_cues.tsv")


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(
    st.lists(st.tuples(st.integers(0, 24), st.integers(1, 2), st.sampled_from([None, "comparison", "contrast"])), max_size=6),
    st.lists(st.tuples(st.integers(0, 24), st.integers(1, 3)), min_size=1, max_size=6),
)
def test_a_phenotype_finds_the_mentions_around_it_as_a_scan_does(drawn_mentions, drawn_phenotypes):
    """Attributor._bound and ._compared look the sentence's mentions up by bisection
    (discourse.Unit): the same choice as scanning all of them. On 25 two-letter words
    written together ('xxinxx...'; word i at 2i), mentions and phenotypes are random word
    ranges, so that they abut and overlap."""
    from phenorules.patients.attribution import Attributor
    from phenorules.patients.discourse import PhenotypeExtent, Unit
    from phenorules.patients.mentions import PatientMention

    rules = _patient_rules()
    text = "".join("in" if i % 3 == 1 else "xx" for i in range(25))
    mentions, taken = [], set()
    for first, size, cue in sorted(drawn_mentions, key=lambda drawn: drawn[:2]):
        words = set(range(first, min(first + size, 25)))
        if words & taken:
            continue  # patient mentions never overlap
        taken |= words
        start, end = 2 * first, 2 * max(words) + 2
        cue_row = None if cue is None else (cue, "row", "patient_cues.tsv:1")
        mentions.append((PatientMention(start, end, text[start:end], "label", NAMED, (f"P{first}",), cue=cue_row), (f"chain {start}",)))
    phenotypes = sorted((PhenotypeExtent(2 * first, 2 * min(first + size, 25), False) for first, size in drawn_phenotypes), key=lambda p: p.start)
    attributor = Attributor(rules.policy, ["P1", "P2"], [], None, rules.cues, text)
    unit = Unit(mentions, phenotypes)
    for phenotype in phenotypes:
        plain = [(m, c) for m, c in mentions if m.cue is None and (m.end <= phenotype.start or m.start >= phenotype.end)]
        before, after = [mc for mc in plain if mc[0].end <= phenotype.start], [mc for mc in plain if mc[0].start >= phenotype.end]
        expected = None
        if after and before:
            cue = rules.cues.first("postposed", text[phenotype.end : after[0][0].start])
            expected = (after[0][0], f"bound from after: {cue.name} ({cue.source})") if cue else None
        expected = expected or (before[-1][0], "nearest patient mention before it in the sentence") if before else expected
        expected = expected or (after[0][0], "nearest patient mention after it in the sentence") if after else expected
        chosen = attributor._bound(phenotype, unit)
        assert (chosen.mention, chosen.chain[-1]) == expected if expected else chosen is None
        others = [m.start for m, _ in mentions if m.cue is None]
        for comparison, _ in unit.comparisons:
            if phenotype.end <= comparison.start:
                scanned = not any(phenotype.end <= start < comparison.start for start in others)
            else:
                scanned = not any(comparison.end <= start < phenotype.start and any(comparison.end <= p.start < start for p in phenotypes) for start in others)
            assert attributor._compared(phenotype, comparison, unit) == scanned


@hypothesis.given(
    st.text(alphabet="aAbB1 .-_\u0130\n", max_size=40),
    st.text(alphabet="aAbB1 .-", max_size=4),
    st.sampled_from(["given", "label"]),
)
@hypothesis.settings(max_examples=1500, deadline=None)
@hypothesis.example("a.a.a", "a.a", "given")  # the second would overlap the first
@hypothesis.example("Ib \u0130b ib", "ib", "given")  # read case-insensitively: the text lower-cases longer
def test_a_given_text_or_label_is_found_where_its_regex_finds_it(text, phrase, kind):
    """Found as a string, a phrase's places are those of the regex it stands for: the
    phrase in any case, after no character of the class, before what the context allows,
    left to right without overlaps (the dotted capital I lower-cases to two characters)."""
    import re

    from phenorules.patients import mentions

    before, after = (mentions._GIVEN_BEFORE, mentions._GIVEN_AFTER) if kind == "given" else (mentions._LABEL_BEFORE, mentions._LABEL_AFTER)
    lowered = text.lower()
    literal, scanned, flags = (phrase.lower(), lowered, 0) if len(lowered) == len(text) else (phrase, text, re.IGNORECASE)
    regex = re.escape(literal) + rf"(?<!{before.pattern}(?s:.){{{len(literal)}}})" + after.pattern
    assert list(mentions._find_caseless(before, phrase, after, text, lowered)) == [found.span() for found in re.finditer(regex, scanned, flags)]
