from phenorules.kb import resources
from phenorules.kb.lexicon import LexiconConfig
from phenorules.kb.ontology import file_digest
from phenorules.tasks.jnlpba.learn import LearnConfig
from phenorules.tasks.jnlpba.model import model_key

from conftest import MINI_OBO


def test_cache_key_follows_the_building_code(monkeypatch):
    lexicon_dir = resources.data_dir("lexicons")
    key = resources.resources_key(MINI_OBO, lexicon_dir, LexiconConfig())
    monkeypatch.setattr(resources, "code_digest", lambda: "another checkout's variants.py")
    assert resources.resources_key(MINI_OBO, lexicon_dir, LexiconConfig()) != key


def test_jnlpba_model_key_follows_the_shared_building_code(monkeypatch, tmp_path):
    key = model_key(tmp_path, LearnConfig())
    monkeypatch.setattr(resources, "code_digest", lambda: "another checkout's matcher.py")
    assert model_key(tmp_path, LearnConfig()) != key


def test_a_rewritten_lexicon_file_gets_a_new_digest_in_the_same_process(tmp_path):
    """The digests are remembered per file status: a file rewritten with other bytes of the
    same length is hashed again."""
    lexicon = tmp_path / "extra.tsv"
    lexicon.write_text("HP:0001250\tfits\n")
    first = file_digest(lexicon)
    assert file_digest(lexicon) == first
    lexicon.write_text("HP:0001250\tfitz\n")
    assert file_digest(lexicon) != first
