"""The spelling stage: a misspelt long word read as the one lexicon word it is one edit from
(phenorules/stages/spelling.py, phenorules/kb/spelling.py), with misspellings generated
from the lexicon's own words."""

from __future__ import annotations

import gzip
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.errors import InputError
from phenorules.evaluation.misspellings import misspelt
from phenorules.kb.lexicon.word_lists import WordList
from phenorules.kb.cache_file import cache_budget, read_cache_file, store_entry
from phenorules.kb.resources import resources_from_cache, resources_sections
from phenorules.kb.spelling import EDITS, MIN_LENGTH, MIN_WRITTEN, SpellingIndex, edit_of

from conftest import stage_rules


@pytest.fixture(scope="module")
def stage(general_nlp):
    return general_nlp.get_pipe("spelling")


def spelling_cases(stage, seed=0):
    """(term name, the word misspelt, the misspelt name, the edit) for each edit kind and each
    single-id name of the mini ontology that holds a lexicon word of MIN_LENGTH letters."""
    rng, kb = random.Random(seed), stage.kb
    cases = []
    for hpo_id, name in sorted(kb.ontology.names.items()):
        if not name.replace(" ", "").isalpha():
            continue  # a name written with a comma or a slash is no lexicon key as it is
        words = [word for word in name.lower().split() if word in kb.spelling.word_set]
        for word in words:
            for kind in EDITS:
                written = misspelt(word, kind, rng)
                if len(written) >= MIN_WRITTEN and stage.reading(written) is not None:
                    cases.append((hpo_id, name.lower(), word, written, kind))
    return cases


def test_the_index_finds_each_edit_kind_of_its_words(stage):
    index, rng = stage.kb.spelling, random.Random(1)
    assert len(index.words) > 10
    for word in index.words:
        for kind in EDITS:
            written = misspelt(word, kind, rng)
            if written in index.word_set:
                continue
            assert word in index.candidates(written), (word, written)
            assert edit_of(written, word) == kind
    assert all(index.candidates(word) == () for word in index.words)


def test_the_index_survives_its_bytes(stage):
    index = stage.kb.spelling
    again = SpellingIndex.from_bytes(index.to_bytes())
    assert again.words == index.words and again.hashes == index.hashes and again.places == index.places
    assert SpellingIndex.build(sorted(index.words)).to_bytes() == SpellingIndex.build(index.words).to_bytes()


def test_a_misspelt_term_word_is_read_as_the_term_at_the_written_offsets(general_nlp, stage):
    cases = spelling_cases(stage)
    assert {kind for *_, kind in cases} == set(EDITS)
    for hpo_id, name, word, written, kind in cases:
        phrase = name.replace(word, written)
        text = f"On examination: {phrase}."
        doc = general_nlp(text)
        spans = [span for span in doc.spans["phenotypes"] if span.kb_id_ == hpo_id]
        assert [span.text for span in spans] == [phrase], (text, kind)
        assert f"spelling:{kind}:{written}>{word}" in stage_rules(spans[0])


def test_a_shortest_long_word_with_a_letter_dropped_is_read(stage):
    """A word of MIN_LENGTH letters written with one dropped has MIN_WRITTEN: still read."""
    shortest = [word for word in stage.kb.spelling.words if len(word) == MIN_LENGTH]
    dropped = {word[:3] + word[4:]: word for word in shortest}
    dropped = {written: word for written, word in dropped.items() if written not in stage.english and stage.kb.spelling.candidates(written) == (word,)}
    assert dropped, "no word of the mini lexicon of MIN_LENGTH letters"
    assert {written: stage.reading(written)[0] for written in dropped} == dropped


def test_an_english_word_one_edit_from_a_lexicon_word_stays_as_written(stage):
    english = stage.english
    near = [written for word in stage.kb.spelling.words for written in _edits(word) if written in english and written not in stage.kb.spelling.word_set]
    assert near, "no English word one edit from a word of the mini lexicon"
    assert [written for written in near if stage.reading(written) is not None] == []


