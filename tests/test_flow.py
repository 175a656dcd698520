"""One predict flow for every format: read -> annotate in chunks -> AnnotatedArticle ->
write. Every writer gives the same bytes for --jobs 1 and 2 (BioC, PubTator, DocBin, the
evidence, the Phenopackets; BioC input too), a stopped run of any streamed format is
taken up by --resume with the bytes of a whole run, and every output is written from
AnnotatedArticle results, never from a spaCy Doc."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.core.annotated import AnnotatedArticle
from phenorules.formats import registry

from conftest import FIXTURES, MINI_OBO
from test_parallel import corpus_lines

STREAMED = ["jsonl", "evidence", "bioc", "bioc-xml", "pubtator", "docbin"]


def predict(*args, expect: int = 0):
    result = CliRunner().invoke(main, ["predict", *map(str, args), "--hpo", MINI_OBO, "--quiet"])
    assert result.exit_code == expect, result.output
    return result


def abstract_lines(copies: int) -> list[str]:
    """The fixture articles as title-and-abstract articles (what PubTator holds), each copy
    with its own pmc_ids and PMIDs."""
    lines = []
    for line in corpus_lines(copies):
        article = json.loads(line)
        passages = [p for p in article["full_text"] if p["section_type"] in ("TITLE", "ABSTRACT")] or [{**article["full_text"][0], "section_type": "ABSTRACT"}]
        pmid = f"{article['pmc_id']}9".replace("-", "")
        patients = [{"patient_id": p["patient_id"], "mention": []} for p in article["patient"]]
        lines.append(json.dumps({"pmc_id": article["pmc_id"], "pmid": pmid, "patient": patients, "full_text": passages}) + "\n")
    return lines


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("flow")
    corpus, abstracts, bioc = folder / "in.jsonl", folder / "abstracts.jsonl", folder / "in.json"
    corpus.write_text("".join(corpus_lines(3)), encoding="utf-8")
    abstracts.write_text("".join(abstract_lines(3)), encoding="utf-8")
    predict(corpus, "--to", "bioc", "-o", bioc)  # a BioC collection of six documents
    return {"jsonl": corpus, "abstracts": abstracts, "bioc": bioc}


def source_of(name: str, inputs) -> Path:
    return inputs["abstracts"] if name == "pubtator" else inputs["jsonl"]


def run_format(name: str, source: Path, out: Path, *options, expect: int = 0):
    """predict writing ``name`` to ``out`` (the evidence beside predictions)."""
    if name == "evidence":
        return predict(source, "-o", out.with_suffix(".predictions"), "--explain", out, *options, expect=expect)
    return predict(source, "--to", name, "-o", out, *options, expect=expect)


@pytest.mark.parametrize("name", STREAMED)
def test_two_workers_write_the_bytes_of_one_in_every_format(inputs, tmp_path, name):
    one, two = tmp_path / "one", tmp_path / "two"
    run_format(name, source_of(name, inputs), one, "--jobs", "1")
    run_format(name, source_of(name, inputs), two, "--jobs", "2")
    assert one.read_bytes() == two.read_bytes() and one.stat().st_size > 0


@pytest.mark.parametrize("name", ["jsonl", "bioc", "bioc-xml", "docbin"])
def test_two_workers_write_the_bytes_of_one_for_bioc_input(inputs, tmp_path, name):
    one, two = tmp_path / "one", tmp_path / "two"
    predict(inputs["bioc"], "--to", name, "-o", one, "--jobs", "1")
    predict(inputs["bioc"], "--to", name, "-o", two, "--jobs", "2")
    assert one.read_bytes() == two.read_bytes()


def test_two_workers_write_the_phenopackets_and_evidence_of_one_beside_bioc(inputs, tmp_path):
    pytest.importorskip("phenopackets")
    written = {}
    for jobs in ("1", "2"):
        folder = tmp_path / jobs
        folder.mkdir()
        predict(inputs["abstracts"], "--to", "bioc", "-o", folder / "out.json", "--explain", folder / "why.jsonl", "--phenopackets", folder / "pp", "--jobs", jobs)
        written[jobs] = {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}
    patients = sum(len(json.loads(line)["patient"]) for line in inputs["abstracts"].read_text().splitlines())
    assert written["1"] == written["2"] and len([name for name in written["1"] if name.startswith("pp/")]) == patients


def test_a_streamed_file_is_the_file_its_format_writes_whole(inputs, mini_nlp):
    """The parts joined are the bytes of the format's whole file of the same results."""
    from phenorules.core.annotated import annotated_articles
    from phenorules.formats.inputs import read_input

    results = list(annotated_articles(mini_nlp, read_input(str(inputs["bioc"]))))
    for name in ("bioc", "bioc-xml"):
        stream = registry.get(name).stream
        parts = [json.loads(json.dumps(stream.part(result))) for result in results]  # as a .partial keeps them
        assert "".join(stream.join(lambda parts=parts: iter(parts))) == stream.whole(results)
    from phenorules.formats.bioc import bioc_document, bioc_json, _collection

    import bioc

    collection = _collection(bioc, results[0].article.source["collection"])
    for result in results:
        collection.add_document(bioc_document(bioc, result))
    assert registry.get("bioc").write_results(results) == bioc_json(collection)
    empty = registry.get("bioc").write_results([])
    assert json.loads(empty)["documents"] == [] and empty == bioc_json(_collection(bioc, {}))


