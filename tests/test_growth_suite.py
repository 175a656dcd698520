"""The generated growth suite (phenorules/evaluation/growth.py): its thresholds quote the
shipped ontology, it covers every growth term with a stated threshold, and the spaCy
component meets its floors on a sample of it (``make measurements`` runs all of it)."""

from __future__ import annotations

import math

import pytest
import spacy

from phenorules.evaluation.growth import (
    LEFT_OUT, SUITES, Written, expected, growth_findings, growth_ids, phrasings, run, source_problems, suite_cases, uncovered_terms,
)  # fmt: skip
from phenorules.kb.ontology import default_obo_path, load_ontology

RECALL_FLOOR = 0.90  # of the expected term, on abnormal values
FALSE_POSITIVE_CEILING = 0.02  # a growth term found on normal values, no value, another measure's
SAMPLE = 7  # every 7th case of each suite


@pytest.fixture(scope="module")
def ontology():
    return load_ontology(str(default_obo_path()))


@pytest.fixture(scope="module")
def findings(ontology):
    return growth_findings(ontology)


@pytest.fixture(scope="module")
def cases(ontology, findings):
    return suite_cases(ontology, findings)


def test_every_threshold_quotes_the_shipped_ontology():
    assert source_problems(default_obo_path()) == []


def test_a_quote_the_ontology_does_not_hold_is_a_problem(tmp_path):
    rules = tmp_path / "growth.tsv"
    rules.write_text('finding\thead\tsd\t(-inf,-2)\tHP:0000252\tHP:0000252 def: "below 3 standard deviations"\n', encoding="utf-8")
    assert source_problems(default_obo_path(), rules) == ["growth.tsv:1: HP:0000252 def does not hold 'below 3 standard deviations'"]


def test_every_growth_term_with_a_threshold_is_read_or_left_out_for_a_reason(ontology, findings):
    assert uncovered_terms(ontology, default_obo_path(), findings) == set(LEFT_OUT)


def test_every_finding_of_the_rows_has_cases(findings, cases):
    rows = {row.hpo_id for group in findings.values() for row in group}
    assert rows == {hpo_id for case in cases["abnormal"] for hpo_id in case.hpo_ids}
    assert all(cases[suite] for suite in SUITES)


def test_the_expected_finding_is_the_narrowest_row_that_holds_the_value(findings):
    height = findings["height"]
    assert expected(height, Written("sd", "point", -2.5, -2.5)).hpo_id == "HP:0003502"  # Mild short stature
    assert expected(height, Written("sd", "less", -math.inf, -4.5)).hpo_id == "HP:0003510"  # Severe short stature
    assert expected(height, Written("sd", "less", -math.inf, -3)).hpo_id == "HP:0004322"  # Short stature: moderate or severe
    assert expected(height, Written("sd", "range", -2, -1.5)) is None
    assert expected(findings["birth weight"], Written("sd", "point", -1.5, -1.5)).hpo_id == "HP:0001518"  # read as the 6.7th centile


def test_values_are_written_the_ways_case_reports_write_them():
    assert phrasings(Written("centile", "less", -math.inf, 3))[:2] == ["below the 3rd centile", "<3rd percentile"]
    assert "2.5 SD below the mean" in phrasings(Written("sd", "point", -2.5, -2.5))
    assert "-1.5 to -2 SD" in phrasings(Written("sd", "range", -2, -1.5))


def test_the_component_meets_the_floors_on_a_sample(ontology, findings, cases):
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules")
    growth = growth_ids(ontology, findings)
    shares = {suite: run(nlp, cases[suite][::SAMPLE], growth)[0].share for suite in SUITES}
    assert shares["abnormal"] >= RECALL_FLOOR
    assert 1 - shares["normal"] <= FALSE_POSITIVE_CEILING and 1 - shares["other"] <= FALSE_POSITIVE_CEILING
