"""The assertion stage's reach (ConText's scope in the general profile, the word window in the
patientphex one), its clinical conventions and frames, and what the patient stage makes of a
relative's finding."""

import pytest

from phenorules.core.article import Article, GivenMention, Passage, Patient
from phenorules.core.document import PHENOTYPES, make_article_doc, make_text_doc

from conftest import stage_rules

NAMES = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")


def flags(nlp, text):
    doc = nlp(make_text_doc(nlp, text, section_type="CASE"))
    return {span.text: {name.removeprefix("is_") for name in NAMES if span._.get(name)} for span in doc.spans[PHENOTYPES]}


def patients(nlp, text):
    doc = nlp(make_text_doc(nlp, text, section_type="CASE"))
    return {span.text: span._.patient for span in doc.spans[PHENOTYPES]}


# --- reach -------------------------------------------------------------------------------


def test_a_conditional_reaches_down_a_long_list_in_the_general_profile(general_nlp, mini_nlp):
    text = "Bring her back at once should the child show rising irritability, poor feeding over two days, worsening pallor, unsteady ataxia or seizures."
    assert flags(general_nlp, text) == {"pallor": {"hypothetical"}, "ataxia": {"hypothetical"}, "seizures": {"hypothetical"}}
    # the patientphex profile keeps NegEx's word window: the tail of the list is out of reach
    assert flags(mini_nlp, text)["seizures"] == set()


def test_a_history_cue_reaches_every_item_of_its_list(general_nlp):
    text = "He has a history of recurrent ear infections treated with antibiotics, nosebleeds in winter, swelling with edema, and short stature."
    assert flags(general_nlp, text) == {"edema": {"historical"}, "short stature": {"historical"}}


def test_a_long_negated_list_keeps_its_tail_and_a_nearer_cue_ends_the_scope(general_nlp, mini_nlp):
    text = "He denies headaches, blurred vision, chest tightness, shortness of breath on exertion, palpitations, edema or seizures."
    assert flags(general_nlp, text) == {"edema": {"negated"}, "seizures": {"negated"}}
    assert flags(mini_nlp, text) == {"edema": set(), "seizures": set()}
    # ConText: a nearer cue of the category ends the scope of one behind it, here out of its own reach
    text = "There was no fever, and the boy was not seen again by the clinic until the age of six with short stature."
    assert flags(general_nlp, text) == {"short stature": set()}
    doc = general_nlp(make_text_doc(general_nlp, text))
    assert stage_rules(doc.spans[PHENOTYPES][0])[-1].startswith("context:beyond_reach:NEGATED_EXISTENCE:was not:max_scope=2:")


def test_an_inline_header_of_a_note_ends_every_scope(general_nlp, mini_nlp):
    # a note whose line breaks were lost: the header starts a new section
    text = "Denies headache PHYSICAL EXAM: hypotonia, ataxia. Microcephaly ASSESSMENT: none."
    for nlp in (general_nlp, mini_nlp):
        assert flags(nlp, text) == {"hypotonia": set(), "ataxia": set(), "Microcephaly": set()}
    assert flags(general_nlp, "PAST MEDICAL HISTORY: seizures EXAM: hypotonia.") == {"seizures": {"historical"}, "hypotonia": set()}


# --- conventions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, finding",
    [
        ("Rule out seizures.", "seizures"),
        ("Impression: r/o ataxia.", "ataxia"),
        ("Admitted with ?hypotonia.", "hypotonia"),
        ("Query edema of the feet.", "edema"),
        ("She was referred for evaluation for microcephaly.", "microcephaly"),
    ],
)
def test_a_working_diagnosis_is_uncertain_never_negated(general_nlp, mini_nlp, text, finding):
    for nlp in (general_nlp, mini_nlp):
        assert flags(nlp, text)[finding] == {"uncertain"}


def test_a_test_ordered_to_rule_out_a_finding_stays_hypothetical_and_ruled_out_negates(general_nlp):
    assert flags(general_nlp, "An EEG was ordered to rule out seizures.") == {"seizures": {"hypothetical"}}
    assert flags(general_nlp, "Seizures were ruled out by video EEG.") == {"Seizures": {"negated"}}


