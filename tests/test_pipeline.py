
import os

import pytest

from phenorules.core.article import Article, Passage, layout_passages
from phenorules.core.document import PASSAGES, PHENOTYPES, make_article_doc, make_text_doc
from phenorules.core.errors import InputError, SettingError
from phenorules.stages.pipeline import build_pipeline
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.records import predict

from conftest import MINI_OBO, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier

RECORD = {
    "pmc_id": "T1",
    "pmid": None,
    "patient": [{"patient_id": "P1", "mention": []}],
    "full_text": [
        {"section_type": "TITLE", "type": "front", "offset": 0, "text": "Cleft palate in a boy"},
        {"section_type": "CASE", "type": "paragraph", "offset": 25, "text": "He had cleft-lip. See Fig. 2 and Smith et al. for oedema."},
    ],
}
ARTICLE = to_article(RECORD)


def test_layout_places_passages_at_their_global_offsets():
    text = layout_passages(ARTICLE.passages)
    assert text[25:31] == "He had" and text[21:25] == "\n\n\n\n"


def test_every_span_is_the_article_text_at_its_offset(mini_nlp):
    doc = mini_nlp(make_article_doc(mini_nlp, ARTICLE))
    found = [(s.start_char, s.text, task_identifier(s._.hpo_ids)) for s in doc.spans[PHENOTYPES]]
    assert found == [(0, "Cleft palate", "HP:0000175"), (32, "cleft-lip", "HP:0410030"), (75, "oedema", "HP:0000969")]
    for span in doc.spans[PHENOTYPES]:
        assert doc.text[span.start_char : span.end_char] == span.text


def test_sentences_respect_abbreviations_and_passages(mini_nlp):
    doc = mini_nlp(make_article_doc(mini_nlp, ARTICLE))
    sentences = [s.text.strip() for s in doc.sents if s.text.strip()]
    assert sentences == ["Cleft palate in a boy", "He had cleft-lip.", "See Fig. 2 and Smith et al. for oedema."]
    assert [s.label_ for s in doc.spans[PASSAGES]] == ["TITLE", "CASE"]


def test_decimal_numbers_and_initials_do_not_end_sentences(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "Weight was 2.5 kg at birth (J. Smith). Then seizures began."))
    assert [s.text for s in doc.sents] == ["Weight was 2.5 kg at birth (J. Smith).", "Then seizures began."]


def test_entities_carry_provenance(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "hypoplastic mandible"))
    (span,) = doc.spans[PHENOTYPES]
    assert stage_rules(span) == ["name|noun_adjective"]
    assert span._.hpo_label == "Hypoplasia of the mandible"


def test_predict_records_have_the_submission_form(mini_nlp):
    (record,) = predict(mini_nlp, [ARTICLE])
    assert list(record) == ["pmc_id", "pmid", "entities", "association"]
    assert record["entities"][0] == {"identifier": "HP:0000175", "type": "Phenotype", "offset": 0, "length": 12, "text": "Cleft palate", "note": None}
    assert record["association"][0]["patient_id"] == "P1"


def test_unknown_or_required_stage_switches_are_refused():
    with pytest.raises(ValueError, match="unknown stage"):
        build_pipeline(disable=["spellcheck"], hpo=MINI_OBO)
    with pytest.raises(ValueError, match="cannot be switched off"):
        build_pipeline(disable=["match"], hpo=MINI_OBO)


