"""Every output format holds the ids it is given, or refuses them: an article id (and PMID,
and patient id) with a newline, a CR, a tab, a '|', a NUL, U+2028, quotes, '<', '&', a
length past a file name's, spaces at its ends, or a lone surrogate never injects a line,
a field or an article into an output. For each registered writer (patientphex, evidence, bioc,
bioc-xml, pubtator, docbin) and the Phenopackets files, ``predict`` either refuses in one line (exit
2, the previous output untouched) or writes what its own reader, or the format's standard
parser, reads back to the same ids and the same number of articles.
"""

from __future__ import annotations

import json
import os

import pytest
from bioc import pubtator as bioc_pubtator
from click.testing import CliRunner
from google.protobuf import json_format
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from phenopackets import Phenopacket
from spacy.tokens import DocBin

from phenorules.options import PipelineSettings
from phenorules.formats import registry
from phenorules.cli import main
from phenorules.formats.phenopackets import phenopacket_file_name
from phenorules.formats.inputs import parse_input
from phenorules.stages.pipeline import blank_english

from conftest import MINI_OBO

PREVIOUS = b"previous output\n"
PHENOPACKETS = "phenopackets"  # the Phenopacket files of --phenopackets, beside the registry's writers
HOSTILE = [
    "1\n2|a|INJECTED LINE", "1\r2", "1\t2", "1|t|x", "1\x002", "1\u20282", "1\u2029", "1\x0b\x0c\x1c\x85", '1"2', "1'2",
    "<id>", "&amp;", "]]>", " 1 ", "", "\ud800", "9" * 300, "PMC:1", "a/../b", "..", "\x1b[2J", "\ufffe", "P;1",
]
hostile = st.one_of(st.sampled_from(HOSTILE), st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=4)), min_size=1, max_size=3).map("".join))


def article(pmc_id: str, pmid: str | None, patient: str) -> dict:
    passages = [{"section_type": "TITLE", "type": "front", "offset": 0, "text": "Seizures."}]
    passages.append({"section_type": "ABSTRACT", "type": "abstract", "offset": 10, "text": "A girl had ataxia and no hypotonia."})
    return {"pmc_id": pmc_id, "pmid": pmid, "patient": [{"patient_id": patient, "mention": []}], "full_text": passages}


@st.composite
def corpora(draw) -> list[dict]:
    pmc_ids = draw(st.lists(hostile, min_size=1, max_size=3, unique=True))
    return [article(pmc_id, draw(st.one_of(st.none(), hostile)), draw(st.one_of(st.just("P1"), hostile))) for pmc_id in pmc_ids]


def pubtator_ids(text: str) -> list[str]:
    """The id of each article of a PubTator file by the form's block grammar: articles
    end in a blank line; each is a title line ``ID|t|``, an abstract line ``ID|a|`` and
    six-field mention lines ``ID<tab>...``, all of one ID; lines end where
    ``str.splitlines`` ends them."""
    assert text == "" or text.endswith("\n\n")
    ids = []
    for block in text[:-2].split("\n\n") if text else []:
        title, abstract, *mentions = block.splitlines()
        article_id, kind, _ = title.split("|", 2)
        assert kind == "t" and abstract.split("|", 2)[:2] == [article_id, "a"], block
        assert all(len(fields) == 6 and fields[0] == article_id for fields in (line.split("\t") for line in mentions)), block
        ids.append(article_id)
    return ids


def read_back(name: str, path, out_dir) -> list[tuple]:
    """(id, pmid) of each article the output holds, as its reader or parser reads it."""
    if name == "patientphex":
        return [(record["pmc_id"], record["pmid"]) for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())]
    if name == "evidence":
        return [(record["pmc_id"], None) for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())]
    if name in ("bioc", "bioc-xml"):
        return [(a.id, a.pmid) for a in parse_input(str(path), path.read_bytes(), "bioc")]
    if name == "pubtator":
        text = path.read_text(encoding="utf-8")
        assert [document.pmid for document in bioc_pubtator.loads(text)] == pubtator_ids(text)
        return [(article_id, None) for article_id in pubtator_ids(text)]
    if name == "docbin":
        docs = DocBin().from_bytes(path.read_bytes()).get_docs(blank_english().vocab)
        return [(doc.user_data["phenorules"]["article"], doc.user_data["phenorules"]["pmid"]) for doc in docs]
    packets = [json_format.ParseDict(json.loads(p.read_text(encoding="utf-8")), Phenopacket()) for p in sorted(out_dir.iterdir())]
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(phenopacket_file_name(packet.id) for packet in packets)
    return sorted((packet.id, packet.subject.id) for packet in packets)


def expected(name: str, records: list[dict]) -> list[tuple]:
    if name == "pubtator":
        return [(r["pmid"] or r["pmc_id"], None) for r in records]
    if name == "evidence":
        return [(r["pmc_id"], None) for r in records]
    if name in ("bioc", "bioc-xml"):  # an empty PMID is no infon
        return [(r["pmc_id"], r["pmid"] or None) for r in records]
    if name == PHENOPACKETS:  # PMID_<pmid>_<patient>, else the PMCID's
        keys = [f"PMID_{r['pmid']}" if r["pmid"] else (f"PMC{r['pmc_id']}" if r["pmc_id"].isdigit() else r["pmc_id"]).replace(":", "_") for r in records]
        return sorted((f"{key}_{r['patient'][0]['patient_id']}",) * 2 for key, r in zip(keys, records))
    return [(r["pmc_id"], r["pmid"]) for r in records]


