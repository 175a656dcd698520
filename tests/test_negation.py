import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.document import PHENOTYPES, make_text_doc
from phenorules.errors import InputError
from phenorules.pipeline import build_pipeline
from phenorules.stages.negation import read_termset

from conftest import MINI_OBO


def negated(nlp, text, section="CASE"):
    doc = nlp(make_text_doc(nlp, text, section_type=section))
    return {span.text: span._.negex for span in doc.spans[PHENOTYPES]}


def test_preceding_cue_negates_and_is_recorded_in_provenance(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "There was no evidence of cleft palate."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex
    assert span._.provenance[-1] == "negex:preceding_negations:no evidence of"


def test_following_cue_negates(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Seizures were not observed."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex and span._.provenance[-1] == "negex:following_negations:were not observed"


def test_a_listed_finding_stays_in_scope(mini_nlp):
    assert negated(mini_nlp, "He had no hypotonia, seizures, or ataxia.") == {"hypotonia": True, "seizures": True, "ataxia": True}


def test_a_cue_that_is_words_of_a_finding_negates_nothing(mini_nlp):
    # "absence of" names the finding Absent speech; it does not negate the list after it
    assert negated(mini_nlp, "She had absence of speech, ataxia and hypotonia.") == {"absence of speech": False, "ataxia": False, "hypotonia": False}
    assert negated(mini_nlp, "She had absence of seizures and ataxia.") == {"seizures": True, "ataxia": True}
    doc = mini_nlp(make_text_doc(mini_nlp, "She had absence of speech, ataxia and hypotonia."))
    assert [span._.provenance[-1] for span in doc.spans[PHENOTYPES]][1:] == ["negex:in_mention:absence of"] * 2


def test_pseudo_negations_do_not_negate(mini_nlp):
    assert negated(mini_nlp, "He had no further seizures.") == {"seizures": False}
    assert negated(mini_nlp, "The presence or absence of cleft palate varies.") == {"cleft palate": False}
    assert negated(mini_nlp, "There was not only hypotonia but also ataxia.") == {"hypotonia": False, "ataxia": False}


def test_scope_ends_at_but_and_at_the_sentence_end(mini_nlp):
    assert negated(mini_nlp, "There was no hypotonia but seizures were frequent.") == {"hypotonia": True, "seizures": False}
    assert negated(mini_nlp, "No edema was seen. Seizures began at two.") == {"edema": True, "Seizures": False}


def test_a_cue_reaches_only_its_word_window(mini_nlp):
    text = "No genetic testing was performed for the relatives of the boy, who developed seizures."
    assert negated(mini_nlp, text) == {"seizures": False}


def test_bare_not_and_without_are_not_cues(mini_nlp):
    # annotators mark these as present findings more often than as negated ones
    assert negated(mini_nlp, "She did not walk and had ataxia, without seizures.") == {"ataxia": False, "seizures": False}


def test_introduction_and_discussion_are_not_negated(mini_nlp):
    assert negated(mini_nlp, "Patients had no cleft palate.", section="DISCUSS") == {"cleft palate": False}
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"negation": {"skipped_sections": []}})
    assert negated(nlp, "Patients had no cleft palate.", section="DISCUSS") == {"cleft palate": True}


def test_switching_the_stage_off_leaves_mentions_positive():
    nlp = build_pipeline(hpo=MINI_OBO, disable=["negation"], kb={"use_cache": False})
    assert "negation" not in nlp.pipe_names
    assert negated(nlp, "There was no cleft palate.") == {"cleft palate": False}


