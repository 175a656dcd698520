"""The input/output contract, one regression test per defect found by trying it as a hostile
user would: nothing lost (outputs, inputs, devices), nothing misread (formats, offsets,
Unicode), every refusal one line naming the place with exit code 2, never a traceback."""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main

from conftest import FIXTURES, MINI_OBO

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
ANNOTATED = FIXTURES / "patientphex_annotated.jsonl"


def run(*args, input=None):
    return CliRunner().invoke(main, [*args, "--hpo", MINI_OBO], input=input)


def cli(*args, **kwargs):
    """The installed command in a fresh process: what a shell would see."""
    return subprocess.run([sys.executable, "-m", "phenorules", *args, "--hpo", MINI_OBO], capture_output=True, **kwargs)


def assert_refused(result, message):
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("phenorules: error: "), result.stderr
    assert message in lines[0], lines[0]
    assert result.exception is None or isinstance(result.exception, SystemExit)


def article(pmc_id="A1", text="The girl had seizures and microcephaly.", **fields):
    return {"pmc_id": pmc_id, "pmid": None, "patient": [], "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": text}], **fields}


def jsonl(path, *records, raw_lines=()):
    path.write_text("".join(list(raw_lines) + [json.dumps(r) + "\n" for r in records]), encoding="utf-8")
    return path


# --- 1. -o never destroys what is at the path --------------------------------------


