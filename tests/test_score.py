"""Each PatientPheX scoring rule (TASK.md, plus the decisions in score.py) on tiny cases."""

import pytest

from phenorules.core.errors import InputError
from phenorules.tasks.patientphex.score import format_table, per_article, score


def ent(offset, length, identifier, note=None):
    return {
        "identifier": identifier,
        "type": "Phenotype",
        "offset": offset,
        "length": length,
        "text": "x" * length,
        "note": note,
    }


def gold(entities=(), association=(), patients=("P1",), pmc_id="1"):
    return {
        "pmc_id": pmc_id,
        "pmid": None,
        "patient": [{"patient_id": p, "mention": []} for p in patients],
        "full_text": [],
        "entities": list(entities),
        "association": [{"patient_id": p, "phenotype": list(ph)} for p, ph in association],
    }


def pred(entities=(), association=(), pmc_id="1"):
    return {
        "pmc_id": pmc_id,
        "pmid": None,
        "entities": list(entities),
        "association": [{"patient_id": p, "phenotype": list(ph)} for p, ph in association],
    }


def counts(level_result):
    return level_result["tp"], level_result["fp"], level_result["fn"]


def mention(gold_entities, pred_entities):
    return counts(score([gold(gold_entities)], [pred(pred_entities)])["mention"])


def document(gold_entities, pred_entities):
    return counts(score([gold(gold_entities)], [pred(pred_entities)])["document"])


A, B, C = "HP:0000001", "HP:0000002", "HP:0000003"


# --- mention level -------------------------------------------------------------------


def test_exact_span_and_id_is_a_true_positive():
    result = score([gold([ent(0, 5, A), ent(10, 3, B)])], [pred([ent(0, 5, A), ent(10, 3, B)])])
    assert counts(result["mention"]) == (2, 0, 0)
    assert result["mention"]["f1"] == 1.0


def test_wrong_id_is_one_false_positive_and_one_false_negative():
    assert mention([ent(0, 5, A)], [ent(0, 5, B)]) == (0, 1, 1)


@pytest.mark.parametrize("offset,length", [(1, 5), (0, 4), (0, 6)])
def test_wrong_span_is_one_false_positive_and_one_false_negative(offset, length):
    assert mention([ent(0, 5, A)], [ent(offset, length, A)]) == (0, 1, 1)


def test_compound_ids_are_split_into_units():
    assert mention([ent(0, 5, f"{A};{B}")], [ent(0, 5, A)]) == (1, 0, 1)
    assert mention([ent(0, 5, f"{A};{B}")], [ent(0, 5, f"{B};{A}")]) == (2, 0, 0)
    assert mention([ent(0, 5, f"{A};{B}")], [ent(0, 5, A), ent(0, 5, B)]) == (2, 0, 0)
    assert mention([ent(0, 5, A)], [ent(0, 5, f"{A};{C}")]) == (1, 1, 0)


def test_gold_no_id_is_matched_by_span_alone():
    assert mention([ent(0, 5, "-1")], [ent(0, 5, A)]) == (1, 0, 0)
    assert mention([ent(0, 5, "-1")], [ent(0, 5, "-1")]) == (1, 0, 0)
    assert mention([ent(0, 5, "-1")], [ent(0, 6, A)]) == (0, 1, 1)
    assert mention([ent(0, 5, "-1")], []) == (0, 0, 1)


def test_only_one_predicted_unit_is_credited_on_a_gold_no_id_span():
    assert mention([ent(0, 5, "-1")], [ent(0, 5, f"{A};{B}")]) == (1, 1, 0)
    assert mention([ent(0, 5, "-1")], [ent(0, 5, A), ent(0, 5, "-1")]) == (1, 1, 0)


def test_no_id_inside_a_compound_takes_a_unit_the_exact_match_left():
    assert mention([ent(0, 5, f"{A};-1")], [ent(0, 5, A)]) == (1, 0, 1)
    assert mention([ent(0, 5, f"{A};-1")], [ent(0, 5, f"{A};{C}")]) == (2, 0, 0)


def test_predicted_no_id_on_a_known_phenotype_is_a_false_positive():
    assert mention([ent(0, 5, A)], [ent(0, 5, "-1")]) == (0, 1, 1)


def test_negated_gold_is_never_a_false_negative():
    assert mention([ent(0, 5, A, "NO")], []) == (0, 0, 0)
    assert mention([ent(0, 5, "-1", "NO")], []) == (0, 0, 0)


def test_negated_gold_predicted_with_no_is_not_scored():
    result = score([gold([ent(0, 5, A, "NO")])], [pred([ent(0, 5, A, "NO")])])
    assert counts(result["mention"]) == (0, 0, 0)
    assert result["mention"]["f1"] == 1.0


def test_negated_gold_predicted_without_no_is_a_false_positive():
    assert mention([ent(0, 5, A, "NO")], [ent(0, 5, A)]) == (0, 1, 0)
    assert mention([ent(0, 5, f"{A};{B}", "NO")], [ent(0, 5, f"{A};{B}")]) == (0, 2, 0)


