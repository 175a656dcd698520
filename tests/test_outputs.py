"""The output writer's contract, one test per way a file was lost, overwritten or misreported
(and the start-up and nesting tracebacks): nothing a command reads or wrote before is
destroyed, every refusal is one line naming the files, exit code 2."""

import gzip
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main

from conftest import FIXTURES, MINI_OBO

ANNOTATED = FIXTURES / "patientphex_annotated.jsonl"
ROOT = Path(__file__).parent.parent


@pytest.fixture(autouse=True)
def _built_lexicon(_isolated_cache):
    """The lexicon cache built before each command: a cold build's log lines on stderr
    would come before the one line these tests compare."""
    from phenorules.kb.resources import load_knowledge_base

    load_knowledge_base(MINI_OBO)


def run(*args):
    return CliRunner().invoke(main, [*args, "--hpo", MINI_OBO])


def assert_refused(result, message):
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("phenorules: error: "), result.stderr
    assert message in lines[0], lines[0]


def article(pmc_id, pmid=None, patients=(), text="The girl had seizures and microcephaly."):
    given = [{"patient_id": patient, "mention": []} for patient in patients]
    return {"pmc_id": pmc_id, "pmid": pmid, "patient": given, "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": text}]}


def jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --- files lost or overwritten ----------------------------------------------------------


@pytest.mark.parametrize("link", ["copy", "hardlink"])
def test_an_input_that_is_the_outputs_partial_is_not_destroyed(tmp_path, link):
    out = tmp_path / "res.jsonl"
    partial = tmp_path / "res.jsonl.partial"
    if link == "copy":
        partial.write_bytes(ANNOTATED.read_bytes())
        source = partial
    else:
        source = tmp_path / "train.jsonl"
        source.write_bytes(ANNOTATED.read_bytes())
        os.link(source, partial)
    assert_refused(run("predict", str(source), "-o", str(out)), "the temporary file of the predictions would overwrite the input")
    assert source.read_bytes() == ANNOTATED.read_bytes() and not out.exists()


def test_learn_refuses_to_overwrite_its_training_file(tmp_path):
    train = tmp_path / "X.jsonl"
    train.write_bytes(ANNOTATED.read_bytes())
    assert_refused(run("learn", str(train), "-o", str(train)), f"{train}: the learned lexicon would overwrite the input {train}")
    assert train.read_bytes() == ANNOTATED.read_bytes()
    blocklist = tmp_path / "b.tsv"
    assert_refused(run("learn", str(train), "-o", str(tmp_path / "l.tsv"), "--blocklist", str(train)), "the learned blocklist would overwrite the input")
    assert train.read_bytes() == ANNOTATED.read_bytes() and not blocklist.exists()


def test_resume_keeps_the_partial_when_one_of_its_lines_is_corrupt(tmp_path):
    out = tmp_path / "pred.jsonl"
    assert run("predict", str(ANNOTATED), "-o", str(out), "-q").exit_code == 0
    good = out.read_bytes().splitlines(keepends=True)[0]
    out.unlink()
    partial = tmp_path / "pred.jsonl.partial"
    partial.write_bytes(good + b"{not json\n")
    assert_refused(run("predict", str(ANNOTATED), "-o", str(out), "--resume"), f"{partial}, line 2: not a phenorules output line; cannot resume from it")
    assert partial.read_bytes() == good + b"{not json\n" and not out.exists()


def test_a_planted_partial_symlink_is_never_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "OUT"
    (tmp_path / "OUT.partial").symlink_to(victim)
    for resume in ((), ("--resume",)):
        assert_refused(run("predict", str(ANNOTATED), "-o", str(out), *resume), "OUT.partial: is a symbolic link, not a file phenorules left")
        assert victim.read_text() == "precious\n" and not out.exists() and (tmp_path / "OUT.partial").is_symlink()