def test_cache_is_reused_and_a_corrupt_or_foreign_file_is_rebuilt(tmp_path, monkeypatch):
    from phenorules.kb import resources

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path))
    monkeypatch.setattr(resources, "_LOADED", {})
    first = resources.load_knowledge_base(MINI_OBO)
    (entry,) = tmp_path.glob("resources-*.cache")
    monkeypatch.setattr(resources, "_LOADED", {})
    again = resources.load_knowledge_base(MINI_OBO)
    assert again.ontology.names == first.ontology.names
    assert again.matcher("seizures") == first.matcher("seizures")
    assert again.word_sets.rows == first.word_sets.rows
    built = []
    monkeypatch.setattr(resources, "lexicon_parts", lambda *args: _counting(built, args))
    blob = entry.read_bytes()
    for damaged in (blob[: len(blob) // 2], blob[:-1] + bytes([blob[-1] ^ 1]), b"\x80\x04junk" + blob[11:], b""):
        entry.write_bytes(damaged)
        monkeypatch.setattr(resources, "_LOADED", {})
        assert resources.load_knowledge_base(MINI_OBO).ontology.names == first.ontology.names
    entry.chmod(0o666)  # writable by others: not trusted, rebuilt
    monkeypatch.setattr(resources, "_LOADED", {})
    resources.load_knowledge_base(MINI_OBO)
    assert len(built) == 5
    assert not list(tmp_path.glob("*.tmp"))


def test_a_cache_written_in_the_background_is_the_one_written_in_line_and_is_whole_at_exit(tmp_path, monkeypatch):
    import subprocess
    import sys

    from phenorules.kb import resources

    monkeypatch.setattr(resources, "_LOADED", {})
    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "in-line"))
    monkeypatch.setattr(resources, "BACKGROUND_CACHE_ROWS", 10**9)
    resources.load_knowledge_base(MINI_OBO)
    (in_line,) = (tmp_path / "in-line").glob("resources-*.cache")
    # In a new process (one thread, so it may fork): the entry is written by a forked
    # process, slowed here, and the command, ending at once, still leaves it whole.
    code = (
        "import time; from phenorules.core import forking; from phenorules.kb import resources; store = resources.store; resources.BACKGROUND_CACHE_ROWS = 0; "
        f"resources.store = lambda *args: (time.sleep(1), store(*args)); resources.load_knowledge_base({str(MINI_OBO)!r}); "
        "print(len(forking._BACKGROUND))"
    )
    env = {**os.environ, "PHENORULES_CACHE": str(tmp_path / "forked")}
    printed = tmp_path / "printed"
    with open(printed, "w") as out:  # a file, not a pipe: the forked writer would hold a pipe open
        subprocess.run([sys.executable, "-c", code], env=env, check=True, stdout=out)
    assert printed.read_text().split() == ["1"]
    (forked,) = (tmp_path / "forked").glob("resources-*.cache")
    assert _cached_content(forked) == _cached_content(in_line)


def _cached_content(path):
    """What a cache entry holds: the automaton's keys and values (its node bytes depend on
    the process's allocations), the rows, the word sets and the ontology."""
    from phenorules.kb.cache_file import read_cache_file
    from phenorules.kb.resources import resources_from_cache

    key = path.stem.rsplit("-", 1)[1]
    loaded = resources_from_cache(read_cache_file(path, key), MINI_OBO)
    matcher = loaded.matcher
    return sorted(matcher.automaton.items()), [matcher.rows[i] for i in range(len(matcher.rows))], loaded.word_sets.to_bytes(), loaded.ontology.names


def test_a_cached_matcher_decodes_each_row_as_it_was_built(tmp_path, monkeypatch):
    """The rows are encoded when read (a matcher just built) and one packed text in the cache: a row is decoded only when its key is hit."""
    from phenorules.kb import resources
    import pickle

    from phenorules.kb.matcher import LexiconRows, PackedRows

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path))
    monkeypatch.setattr(resources, "_LOADED", {})
    built = resources.load_knowledge_base(MINI_OBO).matcher.rows
    monkeypatch.setattr(resources, "_LOADED", {})
    cached = resources.load_knowledge_base(MINI_OBO).matcher.rows
    assert isinstance(cached, PackedRows) and isinstance(built, LexiconRows)
    assert len(cached) == len(built) > 0
    assert [cached[i] for i in range(len(cached))] == [built[i] for i in range(len(built))] == list(built)
    assert pickle.loads(pickle.dumps(built)) == list(built)