def test_a_bare_not_before_a_verb_negates_in_the_general_profile(general_nlp, mini_nlp):
    for text, finding in [
        ("The boy did not develop seizures.", "seizures"),
        ("She does not appear to have ataxia.", "ataxia"),
        ("The findings would not support short stature.", "short stature"),
        ("He didn't show any hypotonia.", "hypotonia"),
    ]:
        assert flags(general_nlp, text)[finding] == {"negated"}
        assert flags(mini_nlp, text)[finding] == set()  # the articles' annotators keep these present
    assert flags(general_nlp, "It did not rule out seizures.")["seizures"] == {"uncertain"}  # not excluded: possible


@pytest.mark.parametrize(
    "text",
    [
        "Family history was negative for seizures.",
        "The family history is unremarkable for seizures.",
        "She has a negative family history of seizures.",
        "Seizures in the family were denied.",
        "There is no history of seizures among her relatives.",
        "FH noncontributory for seizures.",
    ],
)
def test_a_denied_family_history_denies_the_relatives_and_says_nothing_of_the_patient(general_nlp, mini_nlp, text):
    for nlp in (general_nlp, mini_nlp):
        (found,) = flags(nlp, text).values()
        assert {"negated", "family"} <= found
    (given,) = patients(general_nlp, text).values()
    assert given == []


@pytest.mark.parametrize(
    "text, finding",
    [
        ("She and her mother had seizures.", "seizures"),
        ("The patient as well as his father has ataxia.", "ataxia"),
        ("He and his older brother both have hypotonia.", "hypotonia"),
    ],
)
def test_a_finding_of_the_patient_and_a_relative_together_is_the_patients_too(general_nlp, text, finding):
    assert flags(general_nlp, text)[finding] == {"family"}
    doc = general_nlp(make_text_doc(general_nlp, text, section_type="CASE"))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.patient == ["proband"]
    assert any(step.startswith("patient:together:patient_cues.tsv:") for step in span._.provenance)
    # a relative's finding alone stays the relative's
    assert patients(general_nlp, f"Her mother had {finding}.") == {finding: []}


def test_a_finding_of_a_listed_relative_named_as_a_relative_goes_to_that_relative(mini_nlp):
    text = "The proband is a girl. Family history is remarkable for ataxia in the proband's mother."
    mother = text.index("the proband's mother")
    article = Article(
        "fh",
        (Passage(0, text, "CASE", "paragraph"),),
        patients=(Patient("P1", label="proband"), Patient("P2", mentions=(GivenMention(mother, mother + 20, "the proband's mother"),))),
    )
    doc = mini_nlp(make_article_doc(mini_nlp, article))
    (span,) = doc.spans[PHENOTYPES]
    assert span._.is_family and span._.patient == ["P2"]


# --- clinical frames ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("DDx: seizures versus syncope.", {"seizures": {"uncertain"}}),
        ("Episodes of ataxia vs hypotonia, unclear.", {"ataxia": {"uncertain"}, "hypotonia": {"uncertain"}}),
        ("The differential diagnoses include microcephaly.", {"microcephaly": {"uncertain"}}),
        ("Hearing impairment excluded by brainstem audiometry.", {"Hearing impairment": {"negated"}}),
        ("There is low suspicion for seizures.", {"seizures": {"negated"}}),
        ("Hyperventilation was performed to provoke seizures.", {"seizures": {"hypothetical"}}),
        ("Photic stimulation provoked seizures.", {"seizures": set()}),
        ("She received education on seizures.", {"seizures": {"hypothetical"}}),
        ("We discussed the chance of short stature with the family.", {"short stature": {"hypothetical"}}),
        ("Instructions regarding edema were given.", {"edema": {"hypothetical"}}),
        ("Genetic counselling about seizures was offered.", {"seizures": {"hypothetical"}}),
    ],
)
def test_clinical_frames_that_are_no_finding_of_the_patient(general_nlp, text, expected):
    assert flags(general_nlp, text) == expected
