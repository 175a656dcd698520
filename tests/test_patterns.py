"""core.patterns.first_class: the look-ahead a scan's alternative is tried behind must let
every match of the alternative through (the scan finds what it found without it)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.patterns import LocatedPattern, by_first_character, first_class, literal_alternation, located, tried_where_it_starts

TEXT = "Her OFC was -2.8 SD (P<3); height 92 cm, below the 3rd centile; BMI: 31. z = -2.4; \u00b1 1 SD, [P3] ok\tfin-de"


@pytest.mark.parametrize(
    "pattern, flags, expected",
    [
        (r"height|weight", re.IGNORECASE, "(?=[hw])"),
        (r"(?<!\w)(?:[<>]\s?)?P\d", 0, r"(?=[<>P])"),
        (r"(?:[+-]\s?)?\d+\s*SD", 0, r"(?=[\+\-\d])"),
        (r"\s?P\d", 0, r"(?=[P\s])"),
        (r"(?:the\s+)?(?:\d+|first)", 0, r"(?=[\dft])"),
    ],
)
def test_first_class_lists_the_first_characters(pattern, flags, expected):
    assert first_class(pattern, flags) == expected


@pytest.mark.parametrize("pattern", [r"(?:x)?", r"[^a]b", r".b", r"a*", r"(?=a)", r"\W"])
def test_first_class_is_empty_where_any_character_or_none_may_start(pattern):
    assert first_class(pattern) == ""


@pytest.mark.parametrize(
    "pattern",
    [r"(?<![\w-])(?-i:OFC)|height|BMI", r"(?:[<>]\s?)?\s?(?-i:P)\s?\d+", r"(?:(?:below|<)\s*)?(?:the\s+)?\d+(?:rd|th)?\s*centile", r"(?:[+-]|\u00b1)?\s*\d(?:\.\d)?\s*SD", r"z\s*=\s*-?\d"],
)
def test_a_scan_behind_first_class_finds_the_same_matches(pattern):
    plain = re.compile(pattern, re.IGNORECASE)
    guarded = re.compile(first_class(pattern, re.IGNORECASE) + f"(?:{pattern})", re.IGNORECASE)
    assert first_class(pattern, re.IGNORECASE)
    assert [m.span() for m in guarded.finditer(TEXT)] == [m.span() for m in plain.finditer(TEXT)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abAB<1 é", min_size=1, max_size=4), min_size=1, max_size=8, unique=True),
    st.text(alphabet="abAB<1 éx", max_size=30),
)
def test_an_alternation_grouped_by_first_character_matches_as_the_plain_one(words, text):
    """by_first_character changes no match: the patterns of two first characters never
    match at one position, so a group's place in the alternation does not matter."""
    words = sorted(words, key=lambda word: (-len(word), word))
    alternatives = [(word[0], re.escape(word) + r"(?:x|\b)") for word in words]
    plain = re.compile("(?:" + "|".join(pattern for _, pattern in alternatives) + ")+", re.IGNORECASE)
    grouped = re.compile("(?:" + by_first_character(alternatives, re.IGNORECASE) + ")+", re.IGNORECASE)
    assert [m.span() for m in grouped.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_a_cased_first_letter_outside_ascii_keeps_the_plain_alternation():
    alternatives = [("\u017f", "\u017fd"), ("s", "sd")]  # the long s folds into s
    assert by_first_character(alternatives, re.IGNORECASE) == "\u017fd|sd"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="sdz-.%", min_size=1, max_size=4), min_size=1, max_size=8, unique=True), st.text(alphabet="sdz-.% x", max_size=30))
def test_a_literal_alternation_grouped_by_first_character_matches_as_the_plain_one(words, text):
    words = sorted(words, key=lambda word: (-len(word), word))
    plain = re.compile("|".join(map(re.escape, words)))
    grouped = re.compile(literal_alternation(words))
    assert [m.span() for m in grouped.finditer(text)] == [m.span() for m in plain.finditer(text)]


CUE_TEXT = st.text(alphabet=st.sampled_from([*"etalisrHBENpond,mMP1()+✓\u017f\u212a' "]), max_size=60)


