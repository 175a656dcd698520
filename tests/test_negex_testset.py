import pytest

from phenorules.core.errors import InputError

from conftest import benchmark_module


harness = benchmark_module("negex_testset")
FAMILIES_FILE, Item, cue_family, locate, prf = harness.FAMILIES_FILE, harness.Item, harness.cue_family, harness.locate, harness.prf
read_families, read_testset, verdicts = harness.read_families, harness.read_testset, harness.verdicts

HEADER = "Report No.\tConcept\tSentence\tNegation\n"


def test_the_reader_unquotes_cells_and_finds_the_upper_case_concept(tmp_path):
    path = tmp_path / "negex.tsv"
    rows = [
        '1\tshortness of breath\tHe denies SHORTNESS  OF BREATH.\tNegated\r\n',
        '2\t"soft, nontender"\t"Abdomen is SOFT, NONTENDER; no mass noted."\tAffirmed\r\n',
        '3\tfever\tFever on arrival; no FEVER now.\tNegated\r\n',
        '4\tcough\tSuspect pneumonia.\tPossible\r\n',
    ]
    path.write_text(HEADER + "".join(rows), encoding="utf-8")
    items = read_testset(str(path))
    assert [(item.line, item.concept, item.status) for item in items] == [
        (2, "shortness of breath", "Negated"),
        (3, "soft, nontender", "Affirmed"),
        (4, "fever", "Negated"),
        (5, "cough", "Possible"),
    ]
    first, second, third, fourth = items
    assert first.sentence[slice(*first.span)] == "SHORTNESS  OF BREATH"
    assert second.sentence == "Abdomen is SOFT, NONTENDER; no mass noted." and second.span == (11, 26)
    assert third.span == (21, 26)  # the upper-case occurrence, not the first one
    assert fourth.span is None


def test_the_reader_names_the_line_of_a_bad_row(tmp_path):
    path = tmp_path / "negex.tsv"
    path.write_text(HEADER + "1\tfever\tNo FEVER.\tNegated\n2\tcough\tNo COUGH.\tMaybe\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"negex.tsv:3: unknown status 'Maybe'"):
        read_testset(str(path))
    path.write_text(HEADER + "1\tfever\tNo FEVER.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"negex.tsv:2: expected 4 tab-separated columns"):
        read_testset(str(path))


def test_locate_takes_any_case_when_no_upper_case_occurrence_is_there():
    assert locate("2+ edema", "There is 2+ edema   bilaterally.") == (9, 17)
    assert locate("rash", "No lesions.") is None


def test_the_cue_family_is_the_nearest_phrase_before_the_concept_else_after():
    families = read_families(FAMILIES_FILE)

    def family(sentence, concept):
        return cue_family(families, Item(1, concept, sentence, "Negated", locate(concept, sentence)))

    assert family("There was no evidence of PNEUMONIA.", "pneumonia") == "no_evidence"
    assert family("She denies any FEVER or chills.", "fever") == "deny"
    assert family("PNEUMONIA was ruled out.", "pneumonia") == "rule_out"
    assert family("Stable COUGH.", "cough") == "none"


def test_precision_recall_f1():
    assert prf([True, True, False, False], [True, False, True, False]) == (1, 1, 1, 0.5, 0.5, 0.5)


def test_the_stage_and_plain_negspacy_judge_the_forced_concept_span(mini_nlp):
    items = [
        Item(2, "seizures", "The child had no SEIZURES.", "Negated", (17, 25)),
        Item(3, "seizures", "The child had SEIZURES.", "Affirmed", (14, 22)),
    ]
    ours, plain, cues = verdicts(mini_nlp, items)
    assert ours == [True, False] and plain == [True, False]
    assert cues[0].startswith("context:NEGATED_EXISTENCE:no:context_rules.tsv:") and cues[1] == ""
