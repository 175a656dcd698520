from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.kb.lexicon.tsv import RuleRef
from phenorules.stages.pipeline import build_pipeline
from phenorules.kb.resources import data_dir
from phenorules.stages.predicative import Predicative, read_predicative_rules

from conftest import MINI_OBO, compile_terms, hpo_mentions

TERMS = [
    ("long philtrum", "HP:0000343", ""),
    ("deep set eye", "HP:0000490", ""),
    ("flat nasal bridge", "HP:0005280", ""),
    ("broad nasal bridge", "HP:0000431", ""),
    ("short stature", "HP:0004322", ""),
]


def clauses(text):
    stage = Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(TERMS))
    out = []
    for copula in stage.copula.finditer(text):
        compound = stage.clause(text, copula)
        if compound is not None:
            out.append((text[compound.start : compound.end], compound.hpo_ids, compound.rule, compound.parts))
    return out


def test_a_noun_and_its_adjective_across_a_copula_are_the_term():
    assert clauses("On examination the philtrum was long.") == [("philtrum was long", ("HP:0000343",), "predicative:predicative.tsv:10", ())]


def test_an_adjective_of_two_words_and_a_plural_noun():
    assert clauses("Her eyes were deep set.")[0][:2] == ("eyes were deep set", ("HP:0000490",))


def test_two_adjectives_make_one_mention_with_each_term_at_its_extent():
    text = "The nasal bridge was flat and broad."
    assert clauses(text) == [
        ("nasal bridge was flat and broad", ("HP:0005280", "HP:0000431"), "predicative:predicative.tsv:10", ((4, 25, ("HP:0005280",)), (4, 35, ("HP:0000431",))))
    ]


def test_adverbs_of_the_rules_are_skipped_and_other_words_stop_the_clause():
    assert clauses("The philtrum appeared markedly long.")[0][:2] == ("philtrum appeared markedly long", ("HP:0000343",))
    assert clauses("The philtrum was not long.") == []  # the negation stage would not see a cue inside the mention
    assert clauses("The philtrum was normal, the stature was tall.") == []


def test_the_stage_is_optional_and_replaces_a_dictionary_mention_inside_the_clause(mini_nlp):
    assert "predicative" not in mini_nlp.pipe_names
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, enable=["predicative"])
    doc = nlp(make_text_doc(nlp, "Her stature was short."))
    assert [(span.text, span._.hpo_ids) for span in doc.spans[PHENOTYPES]] == [("stature was short", ("HP:0004322",))]


ADJECTIVAL = {"ataxic": ("ataxia", RuleRef("adjectival_endings.tsv", 18, "ic")), "microcephalic": ("microcephaly", RuleRef("adjectival_endings.tsv", 18, "ic"))}


def adjectival_stage():
    terms = [("ataxia", "HP:0001251", ""), ("microcephaly", "HP:0000252", ""), ("ataxic gait", "HP:0002066", "")]
    return Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(terms), ADJECTIVAL)


def test_an_adjectival_form_after_a_copula_is_its_term_and_a_negation_leaves_it_alone():
    stage = adjectival_stage()
    text = "He was markedly ataxic. She was not ataxic."
    found = [stage.clause(text, copula) for copula in stage.copula.finditer(text)]
    assert [(text[c.start : c.end], c.hpo_ids, c.rule) for c in found] == [
        ("ataxic", ("HP:0001251",), "predicative:predicative.tsv:10+adjectival:adjectival_endings.tsv:18"),
        ("ataxic", ("HP:0001251",), "predicative:predicative.tsv:10+adjectival:adjectival_endings.tsv:18"),
    ]


def test_an_adjectival_form_before_a_person_noun_and_nowhere_else():
    stage = adjectival_stage()
    text = "A microcephalic girl and two microcephalic sisters; microcephalic osteodysplastic dwarfism."
    found = [stage.attributive(text, m) for m in stage.before_person.finditer(text)]
    assert [(text[c.start : c.end], c.hpo_ids) for c in found if c] == [("microcephalic", ("HP:0000252",))] * 2


GUARDED = TERMS + [("small hand", "HP:0200055", ""), ("small foot", "HP:0001773", ""), ("knee contracture", "HP:0034671", ""), ("partial seizures", "HP:0007359", "")]


def guarded_clauses(text):
    stage = Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(GUARDED))
    return [compound.hpo_ids for copula in stage.copula.finditer(text) if (compound := stage.clause(text, copula)) is not None]


def test_coordinated_subjects_are_read_through_known_words_only():
    assert guarded_clauses("His hands and feet were small.") == [("HP:0001773", "HP:0200055")]
    assert guarded_clauses("We examined the hands, even though values were small.") == []


def test_an_adverb_of_a_participle_is_no_adjective_of_the_noun():
    assert guarded_clauses("Her seizures were partially controlled.") == []
    assert guarded_clauses("Her seizures were partial.") == [("HP:0007359",)]
    assert guarded_clauses("The stature was short compared with her peers.") == [("HP:0004322",)]


def test_a_noun_before_of_is_no_adjective():
    assert guarded_clauses("The knees were also affected, and contracture of the elbows was seen.") == []
    assert guarded_clauses("The knees were contracted.") == []


