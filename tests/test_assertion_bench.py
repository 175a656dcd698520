"""benchmarks/assertion_bench.py: its test set's shape and its scoring (medspaCy itself runs
only in `make assertions`)."""

from collections import Counter

import pytest

from phenorules.core.errors import InputError

from conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("assertion_bench")


def test_the_set_has_enough_sentences_of_every_category(bench):
    items = bench.read_set(bench.DEFAULT_SET)
    counts = Counter(item.category for item in items)
    assert len({item.text for item in items}) >= 300
    assert counts["AFFIRMED"] >= 60 and all(counts[category] >= 40 for category in bench.CATEGORIES)
    for item in items:
        start, end = item.span
        assert 0 <= start < end <= len(item.text) and item.text[start:end].strip() == item.text[start:end]


def test_a_bad_row_is_an_error_naming_its_line(bench, tmp_path):
    path = tmp_path / "set.tsv"
    path.write_text("AFFIRMED\tShe had [[seizures]].\nMAYBE\tShe had [[seizures]].\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"set.tsv:2: unknown category 'MAYBE'"):
        bench.read_set(path)
    path.write_text("AFFIRMED\tShe had seizures.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"set.tsv:1: expected one mention"):
        bench.read_set(path)


def test_the_stage_judges_the_forced_span_and_each_flag_is_scored_alone(bench, mini_nlp):
    items = [
        bench.Item(1, "NEGATED_EXISTENCE", "The child had no seizures.", (16, 24)),
        bench.Item(2, "FAMILY", "Her father has ataxia.", (15, 21)),
        bench.Item(3, "AFFIRMED", "Like her father, she had hypotonia.", (25, 34)),
    ]
    docs = [bench.spans_doc(mini_nlp, item) for item in items]
    found = bench.ours(mini_nlp, docs, items)
    assert found == [{"NEGATED_EXISTENCE"}, {"FAMILY"}, {"AFFIRMED"}]
    assert bench.prf([{item.category} for item in items], [{"FAMILY"}, {"FAMILY"}, {"AFFIRMED"}], "FAMILY")[:3] == (1, 1, 0)