def test_output_through_a_symlink_to_stdout_writes_to_stdout(tmp_path):
    (tmp_path / "so").symlink_to("/dev/stdout")
    done = cli("predict", str(EXAMPLE), "-o", str(tmp_path / "so"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["pmc_id"]
    assert (tmp_path / "so").is_symlink()


def test_output_dash_is_stdout(tmp_path):
    done = cli("predict", str(EXAMPLE), "-o", "-")
    assert done.returncode == 0 and done.stdout.count(b"\n") == 1


def test_output_to_a_fifo_writes_through_and_keeps_the_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    done = cli("predict", str(EXAMPLE), "-o", str(fifo))
    out, _ = reader.communicate(timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(out)["pmc_id"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_output_to_a_process_substitution_works(tmp_path):
    target = tmp_path / "copied.jsonl"
    env = dict(os.environ)
    command = f'"{sys.executable}" -m phenorules predict "{EXAMPLE}" --hpo "{MINI_OBO}" -o >(cat > "{target}"); wait'
    done = subprocess.run(["bash", "-c", command], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    for _ in range(100):
        if target.exists() and target.stat().st_size:
            break
        time.sleep(0.05)
    assert json.loads(target.read_text(encoding="utf-8"))["pmc_id"]


def test_output_through_a_symlink_to_a_file_replaces_the_file_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old\n", encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(target)
    assert run("predict", str(EXAMPLE), "-o", str(tmp_path / "link.jsonl")).exit_code == 0
    assert (tmp_path / "link.jsonl").is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["pmc_id"]


def test_an_unwritable_special_output_is_refused_before_the_work(tmp_path, monkeypatch):
    from phenorules.options import PipelineSettings

    monkeypatch.setattr(PipelineSettings, "build", lambda *_: pytest.fail("the work started"))
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert_refused(run("predict", str(EXAMPLE), "-o", "/dev/null"), "/dev/null: cannot write the predictions: not writable")


# --- 2. an output never destroys the input or the other output ----------------------


def test_output_that_is_the_input_is_refused(tmp_path):
    path = jsonl(tmp_path / "in.jsonl", article())
    before = path.read_bytes()
    assert_refused(run("predict", str(path), "-o", str(path)), "the predictions would overwrite the input")
    (tmp_path / "link.jsonl").symlink_to(path)
    assert_refused(run("predict", str(path), "-o", str(tmp_path / "link.jsonl")), "would overwrite the input")
    os.link(path, tmp_path / "hard.jsonl")
    assert_refused(run("predict", str(path), "-o", str(tmp_path / "hard.jsonl")), "would overwrite the input")
    assert path.read_bytes() == before


def test_output_that_is_the_explain_file_is_refused(tmp_path):
    out = tmp_path / "o.jsonl"
    assert_refused(run("predict", str(EXAMPLE), "-o", str(out), "--explain", str(out)), "the evidence and the predictions would be written to the same file")
    out.write_text("previous\n", encoding="utf-8")
    (tmp_path / "e.jsonl").symlink_to(out)
    assert_refused(run("predict", str(EXAMPLE), "-o", str(out), "--explain", str(tmp_path / "e.jsonl")), "same file")
    assert out.read_text(encoding="utf-8") == "previous\n"


def test_html_view_that_is_the_input_is_refused(tmp_path):
    path = jsonl(tmp_path / "in.jsonl", article())
    assert_refused(run("annotate", str(path), "--html", str(path)), "would overwrite the input")


# --- 3. format detection never turns bad JSONL into text ----------------------------


@pytest.mark.parametrize("first", ["null", "[1,2]", '"x"', "42"])
def test_a_bad_first_jsonl_line_is_refused_not_read_as_text(tmp_path, first):
    path = jsonl(tmp_path / "in", article(), raw_lines=[first + "\n"])
    assert_refused(run("predict", str(path)), f"{path}, line 1: article: expected object")


@pytest.mark.parametrize("content", ["", "  \n\n", "\ufeff"])
def test_an_empty_input_is_no_article_with_a_warning(tmp_path, content):
    path = tmp_path / "empty"
    path.write_text(content, encoding="utf-8")
    result = run("predict", str(path))
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"phenorules: warning: {path}: empty: no article to read\n"


def test_dev_null_and_empty_stdin_are_no_article():
    for result in (run("predict", "/dev/null"), run("predict", "-", input="")):
        assert result.exit_code == 0 and result.stdout == "", result.output
        assert "no article" in result.stderr


def test_an_article_with_a_documents_field_is_read_as_jsonl(tmp_path):
    path = jsonl(tmp_path / "in", article(documents=[]), article("A2"))
    result = run("predict", str(path))
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["pmc_id"] for line in result.stdout.splitlines()] == ["A1", "A2"]


@pytest.mark.parametrize("name", ["b.xml", "b"])
def test_bioc_xml_is_read_as_bioc_not_as_text(tmp_path, name):
    path = tmp_path / name
    path.write_bytes((FIXTURES / "bioc_article.xml").read_bytes())
    result = run("predict", str(path))
    assert result.exit_code == 0, result.output
    expected = run("predict", str(FIXTURES / "bioc_article.xml"), "--format", "bioc")
    assert result.stdout == expected.stdout and json.loads(result.stdout.splitlines()[0])["pmc_id"] != "b"


def test_broken_xml_is_one_line(tmp_path):
    path = tmp_path / "b"
    path.write_text('<?xml version="1.0"?>\n<collection><document>', encoding="utf-8")
    assert_refused(run("predict", str(path)), str(path))


@pytest.mark.parametrize("text", ["[[Seizures]] and microcephaly.", '{"quoted" she said} seizures', "[{ bracketed }] seizures"])
def test_plain_text_starting_like_json_is_read_as_text_with_a_warning(tmp_path, text):
    path = tmp_path / "note"
    path.write_text(text, encoding="utf-8")
    result = run("predict", str(path))
    assert result.exit_code == 0, result.output
    assert "read as plain text" in result.stderr
    assert any(e["text"] == "Seizures" or e["text"] == "seizures" for e in json.loads(result.stdout)["entities"])


def test_a_txt_file_is_text_whatever_it_starts_with(tmp_path):
    path = tmp_path / "note.txt"
    path.write_text('{"a": 1} seizures', encoding="utf-8")
    result = run("predict", str(path))
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_a_utf8_bom_before_jsonl_is_accepted(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    for command in (["predict", str(path)], ["predict", str(path), "--format", "jsonl"]):
        result = run(*command)
        assert result.exit_code == 0, result.output
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(b"\xef\xbb\xbf" + ANNOTATED.read_bytes())
    pred = tmp_path / "pred.jsonl"
    assert run("predict", str(gold), "-o", str(pred)).exit_code == 0
    assert CliRunner().invoke(main, ["evaluate", str(gold), str(pred)]).exit_code == 0


# --- 4. small hostile inputs: one line, no traceback, no gigabytes -------------------


def test_deeply_nested_json_names_the_line(tmp_path):
    path = jsonl(tmp_path / "in.jsonl", article(), raw_lines=[])
    path.write_text(path.read_text(encoding="utf-8") + '{"pmc_id": "B", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    assert_refused(run("predict", str(path)), f"{path}, line 2: malformed JSON: nested too deeply")


def test_deeply_nested_bioc_json_is_one_line(tmp_path):
    path = tmp_path / "in.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert_refused(run("predict", str(path)), "nested too deeply")


@pytest.mark.parametrize("offset", [10**9, 10**10, 10**30])
def test_a_huge_passage_offset_is_refused_naming_the_field(tmp_path, offset):
    record = article()
    record["full_text"].append({"section_type": "CASE", "type": "paragraph", "offset": offset, "text": "x"})
    path = jsonl(tmp_path / "in.jsonl", record)
    assert_refused(run("predict", str(path)), f"{path}, line 1, article A1: full_text[1].offset: {offset} leaves")


def test_a_huge_bioc_passage_offset_is_refused_naming_the_article(tmp_path):
    path = tmp_path / "in.json"
    bioc = json.loads((FIXTURES / "bioc_article.json").read_text(encoding="utf-8"))
    bioc[0]["documents"][0]["passages"][-1]["offset"] = 10**30
    path.write_text(json.dumps(bioc), encoding="utf-8")
    document = bioc[0]["documents"][0]["id"]
    assert_refused(run("predict", str(path)), f"{path}, article {document}: passages[4].offset: {10**30} leaves")


def test_closed_stdin_is_one_line():
    done = subprocess.run(f'"{sys.executable}" -m phenorules predict - --hpo "{MINI_OBO}" <&-', shell=True, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "phenorules: error: <stdin>: cannot read: standard input is closed\n"


def test_a_five_thousand_digit_integer_names_the_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(article()).replace('"offset": 0', '"offset": ' + "9" * 5000) + "\n", encoding="utf-8")
    assert_refused(run("predict", str(path)), f"{path}, line 1: malformed JSON: a number with too many digits")


def test_a_lone_surrogate_names_the_field(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(article(text="seizures \ud800 here")) + "\n", encoding="utf-8")
    assert_refused(run("predict", str(path)), f"{path}, line 1, article A1: full_text[0].text: lone UTF-16 surrogate \\ud800 at character 9")


def test_a_lone_surrogate_in_bioc_names_the_article(tmp_path):
    path = tmp_path / "in.json"
    bioc = json.loads((FIXTURES / "bioc_article.json").read_text(encoding="utf-8"))
    bioc[0]["documents"][0]["passages"][0]["text"] = "x\ud800"
    path.write_text(json.dumps(bioc), encoding="utf-8")
    # the field as the article's own (BioC's too: passages), not as PatientPheX JSONL names it
    assert_refused(run("predict", str(path)), f"{path}, article 9900001: passages[0].text: lone UTF-16 surrogate \\ud800 at character 1")


# --- 6. articles over spaCy's 1,000,000 characters ----------------------------------


def test_an_article_over_a_million_characters_is_processed(tmp_path):
    sentence = "The girl had seizures and microcephaly. "
    text = sentence * (1_000_000 // len(sentence) + 100)
    path = jsonl(tmp_path / "in.jsonl", article(text=text))
    result = run("predict", str(path))
    assert result.exit_code == 0, result.output
    entities = json.loads(result.stdout)["entities"]
    assert len(entities) >= 2 * (1_000_000 // len(sentence))
    assert all(text[e["offset"] : e["offset"] + e["length"]] == e["text"] for e in entities)


def test_an_article_over_the_limit_is_refused_or_skipped_alone(tmp_path, monkeypatch):
    import phenorules.core.article

    monkeypatch.setattr(phenorules.core.article, "MAX_ARTICLE_CHARS", 1000)
    path = jsonl(tmp_path / "in.jsonl", article("LONG", text="seizures " * 200), article("SHORT"))
    assert_refused(run("predict", str(path)), f"{path}, line 1, article LONG: full_text: the article has 1,800 characters, more than the 1,000")
    result = run("predict", str(path), "--on-error", "skip")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["pmc_id"] for line in result.stdout.splitlines()] == ["SHORT"]
    assert result.stderr.startswith(f"phenorules: warning: {path}, line 1, article LONG: full_text:") and result.stderr.endswith("; article skipped\n")


def test_on_error_skip_leaves_out_bad_lines_and_keeps_the_rest(tmp_path):
    path = jsonl(tmp_path / "in.jsonl", article("A1"), article("A1"), article("A3"), raw_lines=["{broken\n"])
    result = run("predict", str(path), "--on-error", "skip")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["pmc_id"] for line in result.stdout.splitlines()] == ["A1", "A3"]
    warnings = result.stderr.splitlines()
    assert len(warnings) == 2 and "line 1: malformed JSON" in warnings[0] and "line 3, article A1: pmc_id: duplicate of line 2" in warnings[1]


# --- lesser ones --------------------------------------------------------------------


def test_pmid_is_optional_on_input_and_null_on_output(tmp_path):
    record = article()
    del record["pmid"]
    result = run("predict", str(jsonl(tmp_path / "in.jsonl", record)))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pmid"] is None


def test_closed_stdout_is_one_line_not_a_traceback():
    done = subprocess.run(f'"{sys.executable}" -m phenorules predict "{EXAMPLE}" --hpo "{MINI_OBO}" >&-', shell=True, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "phenorules: error: <stdout>: cannot write the predictions: standard output is closed\n"


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path):
    many = jsonl(tmp_path / "many.jsonl", *[article(f"A{i}") for i in range(300)])
    command = f'"{sys.executable}" -m phenorules predict "{many}" --hpo "{MINI_OBO}" | head -c 10 > /dev/null; exit ${{PIPESTATUS[0]}}'
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr == ""


def test_closed_stdout_for_a_listing_is_one_line():
    done = subprocess.run(f'"{sys.executable}" -m phenorules annotate "{EXAMPLE}" --hpo "{MINI_OBO}" >&-', shell=True, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "phenorules: error: <stdout>: cannot write the listing: standard output is closed\n"


def test_predictions_and_evidence_both_to_stdout_are_refused():
    assert_refused(run("predict", str(EXAMPLE), "--explain", "-"), "<stdout>: the evidence and the predictions would both be written to standard output")


def test_full_stdout_is_one_line_not_a_traceback():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "phenorules", "predict", str(EXAMPLE), "--hpo", MINI_OBO], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == "phenorules: error: <stdout>: cannot write the predictions: No space left on device\n"


def test_full_stdout_from_a_listing_is_one_line():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "phenorules", "annotate", str(EXAMPLE), "--hpo", MINI_OBO], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "No space left on device" in done.stderr


def test_evaluate_warns_when_no_pmc_id_matches(tmp_path):
    pred = jsonl(tmp_path / "pred.jsonl", {"pmc_id": "other", "pmid": None, "entities": [], "association": []})
    result = CliRunner().invoke(main, ["evaluate", str(ANNOTATED), str(pred)])
    assert result.exit_code == 0
    assert f"phenorules: warning: {pred}: no pmc_id matches a gold article" in result.stderr
    assert f"phenorules: warning: {pred}: 1 articles not in the gold file (other): not scored" in result.stderr


def test_evaluate_warns_about_missing_and_extra_articles(tmp_path):
    gold = [json.loads(line) for line in ANNOTATED.read_text(encoding="utf-8").splitlines()]
    kept = {key: gold[0][key] for key in ("pmc_id", "pmid", "entities", "association")}
    pred = jsonl(tmp_path / "pred.jsonl", kept, {"pmc_id": "X9", "pmid": None, "entities": [], "association": []})
    result = CliRunner().invoke(main, ["evaluate", str(ANNOTATED), str(pred)])
    assert result.exit_code == 0
    assert f"no prediction for 1 of 2 gold articles ({gold[1]['pmc_id']}): scored as empty" in result.stderr
    assert "1 articles not in the gold file (X9): not scored" in result.stderr


def test_evaluate_scores_a_gold_file_with_an_odd_identifier(tmp_path):
    gold = [json.loads(line) for line in ANNOTATED.read_text(encoding="utf-8").splitlines()]
    gold[0]["entities"][0]["identifier"] = "HP:0000252 "
    gold_path = jsonl(tmp_path / "gold.jsonl", *gold)
    pred = tmp_path / "pred.jsonl"
    assert run("predict", str(gold_path), "-o", str(pred)).exit_code == 0
    result = CliRunner().invoke(main, ["evaluate", str(gold_path), str(pred)])
    assert result.exit_code == 0 and "Score" in result.stdout
    assert "entities[0].identifier: 'HP:0000252 ' is not" in result.stderr


@pytest.mark.parametrize("offsets", ["-5 -1", "3 2", "0 999"])
def test_brat_offsets_outside_the_text_are_refused(tmp_path, offsets):
    from phenorules.core.errors import InputError
    from phenorules.tasks.jnlpba.io import read_standoff

    text = "IL-2 gene expression"
    start, end = map(int, offsets.split())
    (tmp_path / "d.txt").write_text(text, encoding="utf-8")
    (tmp_path / "d.ann").write_text(f"T1\tprotein {offsets}\t{text[start:end]}\n", encoding="utf-8")  # the slice matches
    with pytest.raises(InputError, match=f"d.ann:1: offsets {offsets} are not 0 <= start < end <= 20"):
        read_standoff(tmp_path)


# --- temporary files: SIGTERM, SIGHUP, SIGKILL --------------------------------------


def _large_input(tmp_path, articles=400):
    return jsonl(tmp_path / "big.jsonl", *[article(f"A{i}", text="The girl had seizures and microcephaly. " * 200) for i in range(articles)])


def _leftovers(directory):
    """What a run may leave beside its output: temporary files and ``.partial`` ones."""
    return sorted(p.name for p in directory.iterdir() if p.name.endswith((".tmp", ".partial")))


def _start_and_wait_for_the_partial(source, out):
    """A predict run, once it has written a first chunk of articles into OUT.partial."""
    process = subprocess.Popen([sys.executable, "-m", "phenorules", "predict", str(source), "-o", str(out), "--hpo", MINI_OBO], stderr=subprocess.PIPE)
    partial = Path(f"{out}.partial")
    deadline = time.monotonic() + 120
    while not (partial.exists() and partial.stat().st_size > 0):
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "no .partial file appeared"
        time.sleep(0.02)
    return process


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_predict_leaves_the_previous_output_and_only_its_partial_for_resume(tmp_path, signum):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    process = _start_and_wait_for_the_partial(_large_input(tmp_path), out)
    process.send_signal(signum)
    assert process.wait(timeout=60) == -signum
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert _leftovers(tmp_path) == ["out.jsonl.partial"]


def test_an_interrupted_predict_says_so_and_leaves_the_previous_output(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    process = _start_and_wait_for_the_partial(_large_input(tmp_path), out)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 130
    assert process.stderr.read().decode() == "phenorules: interrupted\n"
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert _leftovers(tmp_path) == ["out.jsonl.partial"]


def test_a_killed_predict_leaves_the_previous_output_and_the_next_run_leaves_nothing_beside_it(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    process = _start_and_wait_for_the_partial(_large_input(tmp_path), out)
    process.kill()
    process.wait(timeout=60)
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert _leftovers(tmp_path) == ["out.jsonl.partial"]
    next_run = subprocess.run([sys.executable, "-m", "phenorules", "predict", str(tmp_path / "big.jsonl"), "-o", str(out), "--hpo", MINI_OBO], capture_output=True, timeout=300)
    assert next_run.returncode == 0, next_run.stderr
    assert _leftovers(tmp_path) == []
    assert len(out.read_text(encoding="utf-8").splitlines()) == 400
