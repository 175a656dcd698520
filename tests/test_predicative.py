from phenorules.document import PHENOTYPES, make_text_doc
from phenorules.resources import data_dir
from phenorules.stages.predicative import Predicative, read_rules

from conftest import compile_terms

TERMS = [
    ("long philtrum", "HP:0000343", ""),
    ("deep set eye", "HP:0000490", ""),
    ("flat nasal bridge", "HP:0005280", ""),
    ("broad nasal bridge", "HP:0000431", ""),
    ("short stature", "HP:0004322", ""),
]


def clauses(text):
    stage = Predicative(read_rules(data_dir("rules") / "predicative.tsv"), compile_terms(TERMS))
    out = []
    for copula in stage.copula.finditer(text):
        compound = stage.clause(text, copula)
        if compound is not None:
            out.append((text[compound.start : compound.end], compound.hpo_ids, compound.rule, compound.parts))
    return out


def test_a_noun_and_its_adjective_across_a_copula_are_the_term():
    assert clauses("On examination the philtrum was long.") == [("philtrum was long", ("HP:0000343",), "predicative:predicative.tsv:7", ())]


def test_an_adjective_of_two_words_and_a_plural_noun():
    assert clauses("Her eyes were deep set.")[0][:2] == ("eyes were deep set", ("HP:0000490",))


def test_two_adjectives_make_one_mention_with_each_term_at_its_extent():
    text = "The nasal bridge was flat and broad."
    assert clauses(text) == [
        ("nasal bridge was flat and broad", ("HP:0005280", "HP:0000431"), "predicative:predicative.tsv:7", ((4, 25, ("HP:0005280",)), (4, 35, ("HP:0000431",))))
    ]


def test_adverbs_of_the_rules_are_skipped_and_other_words_stop_the_clause():
    assert clauses("The philtrum appeared markedly long.")[0][:2] == ("philtrum appeared markedly long", ("HP:0000343",))
    assert clauses("The philtrum was not long.") == []
    assert clauses("The philtrum was normal, the stature was tall.") == []


def test_the_stage_replaces_a_dictionary_mention_inside_the_clause(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Her stature was short."))
    assert [(span.text, span._.hpo_ids) for span in doc.spans[PHENOTYPES]] == [("stature was short", ("HP:0004322",))]