def test_a_planted_partial_hard_link_is_replaced_not_written_into(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "OUT"
    os.link(victim, tmp_path / "OUT.partial")
    assert run("predict", str(ANNOTATED), "-o", str(out), "-q").exit_code == 0
    assert victim.read_text() == "precious\n" and victim.stat().st_nlink == 1
    assert [json.loads(line)["pmc_id"] for line in out.read_text().splitlines()] == ["9000001", "9000002"]
    os.link(victim, tmp_path / "OUT.partial")
    assert_refused(run("predict", str(ANNOTATED), "-o", str(out), "--resume"), "OUT.partial, line 1: not a phenorules output line")
    assert victim.read_text() == "precious\n" and victim.stat().st_nlink == 2


def test_phenopackets_of_articles_sharing_a_pmid_are_refused_naming_both(tmp_path):
    pytest.importorskip("phenopackets")
    source = jsonl(tmp_path / "in.jsonl", article("A1", "123", ["P1"]), article("A2", "123", ["P1"]))
    directory = tmp_path / "pp"
    result = run("predict", str(source), "-o", str(tmp_path / "out.jsonl"), "--phenopackets", str(directory))
    assert_refused(result, "PMID_123_P1.json: the Phenopacket PMID_123_P1 of article A2 and the Phenopacket PMID_123_P1 of article A1 would be written to the same file")


def test_phenopackets_of_patients_whose_ids_give_one_file_name_are_refused_before_any_is_written(tmp_path):
    pytest.importorskip("phenopackets")
    predictions = jsonl(
        tmp_path / "pred.jsonl",
        *[{"pmc_id": "A1", "pmid": "9", "entities": [], "association": [{"patient_id": patient, "phenotype": []} for patient in ("P/1", "P 1", "P_1")]}],
    )
    directory = tmp_path / "pp"
    result = run("phenopackets", str(predictions), "-o", str(directory))
    assert_refused(result, "PMID_9_P_1.json: the Phenopacket PMID_9_P 1 of article A1 and the Phenopacket PMID_9_P/1 of article A1 would be written to the same file")
    assert list(directory.iterdir()) == []


def test_an_input_named_like_a_killed_runs_temporary_file_is_not_removed(tmp_path):
    source = tmp_path / ".view.html.99999999.abc.tmp"  # the pattern of a dead writer's temporary file of view.html
    source.write_text("The girl had seizures.\n")
    result = run("annotate", str(source), "--html", str(tmp_path / "view.html"), "-q")
    assert result.exit_code == 0, result.output
    assert source.read_text() == "The girl had seizures.\n" and (tmp_path / "view.html").exists()


def test_an_output_may_not_be_another_outputs_partial(tmp_path):
    out = tmp_path / "pred.jsonl"
    result = run("predict", str(ANNOTATED), "-o", str(out), "--explain", str(tmp_path / "pred.jsonl.partial"))
    assert_refused(result, "the evidence and the temporary file of the predictions would be written to the same file")


# --- tracebacks -------------------------------------------------------------------------

INTERRUPTED_AT_IMPORT = """
import importlib.abc, os, runpy, signal, sys

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "click":  # imported while the command starts up
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["phenorules", "info"]
runpy.run_module("phenorules", run_name="__main__")
"""


def test_ctrl_c_while_the_command_starts_up_is_one_line_and_exit_130():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_AT_IMPORT], capture_output=True, text=True, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (130, "phenorules: interrupted\n")


