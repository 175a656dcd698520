"""Annotation on a Dask cluster (a LocalCluster on 127.0.0.1) gives the serial bytes, in
every format."""

import pytest
from click.testing import CliRunner

from phenorules.cli import main

from conftest import MINI_OBO
from test_parallel import corpus_lines

distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
dask_bag = pytest.importorskip("dask.bag")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None) as local:
        yield local


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("dask") / "in.jsonl"
    path.write_text("".join(corpus_lines(5)), encoding="utf-8")
    return path


def predict(*args):
    result = CliRunner().invoke(main, ["predict", *map(str, args), "--hpo", MINI_OBO, "--quiet"])
    assert result.exit_code == 0, result.output
    return result


def test_predict_on_a_scheduler_writes_the_serial_bytes(cluster, corpus, tmp_path):
    serial, clustered = tmp_path / "serial.jsonl", tmp_path / "cluster.jsonl"
    predict(corpus, "-o", serial)
    predict(corpus, "-o", clustered, "--scheduler", cluster.scheduler_address)
    assert clustered.read_bytes() == serial.read_bytes()
    assert len(serial.read_bytes().splitlines()) == 15


@pytest.mark.parametrize("options", [["--to", "bioc"], ["--to", "bioc-xml"], ["--to", "docbin"], ["--to", "pubtator"], ["--explain"], ["--phenopackets"]])
def test_every_format_written_on_a_scheduler_is_the_serial_bytes(cluster, tmp_path, options):
    from test_flow import abstract_lines

    source = tmp_path / "abstracts.jsonl"
    source.write_text("".join(abstract_lines(2)), encoding="utf-8")
    written = {}
    for run, where in (("serial", []), ("cluster", ["--scheduler", cluster.scheduler_address])):
        out = tmp_path / run
        extra = [*options, str(out)] if options[0] in ("--explain", "--phenopackets") else [*options, "-o", str(out)]
        predict(source, *where, *extra)
        written[run] = {str(path.relative_to(out)): path.read_bytes() for path in out.rglob("*")} if out.is_dir() else out.read_bytes()
    assert written["serial"] == written["cluster"] and written["serial"]


@pytest.mark.parametrize("output_format", ["bioc", "bioc-xml", "patientphex"])
def test_bioc_input_annotated_on_a_scheduler_is_the_serial_bytes(cluster, tmp_path, output_format):
    from test_flow import abstract_lines

    source, collection = tmp_path / "abstracts.jsonl", tmp_path / "in.json"
    source.write_text("".join(abstract_lines(2)), encoding="utf-8")
    predict(source, "--to", "bioc", "-o", collection)
    serial, clustered = tmp_path / "serial", tmp_path / "cluster"
    predict(collection, "--to", output_format, "-o", serial)
    predict(collection, "--to", output_format, "-o", clustered, "--scheduler", cluster.scheduler_address)
    assert clustered.read_bytes() == serial.read_bytes() and serial.stat().st_size > 0


def test_stage_settings_reach_the_workers(cluster, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("History of VSD.\n", encoding="utf-8")
    serial, clustered = tmp_path / "serial.jsonl", tmp_path / "cluster.jsonl"
    setting = ("--set", "abbreviations.bare_uses=unnamed")
    predict(notes, "-o", serial, *setting)
    predict(notes, "-o", clustered, "--scheduler", cluster.scheduler_address, *setting)
    assert clustered.read_bytes() == serial.read_bytes()
    assert b'"text": "VSD"' in serial.read_bytes()


def test_predict_bag_maps_partitions_to_the_serial_lines(cluster, corpus, tmp_path):
    from phenorules.options import PipelineSettings
    from phenorules.run.distributed import predict_bag

    serial = tmp_path / "serial.jsonl"
    predict(corpus, "-o", serial)
    with distributed.Client(cluster) as client:
        bag = dask_bag.from_sequence(corpus.read_text(encoding="utf-8").splitlines(keepends=True), npartitions=4)
        lines = predict_bag(bag, PipelineSettings(hpo=MINI_OBO)).compute(scheduler=client.get)
    assert "".join(lines).encode() == serial.read_bytes()


def test_an_unreachable_scheduler_is_one_line(corpus):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = CliRunner().invoke(main, ["predict", str(corpus), "--hpo", MINI_OBO, "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("phenorules: error: --scheduler tcp://127.0.0.1:9: cannot connect")
