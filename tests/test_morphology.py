"""Morphology (phenorules/kb/lexicon/morphology.py): one notion of "the same word"."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from phenorules.core.errors import InputError
from phenorules.kb.lexicon.morphology import Morphology
from phenorules.kb.resources import data_dir

from conftest import compile_terms
from phenorules.formats.patientphex.identifiers import task_identifier

VOCABULARY = {
    "pneumothorax", "exostosis", "diverticulum", "hamartoma", "arthritis", "vertebra", "foramen", "facies",
    "hernia", "hyperkeratosis", "underdeveloped", "stereotypy", "position", "positive", "atrophy",
    "skin", "coarse", "erythema", "disease", "testis", "pelvis",
}


@pytest.fixture(scope="module")
def morphology():
    return Morphology.from_dir(data_dir("lexicons"), VOCABULARY)


@pytest.mark.parametrize(
    "plural, singular",
    [
        ("pneumothoraces", "pneumothorax"),  # -ces -> -x
        ("exostoses", "exostosis"),  # -ses -> -sis
        ("diverticula", "diverticulum"),  # -a -> -um
        ("hamartomata", "hamartoma"),  # -ata -> -a
        ("arthritides", "arthritis"),  # -itides -> -itis
        ("vertebrae", "vertebra"),  # -ae -> -a
        ("foramina", "foramen"),  # the table
        ("hernias", "hernia"),
        ("diseases", "disease"),  # -ses -> -se when that is the word, not 'diseasis'
        ("testes", "testis"),  # -es -> -is
        ("pelves", "pelvis"),
    ],
)
def test_greco_latin_plurals_have_one_singular(morphology, plural, singular):
    assert morphology.singular(plural) == singular
    assert morphology.base(plural) == morphology.base(singular)


def test_an_ending_never_makes_up_a_word(morphology):
    assert morphology.singular("facies") == "facies"  # not 'facy'
    assert morphology.singular("hernia") == "hernia"  # not a plural of 'hernium'
    assert morphology.singular("types") == "type"  # 'typis' is no word
    assert "testes" not in morphology.plurals("testis")  # singulars only: no -itis -> -ites plurals
    assert morphology.base("position") != morphology.base("positive")  # 'ive'/'ion' needs a six-letter stem


def test_vocabulary_words_get_their_classical_plurals(morphology):
    assert "hamartomata" in morphology.plurals("hamartoma")
    assert "arthritides" in morphology.plurals("arthritis")
    assert "pneumothoraces" in morphology.plurals("pneumothorax")


@pytest.mark.parametrize(
    "derived, word",
    [("hyperkeratotic", "hyperkeratosis"), ("underdevelopment", "underdeveloped"), ("stereotypic", "stereotypy"),
     ("erythematous", "erythema"), ("coarsened", "coarse"), ("atrophic", "atrophy")],
)
def test_derivations_are_one_word(morphology, derived, word):
    assert morphology.base(derived) == morphology.base(word)


def test_participles_are_their_verb_or_adjective(morphology):
    assert morphology.base("atrophied") == morphology.base("atrophy")  # -ied = -y
    assert morphology.base("coarsened") == morphology.base("coarse")  # -ened = -e


def test_derivations_can_be_switched_off():
    plain = Morphology.from_dir(data_dir("lexicons"), VOCABULARY, derivations=False)
    assert plain.base("hyperkeratotic") != plain.base("hyperkeratosis")


def test_the_word_set_index_reads_derived_and_classical_forms():
    terms = compile_terms([("skin hyperkeratosis", "HP:0000962", ""), ("multiple exostoses", "HP:0002762", "")])
    text = "hyperkeratotic skin and an exostosis, multiple"
    found = [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in terms.word_sets.find(text, terms.matcher)]
    assert found == [("hyperkeratotic skin", "HP:0000962")]
    text = "multiple exostosis"
    assert [task_identifier(m.entry.hpo_ids) for m in terms.word_sets.find(text, terms.matcher)] == ["HP:0002762"]


def test_a_bad_stem_length_names_the_line(tmp_path):
    import shutil

    shutil.copytree(data_dir("lexicons"), tmp_path, dirs_exist_ok=True)
    (tmp_path / "derivations.tsv").write_text("ic\ty\tfour\n")
    with pytest.raises(InputError, match=r"derivations.tsv:1: the shortest stem must be a number"):
        Morphology.from_dir(tmp_path)


def test_a_participle_and_its_gerund_are_one_word():
    morphology = Morphology.from_dir(data_dir("lexicons"), {"mottled", "mottling", "clubbed", "clubbing"})
    assert morphology.base("mottled") == morphology.base("mottling")  # -ed = -ing
    assert morphology.base("clubbed") == morphology.base("clubbing")


def test_ordinals_roman_numerals_and_aplasia_are_families(morphology):
    assert morphology.base("3rd") == morphology.base("third")
    assert morphology.base("i") == morphology.base("1")
    assert morphology.base("aplasia") == morphology.base("absent") == morphology.base("absence")


def test_retardation_is_delay():
    # "psychomotor retardation" is Psychomotor delay, "growth retardation" Growth delay
    terms = compile_terms([("psychomotor delay", "HP:0001263", "")])
    text = "marked psychomotor retardation"
    assert [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in terms.word_sets.find(text, terms.matcher)] == [("psychomotor retardation", "HP:0001263")]


def test_an_adverb_is_its_adjective():
    # "developmentally delayed" is Developmental delay, "highly arched palate" High, arched palate
    terms = compile_terms([("developmental delay", "HP:0001263", ""), ("high arched palate", "HP:0000218", "")])
    text = "developmentally delayed, with a highly arched palate"
    found = [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in terms.word_sets.find(text, terms.matcher)]
    assert found == [("developmentally delayed", "HP:0001263"), ("highly arched palate", "HP:0000218")]


ENDING_LETTERS = sorted({c for row in Morphology.from_dir(data_dir("lexicons")).derivations for ending in row[:2] for c in ending})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ENDING_LETTERS, max_size=12))
def test_derived_forms_are_the_table_s_endings_in_its_order(morphology, word):
    """The endings are looked up by a word's last letters; the forms are the definition's:
    every row, both ways, in table order, when the stem is long enough."""
    expected = []
    for a, b, shortest_stem in morphology.derivations:
        for old, new in ((a, b), (b, a)):
            if word.endswith(old) and len(word) - len(old) >= shortest_stem:
                expected.append(word[: len(word) - len(old)] + new)
    assert morphology.derived_forms(word) == [form for form in dict.fromkeys(expected) if form != word]


def test_adjectival_endings_are_learned_from_the_pairs_the_ontology_holds():
    from phenorules.kb.lexicon.morphology import adjectival_endings
    from phenorules.kb.lexicon.tsv import RuleRef

    endings = {
        "noun": [RuleRef("e.tsv", 1, "ia"), RuleRef("e.tsv", 2, "osis"), RuleRef("e.tsv", 3, "y")],
        "adjective": [RuleRef("e.tsv", 4, "ic"), RuleRef("e.tsv", 5, "otic")],
    }
    nouns = ["hypotonia", "anemia", "dystonia", "cyanosis", "kyphosis", "microcephaly"]
    vocabulary = ["hypotonic", "anemic", "dystonic", "cyanotic", "kyphotic", "seizure"]
    learned = adjectival_endings(nouns, vocabulary, endings, min_stems=2)
    # three pairs show -ia/-ic, two -osis/-otic, one -y/-ic: too few
    assert {noun: adjective for noun, (adjective, _) in learned.items()} == {"ia": "ic", "osis": "otic"}
    assert learned["ia"][1] == RuleRef("e.tsv", 4, "ic")


def test_a_latin_ion_noun_has_no_greek_plural():
    from phenorules.kb.lexicon import ontology_vocabulary
    from phenorules.kb.lexicon.morphology import Morphology
    from phenorules.kb.ontology import default_obo_path, load_ontology
    from phenorules.kb.resources import data_dir

    vocabulary = ontology_vocabulary(load_ontology(str(default_obo_path())))
    morphology = Morphology.from_dir(data_dir("lexicons"), vocabulary)
    nouns = sorted(word for word in vocabulary if word.endswith(("tion", "sion")))  # Latin -io nouns
    assert len(nouns) > 100
    assert [(noun, plural) for noun in nouns for plural in morphology.plurals(noun) if plural.endswith("ia")] == []


def test_a_greek_ion_noun_keeps_its_greek_plural():
    nouns = {"chalazion", "ganglion", "mitochondrion", "aggression", "flexion", "ulceration"}
    morphology = Morphology.from_dir(data_dir("lexicons"), nouns)
    assert {noun: [p for p in morphology.plurals(noun) if p.endswith("a")] for noun in sorted(nouns)} == {
        "aggression": [], "chalazion": ["chalazia"], "flexion": [], "ganglion": ["ganglia"], "mitochondrion": ["mitochondria"], "ulceration": [],
    }


# 'hypotonic' is outside: it derives 'hypotonia', 'hypotony' and 'hypotonism', all inside
DERIVED_VOCABULARY = sorted(VOCABULARY | {"kyphosis", "kyphotic", "atrophied", "dysplasia", "dysplastic", "hypotonia", "hypotony", "hypotonism", "tonic", "tone"})


@settings(max_examples=500, deadline=None)
@example("hypotonia", "ic", 2)
@given(st.sampled_from(DERIVED_VOCABULARY), st.sampled_from(sorted({ending for row in Morphology.from_dir(data_dir("lexicons")).derivations for ending in row[:2]})), st.integers(0, 4))
def test_a_word_s_base_goes_to_its_first_derived_form_in_the_vocabulary(stem_word, ending, cut):
    """A word outside the vocabulary joins the family of the first of its derived forms,
    in table order, that is a vocabulary word (looked up without listing them all)."""
    morphology = Morphology.from_dir(data_dir("lexicons"), set(DERIVED_VOCABULARY))
    word = stem_word[: len(stem_word) - cut] + ending
    singular = morphology.singular(word)
    expected = morphology.families.get(singular, singular)
    if singular not in morphology.families and singular not in morphology.vocabulary:
        form = next((form for form in morphology.derived_forms(singular) if form in morphology.vocabulary), None)
        expected = singular if form is None else morphology.families.get(form, form)
    assert morphology.base(word) == expected
