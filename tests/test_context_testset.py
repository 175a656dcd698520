"""benchmarks/context_testset.py: the reader of ConText's test set, its gold categories and its
scoring through phenorules_context (medspaCy itself runs only in `make assertions`)."""

import pytest

from phenorules.core.errors import InputError

from conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("context_testset")


def test_each_column_gives_its_category(bench, tmp_path):
    path = tmp_path / "context.tsv"
    rows = [
        "1\t \tcough\tShe denies any COUGH today.\tNegated\tRecent\tPatient",
        "2\t \tchills\tReturn if CHILLS develop.\tAffirmed\tNot particular\tPatient",
        "3\t \tasthma\tHistory of ASTHMA, no wheezing.\tAffirmed\tHistorical\tPatient",
        "4\t \tgout\tHer father had GOUT.\tAffirmed\tHistorical\tFamily member",
        "5\t \tstroke\tGrandmother had a stroke.\tAffirmed\tRecent\tOther",
    ]
    path.write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    items = bench.read_testset(str(path))
    assert [sorted(item.gold) for item in items] == [["NEGATED_EXISTENCE"], ["HYPOTHETICAL"], ["HISTORICAL"], ["FAMILY", "HISTORICAL"], ["FAMILY"]]
    assert items[0].sentence[slice(*items[0].span)] == "COUGH" and items[4].span == (18, 24)


def test_a_bad_row_is_an_error_naming_its_line(bench, tmp_path):
    path = tmp_path / "context.tsv"
    path.write_text("1\t \tcough\tNo COUGH.\tNegated\tRecent\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"context.tsv:1: expected 7 tab-separated columns"):
        bench.read_testset(str(path))
    path.write_text("1\t \tcough\tNo COUGH.\tNegated\tSoon\tPatient\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"context.tsv:1: unknown temporality 'Soon'"):
        bench.read_testset(str(path))


def test_the_component_judges_the_given_span_and_each_category_is_scored_alone(bench):
    items = [
        bench.Item(1, "She denies any cough today.", (15, 20), frozenset({"NEGATED_EXISTENCE"})),
        bench.Item(2, "Return if chills, sweats or a rash develop.", (30, 34), frozenset({"HYPOTHETICAL"})),
        bench.Item(3, "The rash resolved last year.", (4, 8), frozenset()),
    ]
    found = bench.ours(bench.context_pipeline(), items)
    assert found == [{"NEGATED_EXISTENCE"}, {"HYPOTHETICAL"}, {"HISTORICAL"}]
    assert "| HISTORICAL | 0 | 0.0000 (0/1) | 0.0000 (0/0) | 0.0000 |" in bench.table(bench.SCORED, [set(item.gold) for item in items], [("phenorules", found)])
    assert "| HYPOTHETICAL | 1 | 1.0000 (1/1) | 1.0000 (1/1) | 1.0000 |" in bench.table(bench.SCORED, [set(item.gold) for item in items], [("phenorules", found)])
