"""predict over a corpus: the same bytes out for --jobs 1 and 2, gzip, a directory or a glob,
and --resume after an interrupted run, whether its last line was cut or the run killed."""

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.run.progress import StreamProgress

from conftest import FIXTURES, MINI_OBO

ROOT = Path(__file__).parent.parent
SOURCES = [FIXTURES / "patientphex_annotated.jsonl", ROOT / "examples" / "example_article.jsonl"]


def corpus_lines(copies: int) -> list[str]:
    """The fixture articles repeated ``copies`` times, each copy with its own pmc_ids."""
    articles = [json.loads(line) for path in SOURCES for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    for copy in range(copies):
        for article in articles:
            lines.append(json.dumps({**article, "pmc_id": f"{article['pmc_id']}-{copy}"}) + "\n")
    return lines


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "in.jsonl"
    lines = corpus_lines(4)
    lines.insert(5, "\n")  # a blank line is skipped, as read_articles skips it
    path.write_text("".join(lines), encoding="utf-8")
    return path


def predict(*args):
    result = CliRunner().invoke(main, ["predict", *map(str, args), "--hpo", MINI_OBO, "--quiet"])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def serial(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "pred.jsonl"
    predict(corpus, "-o", out)
    return out.read_bytes()


def test_the_serial_output_has_a_line_per_article_in_input_order(corpus, serial):
    ids = [json.loads(line)["pmc_id"] for line in serial.decode().splitlines()]
    assert ids == [json.loads(line)["pmc_id"] for line in corpus.read_text().splitlines() if line.strip()]
    assert any(json.loads(line)["entities"] for line in serial.decode().splitlines())


def test_two_workers_write_the_same_bytes(corpus, serial, tmp_path):
    out = tmp_path / "pred.jsonl"
    predict(corpus, "-o", out, "--jobs", "2")
    assert out.read_bytes() == serial


def test_gzip_in_and_out(corpus, serial, tmp_path):
    packed = tmp_path / "in.jsonl.gz"
    packed.write_bytes(gzip.compress(corpus.read_bytes()))
    out = tmp_path / "pred.jsonl.gz"
    predict(packed, "-o", out)
    assert gzip.decompress(out.read_bytes()) == serial
    again = tmp_path / "again.jsonl.gz"
    predict(packed, "-o", again, "--jobs", "2")
    assert again.read_bytes() == out.read_bytes()  # no time or name in the gzip header


def test_a_directory_and_a_glob_read_their_files_in_name_order(corpus, serial, tmp_path):
    lines = corpus.read_text().splitlines(keepends=True)
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.jsonl").write_text("".join(lines[:7]))
    (folder / "b.jsonl.gz").write_bytes(gzip.compress("".join(lines[7:]).encode()))
    for spec in (folder, folder / "*.jsonl*"):
        out = tmp_path / "pred.jsonl"
        predict(spec, "-o", out)
        assert out.read_bytes() == serial


def test_a_directory_of_bioc_text_and_jsonl_files(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.json").write_bytes((FIXTURES / "bioc_article.json").read_bytes())  # its first line is "{"
    (folder / "b.txt.gz").write_bytes(gzip.compress(b"She had a cleft palate.\n"))
    (folder / "c.jsonl").write_bytes(SOURCES[1].read_bytes())
    records = [json.loads(line) for line in predict(folder).output.splitlines()]
    assert [record["pmc_id"] for record in records] == ["9900001", "b", "EXAMPLE1"]
    assert ("cleft palate", 10) in [(e["text"], e["offset"]) for e in records[1]["entities"]]


def test_a_glob_that_matches_nothing(tmp_path):
    result = CliRunner().invoke(main, ["predict", str(tmp_path / "*.jsonl"), "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "no file matches" in result.output


def test_a_duplicate_pmc_id_is_refused_and_no_output_left(corpus, tmp_path):
    source = tmp_path / "in.jsonl"
    lines = corpus.read_text().splitlines(keepends=True)
    source.write_text("".join(lines + lines[:1]))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["predict", str(source), "-o", str(out), "--jobs", "2", "--hpo", MINI_OBO])
    assert result.exit_code == 2, result.output
    assert f"{source}, line {len(lines) + 1}, article 9000001-0: pmc_id: duplicate of line 1" in result.output
    assert not out.exists() and not Path(str(out) + ".partial").exists()


def test_resume_drops_a_half_written_last_line_and_goes_on(corpus, serial, tmp_path):
    out = tmp_path / "pred.jsonl"
    lines = serial.splitlines(keepends=True)
    Path(str(out) + ".partial").write_bytes(b"".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    predict(corpus, "-o", out, "--resume", "--jobs", "2")
    assert out.read_bytes() == serial
    assert not Path(str(out) + ".partial").exists()


def test_resume_of_a_cut_gzip_output(corpus, serial, tmp_path):
    out = tmp_path / "pred.jsonl.gz"
    whole = gzip.compress(serial)
    Path(str(out) + ".partial").write_bytes(whole[: len(whole) * 2 // 3])
    predict(corpus, "-o", out, "--resume")
    assert gzip.decompress(out.read_bytes()) == serial


def test_resume_with_evidence_keeps_as_many_lines_of_each(corpus, tmp_path):
    out, evidence = tmp_path / "pred.jsonl", tmp_path / "why.jsonl"
    predict(corpus, "-o", out, "--explain", evidence)
    whole_out, whole_evidence = out.read_bytes(), evidence.read_bytes()
    Path(str(out) + ".partial").write_bytes(b"".join(whole_out.splitlines(keepends=True)[:5]))
    Path(str(evidence) + ".partial").write_bytes(b"".join(whole_evidence.splitlines(keepends=True)[:2]))
    out.unlink()
    evidence.unlink()
    predict(corpus, "-o", out, "--explain", evidence, "--resume")
    assert (out.read_bytes(), evidence.read_bytes()) == (whole_out, whole_evidence)


def test_resume_refuses_an_output_of_another_input(corpus, serial, tmp_path):
    out = tmp_path / "pred.jsonl"
    Path(str(out) + ".partial").write_bytes(serial.splitlines(keepends=True)[1])
    result = CliRunner().invoke(main, ["predict", str(corpus), "-o", str(out), "--resume", "--hpo", MINI_OBO])
    assert result.exit_code == 2
    assert "cannot resume: its line 1 is article 9000002-0, the input's article 1 is 9000001-0" in result.output
    assert Path(str(out) + ".partial").read_bytes() == serial.splitlines(keepends=True)[1]  # kept for the right input


def test_a_second_run_on_the_same_output_stops_before_touching_it(corpus, tmp_path):
    import fcntl

    out = tmp_path / "pred.jsonl"
    partial = Path(str(out) + ".partial")
    partial.write_bytes(b'{"pmc_id": "9000001-0"}\n')
    with open(partial, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = CliRunner().invoke(main, ["predict", str(corpus), "-o", str(out), "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "another phenorules run is writing predictions there" in result.output
    assert partial.read_bytes() == b'{"pmc_id": "9000001-0"}\n'


def test_resume_needs_an_output_file(corpus):
    result = CliRunner().invoke(main, ["predict", str(corpus), "--resume", "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "--resume needs an output file" in result.output


KILLED_RUN = """
import sys
from phenorules.cli import main
main(["predict", sys.argv[1], "-o", sys.argv[2], "--hpo", sys.argv[3], "--jobs", "2", "-q"])
"""


def test_resume_after_a_kill_gives_the_serial_bytes(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(corpus_lines(150)), encoding="utf-8")
    out = tmp_path / "pred.jsonl"
    partial = Path(str(out) + ".partial")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(source), str(out), MINI_OBO], env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run.poll() is None and not (partial.exists() and partial.read_bytes().count(b"\n") >= 8):
        time.sleep(0.01)
    assert run.poll() is None, "the run ended before it could be killed"
    os.kill(run.pid, signal.SIGKILL)  # the parent alone: its workers must neither keep the lock nor live on
    run.wait()
    written = partial.read_bytes().count(b"\n")
    assert not out.exists() and 8 <= written < 600
    predict(source, "-o", out, "--resume")
    resumed = out.read_bytes()
    serial = tmp_path / "serial.jsonl"
    predict(source, "-o", serial)
    assert resumed == serial.read_bytes()
    assert not _running_in_group(run.pid), "a worker outlived its killed parent"


def _running_in_group(group: int) -> list[int]:
    """Processes of a process group that are not zombies (a container's init may not reap)."""
    running = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                running.append(int(entry.name))
    return running


def test_stream_progress_shows_rate_and_eta():
    bar = StreamProgress(total_bytes=1000)
    bar.started -= 10
    bar.done, bar.position = 25, 250
    line = bar.line(bar.started + 10)
    assert "25 articles" in line and "2.5 articles/s" in line and "25%" in line and "ETA 0:00:30" in line


def test_jobs_zero_means_every_core_this_process_may_use():
    from phenorules.core.errors import InputError
    from phenorules.run.parallel import worker_count

    assert worker_count(0) == len(os.sched_getaffinity(0)) and worker_count(3) == 3
    with pytest.raises(InputError, match="--jobs -1: must be 0"):
        worker_count(-1)
