import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.errors import InputError
from phenorules.kb.lexicon import Entry, Lexicon, LexiconConfig, build_lexicon
from phenorules.kb.matcher import GROUP_KEYS, HEAD_CHARS, Match, PackedRows, PhraseMatcher, decode_entries, non_overlapping, resolve_overlaps
from phenorules.tasks.jnlpba.tag import Tagged
from phenorules.kb.resources import data_dir
from phenorules.formats.patientphex.identifiers import task_identifier


@pytest.fixture(scope="module")
def matcher(mini_ontology):
    return PhraseMatcher(build_lexicon(mini_ontology, data_dir("lexicons")))


def spans(matcher, text):
    return [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in matcher(text)]


def test_offsets_are_exact_in_the_original_text(matcher):
    text = "Cleft\u2011Palate and SEIZURES were seen; submucous cleft palate too."
    for m in matcher(text):
        assert m.start >= 0 and text[m.start : m.end]
    assert spans(matcher, text) == [
        ("Cleft\u2011Palate", "HP:0000175"),
        ("SEIZURES", "HP:0001250"),
        ("submucous cleft palate", "HP:0000176"),
    ]


def test_only_on_word_boundaries(matcher):
    assert spans(matcher, "preseizures and ataxias, ataxiatelangiectasia") == [("ataxias", "HP:0001251")]


def test_variants_match(matcher):
    assert spans(matcher, "hypoplastic mandible, edema, oedema") == [
        ("hypoplastic mandible", "HP:0000347"),
        ("edema", "HP:0000969"),
        ("oedema", "HP:0000969"),
    ]


def test_accented_letters_match_their_base_letter(matcher):
    # "Sjögren", "café", "naïve": a letter with a diacritic is its base letter, offsets kept.
    assert spans(matcher, "Séizures, then ÁTAXIA; hypoplastic mandíble.") == [
        ("Séizures", "HP:0001250"),
        ("ÁTAXIA", "HP:0001251"),
        ("hypoplastic mandíble", "HP:0000347"),
    ]


def test_abbreviations_are_case_sensitive(matcher):
    assert spans(matcher, "an ASD and VSDs; we did not find an asd") == [("ASD", "HP:0001631"), ("VSDs", "HP:0001629")]


def test_longest_match_wins(matcher):
    assert spans(matcher, "a submucous cleft palate") == [("submucous cleft palate", "HP:0000176")]
    # the comma form of an inverted name is a list in prose, not the term
    assert spans(matcher, "cleft palate, submucous") == [("cleft palate", "HP:0000175")]


def test_overlap_tie_prefers_leftmost():
    entry = Entry(1, ("HP:1",), "x", "name")
    chosen = resolve_overlaps([Match(2, 6, entry), Match(0, 4, entry)])
    assert [(m.start, m.end) for m in chosen] == [(0, 4)]


def test_provenance_names_the_entry_and_rule(matcher):
    (match,) = matcher("hypoplastic mandible")
    assert match.entry.provenance == "name|noun_adjective"


def copy_lexicons(tmp_path):
    shutil.copytree(data_dir("lexicons"), tmp_path, dirs_exist_ok=True)


def test_extra_lexicon_file_with_unknown_id_is_an_error(mini_ontology, tmp_path):
    copy_lexicons(tmp_path)
    (tmp_path / "extra_terms.tsv").write_text("small head\tHP:9999999\n")
    with pytest.raises(InputError, match=r"extra_terms.tsv:1: 'HP:9999999' is not a term"):
        build_lexicon(mini_ontology, tmp_path)


def test_blocklist_removes_a_key(mini_ontology, tmp_path):
    copy_lexicons(tmp_path)
    (tmp_path / "blocklist.tsv").write_text("ataxia\t*\tnot here\n")
    lexicon = build_lexicon(mini_ontology, tmp_path, LexiconConfig())
    assert "ataxia" not in lexicon.entries and "ataxias" in lexicon.entries


def test_empty_lexicon_matches_nothing():
    assert PhraseMatcher(Lexicon())("anything") == []


def test_matcher_survives_pickling(matcher):
    import pickle

    clone = pickle.loads(pickle.dumps(matcher))
    assert spans(clone, "seizures") == spans(matcher, "seizures")