def _counting(built, args):
    from phenorules.kb.lexicon import lexicon_parts

    built.append(1)
    return lexicon_parts(*args)


def test_loading_the_cache_runs_no_pickle(tmp_path, monkeypatch):
    import pickle

    from phenorules.kb import resources

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path))
    monkeypatch.setattr(resources, "_LOADED", {})
    resources.load_knowledge_base(MINI_OBO)
    monkeypatch.setattr(resources, "_LOADED", {})
    monkeypatch.setattr(pickle, "loads", lambda *_: pytest.fail("pickle.loads called"))
    monkeypatch.setattr(pickle, "load", lambda *_: pytest.fail("pickle.load called"))
    monkeypatch.setattr(resources, "lexicon_parts", lambda *_: pytest.fail("rebuilt instead of loaded"))
    assert resources.load_knowledge_base(MINI_OBO).matcher("seizures")


def test_the_cache_loads_with_the_collector_paused_then_as_it_was(tmp_path, monkeypatch):
    import gc

    from phenorules.kb import resources
    from phenorules.kb.word_sets import WordSetIndex

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path))
    monkeypatch.setattr(resources, "_LOADED", {})
    resources.load_knowledge_base(MINI_OBO)
    seen = []
    from_bytes = WordSetIndex.from_bytes  # runs after every msgpack section but the matcher's is read
    monkeypatch.setattr(WordSetIndex, "from_bytes", lambda data: seen.append(gc.isenabled()) or from_bytes(data))
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            monkeypatch.setattr(resources, "_LOADED", {})
            frozen = gc.get_freeze_count()
            assert resources.load_knowledge_base(MINI_OBO).matcher("seizures")
            assert gc.isenabled() is enabled
            assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()
        gc.enable()
    assert seen == [False, False]


def test_stale_cache_temporaries_go_and_entries_over_the_budget_go_but_no_other_file(tmp_path, monkeypatch):
    from phenorules.kb import cache_file, resources

    stale = tmp_path / f".resources-0.cache.{_dead_pid()}.abc123.tmp"
    stale.write_bytes(b"x" * 10)
    old_temporary = tmp_path / "resources-0.pklx1y2.tmp"
    old_temporary.write_bytes(b"x")
    os.utime(old_temporary, (0, 0))
    megabyte = b"x" * cache_file.MEGABYTE
    older = [tmp_path / "resources-0.pkl", tmp_path / f"resources-{'0' * 32}.cache", tmp_path / f"resources-{'a' * 16}-{'b' * 8}-{'1' * 32}.cache"]
    others = [tmp_path / "notes.txt", tmp_path / "resources-notes.cache", tmp_path / "jnlpba-model.cache.bak"]
    for path in older + others:
        path.write_bytes(megabyte)
        os.utime(path, (1000, 1000))
    (tmp_path / f"disease-names-{'2' * 32}.cache").symlink_to(others[0])  # not an entry: not a regular file
    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path))
    monkeypatch.setenv("PHENORULES_CACHE_MB", "1")
    monkeypatch.setattr(resources, "_LOADED", {})
    resources.load_knowledge_base(MINI_OBO)
    assert not stale.exists() and not old_temporary.exists()
    (built,) = tmp_path.glob(f"resources-*-{resources.config_tag(resources.LexiconConfig())}-*{cache_file.CACHE_SUFFIX}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([built.name, f"disease-names-{'2' * 32}.cache", *(p.name for p in others)])


def test_a_cold_build_is_logged_and_the_cli_says_so_on_a_pipe(tmp_path, monkeypatch, caplog):
    import logging
    import subprocess
    import sys

    from phenorules.kb import resources

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "in-process"))
    monkeypatch.setattr(resources, "_LOADED", {})
    with caplog.at_level(logging.INFO, logger="phenorules"):
        resources.load_knowledge_base(MINI_OBO)
    assert [r.getMessage().split(" from ")[0] for r in caplog.records] == ["building the lexicon", caplog.records[1].getMessage()]
    assert caplog.records[1].getMessage().startswith("built the lexicon in ")
    env = dict(os.environ, PHENORULES_CACHE=str(tmp_path / "cli"))
    command = [sys.executable, "-m", "phenorules", "annotate", "-", "--hpo", MINI_OBO]
    first = subprocess.run(command, input="Cleft palate.", capture_output=True, text=True, env=env, check=True)
    assert first.stderr.startswith(f"phenorules: building the lexicon from {MINI_OBO} (cached for later runs)\n")
    again = subprocess.run(command, input="Cleft palate.", capture_output=True, text=True, env=env, check=True)
    assert again.stderr == "" and again.stdout == first.stdout
    quiet = subprocess.run([*command, "-q"], input="Cleft palate.", capture_output=True, text=True, env=dict(env, PHENORULES_CACHE=str(tmp_path / "q")), check=True)
    assert quiet.stderr == ""