def interrupted(monkeypatch, chunks: int):
    """Stop a run (as Ctrl-C does) once ``chunks`` chunks are written."""
    import phenorules.run.predict as flow

    write = flow._write_chunk
    done = []

    def stopping(*args):
        if len(done) == chunks:
            raise KeyboardInterrupt
        done.append(write(*args))
        return done[-1]

    monkeypatch.setattr(flow, "_write_chunk", stopping)


def stopped_after_one_chunk(name: str, inputs, tmp_path, monkeypatch):
    """(source, a whole run's output, the output of a run stopped after its first chunk,
    that run's OUT.partial)."""
    source = source_of(name, inputs)
    whole, out = tmp_path / "whole", tmp_path / "out"
    run_format(name, source, whole)
    with monkeypatch.context() as patch:
        interrupted(patch, 1)
        run_format(name, source, out, expect=130)
    return source, whole, out, Path(f"{out}.partial")


@pytest.mark.parametrize("name", STREAMED)
def test_resume_of_a_stopped_run_gives_the_bytes_of_a_whole_one_in_every_format(inputs, tmp_path, monkeypatch, name):
    import phenorules.run.article_chunks as article_chunks

    source, whole, out, partial = stopped_after_one_chunk(name, inputs, tmp_path, monkeypatch)
    assert not out.exists() and partial.read_bytes().count(b"\n") == 4  # one chunk's articles
    annotate = article_chunks.annotated_articles
    annotated = []
    monkeypatch.setattr(article_chunks, "annotated_articles", lambda nlp, articles: annotate(nlp, annotated.extend(articles) or articles))
    run_format(name, source, out, "--resume")
    assert out.read_bytes() == whole.read_bytes() and not partial.exists()
    assert len(annotated) == 5  # the nine articles less the four kept


@pytest.mark.parametrize("name", ["bioc", "pubtator", "docbin"])
def test_resume_drops_a_half_written_part_and_a_finished_file_is_no_partial(inputs, tmp_path, monkeypatch, name):
    source, whole, out, partial = stopped_after_one_chunk(name, inputs, tmp_path, monkeypatch)
    lines = partial.read_bytes().splitlines(keepends=True)
    partial.write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])
    run_format(name, source, out, "--resume", "--jobs", "2")
    assert out.read_bytes() == whole.read_bytes()
    run_format(name, source, out, "--resume")  # a finished BioC, PubTator or DocBin file is written afresh
    assert out.read_bytes() == whole.read_bytes()


def test_resume_of_a_format_written_whole_is_one_line(inputs, tmp_path):
    def write_ids(results):
        return "".join(f"{result.article.id}\n" for result in results)

    import catalogue

    registry.register(registry.Format("idlines", "an id a line", "ids", write=write_ids))
    try:
        out = tmp_path / "ids.txt"
        predict(inputs["jsonl"], "--to", "idlines", "-o", out, "--jobs", "2")
        assert out.read_text().splitlines() == [json.loads(line)["pmc_id"] for line in inputs["jsonl"].read_text().splitlines()]
        result = predict(inputs["jsonl"], "--to", "idlines", "-o", out, "--resume", expect=2)
        assert result.output == f"phenorules: error: {out}: --resume: format idlines writes its file whole at the end; a stopped run left nothing of it\n"
    finally:
        catalogue._remove([*registry.FORMATS.namespace, "idlines"])
        registry._known.clear()


def test_a_directory_of_bioc_files_is_written_as_one_collection(inputs, tmp_path):
    folder = tmp_path / "collections"
    folder.mkdir()
    (folder / "a.json").write_bytes((FIXTURES / "bioc_article.json").read_bytes())
    (folder / "b.json").write_bytes(inputs["bioc"].read_bytes())
    out = tmp_path / "out.json"
    predict(folder, "--to", "bioc", "-o", out, "--jobs", "2")
    documents = json.loads(out.read_text(encoding="utf-8"))["documents"]
    assert [document["id"] for document in documents] == ["9900001", *[json.loads(line)["pmc_id"] for line in inputs["jsonl"].read_text().splitlines()]]


def _first_parameter(function) -> object:
    """The type a function's first parameter is declared to take."""
    hints = typing.get_type_hints(function)
    return hints[next(name for name in hints if name != "return")]


def test_every_output_is_written_from_annotated_articles_never_a_doc(inputs, tmp_path, monkeypatch):
    """Each writer is declared on AnnotatedArticle results, and predict gives it nothing else."""
    from phenorules.formats.phenopackets import phenopackets_of
    from phenorules.formats.view import article_view

    for name in registry.writers():
        format_ = registry.get(name)
        declared = _first_parameter(format_.stream.part) if format_.stream else _first_parameter(format_.write)
        assert declared in (AnnotatedArticle, list[AnnotatedArticle]), (name, declared)
    assert _first_parameter(phenopackets_of) is AnnotatedArticle and _first_parameter(article_view) is AnnotatedArticle
    given = []
    for method in ("part_of", "write_results"):
        original = getattr(registry.Format, method)
        monkeypatch.setattr(registry.Format, method, lambda self, results, _original=original: (given.append(results), _original(self, results))[1])
    for name in STREAMED:
        run_format(name, source_of(name, inputs), tmp_path / name, "--jobs", "2")
    kinds = {type(item) for results in given for item in (results if isinstance(results, list) else [results])}
    assert kinds == {AnnotatedArticle}