def test_a_name_ending_of_the_guards_is_no_misspelling(stage):
    endings = stage.name_endings
    named = [word[:-2] + ending for word in stage.kb.spelling.words for ending in endings if len(ending) == 2 and not word.endswith(endings)]
    named = [written for written in named if written not in stage.english and stage.kb.spelling.candidates(written)]
    assert named
    assert all(stage.reading(written) is None for written in named)


def test_a_word_one_edit_from_words_of_two_singulars_is_left_as_written(stage):
    from types import SimpleNamespace

    from phenorules.stages.spelling import Spelling

    word = next(word for word in stage.kb.spelling.words if len(word) > MIN_LENGTH)
    other = word[:3] + ("a" if word[3] != "a" else "e") + word[4:]  # another word, one letter apart
    written = word[:3] + word[4:]  # one deletion from either
    kb = SimpleNamespace(spelling=SpellingIndex.build([word, other]), word_sets=stage.kb.word_sets)
    spelling = Spelling(kb, stage.words_file)
    assert set(kb.spelling.candidates(written)) == {word, other}
    assert spelling.reading(written) is None
    assert Spelling(SimpleNamespace(spelling=SpellingIndex.build([word]), word_sets=stage.kb.word_sets), stage.words_file).reading(written) is not None


def test_within_two_holds_every_word_two_edits_away(stage):
    index, rng = stage.kb.spelling, random.Random(2)
    for word in index.words:
        for first, second in zip(EDITS, EDITS[1:] + EDITS[:1]):
            twice = misspelt(misspelt(word, first, rng), second, rng)
            assert word in index.within_two(twice), (word, twice)
    index = SpellingIndex.build(["microcoria", "microcornea", "hypertelorism"])
    assert index.within_two("microconia") == {"microcoria", "microcornea"}  # one edit, and two: an insertion and a substitution
    assert index.within_two("microcoria") == {"microcoria", "microcornea"}


def test_a_consonant_written_for_another_is_no_reading_where_another_word_is_two_edits_away(stage):
    from types import SimpleNamespace

    from phenorules.stages.spelling import Spelling

    kb = SimpleNamespace(spelling=SpellingIndex.build(["microcoria", "microcornea"]), word_sets=stage.kb.word_sets)
    spelling = Spelling(kb, stage.words_file)
    assert kb.spelling.candidates("microconia") == ("microcoria",)
    assert spelling.reading("microconia") is None  # r for n: microcoria, or microcornea with two letters changed
    assert spelling.reading("mikrocoria") == ("microcoria", "spelling:substitution:mikrocoria>microcoria")  # nothing else within two
    assert spelling.reading("microcoroa") == ("microcoria", "spelling:substitution:microcoroa>microcoria")  # a vowel for a vowel
    kb = SimpleNamespace(spelling=SpellingIndex.build(["hemangioma", "haemangioma"]), word_sets=stage.kb.word_sets)
    # haemangioma is two edits from the written word, and one from the word read: another spelling of it
    assert Spelling(kb, stage.words_file).reading("hemangjoma") == ("hemangioma", "spelling:substitution:hemangjoma>hemangioma")
    kb = SimpleNamespace(spelling=SpellingIndex.build(["microcornea", "macrocornea"]), word_sets=stage.kb.word_sets)
    assert Spelling(kb, stage.words_file).reading("microcrnea") == ("microcornea", "spelling:deletion:microcrnea>microcornea")  # a letter dropped


def _edits(word):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in letters} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def test_the_knowledge_base_cache_holds_the_spelling_index(stage, tmp_path):
    store_entry(tmp_path / "kb.cache", "kb", resources_sections(stage.kb), cache_budget())
    loaded = resources_from_cache(read_cache_file(tmp_path / "kb.cache", "kb"), stage.kb.ontology.path)
    assert loaded.spelling.words == stage.kb.spelling.words