def test_predicted_no_is_not_scored_even_against_a_positive_gold():
    assert mention([], [ent(0, 5, A, "NO")]) == (0, 0, 0)
    assert mention([ent(0, 5, A)], [ent(0, 5, A, "NO")]) == (0, 0, 1)


def test_other_notes_are_ordinary_mentions():
    assert mention([ent(0, 5, A, "D")], [ent(0, 5, A)]) == (1, 0, 0)
    assert mention([ent(0, 5, A)], [ent(0, 5, A, "D")]) == (1, 0, 0)


def test_duplicate_mentions_count_once_on_both_sides():
    assert mention([ent(0, 5, A), ent(0, 5, A)], [ent(0, 5, A)]) == (1, 0, 0)
    assert mention([ent(0, 5, A)], [ent(0, 5, A), ent(0, 5, A)]) == (1, 0, 0)


# --- document level ------------------------------------------------------------------


def test_document_level_compares_id_sets_whatever_the_spans():
    gold_entities = [ent(0, 5, A), ent(20, 5, A), ent(40, 5, f"{B};{C}")]
    assert document(gold_entities, [ent(99, 1, A), ent(98, 1, B)]) == (2, 0, 1)
    assert document(gold_entities, [ent(0, 5, "HP:0000009")]) == (0, 1, 3)


def test_document_level_ignores_no_id():
    assert document([ent(0, 5, "-1")], [ent(0, 5, "-1")]) == (0, 0, 0)
    assert document([ent(0, 5, f"{A};-1")], [ent(7, 2, A)]) == (1, 0, 0)


def test_document_level_leaves_negated_mentions_out_of_both_sets():
    assert document([ent(0, 5, A, "NO")], [ent(0, 5, A, "NO")]) == (0, 0, 0)
    assert document([ent(0, 5, A, "NO")], [ent(0, 5, A)]) == (0, 1, 0)
    assert document([ent(0, 5, A)], [ent(0, 5, A, "NO")]) == (0, 0, 1)
    assert document([ent(0, 5, A, "NO"), ent(9, 5, A)], [ent(30, 5, A)]) == (1, 0, 0)


# --- association ---------------------------------------------------------------------