@settings(max_examples=200, deadline=None)
@given(CUE_TEXT)
def test_every_patient_cue_row_behind_its_look_ahead_answers_as_the_row(text):
    """The patient cue rows are compiled by tried_where_it_starts, the look-ahead inside
    each row's (?i:...): search, match and fullmatch answer as the row's own pattern does,
    'ſ' and the Kelvin sign (which fold to 's' and 'k') included."""
    from phenorules.kb.resources import data_file
    from phenorules.patients.rules import read_cues

    path = data_file("rules", "patient_cues.tsv", None)
    rows = [line.split("\t")[2].rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
    cues = read_cues(path).rows
    assert len(cues) == len(rows) and sum(cue.regex.pattern != row for cue, row in zip(cues, rows)) >= 10
    for cue, row in zip(cues, rows):
        plain = re.compile(row)
        for method in ("search", "match", "fullmatch"):
            found, expected = getattr(cue.regex, method)(text), getattr(plain, method)(text)
            assert (found and found.span()) == (expected and expected.span()), (cue.name, method)


@pytest.mark.parametrize(
    "pattern, flags, compiled",
    [
        (r"\b(?:such\s+as|including)\b", re.IGNORECASE, r"(?=[is])(?:\b(?:such\s+as|including)\b)"),
        (r"(?i:\bet\s+al\b|\bis\b)", 0, r"(?i:(?=[ei])(?:\bet\s+al\b|\bis\b))"),
        (r"\bHead(?i:er)\b", 0, r"\bHead(?i:er)\b"),  # flags inside: letters there fold, a class outside would not
        (r"(?i:a)|b", 0, r"(?i:a)|b"),  # not wholly caseless: the same
        (r".x", 0, r".x"),  # may start anywhere
    ],
)
def test_a_pattern_is_tried_behind_its_look_ahead_only_where_its_letters_fold_alike(pattern, flags, compiled):
    assert tried_where_it_starts(pattern, flags).pattern == compiled


LOCATED_PIECES = st.sampled_from([*"aisdkSIKD:(-)\u2013 \t\n,.1\u0130\u0131\u017f\u212a\u00e9", "including", "SUCH  as", "HEAD ER:", "Et Al", "such", "uch as", "ncluding", "t al"])
LOCATED_PATTERNS = [
    (r"\b(?:including|such\s+as)\b", re.IGNORECASE),
    (r"\b[A-Z][A-Z/&-]*[A-Z](?:[ \t]+[A-Z][A-Z/&-]*[A-Z])*(?:\([A-Z]+\))?:(?=\s)", 0),
    (r"(?i:\bet\s+al\b|\bis\b)", 0),
    (r"(?<![\w-])(?:[-\u2013]\s?\d|k\d)", re.IGNORECASE),
    (r"[a-c]+:", re.IGNORECASE),
]


@pytest.mark.parametrize("pattern, flags", LOCATED_PATTERNS)
@settings(max_examples=300, deadline=None)
@given(st.lists(LOCATED_PIECES, max_size=20).map("".join), st.integers(0, 60), st.integers(0, 60))
def test_a_located_pattern_finds_what_the_pattern_finds(pattern, flags, text, pos, endpos):
    """The locator's class holds every character a match starts with, the letters that fold
    into an ASCII letter included (İ ı ſ K), so finditer and search find the same matches."""
    plain, scanned = re.compile(pattern, flags), located(pattern, flags)
    assert isinstance(scanned, LocatedPattern)
    assert [m.span() for m in scanned.finditer(text)] == [m.span() for m in plain.finditer(text)]
    found, expected = scanned.search(text, pos, endpos), plain.search(text, pos, endpos)
    assert (found and found.span()) == (expected and expected.span())


@pytest.mark.parametrize(
    "pattern, flags",
    [
        (r"a*", 0),  # may match nothing
        (r".x", 0),  # may start anywhere
        (r"\u00e9t\u00e9", re.IGNORECASE),  # a cased first letter outside ASCII
        (r"(a)\1", 0),  # a group reference: no look-behind can hold it
        (r"\bHead(?i:er)\b", 0),  # flags of its own
        (r"head", re.MULTILINE),  # flags other than IGNORECASE
    ],
)
def test_a_pattern_no_class_can_locate_stays_the_pattern(pattern, flags):
    scanned = located(pattern, flags)
    assert isinstance(scanned, re.Pattern) and scanned.flags & ~re.UNICODE == flags


def test_the_locator_class_reads_each_ascii_letter_in_both_cases_and_the_letters_folding_into_one():
    scanned = located(r"\b(?:such\s+as|k\d)", re.IGNORECASE)
    assert scanned.locator.pattern.startswith("[KSks\u0130-\u0131\u017f\u212a](?<=(?=(?i:")
    assert [m.group() for m in scanned.finditer("\u017fuch as \u212a1 SUCH as")] == ["\u017fuch as", "\u212a1", "SUCH as"]
