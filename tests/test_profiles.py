"""Profiles: annotation conventions as named stage settings, chosen by --profile (auto: by the
input's format) or the spaCy component's profile key."""

import json

import pytest
import spacy
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.component import add_pipes
from phenorules.core.errors import InputError, SettingError
from phenorules.stages.profiles import apply_profile, read_profiles
from phenorules.stages.pipeline import stage_plan

from conftest import MINI_OBO

TEXT = "Developmental delay (DD) was noted. DD was evident by 9 months."


def run(*args, input=None):
    return CliRunner().invoke(main, [*args, "--hpo", MINI_OBO], input=input)


def test_a_profile_switches_stages_and_sets_settings():
    general = {name: config for name, _, config in stage_plan(profile="general")}
    patientphex = {name: config for name, _, config in stage_plan(profile="patientphex")}
    assert "scope" in patientphex and "scope" not in general
    assert (general["abbreviations"]["defined_uses"], patientphex["abbreviations"]["defined_uses"]) == (True, False)


def test_options_given_with_a_profile_override_its_rows():
    disabled, enabled, settings = apply_profile("general", disable=["nested"], enable=["scope"], stage_config={"abbreviations": {"defined_uses": False}})
    assert "scope" in enabled and "scope" not in disabled and "nested" in disabled
    assert settings["abbreviations"] == {"bare_uses": "notes", "defined_uses": False}
    assert "scope" in [name for name, _, _ in stage_plan(enable=["scope"], profile="general")]


def test_an_unknown_profile_is_a_setting_error():
    with pytest.raises(SettingError, match=r"unknown profile 'gsc'; profiles are \['general', 'patientphex'\]"):
        stage_plan(profile="gsc")


def test_a_profile_file_row_that_is_neither_on_nor_off_names_its_line(tmp_path):
    path = tmp_path / "profiles.tsv"
    path.write_text("# profile\tswitch\tvalue\nmine\tscope\toff\nmine\tnested\tyes\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"profiles.tsv:3: stage 'nested': expected on or off, not 'yes'"):
        read_profiles(path)
    path.write_text("mine\tscope\toff\nmine\tabbreviations.bare_uses\tall\n", encoding="utf-8")
    (mine,) = read_profiles(path).values()
    assert (mine.switches, mine.settings, [ref.line for ref in mine.rows]) == ({"scope": False}, {"abbreviations": {"bare_uses": "all"}}, [1, 2])


def test_the_spacy_component_has_a_profile_key():
    for profile, uses in (("general", 2), ("patientphex", 1)):
        nlp = spacy.blank("en")
        add_pipes(nlp, hpo=MINI_OBO, kb={"use_cache": False}, profile=profile)
        assert nlp.get_pipe_config("phenorules")["profile"] == profile
        assert [ent.text for ent in nlp(TEXT).ents].count("DD") == uses


def short_forms(output):
    return [row["text"] for row in json.loads(output) if row["text"] == "DD"]


def test_auto_gives_text_the_general_profile_and_patientphex_jsonl_its_own(tmp_path):
    assert short_forms(run("annotate", "-", "--json", input=TEXT).output) == ["DD", "DD"]
    assert short_forms(run("annotate", "-", "--json", "--profile", "patientphex", input=TEXT).output) == ["DD"]
    article = {"pmc_id": "1", "pmid": None, "patient": [], "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": TEXT}]}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(article) + "\n", encoding="utf-8")
    assert short_forms(run("annotate", str(path), "--json").output) == ["DD"]
    assert short_forms(run("annotate", str(path), "--json", "--profile", "general").output) == ["DD", "DD"]
    predicted = json.loads(run("predict", str(path)).output)
    assert [entity["text"] for entity in predicted["entities"]].count("DD") == 1


def test_auto_gives_each_file_of_a_corpus_the_profile_of_its_format(tmp_path):
    article = {"pmc_id": "1", "pmid": None, "patient": [], "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": TEXT}]}
    (tmp_path / "a.jsonl").write_text(json.dumps(article) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(TEXT, encoding="utf-8")
    for jobs in ("1", "2"):
        records = [json.loads(line) for line in run("predict", str(tmp_path), "--jobs", jobs).output.splitlines()]
        assert [(record["pmc_id"], [entity["text"] for entity in record["entities"]].count("DD")) for record in records] == [("1", 1), ("b", 2)]


def test_a_patientphex_article_listing_no_patient_gets_no_proband(tmp_path):
    """PatientPheX's association holds the given patients only; a text's subject is its proband."""
    article = {"pmc_id": "1", "pmid": None, "patient": [], "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": TEXT}]}
    (tmp_path / "a.jsonl").write_text(json.dumps(article) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(TEXT, encoding="utf-8")
    records = {record["pmc_id"]: record for record in map(json.loads, run("predict", str(tmp_path)).output.splitlines())}
    assert records["1"]["association"] == []
    assert [a["patient_id"] for a in records["b"]["association"]] == ["proband"]
    as_general = json.loads(run("predict", str(tmp_path / "a.jsonl"), "--profile", "general").output)
    assert [a["patient_id"] for a in as_general["association"]] == ["proband"]


def test_info_lists_the_profiles():
    output = run("info").output
    assert "  patientphex: scope on, nested off, names off, predicative off, growth off, abbreviations.bare_uses=\"bracketed\", abbreviations.defined_uses=false" in output
    assert "  general: scope off" in output


def test_an_unknown_profile_on_the_command_line_is_one_line_and_exit_2():
    result = run("annotate", "-", "--profile", "gsc", input=TEXT)
    assert result.exit_code == 2 and result.output == "phenorules: error: unknown profile 'gsc'; profiles are ['general', 'patientphex']\n"


def test_the_lexicon_learned_from_patientphex_annotations_is_that_profile_s_own(mini_nlp, general_nlp):
    from phenorules.core.document import PHENOTYPES, make_text_doc

    from phenorules.kb.knowledge_base import without_learned_files
    from phenorules.kb.lexicon import LexiconConfig

    general = {name: config for name, _, config in stage_plan(profile="general")}
    patientphex = {name: config for name, _, config in stage_plan(profile="patientphex")}
    assert general["match"]["kb"]["learned_files"] is False
    assert "learned_files" not in patientphex["match"]["kb"]  # the lexicon's defaults: learned files too
    curated = without_learned_files(LexiconConfig())
    assert (curated.extra_files, curated.blocklist_files) == (("extra_terms.tsv",), ("blocklist.tsv",))
    given = {name: config for name, _, config in stage_plan(profile="general", kb={"extra_files": ["mine.tsv"]})}
    assert (given["match"]["kb"]["extra_files"], given["match"]["kb"]["learned_files"]) == (["mine.tsv"], False)
    text = "Her psychomotor development was normal."  # lexicons/learned.tsv: Global developmental delay
    docs = [nlp(make_text_doc(nlp, text)) for nlp in (mini_nlp, general_nlp)]
    assert [[span.text for span in doc.spans[PHENOTYPES]] for doc in docs] == [["psychomotor development"], []]


def test_a_profile_row_naming_no_setting_of_the_knowledge_base_is_refused(tmp_path, monkeypatch):
    from phenorules.stages import profiles

    path = tmp_path / "profiles.tsv"
    path.write_text("mine\tkb.learned_lexicon\tfalse\n", encoding="utf-8")
    monkeypatch.setattr(profiles, "profiles", lambda path_=None: read_profiles(path))
    with pytest.raises(SettingError, match=r"profile mine \(profiles.tsv:1\): the knowledge base has no setting\(s\) \['learned_lexicon'\]"):
        stage_plan(profile="mine")