@pytest.fixture(scope="module")
def ids_nlp():
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(hpo=MINI_OBO)


def run_format(tmp_path, name: str, source):
    out_dir = tmp_path / f"out-{name}"
    out_dir.mkdir()
    out = out_dir / "out"
    out.write_bytes(PREVIOUS)
    options = ["--phenopackets", str(out_dir / "packets")] if name == PHENOPACKETS else ["--to", name]
    result = CliRunner().invoke(main, ["predict", str(source), "-o", str(out), "--hpo", MINI_OBO, *options])
    return result, out, out_dir / "packets"


@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=max(20, settings.default.max_examples // 2))
@given(corpora())
@example([article("1\n2|a|INJECTED LINE", None, "P1")])
@example([article("7", "1\n2|a|INJECTED LINE", "P1")])
@example([article("a\nb", None, "P1"), article("a\tb", None, "P1")])
@example([article(hostile_id, None, "P1") for hostile_id in HOSTILE if hostile_id and "\ud800" not in hostile_id])
@example([article("1", None, "P\x00\n1")])
def test_every_format_refuses_hostile_ids_in_one_line_or_writes_them_back(tmp_path_factory, monkeypatch, ids_nlp, records):
    monkeypatch.setattr(PipelineSettings, "build", lambda *_: ids_nlp)
    tmp_path = tmp_path_factory.mktemp("ids")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for name in [*registry.writers(), PHENOPACKETS]:
        result, out, packets = run_format(tmp_path, name, source)
        assert result.exception is None or isinstance(result.exception, SystemExit), (name, result.exception)
        if result.exit_code == 2:
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("phenorules: error: "), (name, result.stderr)
            assert out.read_bytes() == PREVIOUS, name
            continue
        assert result.exit_code == 0, (name, result.stderr)
        assert read_back(name, out, packets) == expected(name, records), name


def test_a_pubtator_id_that_would_inject_a_line_is_refused_naming_the_article_and_the_field(tmp_path):
    source = tmp_path / "in.jsonl"
    refusals = {
        ("1\n2|a|INJECTED LINE", None): "article 1\\n2|a|INJECTED LINE: id: holds '\\n'",
        ("7", "1|a|x"): "article 7: pmid: holds '|'",
        ("PMC1 ", None): "article PMC1 : id: spaces at its ends",
    }
    for (pmc_id, pmid), refusal in refusals.items():
        source.write_text(json.dumps(article(pmc_id, pmid, "P1")) + "\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["predict", str(source), "--to", "pubtator", "--hpo", MINI_OBO, "-q"])
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert result.stderr == f"phenorules: error: {refusal}: PubTator could not read it back\n"


def test_a_line_break_of_any_kind_in_a_pubtator_text_is_written_as_a_space(tmp_path):
    source = tmp_path / "in.jsonl"
    record = article("1", None, "P1")
    record["full_text"][1]["text"] = "A girl\u2028had\x0cataxia\x85and\u2029no\x1ehypotonia."
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["predict", str(source), "--to", "pubtator", "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    (document,) = bioc_pubtator.loads(result.stdout)
    assert document.abstract == "A girl had ataxia and no hypotonia."
    text = document.title + " " + document.abstract
    assert [(text[a.start : a.end], a.text, a.id) for a in document.annotations] == [
        ("Seizures", "Seizures", "HP:0001250"), ("ataxia", "ataxia", "HP:0001251"), ("hypotonia", "hypotonia", "HP:0001252"),
    ]


def test_a_character_xml_cannot_hold_is_refused_for_bioc_xml_naming_the_article_and_the_field(tmp_path):
    source = tmp_path / "in.jsonl"
    record = article("1", None, "P1")
    record["full_text"][1]["text"] = "A girl had\x00ataxia."
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(main, ["predict", str(source), "--to", "bioc-xml", "-o", str(out), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == "phenorules: error: article 1: passages[1].text: '\\x00' at character 10 cannot be written in XML: write it as BioC JSON (--output-format bioc)\n"


def test_an_error_naming_an_id_with_a_line_break_is_one_line(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(article("a\nb", None, "P1")) + "\n" for _ in range(2)), encoding="utf-8")
    result = CliRunner().invoke(main, ["predict", str(source), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 2 and result.stderr == f"phenorules: error: {source}, line 2, article a\\nb: pmc_id: duplicate of line 1\n"
    assert os.listdir(tmp_path) == ["in.jsonl"]


def test_an_id_with_a_line_break_keeps_to_its_line_in_annotates_listing(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(article(pmc_id, None, "P1")) + "\n" for pmc_id in ("1", "2\n     0-8 NEG HP:0000001")), encoding="utf-8")
    result = CliRunner().invoke(main, ["annotate", str(source), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    headers = [line for line in result.stdout.splitlines() if not line.split("-")[0].strip().isdigit()]
    assert headers == ["# 1", "# 2\\n     0-8 NEG HP:0000001"]


def test_a_json_line_holds_no_line_end_a_reader_of_lines_would_break_it_at(tmp_path):
    source, out, why = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "why.jsonl"
    records = [article(f"1{end}2", f"3{end}", "P1") for end in ("\x85", "\u2028", "\u2029")]
    source.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    result = CliRunner().invoke(main, ["predict", str(source), "-o", str(out), "--explain", str(why), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    for path, fields in ((out, ("pmc_id", "pmid")), (why, ("pmc_id",))):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert [[json.loads(line)[field] for field in fields] for line in lines] == [[r[field] for field in fields] for r in records]
