"""The lexicon build over forked processes gives what the build in one process gives."""

from __future__ import annotations

import threading

import pytest
from conftest import MINI_OBO

from phenorules.core import forking
from phenorules.kb import knowledge_base
from phenorules.kb.lexicon import LexiconConfig, apply_blocklist, lexicon_parts, variant_workers
from phenorules.kb.matcher import LexiconRows, PackedRows
from phenorules.kb.ontology import load_ontology
from phenorules.kb.resources import data_dir


def built(monkeypatch, forked: bool):
    """The mini ontology's knowledge base, its variants and word sets made in forked
    processes (the size thresholds lowered to the mini ontology's) or in this one."""
    monkeypatch.setattr(forking, "can_fork", lambda: forked)
    for module in (variant_workers, knowledge_base):
        monkeypatch.setattr(module, "available_cores", lambda: 2)
    monkeypatch.setattr(variant_workers, "MIN_PHRASES", 1)
    monkeypatch.setattr(knowledge_base, "FORKED_WORD_SETS_KEYS", 1)
    ontology, config, lexicon_dir = load_ontology(MINI_OBO), LexiconConfig(), data_dir("lexicons")
    parts = lexicon_parts(ontology, lexicon_dir, config)
    lexicon = apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
    kb = knowledge_base.KnowledgeBase.compile(ontology, lexicon, lexicon_dir, parts.res.morphology)
    return lexicon, list(kb.matcher.rows), kb.word_sets.to_bytes(), kb.spelling.to_bytes(), kb.head_words


def test_a_forked_build_readies_what_the_cache_stores_while_the_index_is_built(monkeypatch):
    """The rows packed as a cache file holds them, and the head words read: the cache's
    store, which the command waits for, only copies them."""
    monkeypatch.setattr(forking, "can_fork", lambda: True)
    monkeypatch.setattr(knowledge_base, "available_cores", lambda: 2)
    monkeypatch.setattr(knowledge_base, "FORKED_WORD_SETS_KEYS", 1)
    ontology, config, lexicon_dir = load_ontology(MINI_OBO), LexiconConfig(), data_dir("lexicons")
    parts = lexicon_parts(ontology, lexicon_dir, config)
    lexicon = apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
    kb = knowledge_base.KnowledgeBase.compile(ontology, lexicon, lexicon_dir, parts.res.morphology)
    expected_heads = knowledge_base.head_words(ontology, kb.word_sets.morphology)
    monkeypatch.setattr(knowledge_base, "head_words", lambda *_: pytest.fail("head words read after the build"))
    assert isinstance(kb.matcher.rows, PackedRows)
    assert list(kb.matcher.rows) == list(LexiconRows(sorted(lexicon.entries), lexicon.entries))
    assert kb.head_words == expected_heads and "ataxia" in expected_heads


def test_a_forked_build_is_the_build_in_one_process(monkeypatch):
    lexicon, *indexes = built(monkeypatch, forked=True)
    serial_lexicon, *serial_indexes = built(monkeypatch, forked=False)
    assert list(lexicon.entries.items()) == list(serial_lexicon.entries.items())  # keys in the same order too
    assert indexes == serial_indexes  # the rows, the word sets, the spelling index, the head words
    assert len(indexes[0]) > 100


def test_forking_is_refused_while_another_thread_runs():
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forking.can_fork()
        assert forking.forked_pool(2, None) is None
    finally:
        release.set()
        other.join()


@pytest.mark.parametrize("phrases", [["short stature"], ["short stature", "long philtrum", "cleft palate"] * 10])
def test_the_variants_of_phrases_come_back_in_the_order_given(monkeypatch, phrases):
    from phenorules.kb.lexicon import variant_resources
    from phenorules.kb.lexicon.variants import generate_variants

    monkeypatch.setattr(variant_workers, "available_cores", lambda: 2)
    monkeypatch.setattr(variant_workers, "MIN_PHRASES", 1)
    res = variant_resources(load_ontology(MINI_OBO), data_dir("lexicons"))
    config = LexiconConfig()
    expected = [generate_variants(phrase, res, config.variant_rules, config.max_variant_chain) for phrase in phrases]
    assert list(variant_workers.variants_of_phrases(phrases, res, config.variant_rules, config.max_variant_chain)) == expected


@pytest.mark.parametrize("forked", [True, False])
def test_a_phrase_given_several_times_is_worked_on_once(monkeypatch, forked):
    from phenorules.kb.lexicon import variant_resources
    from phenorules.kb.lexicon.variants import chain_rules, generate_variants

    worked_on = []

    def counted(phrase, *args):
        worked_on.append(phrase)
        return chain_rules(phrase, *args)

    monkeypatch.setattr(forking, "can_fork", lambda: forked)
    monkeypatch.setattr(variant_workers, "available_cores", lambda: 2)
    monkeypatch.setattr(variant_workers, "MIN_PHRASES", 1)
    monkeypatch.setattr(variant_workers, "chain_rules", counted)
    res = variant_resources(load_ontology(MINI_OBO), data_dir("lexicons"))
    config = LexiconConfig()
    phrases = ["short stature", "long philtrum", "short stature", "cleft palate", "long philtrum"]
    made = list(variant_workers.variants_of_phrases(phrases, res, config.variant_rules, config.max_variant_chain))
    assert made == [generate_variants(phrase, res, config.variant_rules, config.max_variant_chain) for phrase in phrases]
    if not forked:  # the forked workers' calls are theirs
        assert worked_on == ["short stature", "long philtrum", "cleft palate"]


def test_a_build_normalises_each_name_and_synonym_once(monkeypatch):
    """The vocabulary and the lexicon keys read one normal form of each name and synonym."""
    import phenorules.kb.lexicon as lexicon_module

    normalised = []
    original = lexicon_module.normalize_keys
    monkeypatch.setattr(lexicon_module, "normalize_keys", lambda phrases: normalised.append(list(phrases)) or original(phrases))
    ontology = load_ontology(MINI_OBO)
    parts = lexicon_parts(ontology, data_dir("lexicons"), LexiconConfig())
    names = set(ontology.names.values())
    assert sum(1 for phrases in normalised if names & set(phrases)) == 1
    assert "ataxia" in parts.lexicon.entries and "seizures" in parts.lexicon.entries


def test_a_word_set_index_built_beside_the_matcher_takes_its_rows_when_renumbered():
    """The forked process numbers the keys it asks for (their rows would take a sort of all
    the keys); the matcher's rows of them make the index of the matcher's own."""
    from phenorules.kb.matcher import KeysAsked, PhraseMatcher
    from phenorules.kb.word_sets import WordSetIndex

    ontology, config, lexicon_dir = load_ontology(MINI_OBO), LexiconConfig(), data_dir("lexicons")
    parts = lexicon_parts(ontology, lexicon_dir, config)
    lexicon = apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
    matcher = PhraseMatcher(lexicon)
    asked = KeysAsked()
    numbered = WordSetIndex.build(lexicon, asked, lexicon_dir, parts.res.morphology)
    assert sorted(numbered.rows.values()) == list(range(len(asked.keys))) and len(asked.keys) > 20
    expected = WordSetIndex.build(lexicon, matcher, lexicon_dir, parts.res.morphology)
    assert numbered.renumbered(list(map(matcher.row_of, asked.keys))).to_bytes() == expected.to_bytes()