def test_termset_file_with_an_unknown_family_is_refused(tmp_path):
    path = tmp_path / "terms.tsv"
    path.write_text("preceding_negations\tno\nnegations\tnever\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"terms.tsv:2: unknown cue family 'negations'"):
        read_termset(path)


def test_termset_keeps_file_order_per_family(tmp_path):
    path = tmp_path / "terms.tsv"
    path.write_text("# comment\ntermination\tbut\npreceding_negations\tno\npreceding_negations\tfree of\n", encoding="utf-8")
    assert read_termset(path) == {"pseudo_negations": [], "preceding_negations": ["no", "free of"], "following_negations": [], "termination": ["but"]}


def test_a_cue_after_a_comma_aside_reaches_back_over_it(mini_nlp):
    assert negated(mini_nlp, "Hearing impairment, reported in other families of the region, was absent.") == {"Hearing impairment": True}
    assert negated(mini_nlp, "Hearing impairment reported in other families of the region was absent.") == {"Hearing impairment": False}


def test_a_discussion_sentence_about_the_own_cases_is_negated(mini_nlp):
    assert negated(mini_nlp, "Hearing impairment, reported in other families, was absent here.", section="DISCUSS") == {"Hearing impairment": True}
    assert negated(mini_nlp, "Neither of our patients had a history of seizures.", section="DISCUSS") == {"seizures": True}
    assert negated(mini_nlp, "Most reported patients had no seizures.", section="DISCUSS") == {"seizures": False}


def test_a_quantified_subject_does_not_use_up_the_window(mini_nlp):
    text = "Neither of the affected individuals in this family presented with seizures."
    assert negated(mini_nlp, text) == {"seizures": True}
    assert negated(mini_nlp, "No genetic testing of the affected individuals in this family presented seizures.") == {"seizures": False}


def test_brackets_and_list_openers_do_not_use_up_the_window(mini_nlp):
    assert negated(mini_nlp, "There were no other anomalies (clinical or radiological) such as hypotonia or ataxia.") == {
        "hypotonia": True,
        "ataxia": True,
    }


def test_without_is_a_cue_in_the_findings_sense_only(mini_nlp):
    assert negated(mini_nlp, "A boy with the syndrome (without seizures) was seen.") == {"seizures": True}
    assert negated(mini_nlp, "Abdomen soft without edema.") == {"edema": True}
    assert negated(mini_nlp, "She had hypotonia without seizures.") == {"hypotonia": False, "seizures": False}


def test_a_list_item_with_its_own_article_or_degree_ends_the_scope(mini_nlp):
    assert negated(mini_nlp, "There was absence of seizures, ataxia, and a marked hypotonia.") == {
        "seizures": True,
        "ataxia": True,
        "hypotonia": False,
    }
    assert negated(mini_nlp, "No seizures, mild hypotonia.") == {"seizures": True, "hypotonia": False}


def test_pseudo_negation_not_uncommon(mini_nlp):
    assert negated(mini_nlp, "Seizures are not uncommon in this group.") == {"Seizures": False}


def test_a_copula_not_reaches_only_its_predicate(mini_nlp):
    assert negated(mini_nlp, "His main problem was not developmental delay.") == {"developmental delay": True}
    # "was not" reaches narrow_window (2) words: a clause after it is not its predicate
    assert negated(mini_nlp, "The boy was not seen again, and developmental delay was noted later.") == {"developmental delay": False}


def test_a_post_posed_is_negative_negates(mini_nlp):
    assert negated(mini_nlp, "Testing for seizures is negative.") == {"seizures": True}


def test_positive_for_ends_the_scope(mini_nlp):
    assert negated(mini_nlp, "Workup was negative for edema and positive for seizures.") == {"edema": True, "seizures": False}


def test_a_cue_matches_across_runs_of_spaces(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Testing   was negative   for seizures."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex and span._.provenance[-1] == "negex:preceding_negations:negative for"
    assert negated(mini_nlp, "There was no   evidence   of edema.") == {"edema": True}
    assert negated(mini_nlp, "There was no  further  seizures.") == {"seizures": False}  # a pseudo-negation too


def test_a_pseudo_negation_cancels_a_cue_that_overlaps_it(mini_nlp):
    # "but not" and "was not" end where "not always" and "not only" begin
    assert negated(mini_nlp, "The signs are usually, but not always symmetrical seizures.") == {"seizures": False}
    assert negated(mini_nlp, "It was not only seizures.") == {"seizures": False}


def provenance(nlp, text, section="CASE"):
    doc = nlp(make_text_doc(nlp, text, section_type=section))
    return {span.text: span._.provenance for span in doc.spans[PHENOTYPES]}


def test_a_cue_beyond_its_reach_is_recorded_with_the_setting_that_cut_it_off(mini_nlp):
    text = "No genetic testing was performed in the family of the boy with seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == "negex:beyond_reach:no:window=5"
    scope = mini_nlp.get_pipe("negation").scope
    text = "The patient was not in any acute distress from seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == f"negex:beyond_reach:was not:narrow_window=2:{scope.narrow_cues['was not']}"
    assert str(scope.narrow_cues["was not"]).startswith("negation_scope.tsv:")
    text = "Neither of the affected individuals in this large family from the northern region ever presented with seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == f"negex:beyond_reach:neither:wide_window=10:{scope.wide_cues['neither']}"
    assert "negex" not in " ".join(provenance(mini_nlp, "He had seizures.")["seizures"])  # no cue, nothing recorded


def test_a_negation_a_skipped_section_kept_off_is_recorded(mini_nlp):
    assert provenance(mini_nlp, "Patients had no cleft palate.", section="DISCUSS")["cleft palate"][-1] == (
        "negex:skipped_section:DISCUSS:preceding_negations:no"
    )
    assert "negex" not in " ".join(provenance(mini_nlp, "Patients had cleft palate.", section="DISCUSS")["cleft palate"])


def test_a_negation_an_own_case_sentence_lets_stand_names_the_own_case_row(mini_nlp):
    rows = {ref.name: ref for _, ref in mini_nlp.get_pipe("negation").scope.own_case_rows}
    assert provenance(mini_nlp, "Neither of our patients had a history of seizures.", section="DISCUSS")["seizures"][-2:] == [
        "negex:preceding_negations:neither",
        f"negex:own_case:DISCUSS:{rows['our patients']}",
    ]
    assert provenance(mini_nlp, "Patient 2 had no seizures.", section="DISCUSS")["seizures"][-1] == f"negex:own_case:DISCUSS:{rows['patient #']}"
    assert provenance(mini_nlp, "Patient 2 had no seizures.")["seizures"][-1] == "negex:preceding_negations:no"  # not a skipped section



NEGATION_WORDS = (
    "no", "absence of", "neither of", "was not", "was absent", "were not observed", "no further", "not only", "such as",
    "seizures", "ataxia", "the", "patients", "had", "our patient", "and", "but", ",", ".", "(", ")", "\n",
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(NEGATION_WORDS), min_size=10, max_size=40),
    st.lists(st.tuples(st.integers(0, 80), st.integers(1, 6)), min_size=3, max_size=10),
    st.sampled_from(["CASE", "DISCUSS"]),
)
def test_each_mention_handed_its_deciding_cues_is_negated_as_with_all_cues(mini_nlp, words, mentions, section):
    """The windowed cue lookup (WindowedNegex.cue_windows) decides every mention as handing
    it all the cues of its sub-sentence does: negex and the provenance it records. The
    mentions are random token ranges, so that cues fall inside them too."""
    negation = mini_nlp.get_pipe("negation")
    results = []
    for all_cues in (False, True):
        doc = mini_nlp.get_pipe("sentences")(make_text_doc(mini_nlp, " ".join(words), section_type=section))
        doc.spans[PHENOTYPES] = [doc[start : min(start + size, len(doc))] for start, size in mentions if start < len(doc)]
        for span in doc.spans[PHENOTYPES]:
            span._.provenance = ["name"]
        if all_cues:  # the sub-sentence's cues, every one of them, to every mention
            negation.cue_windows = lambda doc, preceding, following: lambda span: (preceding, following)
        try:
            doc = negation(doc)
        finally:
            negation.__dict__.pop("cue_windows", None)
        results.append([(s.start, s.end, s._.negex, tuple(s._.provenance)) for s in doc.spans[PHENOTYPES]])
    assert results[0] == results[1]
