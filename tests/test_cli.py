"""The command line: every failure is one line and exit code 2; output is the same bytes
whatever the hash seed; progress shows on a terminal only."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.run.progress import progress

from conftest import FIXTURES, MINI_OBO

ROOT = Path(__file__).parent.parent
EXAMPLE = str(ROOT / "examples" / "example_article.jsonl")
BIOC = str(FIXTURES / "bioc_article.json")


def run(*args):
    return CliRunner().invoke(main, [*args, "--hpo", MINI_OBO])


def assert_error(result, message):
    """One line on stderr that starts like every phenorules error, and exit code 2."""
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("phenorules: error: "), result.output
    assert message in lines[0], lines[0]


# --- errors ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["predict", "annotate"])
def test_missing_input_file(tmp_path, command):
    assert_error(run(command, str(tmp_path / "nope.jsonl")), f"{tmp_path / 'nope.jsonl'}: no such file")


def test_malformed_jsonl_names_the_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(Path(EXAMPLE).read_text(encoding="utf-8") + '{"pmc_id": "X2" "full_text": []}\n', encoding="utf-8")
    assert_error(run("predict", str(path)), f"{path}, line 2: malformed JSON at column 17: Expecting ',' delimiter")


def test_malformed_bioc_names_the_line(tmp_path):
    path = tmp_path / "in.json"
    lines = Path(BIOC).read_text(encoding="utf-8").splitlines()
    lines[11] = lines[11].rstrip(",")
    path.write_text("\n".join(lines), encoding="utf-8")
    assert_error(run("annotate", str(path)), f"{path}, line 13: malformed JSON at column 5: Expecting ',' delimiter")


def test_an_unknown_stage_is_a_user_error():
    assert_error(run("predict", EXAMPLE, "-o", "-", "--disable", "negatoin"), "unknown stage(s) ['negatoin']")


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("abbreviations.later_uses=true", "stage abbreviations has no setting 'later_uses'; its settings are ['bare_uses', 'defined_uses', 'guards_file', 'lexicon_file']"),
        ("abbreviations.bare_uses=3", 'abbreviations.bare_uses: expected a str like "bracketed", got 3'),
        ("assertion.window=true", "assertion.window: expected a int or null, got true"),
        ("coordination.min_list_items=true", "coordination.min_list_items: expected a int like 3, got true"),
        ("bare_uses=all", "--set 'bare_uses=all': expected STAGE.SETTING=VALUE"),
        ("abbreviatons.bare_uses=all", "unknown stage(s) ['abbreviatons']"),
    ],
)
@pytest.mark.parametrize("command", ["predict", "cv"])
def test_a_wrong_stage_setting_is_a_user_error(command, assignment, message):
    assert_error(run(command, EXAMPLE, "--set", assignment), message)


def test_a_setting_value_the_stage_refuses_is_a_user_error():
    message = "abbreviations: bare_uses must be one of ['bracketed', 'notes', 'unnamed', 'all'], not 'sometimes'"
    assert_error(run("predict", EXAMPLE, "--set", "abbreviations.bare_uses=sometimes"), message)


def test_set_changes_a_stage_setting():
    text = "History of VSD.\n"
    notes = CliRunner().invoke(main, ["annotate", "-", "--json", "--hpo", MINI_OBO], input=text)  # the general profile: bare_uses notes
    bracketed = CliRunner().invoke(main, ["annotate", "-", "--json", "--hpo", MINI_OBO, "--set", "abbreviations.bare_uses=bracketed"], input=text)
    assert bracketed.exit_code == notes.exit_code == 0, bracketed.output + notes.output
    assert json.loads(bracketed.output) == []
    assert [(row["text"], row["hpo_id"]) for row in json.loads(notes.output)] == [("VSD", "HP:0001629")]


def test_a_value_error_from_a_bug_is_no_user_error(monkeypatch):
    import phenorules.formats.inputs

    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(phenorules.formats.inputs, "read_input_format", broken)
    result = run("annotate", EXAMPLE)
    assert result.exit_code == 1 and isinstance(result.exception, ValueError), result.output


def test_an_ontology_that_is_not_obo(tmp_path):
    not_obo = tmp_path / "hp.json"
    not_obo.write_text('{"graphs": []}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["predict", EXAMPLE, "--hpo", str(not_obo)])
    assert_error(result, f"{not_obo}: not an OBO file")


def test_an_output_directory_that_does_not_exist(tmp_path):
    output = tmp_path / "no-such-dir" / "pred.jsonl"
    assert_error(run("predict", EXAMPLE, "-o", str(output)), f"{output}: cannot write the predictions: no such directory")


def test_an_html_path_that_is_a_directory(tmp_path):
    assert_error(run("annotate", EXAMPLE, "--html", str(tmp_path)), f"{tmp_path}: cannot write the HTML view: is a directory")


def test_the_output_path_is_checked_before_the_input_is_read(tmp_path):
    output = tmp_path / "no-such-dir" / "view.html"
    assert_error(run("annotate", str(tmp_path / "nope.txt"), "--html", str(output)), "cannot write the HTML view")


# --- inputs and outputs ------------------------------------------------------------


def test_annotate_reads_bioc_and_lists_mentions_as_json():
    result = run("annotate", BIOC, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {row["article"] for row in rows} == {"9900001"}
    assert ("atrial septal defect", "HP:0001631") in [(row["text"], row["hpo_id"]) for row in rows]


def test_predict_reads_plain_text_from_stdin():
    result = CliRunner().invoke(main, ["predict", "-", "--hpo", MINI_OBO], input="She had a cleft palate.\n")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["pmc_id"] == "stdin"
    assert [(e["text"], e["offset"]) for e in record["entities"]] == [("cleft palate", 10)]


def test_format_option_overrides_detection(tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"a cleft palate": 1}', encoding="utf-8")
    result = run("annotate", str(path), "--format", "text", "--json")
    assert result.exit_code == 0, result.output
    assert [row["text"] for row in json.loads(result.output)] == ["cleft palate"]


def test_annotate_writes_the_html_view(tmp_path):
    output = tmp_path / "view.html"
    result = run("annotate", EXAMPLE, "--html", str(output), "--quiet")
    assert result.exit_code == 0 and result.output == ""
    html = output.read_text(encoding="utf-8")
    assert '<a href="#article-1">EXAMPLE1</a>' in html and 'href="https://hpo.jax.org/browse/term/HP:0410030"' in html


# --- progress ----------------------------------------------------------------------


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    result = run("predict", EXAMPLE, "-o", str(tmp_path / "pred.jsonl"))
    assert result.exit_code == 0 and result.output == ""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_shows_count_and_rate(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress(iter("abc"), total=3)) == ["a", "b", "c"]
    shown = terminal.getvalue()
    assert "3/3" in shown and "articles/s" in shown


def test_quiet_silences_progress_on_a_terminal(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress(iter("abc"), total=3, quiet=True)) == ["a", "b", "c"]
    assert terminal.getvalue() == ""


# --- determinism -------------------------------------------------------------------

OUTPUTS_SCRIPT = """
import sys
from phenorules.cli import main
out, hpo, example = sys.argv[1:]
for args in (["predict", example, "-o", out + "/pred.jsonl"], ["annotate", example, "--html", out + "/view.html"]):
    main([*args, "--hpo", hpo, "--quiet"], standalone_mode=False)