def test_word_lists_are_searched_by_bisection_and_refused_unsorted(tmp_path):
    words = sorted({"".join(random.Random(i).choices("abcdefgh", k=random.Random(i).randrange(1, 9))) for i in range(3000)})
    path = tmp_path / "words.txt.gz"
    path.write_bytes(gzip.compress("".join(f"{w}\n" for w in words).encode()))
    listed = WordList.read(path)
    assert all(word in listed for word in words)
    assert not any(word + "z" in listed for word in words)
    path.write_bytes(gzip.compress(b"b\na\n"))
    with pytest.raises(InputError, match="sorted"):
        WordList.read(path)
    path.write_bytes(b"plain\n")
    with pytest.raises(InputError, match="gzip"):
        WordList.read(path)


@given(st.sets(st.text(alphabet="abc\u00e9", min_size=1, max_size=4), max_size=30), st.lists(st.text(alphabet="abc\u00e9\n", max_size=5), max_size=10), st.integers(1, 12))
@settings(max_examples=300, deadline=None)
def test_a_word_list_holds_its_words_and_no_other_whatever_its_index_blocks(words, others, block):
    """A word is looked up in the block the index bisects to: every listed word is found,
    whichever block it starts, and no other string."""
    listed = sorted(words, key=str.encode)
    found = WordList(b"\n" + b"".join(word.encode() + b"\n" for word in listed), block=block)
    assert all(word in found for word in listed)
    assert not any(other in found for other in others if other not in words)


@given(st.lists(st.text(alphabet="abc", max_size=3), max_size=12), st.integers(1, 8))
@settings(max_examples=300, deadline=None)
def test_sortedness_read_piece_by_piece_is_the_whole_lists(words, piece):
    from phenorules.kb.lexicon.word_lists import _sorted_lines

    data = b"\n" + b"".join(word.encode() + b"\n" for word in words)
    assert _sorted_lines(data, piece) == all(a < b for a, b in zip(words, words[1:]))


def test_the_shipped_word_lists_are_sorted_and_read_unchecked(tmp_path):
    """The package's own lists are sorted (checked here: the spelling stage reads them
    unchecked); a list read unchecked is taken as it is."""
    from phenorules.kb.resources import data_dir

    for name in ("english_words.txt.gz", "british_spellings.txt.gz"):
        assert WordList.read(data_dir("lexicons") / name).data.startswith(b"\n")
    path = tmp_path / "unsorted.txt.gz"
    path.write_bytes(gzip.compress(b"b\na\n"))
    assert WordList.read(path, checked=False).data == b"\nb\na\n"


def test_a_word_list_is_read_again_from_its_cache_entry_until_the_file_changes(tmp_path, monkeypatch):
    """The cached list is the file's: read from the entry while the file stays as it was
    (the gzip file is not read again), and from the file once it changes; an unsorted list
    is refused before any entry holds it."""
    import os

    import phenorules.kb.lexicon.word_lists as word_lists
    from phenorules.stages.spelling import cached_word_list

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "words.txt.gz"
    path.write_bytes(gzip.compress(b"ataxia\nhypotonia\n"))
    first = cached_word_list(path)
    assert first.data == WordList.read(path).data == b"\nataxia\nhypotonia\n"
    assert [entry.name.startswith("word-list-") for entry in (tmp_path / "cache").iterdir()] == [True]
    with monkeypatch.context() as patched:
        patched.setattr(word_lists, "read_bytes", lambda name: pytest.fail("the gzip file was read again"))
        assert cached_word_list(path).data == first.data
    path.write_bytes(gzip.compress(b"ataxia\nhypotonia\nmyopia\n"))
    os.utime(path, ns=(1, 1))
    assert "myopia" in cached_word_list(path)
    path.write_bytes(gzip.compress(b"b\na\n"))
    os.utime(path, ns=(2, 2))
    with pytest.raises(InputError, match="sorted"):
        cached_word_list(path)