def test_micro_sums_counts_and_macro_averages_patients_with_empty_gold_scoring_one():
    g = gold(association=[("P1", [A, B]), ("P2", [])], patients=("P1", "P2"))
    result = score([g], [pred(association=[("P1", [A]), ("P2", [])])])
    assert counts(result["micro"]) == (1, 0, 1)
    assert result["micro"]["f1"] == pytest.approx(2 / 3)
    assert result["macro"]["f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert result["macro"]["precision"] == pytest.approx(1.0)
    assert result["macro"]["recall"] == pytest.approx(0.75)
    assert result["macro"]["patients"] == 2


def test_a_prediction_for_an_empty_gold_patient_scores_zero_for_that_patient():
    g = gold(association=[("P1", [A]), ("P2", [])], patients=("P1", "P2"))
    result = score([g], [pred(association=[("P1", [A]), ("P2", [C])])])
    assert counts(result["micro"]) == (1, 1, 0)
    assert result["macro"]["f1"] == pytest.approx(0.5)


def test_gold_patient_missing_from_predictions_has_an_empty_prediction():
    g = gold(association=[("P1", [A]), ("P2", [])], patients=("P1", "P2"))
    result = score([g], [pred(association=[])])
    assert counts(result["micro"]) == (0, 0, 1)
    assert result["macro"]["f1"] == pytest.approx(0.5)


def test_listed_patient_without_association_entry_is_an_empty_gold_patient():
    g = gold(association=[("P1", [A])], patients=("P1", "P2"))
    assert score([g], [pred(association=[("P1", [A])])])["macro"]["f1"] == 1.0


def test_predictions_for_unknown_patients_are_ignored():
    g = gold(association=[("P1", [A])])
    result = score([g], [pred(association=[("P1", [A]), ("P9", [B, C])])])
    assert counts(result["micro"]) == (1, 0, 0)
    assert result["macro"]["patients"] == 1


def test_association_lists_are_sets_with_texts_matched_exactly():
    g = gold(association=[("P1", [A, A, "long fingers", "long fingers"])])
    exact = pred(association=[("P1", [A, "long fingers"])])
    other_case = pred(association=[("P1", [A, "Long fingers"])])
    assert counts(score([g], [exact])["micro"]) == (2, 0, 0)
    assert counts(score([g], [other_case])["micro"]) == (1, 1, 1)


def test_association_id_lists_are_split_like_compound_mentions():
    g = gold(association=[("P1", [f"{A};{B}"])])
    assert counts(score([g], [pred(association=[("P1", [B, A])])])["micro"]) == (2, 0, 0)
    assert counts(score([g], [pred(association=[("P1", [A])])])["micro"]) == (1, 0, 1)


def test_repeated_prediction_entries_for_one_patient_are_merged():
    g = gold(association=[("P1", [A, B])])
    result = score([g], [pred(association=[("P1", [A]), ("P1", [B])])])
    assert counts(result["micro"]) == (2, 0, 0)


# --- articles and the total ----------------------------------------------------------


def test_missing_article_counts_as_empty_and_extra_article_is_ignored():
    golds = [
        gold([ent(0, 5, A)], [("P1", [A])], pmc_id="1"),
        gold([ent(0, 5, B)], [("P1", [B])], pmc_id="2"),
    ]
    preds = [
        pred([ent(0, 5, A)], [("P1", [A])], pmc_id="1"),
        pred([ent(0, 5, C)], [("P1", [C])], pmc_id="3"),
    ]
    result = score(golds, preds)
    assert counts(result["mention"]) == (1, 0, 1)
    assert counts(result["document"]) == (1, 0, 1)
    assert counts(result["micro"]) == (1, 0, 1)
    assert result["macro"]["f1"] == 0.5


def test_score_is_the_mean_of_the_four_f1s():
    g = gold([ent(0, 5, A), ent(9, 5, B)], [("P1", [A, B]), ("P2", [])], patients=("P1", "P2"))
    result = score([g], [pred([ent(0, 5, A), ent(30, 5, B)], [("P1", [A, C])])])
    levels = ("mention", "document", "micro", "macro")
    expected = 0.25 * sum(result[level]["f1"] for level in levels)
    assert result["score"] == pytest.approx(expected)
    assert result["mention"]["f1"] == pytest.approx(0.5)
    assert result["document"]["f1"] == 1.0
    assert result["micro"]["f1"] == pytest.approx(0.5)
    assert result["macro"]["f1"] == pytest.approx((0.5 + 1) / 2)
    assert result["score"] == pytest.approx(0.6875)


def test_nothing_to_find_and_nothing_found_is_perfect():
    result = score([gold(patients=())], [pred()])
    assert result["score"] == 1.0


def test_nothing_predicted_gives_zero_precision_and_recall():
    result = score([gold([ent(0, 5, A)])], [])
    assert (result["mention"]["precision"], result["mention"]["recall"]) == (0.0, 0.0)


def test_duplicate_prediction_article_is_refused():
    with pytest.raises(InputError, match="predictions: duplicate pmc_id 1"):
        score([gold()], [pred(), pred()])


def test_per_article_lists_the_units_behind_the_counts():
    g = gold([ent(0, 5, A), ent(9, 2, "-1")])
    (result,) = per_article([g], [pred([ent(0, 5, B), ent(9, 2, C)])])
    assert result.pmc_id == "1"
    assert result.mention.tp == ((9, 2, C),)
    assert result.mention.fp == ((0, 5, B),)
    assert result.mention.fn == ((0, 5, A),)
    assert result.document.fp == (B, C)
    assert [patient_id for patient_id, _ in result.patients] == ["P1"]


def test_format_table_has_four_rows_and_a_score_line_with_four_decimals():
    result = score([gold([ent(0, 5, A)], [("P1", [A])])], [pred([ent(0, 5, A), ent(9, 2, B)])])
    lines = format_table(result).splitlines()
    labels = [line.split()[0] for line in lines[1:]]
    assert labels == ["mention", "document", "micro", "macro", "Score", "negation", "single", "multi"]
    assert lines[7].endswith("1 patients, micro F1 0.0000, macro F1 0.0000, 1 with F1 = 0")  # P1 got nothing
    assert lines[8].endswith("association in multi-patient articles: no such article")  # no F1 of nobody
    assert lines[1].split() == ["mention", "0.5000", "1.0000", "0.6667", "1", "1", "0"]
    assert lines[4].split() == ["macro", "0.0000", "0.0000", "0.0000"]
    assert lines[5].split()[1] == f"{result['score']:.4f}"
    assert len({len(line) for line in lines[:4]}) == 1


def test_negation_agreement_counts_notes_on_the_spans_both_sides_have():
    gold_article = gold([ent(0, 5, A, "NO"), ent(10, 5, B, "NO"), ent(20, 5, C), ent(30, 5, A, "NO")], [])
    predicted = pred([ent(0, 5, A, "NO"), ent(10, 5, B), ent(20, 5, C, "NO"), ent(40, 5, C, "NO")])
    negation = score([gold_article], [predicted])["negation"]
    # agreed: (0,5); "NO" on a gold span: (0,5), (20,5); gold-negated spans predicted: (0,5), (10,5)
    assert (negation["agreed"], negation["predicted_on_gold"], negation["found"], negation["gold_negated"]) == (1, 2, 2, 3)
    assert (negation["precision"], negation["recall"], negation["recall_all"]) == (0.5, 0.5, 1 / 3)
    # strict: every predicted "NO", (40,5) off any gold span included
    assert (negation["predicted"], negation["strict_precision"]) == (3, 1 / 3)