def test_a_function_word_after_the_adjective_is_no_part_of_the_mention():
    terms = GUARDED + [("brisk reflexes", "HP:0001348", ""), ("increased mean corpuscular volume", "HP:0005518", "")]
    stage = Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(terms))
    for text, expected in (
        ("Deep tendon reflexes were brisk at the knees.", "reflexes were brisk"),
        ("Mean corpuscular volume was increased in five of them.", "Mean corpuscular volume was increased"),
    ):
        (copula,) = stage.copula.finditer(text)
        compound = stage.clause(text, copula)
        assert text[compound.start : compound.end] == expected


def test_absent_after_a_phenotype_noun_states_its_absence_and_after_another_noun_is_a_term():
    terms = [("seizures", "HP:0001250", ""), ("absent seizures", "HP:0002121", ""), ("absent reflexes", "HP:0001284", "")]
    stage = Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(terms))
    found = lambda text: [c.hpo_ids for m in stage.copula.finditer(text) if (c := stage.clause(text, m)) is not None]  # noqa: E731
    assert found("No EEG was done, as seizures were absent.") == []
    assert found("The reflexes were absent.") == [("HP:0001284",)]


def test_an_adjectival_form_after_a_copula_with_no_noun_before_it_is_its_term():
    stage = adjectival_stage()
    text = "The boy had a cleft palate and was ataxic at birth. It was long."
    found = [c for m in stage.copula.finditer(text) if (c := stage.clause(text, m)) is not None]
    assert [(text[c.start : c.end], c.hpo_ids) for c in found] == [("ataxic", ("HP:0001251",))]


def test_a_person_s_state_is_its_term_after_a_copula_about_a_person_and_before_a_person_noun(hpo_general_nlp):
    text = "Since age two he was deaf, and his sister is obese. The optic disc was pale. A blind boy; the twins were drowsy. He was alone and confused."
    assert hpo_mentions(hpo_general_nlp, text) == [
        ("deaf", ("HP:0000365",)),  # Hearing impairment, by its synonym Deafness
        ("obese", ("HP:0001513",)),  # Obesity
        ("optic disc was pale", ("HP:0000543",)),  # the disc's pallor is the noun's term, not the person's Pallor
        ("blind", ("HP:0000618",)),
        ("drowsy", ("HP:0002329",)),
        ("confused", ("HP:0001289",)),  # a participle: Confusion
    ]


def test_state_forms_take_the_longest_ending_and_leave_out_the_rules_not_states():
    from types import SimpleNamespace

    from phenorules.kb.lexicon import ontology_keys
    from phenorules.stages.predicative import state_forms

    ontology = SimpleNamespace(names={"1": "Deafness", "2": "Drowsiness", "3": "Rigidity", "4": "Aloneness", "5": "Shyness"}, synonyms={})
    forms = state_forms(ontology_keys(ontology), read_predicative_rules(data_dir("rules") / "predicative.tsv"))
    assert {form: noun for form, (noun, _) in forms.items()} == {"deaf": "deafness", "drowsy": "drowsiness", "rigid": "rigidity"}


def test_a_colon_after_a_noun_lists_its_findings_as_a_note_writes_an_examination():
    text = "HEENT\nPhiltrum: long.\nNasal bridge: flat and broad.\nStature: normal."
    assert [(found, ids) for found, ids, _, _ in clauses(text)] == [
        ("Philtrum: long", ("HP:0000343",)),
        ("Nasal bridge: flat and broad", ("HP:0005280", "HP:0000431")),
    ]
    assert clauses("Philtrum : long")[0][2] == clauses("Philtrum: long")[0][2] == "predicative:predicative.tsv:27"
    # a colon inside a sentence opens a list of findings: no noun before it is their subject
    assert clauses("She had a short neck and a broad nasal bridge: flat, long philtrum.") == []


def test_after_a_colon_an_adjectival_form_is_read_standing_alone_not_before_a_noun():
    stage = adjectival_stage()
    text = "Neuro: ataxic. Head: microcephalic skull shape."
    found = [stage.clause(text, copula) for copula in stage.copula.finditer(text)]
    assert [(text[c.start : c.end], c.hpo_ids) for c in found if c] == [("ataxic", ("HP:0001251",))]


def _noun_searched(stage, text, end):
    """The noun before a copula as the units searched for over the window find it."""
    from phenorules.stages.predicative import _MAX_NOUN, _UNIT, _WINDOW

    words, position = [], end
    for found in reversed(list(_UNIT.finditer(text, max(0, end - _WINDOW), end))):
        word = found.group().lower()
        if text[found.end() : position].strip() or len(words) == _MAX_NOUN or word in stage.kb.word_sets.function_words or word in stage.rules.conjunctions:
            break
        words.insert(0, found.span())
        position = found.start()
    return words


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab1 -\u2013\u2011'é_.,\n", max_size=40) | st.lists(st.sampled_from(["long", "the", "philtrum", " ", "and", "-", "'", "x1", "\t"]), max_size=30).map("".join), st.data())
def test_the_noun_before_a_copula_is_the_units_a_search_over_the_window_finds(text, data):
    """Predicative.noun reads the words backwards a unit at a time: they are the units found
    searching the window before the copula."""
    stage = Predicative(read_predicative_rules(data_dir("rules") / "predicative.tsv"), compile_terms(TERMS))
    end = data.draw(st.integers(0, len(text)))
    assert stage.noun(text, end) == _noun_searched(stage, text, end)
