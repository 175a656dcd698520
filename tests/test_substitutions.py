"""Single-word substitutions (phenorules/kb/lexicon/substitutions.py) and their use in the word-set index."""

from phenorules.kb.lexicon.substitutions import Substitution, from_mentions, from_synonyms, one_word_apart

from conftest import compile_terms
from phenorules.formats.patientphex.identifiers import task_identifier


def words(phrase):
    return [word for word in phrase.split() if word not in ("of", "the")]


def test_one_word_apart_needs_exactly_one_word_each_way():
    assert one_word_apart(["learning", "difficulty"], ["learning", "problem"]) == ("difficulty", "problem")
    assert one_word_apart(["learning", "difficulty"], ["learning"]) is None
    assert one_word_apart(["a1", "difficulty"], ["a1", "x"]) is None  # words of three letters or more
    assert one_word_apart(["big", "red", "spot"], ["big", "brown", "patch"]) is None


def test_synonym_pairs_must_recur_across_terms():
    names = {
        "HP:1": ["learning difficulty", "learning problem"],
        "HP:2": ["feeding difficulty", "feeding problem"],
        "HP:3": ["walking difficulty", "gait disturbance"],
    }
    pairs = from_synonyms(names, words, min_terms=2)
    assert [(s.term_word, s.text_word, s.terms) for s in pairs] == [("difficulty", "problem", 2), ("problem", "difficulty", 2)]
    assert from_synonyms(names, words, min_terms=3) == []


def test_mention_pairs_must_recur_across_articles_and_terms():
    names = {"HP:1": ["brown spot"], "HP:2": ["white spot"]}
    mentions = [(0, "brown patch", "HP:1"), (1, "white patch", "HP:2"), (1, "brown spot", "HP:1")]
    pairs = from_mentions(mentions, names, words, min_articles=2, min_terms=2)
    assert pairs == [Substitution("spot", "patch", "mentions", 2, 2)]
    assert from_mentions(mentions[:1] + mentions[:1], names, words, min_articles=1, min_terms=2) == []


def test_the_index_applies_a_substitution_with_its_provenance():
    from phenorules.kb.lexicon import Entry, Lexicon
    from phenorules.kb.matcher import PhraseMatcher
    from phenorules.kb.resources import data_dir
    from phenorules.kb.word_sets import WordSetIndex

    lexicon = Lexicon()
    lexicon.add("learning difficulty", Entry(2, ("HP:0001328",), "Learning difficulty", "name"))
    lexicon.add("feeding problem", Entry(2, ("HP:0011968",), "Feeding problem", "name"))
    lexicon.finalize()
    matcher = PhraseMatcher(lexicon)
    pair = Substitution("difficulty", "problem", "synonyms", 3)
    index = WordSetIndex.build(lexicon, matcher, data_dir("lexicons")).with_substitutions(matcher, [pair])
    text = "learning problems and feeding problems"
    found = [(text[m.start : m.end], task_identifier(m.entry.hpo_ids), m.entry.provenance) for m in index.find(text, matcher)]
    assert found == [
        ("learning problems", "HP:0001328", "name|subst:synonyms:difficulty>problem"),
        ("feeding problems", "HP:0011968", "name"),  # a key's own word set is never a substitution's
    ]
    assert compile_terms([("learning difficulty", "HP:0001328", "")]).word_sets.find("learning problems", matcher) == []


def test_the_learner_keeps_a_pair_only_when_its_matches_are_annotated():
    from learn_corpus import make_article

    from phenorules.kb.lexicon import LexiconConfig
    from phenorules.kb.learn import LearnSettings, learn
    from phenorules.kb.resources import load_knowledge_base

    from conftest import MINI_OBO

    base = load_knowledge_base(MINI_OBO, config=LexiconConfig(extra_files=(), blocklist_files=()), use_cache=False)
    marked = [
        make_article("S1", "An [[atrial septal hole|HP:0001631]] was closed."),
        make_article("S2", "A [[ventricular septal hole|HP:0001629]] was seen."),
    ]
    learned = learn(marked, base.ontology, base.matcher, LearnSettings(), 3, base.word_sets)
    assert [(s.term_word, s.text_word, s.source, s.hits, s.annotated) for s in learned.substitutions] == [
        ("defect", "hole", "mentions", 2, 2)
    ]
    unmarked = [make_article(f"U{i}", "The atrial septal hole was not a finding.") for i in range(3)]
    assert learn(marked + unmarked, base.ontology, base.matcher, LearnSettings(), 3, base.word_sets).substitutions == []
    assert learn(marked, base.ontology, base.matcher, LearnSettings(), 3).substitutions == []  # no index, no pairs


def test_a_learned_substitution_file_round_trips_and_bad_rows_name_the_line(tmp_path):
    import pytest

    from phenorules.core.errors import InputError
    from phenorules.kb.lexicon.substitutions import read_substitutions, write_substitutions

    pairs = [Substitution("finger", "digit", "synonyms", 3, 2, 3, 2)]
    path = tmp_path / "learned_substitutions.tsv"
    write_substitutions(pairs, path, "# test\n")
    assert read_substitutions(path) == pairs
    assert read_substitutions(tmp_path / "absent.tsv") == []
    path.write_text("finger\tdigit\tguessed\t3\t2\t3\t2\n")
    with pytest.raises(InputError, match=r"learned_substitutions.tsv:1: expected term_word"):
        read_substitutions(path)


def test_the_substitutions_setting_applies_the_learned_file_by_source(tmp_path):
    import shutil

    from phenorules.kb.lexicon import LexiconConfig
    from phenorules.kb.resources import data_dir, load_knowledge_base

    from conftest import MINI_OBO

    shutil.copytree(data_dir("lexicons"), tmp_path, dirs_exist_ok=True)
    (tmp_path / "learned_substitutions.tsv").write_text("defect\thole\tmentions\t2\t2\t2\t2\n")

    def found(config):
        resources = load_knowledge_base(MINI_OBO, tmp_path, config, use_cache=False)
        return [m.entry.provenance for m in resources.word_sets.find("an atrial septal hole", resources.matcher)]

    assert found(LexiconConfig()) == []  # off by default
    assert found(LexiconConfig(substitutions=("synonyms",))) == []
    assert found(LexiconConfig(substitutions=("mentions",))) == ["name|subst:mentions:defect>hole"]