def test_the_branch_root_is_not_a_lexicon_entry(mini_ontology):
    lexicon = build_lexicon(mini_ontology, data_dir("lexicons"))
    assert "phenotypic abnormality" not in lexicon.entries
    assert all(task_identifier(e.hpo_ids) != "HP:0000118" for entries in lexicon.entries.values() for e in entries)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12), st.integers(0, 3)), max_size=40))
def test_overlaps_are_resolved_by_the_definition(spans):
    """Longest first, then leftmost, then the entry; nothing chosen overlaps a longer or
    earlier choice (the definition, checked against every chosen match)."""
    matches = [Match(start, start + length, Entry(priority, ("HP:0000001",), "x", "name", "")) for start, length, priority in spans]
    chosen, taken = [], []
    for match in sorted(matches, key=lambda m: (-m.length, m.start, m.entry)):
        if all(match.end <= s or match.start >= e for s, e in taken):
            chosen.append(match)
            taken.append((match.start, match.end))
    assert resolve_overlaps(matches) == sorted(chosen, key=lambda m: (m.start, m.end))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12)), max_size=40))
def test_non_overlapping_keeps_the_given_order_on_a_tie(spans):
    """Any rank (here longest, then leftmost, as the JNLPBA tagger ranks); on a tie the
    candidate given first wins, checked against the definition."""
    candidates = [Tagged(start, start + length, str(index), ()) for index, (start, length) in enumerate(spans)]
    chosen = []
    for _, tagged in sorted(enumerate(candidates), key=lambda p: (p[1].start - p[1].end, p[1].start, p[0])):
        if all(tagged.end <= c.start or tagged.start >= c.end for c in chosen):
            chosen.append(tagged)
    assert non_overlapping(candidates, lambda t: (t.start - t.end, t.start)) == sorted(chosen, key=lambda t: (t.start, t.end))


def test_rows_packed_in_the_lexicon_s_order_are_the_rows_in_key_order(mini_ontology):
    """A build packs every row reading the entries in the lexicon's own order, then lays
    the rows out by key, as the cache holds them."""
    from phenorules.kb.matcher import LexiconRows, PackedRows

    lexicon = build_lexicon(mini_ontology, data_dir("lexicons"))
    rows = LexiconRows(sorted(lexicon.entries), lexicon.entries)
    assert list(lexicon.entries) != rows.keys  # the two orders differ
    packed = PhraseMatcher(lexicon, packed=True).rows
    assert isinstance(packed, PackedRows) and isinstance(PhraseMatcher(lexicon).rows, LexiconRows)
    assert list(packed) == list(rows) and len(packed) == len(lexicon) > 100
    assert [packed.entries(i) for i in range(len(packed))] == [decode_entries(row) for row in rows]
    stored = rows.packed()  # what the cache's store packs of a matcher built unpacked
    assert (stored.text, stored.ends, stored.named) == (packed.text, packed.ends, packed.named)
    # the records name each surface, source and rule by number: the text is a fraction of the rows'
    assert len(packed.text) < len("".join(rows).encode()) / 2 and len(packed.named) < len(lexicon)
    again = PackedRows.numbered(list(rows))  # a matcher's rows as a list (unpickled), packed for the cache
    assert list(again) == list(rows) and PackedRows(again.text, again.ends, PackedRows.named_of(again.named_section())).entries(3) == packed.entries(3)


def _full_key_hits(keys: list[str], text: str) -> list[tuple[int, int]]:
    """What one automaton over the whole keys finds: (last character, row), rows in key order."""
    import ahocorasick

    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for row, key in enumerate(sorted(keys)):
        automaton.add_word(key, row)
    automaton.make_automaton()
    return list(automaton.iter(text))


def _lexicon_of(keys) -> Lexicon:
    lexicon = Lexicon()
    for key in keys:
        lexicon.add(key, Entry(0, ("HP:0000001",), key, "name", ""))
    return lexicon


# keys of any length, and many that share a head's characters and more (a group split)
_LONG_KEY_TEXT = st.one_of(
    st.text(alphabet="ab ", min_size=1, max_size=2 * HEAD_CHARS + 4),
    st.builds(str.__add__, st.sampled_from(["a" * (HEAD_CHARS - 1), "ab" * HEAD_CHARS]), st.text(alphabet="ab", max_size=12)),
)


