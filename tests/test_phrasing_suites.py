from phenorules.evaluation.phrasing import Case, adjectival_cases, coordination_cases, gene_name_cases, ordinal_cases, predicative_cases, recall, state_cases
from phenorules.kb.ontology import load_ontology

from conftest import MINI_OBO

ENDINGS = {"noun": ["ia", "y"], "adjective": ["ic"]}


def test_siblings_sharing_a_head_or_a_modifier_are_coordinated(mini_ontology):
    texts = {case.text: case.hpo_ids for case in coordination_cases(mini_ontology)}
    assert texts == {
        "The patient had ventricular and atrial septal defect.": ("HP:0001629", "HP:0001631"),
        "The patient had cleft palate or lip.": ("HP:0000175", "HP:0410030"),
    }


def test_predicative_order_of_adjective_noun_names(mini_ontology):
    texts = {case.text: case.hpo_ids for case in predicative_cases(mini_ontology)}
    assert texts["On examination the stature was short."] == ("HP:0004322",)
    # "Atrial septal defect" has three words; "Cleft palate": some name ends with "cleft"
    assert not any("atrial" in text or "cleft" in text for text in texts)


def test_no_ordinal_family_in_the_mini_ontology(mini_ontology):
    assert ordinal_cases(mini_ontology) == []


def test_adjectival_cases_need_the_adjective_in_the_ontology(mini_ontology):
    # the mini ontology writes "Hypotonia" but no "hypotonic"
    assert adjectival_cases(mini_ontology, ENDINGS) == []


def test_recall_counts_a_case_found_when_every_id_is_a_term_span(mini_nlp):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": str(MINI_OBO), "kb": {"use_cache": False}})
    cases = [Case("coordination", "He had cleft lip and palate.", ("HP:0410030", "HP:0000175")), Case("predicative", "He was tall.", ("HP:0000098",))]
    share, missed = recall(nlp, cases)
    assert share == 0.5 and missed == cases[1:]
    assert load_ontology(str(MINI_OBO)).names["HP:0000175"] == "Cleft palate"


def test_state_cases_pair_a_noun_with_the_adjective_the_ontology_writes(mini_ontology):
    from types import SimpleNamespace

    ontology = SimpleNamespace(
        names={"HP:1": "Blindness", "HP:2": "Colour blind spots", "HP:3": "Obesity", "HP:4": "Obese habitus", "HP:5": "Deafness"},
        synonyms={"HP:1": [], "HP:2": [], "HP:3": [], "HP:4": [], "HP:5": []},
    )
    # "deaf" is no word of this ontology: no case
    assert [(case.text, case.hpo_ids) for case in state_cases(ontology)] == [("She was blind.", ("HP:1",)), ("The obese boy was seen.", ("HP:3",))]


def test_gene_name_cases_expand_a_symbol_into_the_name_of_its_initials(mini_ontology):
    cases = gene_name_cases(mini_ontology, ["ASD3", "CP", "VSD12", "XYZ1"])
    assert [(case.text, case.hpo_ids) for case in cases] == [
        ("A variant in ASD3 (atrial septal defect 3) was found.", ()),
        ("Ventricular septal defect 12 (VSD12) was sequenced.", ()),
    ]


def test_a_case_that_expects_no_id_is_found_when_no_term_is(mini_nlp):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": str(MINI_OBO), "kb": {"use_cache": False}})
    cases = [Case("gene_names", "A variant was found.", ()), Case("gene_names", "He had ataxia.", ())]
    assert recall(nlp, cases) == (0.5, cases[1:])