def test_the_console_script_is_the_entry_point_that_handles_ctrl_c():
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert "phenorules = phenorules.__main__:run" in config["options.entry_points"]["console_scripts"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_deeply_nested_evidence_and_settings_are_one_line(tmp_path):
    pytest.importorskip("phenopackets")
    predictions = jsonl(tmp_path / "pred.jsonl", {"pmc_id": "A1", "pmid": None, "entities": [], "association": []})
    evidence = tmp_path / "why.jsonl"
    evidence.write_text("[" * 100_000 + "\n")
    result = run("phenopackets", str(predictions), "--evidence", str(evidence), "-o", str(tmp_path / "pp"))
    assert_refused(result, f"{evidence}, line 1: malformed JSON: nested too deeply")
    result = run("predict", str(ANNOTATED), "--set", "abbreviations.bare_uses=" + "[" * 100_000)
    assert_refused(result, "--set abbreviations.bare_uses: VALUE is JSON nested too deeply")


# --- smaller items ----------------------------------------------------------------------


def test_a_pmc_id_in_two_files_of_a_directory_is_refused(tmp_path):
    directory = tmp_path / "corpus"
    directory.mkdir()
    jsonl(directory / "a.jsonl", article("A1"))
    jsonl(directory / "b.jsonl", article("A2"), article("A1"))
    out = tmp_path / "out.jsonl"
    assert_refused(run("predict", str(directory), "-o", str(out)), f"{directory / 'b.jsonl'}, line 2, article A1: pmc_id: duplicate of {directory / 'a.jsonl'}, line 1")
    assert not out.exists() and not (tmp_path / "out.jsonl.partial").exists()


def test_evaluate_warns_when_a_predicted_text_is_not_the_gold_text_at_its_offset(tmp_path):
    out = tmp_path / "pred.jsonl"
    assert run("predict", str(ANNOTATED), "-o", str(out), "-q").exit_code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    entity = records[0]["entities"][0]
    entity["text"] = "x" + entity["text"][1:]
    jsonl(out, *records)
    result = CliRunner().invoke(main, ["evaluate", str(ANNOTATED), str(out)])
    assert result.exit_code == 0
    assert f"phenorules: warning: {out}, article 9000001: 1 predicted mentions whose text is not the gold text at their offset" in result.stderr


def test_an_empty_jsonl_input_warns(tmp_path):
    source = tmp_path / "empty.jsonl"
    source.write_text("\n")
    result = run("predict", str(source), "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 0 and result.stderr == f"phenorules: warning: {source}: empty: no article to read\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_output_device_is_named_not_stdout():
    done = subprocess.run([sys.executable, "-m", "phenorules", "predict", str(ANNOTATED), "-o", "/dev/full", "-q", "--hpo", MINI_OBO], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (2, "phenorules: error: /dev/full: cannot write the predictions: No space left on device\n")


def test_a_resumed_gzip_output_is_the_bytes_of_a_whole_run(tmp_path):
    whole, plain, resumed = tmp_path / "whole.jsonl.gz", tmp_path / "plain.jsonl", tmp_path / "resumed.jsonl.gz"
    for out in (whole, plain):
        assert run("predict", str(ANNOTATED), "-o", str(out), "-q").exit_code == 0
    first = plain.read_bytes().splitlines(keepends=True)[0]
    Path(f"{resumed}.partial").write_bytes(gzip.compress(first + b'{"pmc_id": "9000002", "ent'))  # a killed run's cut stream
    assert run("predict", str(ANNOTATED), "-o", str(resumed), "--resume", "-q").exit_code == 0
    assert resumed.read_bytes() == whole.read_bytes()
    assert gzip.decompress(whole.read_bytes()) == plain.read_bytes()


# --- modes: an output is as private as the file it replaces, or as the umask says -----------

PREVIOUS = b"previous output\n"
ABSTRACT = {"pmc_id": "A1", "pmid": "11", "patient": [{"patient_id": "P1", "mention": []}], "full_text": [
    {"section_type": "TITLE", "type": "front", "offset": 0, "text": "Seizures."},
    {"section_type": "ABSTRACT", "type": "abstract", "offset": 10, "text": "A girl had ataxia and no hypotonia."},
]}
# (options, the files they write, relative to the test's directory): every way the writer writes
ROUTES = {
    "predictions through OUT.partial": (["predict", "{in}", "-o", "out.jsonl"], ["out.jsonl"]),
    "gzipped predictions": (["predict", "{in}", "-o", "out.jsonl.gz", "--explain", "why.jsonl"], ["out.jsonl.gz", "why.jsonl"]),
    "BioC and evidence": (["predict", "{in}", "--to", "bioc", "-o", "out.json", "--explain", "why.jsonl.gz"], ["out.json", "why.jsonl.gz"]),
    "gzipped DocBin": (["predict", "{in}", "--to", "docbin", "-o", "out.spacy.gz"], ["out.spacy.gz"]),
    "Phenopackets": (["predict", "{in}", "-o", "out.jsonl", "--phenopackets", "pp"], ["out.jsonl", "pp/PMID_11_P1.json"]),
    "HTML view": (["annotate", "{in}", "--html", "view.html"], ["view.html"]),
}


def run_route(tmp_path, route):
    source = jsonl(tmp_path / "in.jsonl", ABSTRACT)
    options, files = ROUTES[route]
    (tmp_path / "pp").mkdir(exist_ok=True)
    result = CliRunner().invoke(main, [option.format(**{"in": source}) for option in options] + ["--hpo", MINI_OBO, "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [tmp_path / name for name in files]


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("route", ROUTES)
def test_a_replaced_output_keeps_its_mode(tmp_path, monkeypatch, route):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pp").mkdir()
    for name in ROUTES[route][1]:
        (tmp_path / name).write_bytes(PREVIOUS)
        (tmp_path / name).chmod(0o600 if name != "why.jsonl" else 0o640)
    for path in run_route(tmp_path, route):
        assert path.read_bytes() != PREVIOUS and mode(path) == (0o600 if path.name != "why.jsonl" else 0o640), path


@pytest.mark.parametrize("umask, expected", [(0o077, 0o600), (0o022, 0o644), (0o027, 0o640)])
@pytest.mark.parametrize("route", ROUTES)
def test_a_new_output_has_the_mode_the_umask_gives(tmp_path, monkeypatch, route, umask, expected):
    monkeypatch.chdir(tmp_path)
    previous = os.umask(umask)
    try:
        paths = run_route(tmp_path, route)
    finally:
        os.umask(previous)
    assert [mode(path) for path in paths] == [expected] * len(paths)


@pytest.mark.parametrize("umask, replaced, expected", [(0o022, None, 0o644), (0o077, None, 0o600), (0o022, 0o600, 0o600)])
def test_a_partial_left_by_a_stopped_run_has_the_mode_of_the_output_it_becomes(tmp_path, umask, replaced, expected):
    from phenorules.core.outputs import OutputFiles
    from phenorules.core.partial import PartialOutput

    out = tmp_path / "out.jsonl"
    if replaced is not None:
        out.write_bytes(PREVIOUS)
        out.chmod(replaced)
    previous = os.umask(umask)
    try:
        lines = PartialOutput(OutputFiles(), str(out), "predictions")
        lines.start(0)
        lines.write("A1", '{"pmc_id": "A1"}\n')
        lines.close()  # as an interrupted run leaves it
    finally:
        os.umask(previous)
    assert mode(tmp_path / "out.jsonl.partial") == expected


# --- gzip: OUT.gz is the plain output compressed, the same bytes every run --------------------


@pytest.mark.parametrize("options", [["--to", "jsonl"], ["--to", "bioc"], ["--to", "bioc-xml"], ["--to", "pubtator"], ["--to", "docbin"], ["--phenopackets", "pp"]])
def test_a_gz_output_of_every_format_is_its_plain_output_compressed_the_same_every_run(tmp_path, options):
    pytest.importorskip("bioc")
    source = jsonl(tmp_path / "in.jsonl", ABSTRACT)
    outputs = {}
    for name in ("plain", "first.gz", "second.gz"):
        (tmp_path / "pp").mkdir(exist_ok=True)
        out, why = tmp_path / f"out.{name}", tmp_path / f"why.{name}"
        result = run("predict", str(source), "-o", str(out), "--explain", str(why), *[str(tmp_path / o) if o == "pp" else o for o in options], "-q")
        assert result.exit_code == 0, result.output
        outputs[name] = (out.read_bytes(), why.read_bytes())
    plain, first, second = outputs["plain"], outputs["first.gz"], outputs["second.gz"]
    assert first == second and [gzip.decompress(data) for data in first] == list(plain)
    for data in first:  # no time (bytes 4-8) and no file name (flag 0x08) in the header
        assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0" and not data[3] & 0x08


# --- directories: no file output is, or lies in, the Phenopackets directory ---------------------


@pytest.fixture
def no_work(monkeypatch):
    """The pipeline never built: a refusal comes before any work."""
    from phenorules.options import PipelineSettings

    monkeypatch.setattr(PipelineSettings, "build", lambda *_: pytest.fail("the work started"))


INTO = "would be written into pp, the directory of the Phenopackets"


@pytest.mark.parametrize("made", [False, True])
@pytest.mark.parametrize(
    "options, when_missing, when_made",
    [
        (["-o", "out.jsonl", "--explain", "pp"], f"pp: the evidence {INTO}", "pp: cannot write the evidence: is a directory"),
        (["-o", "pp"], f"pp: the predictions {INTO}", "pp: cannot write the predictions: is a directory"),
        (["-o", "pp/out.jsonl"], "pp/out.jsonl: cannot write the predictions: no such directory", f"pp/out.jsonl: the predictions {INTO}"),
        (["--to", "bioc", "-o", "x.json", "--explain", "pp/deeper/../e.jsonl"], "pp/deeper/../e.jsonl: cannot write the evidence: no such", f"pp/deeper/../e.jsonl: the evidence {INTO}"),
        (["-o", "link/out.jsonl"], "link/out.jsonl: cannot write the predictions: no such directory", f"link/out.jsonl: the predictions {INTO}"),
    ],
)
def test_an_output_in_the_phenopackets_directory_is_refused_before_the_work_naming_both(tmp_path, monkeypatch, no_work, options, when_missing, when_made, made):
    pytest.importorskip("phenopackets")
    monkeypatch.chdir(tmp_path)
    source = jsonl(tmp_path / "in.jsonl", ABSTRACT)
    if made:
        (tmp_path / "pp" / "deeper").mkdir(parents=True)
    (tmp_path / "link").symlink_to("pp")
    assert_refused(run("predict", str(source), *options, "--phenopackets", "pp"), when_made if made else when_missing)
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl", "link"] + (["pp"] if made else [])
    assert not made or os.listdir(tmp_path / "pp") == ["deeper"]


@pytest.mark.parametrize("output", ["out/", "new/.", "..", "out/.."])
def test_a_file_output_that_names_a_directory_is_refused_before_the_work(tmp_path, monkeypatch, no_work, output):
    monkeypatch.chdir(tmp_path)
    source = jsonl(tmp_path / "in.jsonl", ABSTRACT)
    for options in (["-o", output], ["-o", "out.jsonl", "--explain", output], ["--to", "bioc", "-o", output]):
        result = run("predict", str(source), *options)
        assert_refused(result, f"{output}: cannot write the ")
        assert os.listdir(tmp_path) == ["in.jsonl"]
