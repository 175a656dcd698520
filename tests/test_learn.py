import pytest

from phenorules.tasks.patientphex.crossval import without_learned_files
from phenorules.kb.lexicon import LexiconConfig, build_lexicon, is_learned_file
from phenorules.kb.learn import LearnSettings, learn, write_learned
from phenorules.kb.matcher import PhraseMatcher
from phenorules.kb.resources import data_dir

from learn_corpus import CORPUS
from phenorules.formats.patientphex.identifiers import task_identifier

BASE_CONFIG = without_learned_files(LexiconConfig())


@pytest.fixture(scope="module")
def base_matcher(mini_ontology):
    return PhraseMatcher(build_lexicon(mini_ontology, data_dir("lexicons"), BASE_CONFIG))


@pytest.fixture(scope="module")
def learned(mini_ontology, base_matcher):
    return learn(CORPUS[:3], mini_ontology, base_matcher)


def test_reliable_new_form_is_kept_with_its_counts(learned):
    (form,) = [f for f in learned.forms if f.key == "small jaw"]
    assert (form.hpo_id, form.annotated, form.occurrences, form.articles, form.lexicon_id) == ("HP:0000347", 3, 3, 3, "")


def test_unreliable_form_is_dropped(learned, mini_ontology, base_matcher):
    # 'fits' is marked 2 times in 6 word-bounded occurrences: precision 1/3
    assert "fits" not in {f.key for f in learned.forms}
    loose = learn(CORPUS[:3], mini_ontology, base_matcher, LearnSettings(min_precision=0.3))
    assert [(f.annotated, f.occurrences) for f in loose.forms if f.key == "fits"] == [(2, 6)]


def test_never_marked_ontology_string_is_blocklisted(learned):
    assert [(b.key, b.hpo_id, b.hits, b.annotated, b.articles) for b in learned.blocked] == [("ataxia", "HP:0001251", 3, 0, 2)]


def test_annotators_id_preference_is_learned(learned):
    (form,) = [f for f in learned.forms if f.key == "cleft of the face"]
    assert (form.hpo_id, form.lexicon_id) == ("HP:0000175", "HP:0000202")


def test_obsolete_ids_resolve_and_ids_outside_the_branch_are_dropped(learned):
    assert [(f.key, f.hpo_id) for f in learned.forms if f.key == "tiny head"] == [("tiny head", "HP:0000252")]
    assert dict(learned.dropped_ids) == {"HP:0000006": 1}


def test_forms_need_several_articles(mini_ontology, base_matcher):
    only_one = learn(CORPUS[:1], mini_ontology, base_matcher, LearnSettings(min_annotated=1))
    assert only_one.forms == []
    relaxed = learn(CORPUS[:1], mini_ontology, base_matcher, LearnSettings(min_annotated=1, min_articles=1))
    assert "small jaw" in {f.key for f in relaxed.forms}


def test_learned_files_load_from_an_absolute_path_and_outrank_the_ontology(tmp_path, mini_ontology, learned):
    lexicon_path, blocklist_path = tmp_path / "learned.tsv", tmp_path / "learned_blocklist.tsv"
    write_learned(learned, mini_ontology, lexicon_path, blocklist_path, LearnSettings())
    assert lexicon_path.read_text().splitlines()[3].split("\t") == ["cleft of the face", "HP:0000175", "2", "2", "1.000", "2", "HP:0000202", "Cleft palate"]
    config = LexiconConfig(extra_files=BASE_CONFIG.extra_files + (str(lexicon_path),), blocklist_files=BASE_CONFIG.blocklist_files + (str(blocklist_path),))
    matcher = PhraseMatcher(build_lexicon(mini_ontology, data_dir("lexicons"), config))
    found = {m.entry.surface.lower(): (task_identifier(m.entry.hpo_ids), m.entry.source) for m in matcher("A cleft of the face, a small jaw and ataxia.")}
    assert found == {"cleft of the face": ("HP:0000175", "learned.tsv:4"), "small jaw": ("HP:0000347", "learned.tsv:5")}


def test_learned_files_are_recognised_by_name():
    assert is_learned_file("learned.tsv") and is_learned_file("/tmp/x/learned_blocklist.tsv")
    assert not is_learned_file("extra_terms.tsv")


def test_learning_is_deterministic(tmp_path, mini_ontology, base_matcher):
    outputs = []
    for order in (CORPUS[:3], CORPUS[2::-1]):
        out = tmp_path / str(len(outputs))
        out.mkdir()
        write_learned(learn(order, mini_ontology, base_matcher), mini_ontology, out / "l.tsv", out / "b.tsv", LearnSettings())
        outputs.append(((out / "l.tsv").read_bytes(), (out / "b.tsv").read_bytes()))
    assert outputs[0] == outputs[1]


def test_unwritable_output_is_one_clear_error(tmp_path, mini_ontology, learned):
    from phenorules.core.errors import InputError

    with pytest.raises(InputError, match="cannot write the learned lexicon"):
        write_learned(learned, mini_ontology, tmp_path / "missing" / "l.tsv", tmp_path / "b.tsv", LearnSettings())
