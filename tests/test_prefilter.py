"""The mention-pattern prefilter finds exactly what a full ``finditer`` finds."""

import random
import re

import pytest

from phenorules.patients.prefilter import prefilter
from phenorules.patients.rules import read_patterns
from phenorules.resources import data_dir

PATTERNS = read_patterns(data_dir("rules") / "patient_mentions.tsv")
WORDS = (
    "the his her Her patient Patients case 1 2 II-3 III:4 P5 and or , . ; : ( ) - – father's "
    "mother brothers son reason index proband Proband 12-year-old 3 year old boy girl she He "
    "himself cousins Case no. 7 Individual IV.2 pt. siblings 4 & 5 \n \t"
).split(" ")


def spans(matches):
    return [(m.span(), m.groupdict()) for m in matches]


def texts(count=300, seed=7):
    """Random texts of pattern words and punctuation, some anchor-sparse (so that the
    prefilter works), some with 'ſ' or 'ı' (so that it must not)."""
    rng = random.Random(seed)
    for i in range(count):
        words = rng.choices(WORDS + (["ſon", "patıent"] if i % 5 == 0 else []), k=rng.randint(1, 60))
        yield (" " + "x" * 200 + " . ").join(words) if i % 2 else " ".join(words)


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_scan_equals_a_full_scan(pattern):
    for text in texts():
        lowered = text.lower()
        full = pattern.regex.finditer(text) if pattern.lower_regex is None else pattern.lower_regex.finditer(lowered)
        assert spans(pattern.scan(text, lowered)) == spans(full), text


def test_anchored_patterns_get_a_prefilter():
    assert {p.name for p in PATTERNS if p.prefilter} >= {"kinship", "age_sex", "proband"}
    assert "father" in next(p for p in PATTERNS if p.name == "kinship").prefilter.anchors


@pytest.mark.parametrize("pattern", [r"a?", r"[^x]cat", r"\Wcat", r"(?:cat|\d+)"])
def test_no_prefilter_where_the_analysis_cannot_be_exact(pattern):
    assert prefilter(pattern) is None


@pytest.mark.parametrize("pattern", [r"^the cat", r"cat$", r"c.t", r"(?<!x)(?:cat|dog)\b"])
def test_matches_at_start_words_as_finditer(pattern):
    regex, finder = re.compile(pattern), prefilter(pattern)
    assert finder is not None and finder.starts
    rng = random.Random(5)
    for _ in range(300):
        words = rng.choices(["the cat", "cat", "xcat", "cut", "c\nt", "dogs", "dog", "Cat"], k=rng.randint(1, 8))
        text = (" " + "y" * 60 + " ").join(words)
        assert spans(finder.finditer(regex, text, text.lower())) == spans(regex.finditer(text)), text


def test_chunks_end_at_characters_the_pattern_cannot_read():
    regex = re.compile(r"\b(?:big\s+)*dog\b(?!\.\d)")
    finder = prefilter(regex.pattern)
    assert finder is not None and not finder.starts and finder.stops is not None
    text = ("." + "y" * 200) * 5 + "a big  big dog.5, big dog. big, dog; dogs dog"
    assert spans(finder.finditer(regex, text, text.lower())) == spans(regex.finditer(text))