@settings(max_examples=300, deadline=None)
@given(st.sets(_LONG_KEY_TEXT, min_size=1, max_size=4 * GROUP_KEYS), st.lists(st.integers(0, 4 * GROUP_KEYS), max_size=8), st.text(alphabet="abc ", max_size=20))
def test_keys_longer_than_a_head_are_found_as_whole_keys_are(keys, picked, filler):
    """Keys stored by their head (:data:`HEAD_CHARS`) and their tails: the hits, in their
    order, and the rows looked up are those of an automaton over the whole keys, for a
    matcher built, read back from its cache sections, and unpickled; on texts of keys
    side by side and overlapping."""
    import pickle

    from phenorules.kb.resources import matcher_from_cache, matcher_sections
    from phenorules.kb.cache_file import CacheFile

    keys = sorted(keys)
    built = PhraseMatcher(_lexicon_of(keys))
    cached = matcher_from_cache(CacheFile({name: (zstd_frame(blob), len(blob)) for name, blob in matcher_sections(built).items()}))
    text = filler.join(keys[i % len(keys)] for i in picked) + filler + "".join(keys)
    for matcher in (built, cached, pickle.loads(pickle.dumps(built))):
        assert matcher.hits(text) == _full_key_hits(keys, text)
        assert [matcher.row_of(key) for key in keys] == list(range(len(keys)))
        for absent in ({key + "a" for key in keys} | {key[:-1] for key in keys}) - set(keys):
            assert matcher.row_of(absent, None) is None
            with pytest.raises(KeyError):
                matcher.row_of(absent)


def zstd_frame(blob: bytes) -> bytes:
    from phenorules.kb.cache_file import _compress

    return _compress(blob)


def test_long_keys_are_stored_by_their_heads():
    """A key longer than HEAD_CHARS adds its head's nodes only, once for all the keys that
    share the head; a head that is itself a key keeps its row."""
    head = "a" * HEAD_CHARS
    keys = [head, head + "b", head + "bb", "c" * (3 * HEAD_CHARS)]
    matcher = PhraseMatcher(_lexicon_of(keys))
    assert matcher.automaton.get_stats()["nodes_count"] == 2 * HEAD_CHARS + 1  # the root, a's, c's to the head
    assert [matcher.row_of(key) for key in sorted(keys)] == [0, 1, 2, 3]
    text = head + "bb " + "c" * (3 * HEAD_CHARS)
    assert [(m.start, m.end) for m in matcher(text)] == [(0, HEAD_CHARS + 2), (HEAD_CHARS + 3, len(text))]


def test_a_head_that_many_keys_share_is_made_longer():
    """More than GROUP_KEYS keys under one head: heads of HEAD_STEP more characters, each
    group at most GROUP_KEYS keys, every key found whole."""
    from phenorules.kb.matcher import HEAD_STEP

    shared = "x" * (HEAD_CHARS + HEAD_STEP)
    keys = sorted(shared + f"{i:03d}" + "y" * (i % 3) for i in range(3 * GROUP_KEYS))
    matcher = PhraseMatcher(_lexicon_of(keys))
    groups = list(matcher.long_keys.first_tail) + [len(matcher.long_keys.tails)]
    assert len(groups) - 1 > 1 and max(b - a for a, b in zip(groups, groups[1:])) <= GROUP_KEYS
    assert [matcher.row_of(key) for key in keys] == list(range(len(keys)))
    text = " ".join(keys)
    assert [text[m.start : m.end] for m in matcher(text)] == keys


def test_a_key_read_from_its_tail_comes_after_a_longer_whole_key_that_ends_with_it():
    """Hits ending at one character come longest first: a whole key of a split head's
    region (18 characters) before a key of 17 found by its head and tail."""
    region = "q" + "a" * (HEAD_CHARS - 1)
    keys = [region + "xy", *(region + f"z{i:03d}" for i in range(GROUP_KEYS)), "a" * (HEAD_CHARS - 1) + "xy"]
    matcher = PhraseMatcher(_lexicon_of(keys))
    text = region + "xy"
    assert matcher.hits(text) == _full_key_hits(keys, text) and len(matcher.hits(text)) == 2


@pytest.mark.parametrize("named", [[], [""], ["", "Seizure", ""], ["a\x1fb"]])
def test_the_texts_numbered_rows_name_read_back_from_their_section(named):
    from array import array

    assert PackedRows.named_of(PackedRows(b"", array("Q"), named).named_section()) == named