"""


def outputs_with_hash_seed(tmp_path, seed):
    """predict and annotate --html in a fresh interpreter with its own cache."""
    out = tmp_path / f"seed-{seed}"
    out.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PHENORULES_CACHE": str(out / "cache"), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", OUTPUTS_SCRIPT, str(out), MINI_OBO, EXAMPLE], env=env, check=True, cwd=tmp_path)
    return (out / "pred.jsonl").read_bytes(), (out / "view.html").read_bytes()


def test_the_same_input_gives_the_same_bytes_whatever_the_hash_seed(tmp_path):
    first, second = outputs_with_hash_seed(tmp_path, 1), outputs_with_hash_seed(tmp_path, 4242)
    assert first == second
    assert b'"identifier": "HP:0410030"' in first[0] and b"HP:0410030" in first[1]


def test_info_names_the_release_the_index_sizes_and_the_stages():
    result = run("info")
    assert result.exit_code == 0, result.output
    lines = dict(line.split(":", 1) for line in result.output.splitlines() if ":" in line)
    assert lines["release"].strip() == "hp/releases/test-mini"
    assert int(lines["lexicon"].split()[0]) > 0 and int(lines["word sets"].split()[0]) > 0
    assert lines["stages"].split(" -> ")[1:3] == ["match", "word_order"]


def test_annotate_and_predict_help_name_bioc_xml_which_they_read():
    for command in ("annotate", "predict"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert "BioC JSON or XML" in " ".join(result.output.split()), command


# Runs every command's --help in one fresh interpreter and prints what each left imported.
HELP_IMPORTS = """
import json, sys
import click
from phenorules.cli import main

def commands(group, path):
    for name, command in sorted(group.commands.items()):
        yield [*path, name]
        if isinstance(command, click.Group):
            yield from commands(command, [*path, name])

heavy = ("spacy", "numpy", "srsly", "zstandard", "phenorules.formats.registry", "phenorules.stages.pipeline")
found = {}
for path in [[], *commands(main, [])]:
    try:
        main([*path, "--help"], prog_name="phenorules", standalone_mode=False)
    except SystemExit:
        pass
    found[" ".join(path)] = [module for module in heavy if module in sys.modules]
print(json.dumps(found))
"""


def test_help_imports_neither_spacy_nor_the_formats_nor_the_pipeline():
    """--help of every command answers at once: nothing imports spaCy, numpy, the cache's
    libraries, the format registry or the pipeline to print it (the formats' names come
    from the command line's list)."""
    done = subprocess.run([sys.executable, "-c", HELP_IMPORTS], capture_output=True, text=True, cwd=ROOT, check=True)
    found = json.loads(done.stdout.splitlines()[-1])
    assert {"", "annotate", "predict", "serve", "info", "jnlpba evaluate"} <= set(found)
    assert {command: modules for command, modules in found.items() if modules} == {}


def test_help_lists_the_built_in_formats_the_registry_has():
    from phenorules.formats import registry
    from phenorules.cli import BUILT_IN_READERS, BUILT_IN_WRITERS

    assert list(BUILT_IN_READERS) == registry.readers() and list(BUILT_IN_WRITERS) == registry.writers()
    help_text = " ".join(CliRunner().invoke(main, ["predict", "--help"]).output.split())
    assert f"--to [{'|'.join(BUILT_IN_WRITERS)}]" in help_text and f"--from [auto|{'|'.join(BUILT_IN_READERS)}]" in help_text
