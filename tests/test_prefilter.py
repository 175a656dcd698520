"""The mention-pattern prefilter finds exactly what a full ``finditer`` finds."""

import random
import re

import pytest

from phenorules.core.errors import InputError
from phenorules.patients.prefilter import WordScan, prefilter
from phenorules.patients.rules import read_patterns
from phenorules.kb.resources import data_dir

PATTERNS = read_patterns(data_dir("rules") / "patient_mentions.tsv")
WORDS = (
    "the his her Her patient Patients case 1 2 II-3 III:4 P5 and or , . ; : ( ) - – father's "
    "mother brothers son reason index proband Proband 12-year-old 3 year old boy girl she He "
    "himself cousins Case no. 7 Individual IV.2 pt. siblings 4 & 5 The Our This Both They Healthy controls \n \t"
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


SCAN = WordScan([(pattern.prefilter, pattern.lower_regex is not None) for pattern in PATTERNS])


@pytest.mark.parametrize("index", range(len(PATTERNS)), ids=lambda i: PATTERNS[i].name)
def test_scan_equals_a_full_scan(index):
    pattern = PATTERNS[index]
    for text in texts():
        lowered = text.lower()
        full = pattern.regex.finditer(text) if pattern.lower_regex is None else pattern.lower_regex.finditer(lowered)
        assert spans(pattern.scan(text, lowered, SCAN(text, lowered)[index])) == spans(full), text


def found(finder, text):
    """Where the prefilter's words occur in ``text``, as the one scan of a rule file finds them."""
    return WordScan([(finder, False)])(text, text.lower())[0]


def test_anchored_patterns_get_a_prefilter():
    assert {p.name for p in PATTERNS if p.prefilter} >= {"kinship", "age_sex", "proband"}
    assert "father" in next(p for p in PATTERNS if p.name == "kinship").prefilter.anchors


@pytest.mark.parametrize("starts, anchors, reads", [((), (), None), ((), ("cat",), None), ((), (), r"\w\s")])
def test_no_prefilter_where_none_is_declared(starts, anchors, reads):
    assert prefilter(re.compile(r"\bcat"), starts, anchors, reads) is None


def test_a_bad_reads_class_names_the_line(tmp_path):
    path = tmp_path / "mentions.tsv"
    path.write_text("# name\tkind\tpattern\tstarts\tanchors\treads\ncat\tanaphor\t\\bcat\\b\t-\tcat\tz-a\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"mentions\.tsv, line 2: bad reads character class"):
        read_patterns(path)


@pytest.mark.parametrize("pattern, starts", [(r"^the cat", ("the",)), (r"cat$", ("cat",)), (r"c.t", ("c",)), (r"(?<!x)(?:cat|dog)\b", ("cat", "dog"))])
def test_matches_at_start_words_as_finditer(pattern, starts):
    regex = re.compile(pattern)
    finder = prefilter(regex, starts, (), None)
    assert finder is not None and finder.starts
    rng = random.Random(5)
    for _ in range(300):
        words = rng.choices(["the cat", "cat", "xcat", "cut", "c\nt", "dogs", "dog", "Cat"], k=rng.randint(1, 8))
        text = (" " + "y" * 60 + " ").join(words)
        assert spans(finder.finditer(regex, text, text.lower(), found(finder, text))) == spans(regex.finditer(text)), text


def test_chunks_end_at_characters_the_pattern_cannot_read():
    regex = re.compile(r"\b(?:big\s+)*dog\b(?!\.\d)")
    finder = prefilter(regex, (), ("dog",), r"\w\s.")
    assert finder is not None and not finder.starts and finder.stops is not None
    text = ("." + "y" * 200) * 5 + "a big  big dog.5, big dog. big, dog; dogs dog"
    assert spans(finder.finditer(regex, text, text.lower(), found(finder, text))) == spans(regex.finditer(text))
