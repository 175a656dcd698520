"""The assertion stage (ConText): negation as NegEx learnt it on articles, and the other four categories."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.assertion.rules import expand, read_context_rules

from conftest import MINI_OBO, stage_rules


def negated(nlp, text, section="CASE"):
    doc = nlp(make_text_doc(nlp, text, section_type=section))
    return {span.text: span._.negex for span in doc.spans[PHENOTYPES]}


def test_preceding_cue_negates_and_is_recorded_in_provenance(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "There was no evidence of cleft palate."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex
    assert stage_rules(span)[-1].startswith("context:NEGATED_EXISTENCE:no evidence of:context_rules.tsv:")
    assert span._.is_negated and span._.assertion_cues[0]["text"] == "no evidence of"


def test_following_cue_negates(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Seizures were not observed."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex and stage_rules(span)[-1].startswith("context:NEGATED_EXISTENCE:were not observed:")


def test_a_listed_finding_stays_in_scope(mini_nlp):
    assert negated(mini_nlp, "He had no hypotonia, seizures, or ataxia.") == {"hypotonia": True, "seizures": True, "ataxia": True}


def test_a_cue_that_is_words_of_a_finding_negates_nothing(mini_nlp):
    # "absence of" names the finding Absent speech; it does not negate the list after it
    assert negated(mini_nlp, "She had absence of speech, ataxia and hypotonia.") == {"absence of speech": False, "ataxia": False, "hypotonia": False}
    assert negated(mini_nlp, "She had absence of seizures and ataxia.") == {"seizures": True, "ataxia": True}
    doc = mini_nlp(make_text_doc(mini_nlp, "She had absence of speech, ataxia and hypotonia."))
    assert [stage_rules(span)[-1] for span in doc.spans[PHENOTYPES]][1:] == ["context:in_mention:NEGATED_EXISTENCE:absence of"] * 2


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
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"assertion": {"skipped_sections": []}})
    assert negated(nlp, "Patients had no cleft palate.", section="DISCUSS") == {"cleft palate": True}


def test_switching_the_stage_off_leaves_mentions_positive():
    nlp = build_pipeline(hpo=MINI_OBO, disable=["assertion"], kb={"use_cache": False})
    assert "assertion" not in nlp.pipe_names
    assert negated(nlp, "There was no cleft palate.") == {"cleft palate": False}


def test_a_rules_file_with_an_unknown_category_or_direction_is_refused(tmp_path):
    path = tmp_path / "rules.tsv"
    path.write_text("no\tNEGATED_EXISTENCE\tforward\nnever\tNEGATION\tforward\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rules.tsv:2: unknown category 'NEGATION'"):
        read_context_rules(path)
    path.write_text("# comment\nno\tNEGATED_EXISTENCE\tahead\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rules.tsv:2: unknown direction 'ahead'"):
        read_context_rules(path)
    path.write_text("no\tNEGATED_EXISTENCE\tforward\tfar\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rules.tsv:1: max_scope 'far'"):
        read_context_rules(path)


def test_a_rule_row_keeps_its_line_and_spells_out_its_alternatives(tmp_path):
    path = tmp_path / "rules.tsv"
    path.write_text("# comment\n{in|of} {her|his} {maternal |}aunt\tFAMILY\tbackward\t4\n", encoding="utf-8")
    (rule,) = read_context_rules(path)
    assert (str(rule.ref), rule.category, rule.direction, rule.max_scope) == ("rules.tsv:2", "FAMILY", "backward", 4)
    assert rule.phrases == ("in her maternal aunt", "in her aunt", "in his maternal aunt", "in his aunt", "of her maternal aunt", "of her aunt", "of his maternal aunt", "of his aunt")
    assert expand("No  Evidence of") == ("no evidence of",)


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
    assert span._.negex and stage_rules(span)[-1].startswith("context:NEGATED_EXISTENCE:negative for:")
    assert negated(mini_nlp, "There was no   evidence   of edema.") == {"edema": True}
    assert negated(mini_nlp, "There was no  further  seizures.") == {"seizures": False}  # a pseudo-negation too


def test_a_pseudo_negation_cancels_a_cue_that_overlaps_it(mini_nlp):
    # "but not" and "was not" end where "not always" and "not only" begin
    assert negated(mini_nlp, "The signs are usually, but not always symmetrical seizures.") == {"seizures": False}
    assert negated(mini_nlp, "It was not only seizures.") == {"seizures": False}


def provenance(nlp, text, section="CASE"):
    doc = nlp(make_text_doc(nlp, text, section_type=section))
    return {span.text: stage_rules(span) for span in doc.spans[PHENOTYPES]}


def rule_row(nlp, cue, category="NEGATED_EXISTENCE"):
    return next(str(rule.ref) for rule in nlp.get_pipe("assertion").cues.rules if cue in rule.phrases and rule.category == category)


def test_a_cue_beyond_its_reach_is_recorded_with_the_setting_that_cut_it_off(mini_nlp):
    text = "No genetic testing was performed in the family of the boy with seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == "context:beyond_reach:NEGATED_EXISTENCE:no:window=5"
    text = "The patient was not in any acute distress from seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == f"context:beyond_reach:NEGATED_EXISTENCE:was not:max_scope=2:{rule_row(mini_nlp, 'was not')}"
    text = "Neither of the affected individuals in this large family from the northern region ever presented with seizures."
    assert provenance(mini_nlp, text)["seizures"][-1] == f"context:beyond_reach:NEGATED_EXISTENCE:neither:max_scope=10:{rule_row(mini_nlp, 'neither')}"
    assert "context" not in " ".join(provenance(mini_nlp, "He had seizures.")["seizures"])  # no cue, nothing recorded


def test_a_negation_a_skipped_section_kept_off_is_recorded(mini_nlp):
    assert provenance(mini_nlp, "Patients had no cleft palate.", section="DISCUSS")["cleft palate"][-1] == (
        f"context:skipped_section:DISCUSS:NEGATED_EXISTENCE:no:{rule_row(mini_nlp, 'no')}"
    )
    assert "context" not in " ".join(provenance(mini_nlp, "Patients had cleft palate.", section="DISCUSS")["cleft palate"])


def test_a_negation_an_own_case_sentence_lets_stand_names_the_own_case_row(mini_nlp):
    rows = {ref.name: ref for _, ref in mini_nlp.get_pipe("assertion").scope.own_case_rows}
    assert provenance(mini_nlp, "Neither of our patients had seizures.", section="DISCUSS")["seizures"][-2:] == [
        f"context:NEGATED_EXISTENCE:neither:{rule_row(mini_nlp, 'neither')}",
        f"context:own_case:DISCUSS:{rows['our patients']}",
    ]
    assert provenance(mini_nlp, "Patient 2 had no seizures.", section="DISCUSS")["seizures"][-1] == f"context:own_case:DISCUSS:{rows['patient #']}"
    assert provenance(mini_nlp, "Patient 2 had no seizures.")["seizures"][-1] == f"context:NEGATED_EXISTENCE:no:{rule_row(mini_nlp, 'no')}"


def flags(nlp, text, section="CASE"):
    doc = nlp(make_text_doc(nlp, text, section_type=section))
    names = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")
    return {span.text: {name.removeprefix("is_") for name in names if span._.get(name)} for span in doc.spans[PHENOTYPES]}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Microcephaly: absent. Hypotonia: none.", {"Microcephaly": {"negated"}, "Hypotonia": {"negated"}}),
        ("No other abnormalities besides hypertelorism were found.", {"hypertelorism": set()}),
        ("Ataxia is suspected.", {"Ataxia": {"uncertain"}}),
        ("She might have mild hearing impairment.", {"hearing impairment": {"uncertain"}}),
        ("Microcephaly cannot be ruled out.", {"Microcephaly": {"uncertain"}}),
        ("Return if fever or seizures occur.", {"seizures": {"hypothetical"}}),
        ("He is at risk for short stature.", {"short stature": {"hypothetical"}}),
        ("Echocardiography was ordered to rule out atrial septal defect.", {"atrial septal defect": {"hypothetical"}}),
        ("History of seizures in infancy.", {"seizures": {"historical"}}),
        ("Her father has hearing impairment.", {"hearing impairment": {"family"}}),
        ("There is a family history of microcephaly in two maternal aunts.", {"microcephaly": {"family"}}),
        ("Her mother noticed seizures at 3 months.", {"seizures": set()}),
    ],
)
def test_each_category_and_its_cues(mini_nlp, text, expected):
    assert flags(mini_nlp, text) == expected


def test_a_section_header_governs_its_section(mini_nlp):
    text = "Past medical history: hypotonia, seizures.\nFamily history: microcephaly in a cousin.\nExamination: ataxia."
    assert flags(mini_nlp, text) == {"hypotonia": {"historical"}, "seizures": {"historical"}, "microcephaly": {"family"}, "ataxia": set()}


def test_the_cue_that_set_a_flag_is_on_the_mention(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Her father has ataxia."))
    (span,) = doc.spans[PHENOTYPES]
    (cue,) = span._.assertion_cues
    assert (cue["category"], cue["text"], doc.text[cue["start"] : cue["end"]]) == ("FAMILY", "Her father", "Her father")
    assert cue["rule"].startswith("context_rules.tsv:") and stage_rules(span)[-1] == f"context:FAMILY:her father:{cue['rule']}"


def test_negex_is_an_alias_of_is_negated(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "No seizures."))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.negex and span._.is_negated
    span._.negex = False
    assert not span._.is_negated


def test_one_pipeline_shared_by_eight_threads_asserts_as_serially(mini_nlp):
    from concurrent.futures import ThreadPoolExecutor

    sentences = [
        "There was no evidence of cleft palate, hypotonia or ataxia.",
        "Her father has hearing impairment but she had seizures.",
        "Microcephaly: absent. Short stature is suspected.",
        "Return if seizures occur; she had edema.",
        "History of episodic ataxia in infancy, (without pallor) and hypertelorism.",
        "The patient was not in any acute distress from seizures, which began at two.",
        "Neither of the affected individuals presented with intellectual disability.",
    ]
    texts = [" ".join(sentences[(i + j) % len(sentences)] for j in range(1 + i % 5)) * (1 + i % 3) for i in range(160)]

    def judged(text):
        doc = mini_nlp(make_text_doc(mini_nlp, text, section_type="DISCUSS" if len(text) % 2 else "CASE"))
        return [(s.start_char, s.end_char, s._.is_negated, s._.is_uncertain, s._.is_hypothetical, s._.is_historical, s._.is_family, str(s._.assertion_cues), tuple(s._.provenance)) for s in doc.spans[PHENOTYPES]]

    serial = [judged(text) for text in texts]
    with ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(judged, texts))
    assert threaded == serial
    assert sum(len(found) for found in serial) > 1000


CUE_WORDS = (
    "no", "absence of", "neither of", "was not", "was absent", "were not observed", "no further", "not only", "such as",
    "seizures", "ataxia", "the", "patients", "had", "our patient", "her father", "possible", "if", "and", "but", ",", ".", "(", ")", "\n",
)


def all_cues_deciding(side, span):
    """What _Side.deciding finds by bisection, found by looking at every cue of the side."""
    from phenorules.stages.assertion import _Deciding

    words, window = side.words, 5
    order = lambda cue: (cue.start, cue.end, cue.rule.ref)  # noqa: E731
    cues = sorted(side.cues, key=order)
    if side.forward:
        candidates = [c for c in cues if c.end <= span.start]
        reached = [c for c in candidates if words.before[span.start] - words.before[c.end] <= (c.rule.max_scope or window)]
    else:
        candidates = [c for c in cues if c.start >= span.end]
        reached = [c for c in candidates if words.after[c.start] - words.after[span.end] <= (c.rule.max_scope or window)]
    findings = [c for c in reached if c in words.findings]
    plain = [c for c in reached if c not in words.findings]
    beyond = [c for c in candidates if c not in reached]
    if side.forward:
        near = lambda found: max(found, key=lambda c: (c.start, c.end), default=None)  # noqa: E731
    else:
        near = lambda found: min(found, key=lambda c: c.start, default=None)  # noqa: E731
    nearest = near([c for c in candidates if c not in words.findings])  # ConText: the nearest cue ends the scope of those behind it
    return _Deciding(near(plain) if nearest in plain else None, findings[0] if findings else None, near(beyond))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(CUE_WORDS), min_size=10, max_size=40),
    st.lists(st.tuples(st.integers(0, 80), st.integers(1, 6)), min_size=3, max_size=10),
    st.sampled_from(["CASE", "DISCUSS"]),
)
def test_each_mention_finds_its_deciding_cues_as_among_all_cues(mini_nlp, words, mentions, section):
    """The cue lookup by bisection (stages/assertion._Side) decides every mention as looking
    at all the cues of its piece does: the flags and the provenance they record. The
    mentions are random token ranges, so that cues fall inside them too."""
    from phenorules.stages import assertion as stage

    results = []
    for brute in (False, True):
        doc = mini_nlp.get_pipe("sentences")(make_text_doc(mini_nlp, " ".join(words), section_type=section))
        doc.spans[PHENOTYPES] = [doc[start : min(start + size, len(doc))] for start, size in mentions if start < len(doc)]
        for span in doc.spans[PHENOTYPES]:
            span._.provenance = ["name"]
        deciding = stage._Side.deciding
        if brute:
            stage._Side.deciding = all_cues_deciding
        try:
            doc = mini_nlp.get_pipe("assertion")(doc)
        finally:
            stage._Side.deciding = deciding
        flags = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")
        results.append([(s.start, s.end, tuple(s._.get(f) for f in flags), tuple(s._.provenance)) for s in doc.spans[PHENOTYPES]])
    assert results[0] == results[1]


def test_without_negates_the_words_after_it_unless_the_profile_switches_it_off(mini_nlp, general_nlp):
    # the general profile: what the text says; PatientPheX's annotators keep such findings present
    assert negated(general_nlp, "Microcephaly without hypotonia was seen.") == {"Microcephaly": False, "hypotonia": True}
    assert negated(general_nlp, "She had hypotonia without any sign of seizures.") == {"hypotonia": False, "seizures": True}
    assert negated(mini_nlp, "She had hypotonia without seizures.") == {"hypotonia": False, "seizures": False}


def test_an_off_cue_that_is_no_row_is_refused():
    from phenorules.core.errors import SettingError

    with pytest.raises(SettingError, match=r"assertion.off_cues: \['withot'\] is no cue"):
        build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"assertion": {"off_cues": ["withot"]}})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(1, 4), st.sampled_from(["NEGATED_EXISTENCE", "FAMILY"]), st.sampled_from(["forward", "backward", "pseudo"])),
        max_size=30,
    )
)
def test_pseudo_triggers_cancel_the_cues_every_pairwise_comparison_would(found):
    """The cue matcher's sort-and-sweep keeps the cues that comparing every cue with every
    pseudo-trigger of its category keeps: none that overlaps one or starts where one ends."""
    from phenorules.assertion.cues import Cue, not_cancelled
    from phenorules.assertion.rules import ContextRule
    from phenorules.kb.lexicon.tsv import RuleRef

    cues = [Cue(ContextRule(("cue",), category, direction, None, RuleRef("rules.tsv", line, "cue")), start, start + size) for line, (start, size, category, direction) in enumerate(found, 1)]
    pseudo = [cue for cue in cues if cue.rule.direction == "pseudo"]
    pairwise = [
        cue
        for cue in cues
        if cue.rule.direction != "pseudo"
        and not any((cue.start < p.end and cue.end > p.start) or cue.start == p.end for p in pseudo if p.rule.category == cue.rule.category)
    ]
    assert not_cancelled(cues) == sorted(pairwise, key=lambda cue: (cue.start, cue.end, cue.rule.ref))


REACH_SENTENCES = [
    "There was no evidence of cleft palate.",
    "No genetic testing was done.",
    "Family history:\nHer brother had seizures.",
    "He had no further seizures.",
    "Hypotonia was not observed.",
    "The presence or absence of ataxia varies.",
    "Past medical history: seizures.",
    "She was seen at two years.",
    "Rule out hypotonia.",
    "no",
    "Not only ataxia.",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(REACH_SENTENCES), min_size=1, max_size=6))
def test_cues_found_only_in_sentences_with_a_mention_assert_as_cues_found_everywhere(mini_nlp, sentences):
    """The stage looks for cues only in the sentences where a mention starts (and for
    pseudo-triggers and section headers everywhere): every mention gets the flags, cues
    and provenance that cues found in the whole text give it."""
    from unittest import mock

    import numpy

    from phenorules.stages import assertion

    def read(nlp, text):
        doc = nlp(make_text_doc(nlp, text))
        return [(span.start_char, span._.negex, span._.assertion_cues, span._.provenance) for span in doc.spans[PHENOTYPES]]

    text = " ".join(sentences)
    everywhere = lambda starts, sentence_starts, length: numpy.ones(length, dtype=bool)  # noqa: E731
    with mock.patch.object(assertion, "sentences_holding", everywhere):
        expected = read(mini_nlp, text)
    assert read(mini_nlp, text) == expected


def test_the_cue_rules_and_their_tokens_are_read_again_from_their_cache_entry(tmp_path, monkeypatch):
    """With the word tokenizer, a rules file's rows and their phrases' tokens come from a
    cache entry while the file stays as it was, the same as read and split afresh; a changed
    file is read again. Another tokenizer splits the phrases itself and keeps no entry."""
    import os
    import shutil

    import spacy

    from phenorules.assertion import cues
    from phenorules.assertion.rules import read_context_rules
    from phenorules.kb.resources import data_file
    from phenorules.stages.pipeline import blank_english

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "context_rules.tsv"
    shutil.copyfile(data_file("rules", "context_rules.tsv"), path)
    nlp = blank_english()
    fresh = read_context_rules(path)
    expected = (fresh, cues.phrase_tokens(nlp, fresh))
    assert cues.context_cues(nlp, path) == expected
    with monkeypatch.context() as patched:
        patched.setattr(cues, "read_context_rules", lambda _: pytest.fail("the rules file was read again"))
        assert cues.context_cues(nlp, path) == expected
    path.write_text(path.read_text(encoding="utf-8") + "never ever\tNEGATED_EXISTENCE\tforward\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    rules, tokens = cues.context_cues(nlp, path)
    assert rules[-1].phrases == ("never ever",) and tokens[-1] == [["never", "ever"]]
    assert len(list((tmp_path / "cache").glob("context-cues-*.cache"))) == 2
    shutil.rmtree(tmp_path / "cache")
    plain = spacy.blank("en")
    assert cues.context_cues(plain, path)[1][-1] == [["never", "ever"]] and not (tmp_path / "cache").exists()
