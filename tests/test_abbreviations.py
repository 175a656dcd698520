import hypothesis
import pytest
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.stages.abbreviations import read_guards

from conftest import MINI_OBO, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier


def mentions(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [(span.text, span.start_char, task_identifier(span._.hpo_ids)) for span in doc.spans[PHENOTYPES]]


@pytest.fixture(scope="module")
def every_use_nlp():
    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"abbreviations": {"bare_uses": "all"}}, profile="patientphex")


@pytest.fixture(scope="module")
def notes_nlp():
    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"abbreviations": {"bare_uses": "unnamed"}}, profile="patientphex")


def test_definition_maps_the_short_form_to_the_long_forms_term(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "The boy had global developmental delay (GDD)."))
    short = [span for span in doc.spans[PHENOTYPES] if span.text == "GDD"]
    assert [(s.start_char, task_identifier(s._.hpo_ids)) for s in short] == [(40, "HP:0001263")]
    assert stage_rules(short[0]) == ["abbreviation:defined:global developmental delay"]


def test_short_form_stands_for_the_long_form_not_a_longer_mention(mini_nlp):
    # the mention is the moderate degree; "ID" abbreviates intellectual disability itself
    text = "She had moderate intellectual disability (ID)."
    assert mentions(mini_nlp, text) == [("moderate intellectual disability", 8, "HP:0002342"), ("ID", 42, "HP:0001249")]


def test_later_bare_uses_count_only_when_switched_on(mini_nlp, every_use_nlp):
    text = "He had intellectual disability (ID) and hypotonia. The ID was severe."
    assert mentions(mini_nlp, text) == [("intellectual disability", 7, "HP:0001249"), ("ID", 32, "HP:0001249"), ("hypotonia", 40, "HP:0001252")]
    assert ("ID", 55, "HP:0001249") in mentions(every_use_nlp, text)


def test_short_form_defined_with_another_sense_is_not_the_phenotype(every_use_nlp):
    text = "Iron deficiency (ID) was treated; ID recurred."
    assert mentions(every_use_nlp, text) == []


def test_undefined_hpo_abbreviation_needs_the_lexicon(every_use_nlp):
    # VSD is listed in lexicons/abbreviations.tsv; ASD is ambiguous and is not
    assert mentions(every_use_nlp, "Echocardiography showed a VSD and an ASD.") == [("VSD", 26, "HP:0001629")]
    assert mentions(every_use_nlp, "Two VSDs were closed.") == [("VSDs", 4, "HP:0001629")]


def test_a_bare_undefined_abbreviation_counts_only_when_bare_uses_are_switched_on(mini_nlp, every_use_nlp):
    # annotators mark bare short forms in few articles: 0 of 15 undefined uses in 6 articles (docs/context.md)
    text = "Echocardiography showed a VSD; the PDA was closed."
    assert mentions(mini_nlp, text) == []
    assert [m[0] for m in mentions(every_use_nlp, text)] == ["VSD", "PDA"]


def test_unnamed_takes_a_bare_undefined_short_form_whose_finding_nothing_else_names(notes_nlp):
    # clinical notes name a finding by its short form alone ("history of VSD")
    doc = notes_nlp(make_text_doc(notes_nlp, "History of VSD; the PDA was closed."))
    made = [(s.text, [p for p in stage_rules(s) if not p.startswith("context:")][-1]) for s in doc.spans[PHENOTYPES]]  # "history of": an assertion
    assert [(text, entry.rsplit("|", 1)[-1]) for text, entry in made] == [("VSD", "bare_uses=unnamed"), ("PDA", "bare_uses=unnamed")]
    # the finding named in full elsewhere: its bare short form is left out, as with bracketed
    named = "A ventricular septal defect was seen. The VSD was closed."
    assert mentions(notes_nlp, named) == [("ventricular septal defect", 2, "HP:0001629")]
    # a defined short form names its finding through the definition: bare uses stay out
    defined = "He had intellectual disability (ID). The ID was severe."
    assert [m[0] for m in mentions(notes_nlp, defined)] == ["intellectual disability", "ID"]


