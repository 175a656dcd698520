from phenorules.kb import resources
from phenorules.kb.lexicon import LexiconConfig
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