def _dead_pid() -> int:
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_misspelt_match_settings_are_refused():
    with pytest.raises(ValueError, match=r"unknown variant_rules \['numbr'\]"):
        build_pipeline(hpo=MINI_OBO, kb={"variant_rules": ["numbr"], "use_cache": False})
    with pytest.raises(ValueError, match=r"unknown synonym_scopes \['EXACt'\]"):
        build_pipeline(hpo=MINI_OBO, kb={"synonym_scopes": ["EXACt"], "use_cache": False})


def test_the_cache_key_follows_lexicon_files_outside_the_lexicon_dir(tmp_path):
    from dataclasses import replace

    from phenorules.kb.lexicon import LexiconConfig
    from phenorules.kb.resources import data_dir, resources_key

    extra = tmp_path / "mine.tsv"
    extra.write_text("small head\tHP:0000252\n")
    config = replace(LexiconConfig(), extra_files=LexiconConfig().extra_files + (str(extra),))
    before = resources_key(MINI_OBO, data_dir("lexicons"), config)
    extra.write_text("tiny head\tHP:0000252\n")
    assert resources_key(MINI_OBO, data_dir("lexicons"), config) != before


def test_an_article_made_in_code_is_refused_naming_its_passage(mini_nlp):
    broken = Article("X", (Passage(0, "a"), Passage(500_000, "b")))
    with pytest.raises(InputError, match=r"^article X: passages\[1\]\.offset: 500000 leaves 499,999 characters of gaps"):
        make_article_doc(mini_nlp, broken)


def test_every_stage_module_is_a_row_of_the_stage_table_and_runs_in_its_order():
    from pathlib import Path

    from phenorules import stages
    from phenorules.stages.pipeline import STAGES

    # the folder's other modules: the knowledge base function, the pipeline builder, the
    # profiles, the assertion stage on another component's spans, the coordination stage's
    # parts (its numbers, its distributed lists, the compound mention it and predicative make)
    helpers = {"__init__", "knowledge", "pipeline", "profiles", "context", "ordinals", "coordinated_lists", "compounds"}
    modules = {path.stem for path in Path(stages.__file__).parent.glob("*.py")} - helpers
    assert {name for name, _ in STAGES} == modules
    assert [name for name, _ in STAGES] == [name for name, _ in stages.STAGE_ROWS]
    # the general profile enables the predicative stage and switches scope off; measurements stays optional
    expected = [name for name, _ in stages.STAGE_ROWS if name not in ("measurements", "scope")] + ["phenorules"]
    assert build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, enable=["nested"]).pipe_names == expected


def test_a_stage_row_with_an_unknown_switch_is_refused(tmp_path, monkeypatch):
    from phenorules import stages

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "stages.tsv").write_text("sentences\trequired\nmatch\tsometimes\n")
    monkeypatch.setattr(stages, "data_file", lambda folder, name, given=None: tmp_path / folder / name)
    with pytest.raises(SettingError, match=r"stages.tsv:2: switch 'sometimes'"):
        stages.read_stage_rows()