def test_defined_ambiguous_abbreviation_takes_the_definition(mini_nlp):
    assert mentions(mini_nlp, "He had an atrial septal defect (ASD).") == [
        ("atrial septal defect", 10, "HP:0001631"),
        ("ASD", 32, "HP:0001631"),
    ]


def test_abbreviation_used_as_a_gene_symbol_is_not_a_phenotype(mini_nlp):
    text = "A variant in the PDA gene was found. The PDA was closed."
    assert mentions(mini_nlp, text) == []


def test_identifier_uses_are_not_phenotypes(every_use_nlp):
    assert mentions(every_use_nlp, "The patient (ID: 51104) had a VSD.") == [("VSD", 30, "HP:0001629")]
    assert mentions(every_use_nlp, "ClinVar Variation ID 7894.") == []


def test_switching_the_stage_off_keeps_dictionary_abbreviations():
    nlp = build_pipeline(hpo=MINI_OBO, disable=["abbreviations"], kb={"use_cache": False})
    assert mentions(nlp, "an ASD") == [("ASD", 3, "HP:0001631")]


def test_guard_file_with_an_unknown_scope_is_refused(tmp_path):
    path = tmp_path / "guards.tsv"
    path.write_text("article\tgene\nsentence\tprotein\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"guards.tsv:2: unknown kind 'sentence'"):
        read_guards(path)


def test_a_term_written_in_capitals_is_not_an_abbreviation(mini_nlp):
    assert mentions(mini_nlp, "FAMILIAL ATAXIA") == [("ATAXIA", 9, "HP:0001251")]


def dropped(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [(text[start:end], rule) for start, end, _, rule in doc._.dropped or []]


def test_a_dropped_short_form_is_recorded_with_the_rule_row_that_dropped_it(mini_nlp, every_use_nlp):
    guards = mini_nlp.get_pipe("abbreviations").guards
    gene_row = next(ref for scope, _, ref in guards.rows if scope == "article" and ref.name == "gene")
    number_row = next(ref for scope, _, ref in guards.rows if scope == "use" and ref.name == "<number>")
    assert str(gene_row).startswith("abbreviation_guards.tsv:")
    assert dropped(mini_nlp, "Echocardiography showed a VSD.") == [("VSD", "abbreviation:bare_use:bare_uses=bracketed")]
    assert dropped(every_use_nlp, "The VSD gene was sequenced; a VSD was seen.") == [("VSD", f"abbreviation:gene_symbol:{gene_row}")] * 2
    assert dropped(every_use_nlp, "A VSD 51104 was seen.") == [("VSD", f"abbreviation:identifier:{number_row}")]
    assert dropped(every_use_nlp, "Iron deficiency (ID) was treated; ID recurred.") == [("ID", "abbreviation:not_a_phenotype:defined:Iron deficiency")] * 2
    assert dropped(mini_nlp, "He had intellectual disability (ID).") == []


def test_the_general_profile_marks_every_use_of_a_defined_short_form(general_nlp, mini_nlp):
    text = "Developmental delay (DD) was noted. DD was evident by 9 months."
    assert mentions(general_nlp, text) == [("Developmental delay", 0, "HP:0001263"), ("DD", 21, "HP:0001263"), ("DD", 36, "HP:0001263")]
    doc = general_nlp(make_text_doc(general_nlp, text))
    assert stage_rules(doc.spans[PHENOTYPES][2]) == ["abbreviation:defined:Developmental delay|defined_uses"]
    # PatientPheX annotators mark the bracketed definition only
    assert mentions(mini_nlp, text) == [("Developmental delay", 0, "HP:0001263"), ("DD", 21, "HP:0001263")]


def test_a_short_form_the_lexicon_lacks_is_defined_by_the_text(general_nlp):
    text = "The girl had ataxia (AX) at two; her AX worsened."
    assert mentions(general_nlp, text) == [("ataxia", 13, "HP:0001251"), ("AX", 21, "HP:0001251"), ("AX", 37, "HP:0001251")]


def test_a_use_before_the_definition_is_not_taken(general_nlp):
    text = "AX was mild. Later, ataxia (AX) got worse and AX was severe."
    assert [m[:2] for m in mentions(general_nlp, text)] == [("ataxia", 20), ("AX", 28), ("AX", 46)]


def test_short_form_first_definitions(general_nlp, mini_nlp):
    # "SF (long form)", the long form of up to three words in brackets
    text = "Her HI (hearing impairment) was bilateral; the HI progressed."
    assert mentions(general_nlp, text) == [("HI", 4, "HP:0000365"), ("hearing impairment", 8, "HP:0000365"), ("HI", 47, "HP:0000365")]
    assert mentions(mini_nlp, text) == [("hearing impairment", 8, "HP:0000365")]
    # a word that is not written as a short form defines nothing
    assert mentions(general_nlp, "There was delay (developmental delay); the delay was mild.") == [("developmental delay", 17, "HP:0001263")]


def test_a_defined_short_form_used_as_a_gene_name_is_not_a_finding(general_nlp, mini_nlp):
    guards = mini_nlp.get_pipe("abbreviations").guards
    genes_row = next(ref for scope, _, ref in guards.rows if scope == "article" and ref.name == "genes")
    text = "Ventricular septal defect (VSD) was repaired. VSD genes were sequenced; the VSD was closed."
    assert [m[:2] for m in mentions(general_nlp, text)] == [("Ventricular septal defect", 0), ("VSD", 27), ("VSD", 76)]
    assert dropped(general_nlp, text) == [("VSD", f"abbreviation:gene_use:{genes_row}")]



def test_the_general_profile_takes_a_bare_short_form_in_a_text_that_defines_none(general_nlp):
    # a clinical note writes the common short forms bare and defines none
    note = "Born at term. She has GERD and a small VSD, and was followed for FTT."
    doc = general_nlp(make_text_doc(general_nlp, note))
    assert [(s.text, stage_rules(s)[-1].rsplit("|", 1)[-1]) for s in doc.spans[PHENOTYPES]] == [("VSD", "bare_uses=notes")]  # the mini lexicon's
    # an article that defines a short form of its own: the bare undefined one stays out
    article = "Hearing impairment (HI) was mild. She has a small VSD."
    assert [m[0] for m in mentions(general_nlp, article)] == ["Hearing impairment", "HI"]


def test_brackets_whose_last_word_a_tokenizer_keeps_with_the_bracket_are_read():
    import spacy

    from phenorules.stages.abbreviations import aligned_definitions

    text = "A variant of TSA8 (thumb sucking anomaly 8) was found."
    doc = spacy.blank("en").make_doc(text)  # spaCy's English tokenizer keeps "8)" as one token, an emoticon
    assert "8)" in [token.text for token in doc]
    assert [(long_form.text, short.text) for long_form, short in aligned_definitions(doc, text)] == [("thumb sucking anomaly 8)", "TSA8")]


@hypothesis.given(st.text(alphabet="ADHSs1 -(\u00e9", max_size=30), st.lists(st.text(alphabet="ADHs1", min_size=1, max_size=3), max_size=5, unique=True))
@hypothesis.settings(max_examples=1500, deadline=None)
@hypothesis.example("ADHDs ADH ADHD1 ADHs", ["ADH", "ADHD"])  # the longer form first; a plural; a form inside a word
@hypothesis.example("T-B B", ["B", "T-B"])  # 'B' inside the use of 'T-B' is no use
def test_short_form_uses_are_where_one_regex_of_the_forms_finds_them(text, shorts):
    """Each form searched for as a string, the uses are those of one regex of the forms,
    longest first, each not after a letter or digit, with an optional plural 's' and then
    no letter or digit, left to right without overlaps."""
    from phenorules.stages.abbreviations import _occurrences, forms_regex, regex_uses

    assert _occurrences(text, sorted(shorts)) == regex_uses(forms_regex(sorted(shorts)), text)
