from phenorules import resources
from phenorules.lexicon import LexiconConfig

from conftest import MINI_OBO


def test_cache_key_follows_the_building_code(monkeypatch):
    lexicon_dir = resources.data_dir("lexicons")
    key = resources.resources_key(MINI_OBO, lexicon_dir, LexiconConfig())
    monkeypatch.setattr(resources, "code_digest", lambda: "another checkout's variants.py")
    assert resources.resources_key(MINI_OBO, lexicon_dir, LexiconConfig()) != key

