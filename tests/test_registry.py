"""Formats as a registry: a format is one module registering what it reads and writes;
predict --from/--to, the readers and serve look formats up by name."""

import pickle

import catalogue

from click.testing import CliRunner

from phenorules.formats import registry
from phenorules.core.annotated import AnnotatedArticle, annotated_articles
from phenorules.core.article import Article, text_article
from phenorules.cli import main
from phenorules.core.document import make_article_doc

from conftest import FIXTURES, MINI_OBO

TEXT = "A girl with seizures and no ataxia."


def test_a_format_registered_by_one_module_is_read_and_written_by_predict(tmp_path):
    def read_lines(name, data, text_id, on_error):
        return [text_article(f"{text_id}-{n}", line) for n, line in enumerate(data.decode().splitlines(), 1)]

    def write_tsv(results):
        return "".join(f"{r.article.id}\t{p.text}\t{';'.join(p.hpo_ids)}\t{p.negated}\n" for r in results for p in r.phenotypes)

    registry.register(registry.Format("lines", "one text a line", "texts", read=read_lines))
    registry.register(registry.Format("mentions-tsv", "a mention a line", "mentions", write=write_tsv))
    try:
        source = tmp_path / "in.lines"
        source.write_text(f"{TEXT}\nHypotonia.\n", encoding="utf-8")
        done = CliRunner().invoke(main, ["predict", str(source), "--from", "lines", "--to", "mentions-tsv", "--hpo", MINI_OBO, "-q"])
        assert done.exit_code == 0, done.output
        assert done.output == "in-1\tseizures\tHP:0001250\tFalse\nin-1\tataxia\tHP:0001251\tTrue\nin-2\tHypotonia\tHP:0001252\tFalse\n"
        assert "mentions-tsv" in registry.writers() and "lines" in registry.readers()
    finally:
        for name in ("lines", "mentions-tsv"):  # other tests list the formats
            catalogue._remove([*registry.FORMATS.namespace, name])
        registry._known.clear()
    done = CliRunner().invoke(main, ["predict", str(source), "--to", "docx", "--hpo", MINI_OBO, "-q"])
    assert done.exit_code == 2 and "'docx' is not one of" in done.output


def test_an_unknown_format_name_is_a_setting_error_naming_the_others():
    import pytest

    from phenorules.core.errors import SettingError

    with pytest.raises(SettingError, match=r"unknown format 'csv'; formats are \['bioc', 'bioc-xml', 'docbin', 'evidence', 'patientphex'"):
        registry.get("csv")


def test_an_annotated_article_holds_no_spacy_object_and_every_writer_reads_it(mini_nlp):
    (result,) = annotated_articles(mini_nlp, [text_article("t1", TEXT)])
    assert isinstance(result, AnnotatedArticle) and pickle.loads(pickle.dumps(result)) == result
    assert [(p.text, p.hpo_ids, p.negated) for p in result.phenotypes] == [("seizures", ("HP:0001250",), False), ("ataxia", ("HP:0001251",), True)]
    written = {name: registry.get(name).write_results([result]) for name in registry.writers()}
    # PubTator counts in the title (empty here), a space and the abstract
    assert '"identifier": "HP:0001250"' in written["patientphex"] and "t1\t13\t21\tseizures\tPhenotype\tHP:0001250" in written["pubtator"]
    assert '"identifier": "HP:0001251"' in written["bioc"] and '<infon key="identifier">HP:0001251</infon>' in written["bioc-xml"]


def test_the_profile_of_a_format_is_its_entry():
    assert (registry.get("patientphex").profile, registry.get("text").profile, registry.get("bioc").profile) == ("patientphex", "general", "general")


def test_info_lists_the_formats():
    done = CliRunner().invoke(main, ["info", "--hpo", MINI_OBO])
    assert "  patientphex: PatientPheX JSONL, read and written, .jsonl .ndjson" in done.output
    assert "  pubtator: PubTator, written" in done.output


def test_make_article_doc_and_the_result_agree_on_the_text(mini_nlp):
    article = Article("a", (text_article("a", TEXT).passages[0],))
    assert make_article_doc(mini_nlp, article).text == article.text


def test_docbin_holds_each_mention_as_a_span_with_its_kb_id_and_the_same_results_give_the_same_bytes(tmp_path):
    import os
    import subprocess
    import sys

    import spacy
    from spacy.tokens import DocBin

    source = tmp_path / "in.txt"
    source.write_text(TEXT + "\n", encoding="utf-8")
    outputs = []
    for seed in ("1", "2"):  # string hashing differs between the processes
        out = tmp_path / f"out{seed}.spacy"
        command = [sys.executable, "-m", "phenorules", "predict", str(source), "--to", "docbin", "-o", str(out), "--hpo", MINI_OBO, "-q"]
        done = subprocess.run(command, env=dict(os.environ, PYTHONHASHSEED=seed), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    (doc,) = DocBin().from_bytes(outputs[0]).get_docs(spacy.blank("en").vocab)
    assert doc.text == TEXT + "\n"
    assert [(span.text, span.label_, span.kb_id_) for span in doc.spans["phenotypes"]] == [("seizures", "PHENOTYPE", "HP:0001250"), ("ataxia", "PHENOTYPE", "HP:0001251")]
    stored = doc.user_data["phenorules"]
    assert (stored["article"], [list(p["assertions"]) for p in stored["phenotypes"]]) == ("in", [[], ["is_negated"]])


def test_jsonl_names_the_patientphex_format_it_was_and_info_says_so(tmp_path):
    """PatientPheX JSONL is the format ``patientphex``; ``jsonl``, its name before, still
    reads and writes it, and ``info`` lists it under its own name only."""
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    written = {}
    for name in ("patientphex", "jsonl"):
        out = tmp_path / f"{name}.out"
        done = CliRunner().invoke(main, ["predict", str(source), "--to", name, "-o", str(out), "--hpo", MINI_OBO, "--quiet"])
        assert done.exit_code == 0, done.output
        written[name] = out.read_bytes()
        read = CliRunner().invoke(main, ["predict", str(FIXTURES / "patientphex_annotated.jsonl"), "--from", name, "--hpo", MINI_OBO, "--quiet"])
        assert read.exit_code == 0, read.output
        written[f"from {name}"] = read.output
    assert written["jsonl"] == written["patientphex"] and b'"HP:0001250"' in written["jsonl"]
    assert written["from jsonl"] == written["from patientphex"] and written["from jsonl"]
    assert registry.get("jsonl") is registry.get("patientphex") and "jsonl" not in registry.formats()
    listed = CliRunner().invoke(main, ["info", "--hpo", MINI_OBO]).output
    assert "  patientphex: PatientPheX JSONL, read and written, .jsonl .ndjson (also --to/--from jsonl)\n" in listed
