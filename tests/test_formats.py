"""Phenopackets, BioC and PubTator outputs, each read back with its own library or a parser:
the same mentions, offsets and texts as the submission JSONL, and the same patients."""

from __future__ import annotations

import json

from bioc import biocjson, biocxml
import pytest
from click.testing import CliRunner
from google.protobuf import json_format
from bioc.biocjson.decoder import parse_collection
from phenopackets import Phenopacket, Sex

from phenorules.cli import main
from phenorules.formats.bioc import annotation_infons
from phenorules.formats.phenopackets import phenopackets_for_record
from phenorules.inputs import read_input
from phenorules.article import layout_passages
from phenorules.phenotype import Phenotype
from phenorules.tasks.patientphex.articles import to_article
from phenorules.tasks.patientphex.io import article_text

from conftest import FIXTURES, MINI_OBO

BIOC_JSON = str(FIXTURES / "bioc_article.json")
BIOC_XML = str(FIXTURES / "bioc_article.xml")
CASE = (
    "Patient 1, a 10-year-old girl, had seizures and hypotonia but no microcephaly. "
    "Patient 2, her 4-year-old brother, had ataxia and short stature."
)


GIVEN = {"O1": ["Patient 1", "a 10-year-old girl"], "O2": ["Patient 2", "her 4-year-old brother"]}


def case_article(pmc_id="9900003", pmid="99000033", passages=(("TITLE", "front", "Seizures in two siblings"), ("CASE", "paragraph", CASE)), given=GIVEN):
    full_text, offset = [], 0
    for section, kind, text in passages:
        full_text.append({"section_type": section, "type": kind, "offset": offset, "text": text})
        offset += len(text) + 1
    text = article_text({"full_text": full_text})
    patients = [{"patient_id": p, "mention": [{"text": g, "offset": text.index(g), "length": len(g)} for g in texts]} for p, texts in given.items()]
    return {"pmc_id": pmc_id, "pmid": pmid, "patient": patients, "full_text": full_text}


def write_jsonl(path, articles):
    path.write_text("".join(json.dumps(a) + "\n" for a in articles), encoding="utf-8")
    return str(path)


def predict(*args):
    result = CliRunner().invoke(main, ["predict", *args, "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    return result


def jsonl_mentions(path):
    """(pmc_id, offset, end, text, identifier, negated) of every entity of a prediction file."""
    return sorted(
        (r["pmc_id"], e["offset"], e["offset"] + e["length"], e["text"], e["identifier"], e["note"] == "NO")
        for r in map(json.loads, open(path, encoding="utf-8"))
        for e in r["entities"]
    )


def bioc_mentions(collection, ours_only=True):
    rows = []
    for document in collection.documents:
        holders = [p for p in document.passages] + [s for p in document.passages for s in p.sentences]
        for holder in holders:
            for a in holder.annotations:
                if ours_only and not a.id.startswith("phenorules"):
                    continue
                (location,) = a.locations
                rows.append((document.id, location.offset, location.end, a.text, a.infons["identifier"], a.infons["negated"] == "true"))
    return sorted(rows)


# --- Phenopackets --------------------------------------------------------------------


@pytest.fixture
def phenopacket_run(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    out, evidence, directory = tmp_path / "out.jsonl", tmp_path / "evidence.jsonl", tmp_path / "pp"
    predict(source, "-o", str(out), "--explain", str(evidence), "--phenopackets", str(directory))
    packets = {p.name: json_format.Parse(p.read_text(encoding="utf-8"), Phenopacket()) for p in sorted(directory.iterdir())}
    return source, out, evidence, directory, packets


def test_one_phenopacket_per_patient_parses_and_holds_its_association(phenopacket_run):
    _, out, _, _, packets = phenopacket_run
    assert sorted(packets) == ["PMID_99000033_O1.json", "PMID_99000033_O2.json"]
    (record,) = map(json.loads, open(out, encoding="utf-8"))
    for entry in record["association"]:
        packet = packets[f"PMID_99000033_{entry['patient_id']}.json"]
        assert packet.id == packet.subject.id == f"PMID_99000033_{entry['patient_id']}"
        assert sorted(f.type.id for f in packet.phenotypic_features if not f.excluded) == entry["phenotype"]
        assert packet.meta_data.resources[0].version == "hp/releases/test-mini"
        assert packet.meta_data.created_by.startswith("phenorules ")
        assert [r.id for r in packet.meta_data.external_references] == ["PMID:99000033", "PMCID:PMC9900003"]
        for feature in packet.phenotypic_features:
            (evidence,) = feature.evidence
            assert (evidence.evidence_code.id, evidence.reference.id) == ("ECO:0000033", "PMID:99000033")


def test_phenopacket_subject_sex_and_age_come_from_the_given_mentions(phenopacket_run):
    packets = phenopacket_run[4]
    first, second = packets["PMID_99000033_O1.json"], packets["PMID_99000033_O2.json"]
    assert (Sex.Name(first.subject.sex), first.subject.time_at_last_encounter.age.iso8601duration) == ("FEMALE", "P10Y")
    assert (Sex.Name(second.subject.sex), second.subject.time_at_last_encounter.age.iso8601duration) == ("MALE", "P4Y")  # "her" names someone else
    labels = {f.type.id: f.type.label for f in first.phenotypic_features}
    assert labels["HP:0001250"] == "Seizure"


def test_phenopacket_subject_of_a_patient_described_only_in_the_text(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article(given={"O1": ["Patient 1"], "O2": ["Patient 2"]})])
    directory = tmp_path / "pp"
    predict(source, "-o", str(tmp_path / "out.jsonl"), "--phenopackets", str(directory))
    again = tmp_path / "again"  # the phenopackets command reads the same in the articles' text
    result = CliRunner().invoke(main, ["phenopackets", str(tmp_path / "out.jsonl"), "--articles", source, "-o", str(again), "--hpo", MINI_OBO, "-q"])
    assert result.exit_code == 0, result.output
    for folder in (directory, again):
        packets = {p.name: json_format.Parse(p.read_text(encoding="utf-8"), Phenopacket()) for p in folder.iterdir()}
        subjects = {name: (Sex.Name(p.subject.sex), p.subject.time_at_last_encounter.age.iso8601duration) for name, p in packets.items()}
        assert subjects == {"PMID_99000033_O1.json": ("FEMALE", "P10Y"), "PMID_99000033_O2.json": ("MALE", "P4Y")}


def test_negated_mention_of_a_patient_is_an_excluded_feature(phenopacket_run):
    packets = phenopacket_run[4]
    excluded = {p: [f.type.id for f in packet.phenotypic_features if f.excluded] for p, packet in packets.items()}
    assert excluded == {"PMID_99000033_O1.json": ["HP:0000252"], "PMID_99000033_O2.json": []}  # microcephaly


def test_phenopackets_command_from_predictions_equals_predict_phenopackets(phenopacket_run, tmp_path):
    source, out, evidence, directory, _ = phenopacket_run
    again = tmp_path / "again"
    args = ["phenopackets", str(out), "--articles", source, "--evidence", str(evidence), "-o", str(again), "--hpo", MINI_OBO, "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert {p.name: p.read_bytes() for p in again.iterdir()} == {p.name: p.read_bytes() for p in directory.iterdir()}


def test_without_patients_or_attribution_nothing_is_guessed(mini_ontology):
    record = {"pmc_id": "abc", "pmid": None, "entities": [{"identifier": "HP:0000252", "note": "NO", "offset": 0, "length": 12, "text": "microcephaly", "type": "Phenotype"}], "association": [{"patient_id": "P1", "phenotype": ["HP:0001250"]}]}
    (packet,) = phenopackets_for_record(record, mini_ontology, hpo_version="v1")
    assert packet["subject"] == {"id": "abc_P1"}
    assert [f["type"] for f in packet["phenotypicFeatures"]] == [{"id": "HP:0001250", "label": "Seizure"}]
    assert packet["metaData"]["resources"][0]["version"] == "v1" and "externalReferences" not in packet["metaData"]


def test_conflicting_sex_or_age_in_the_mentions_gives_none(mini_ontology):
    mentions = [{"text": t, "offset": 0, "length": len(t)} for t in ("a 3-year-old boy", "the 5-year-old girl", "the boy's mother")]
    record = {"pmc_id": "1", "pmid": "2", "entities": [], "association": [], "patient": [{"patient_id": "P1", "mention": mentions}]}
    (packet,) = phenopackets_for_record(record, mini_ontology)
    assert packet["subject"] == {"id": "PMID_2_P1"}


def test_an_id_the_loaded_release_lacks_is_a_one_line_error(tmp_path):
    prediction = {"pmc_id": "1", "pmid": None, "entities": [], "association": [{"patient_id": "P1", "phenotype": ["HP:9999999"]}]}
    path = write_jsonl(tmp_path / "pred.jsonl", [prediction])
    result = CliRunner().invoke(main, ["phenopackets", path, "-o", str(tmp_path / "pp"), "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "PMC1: HP:9999999 is not a phenotype term of the loaded HPO release hp/releases/test-mini" in result.output


def test_unwritable_phenopacket_directory_is_a_one_line_error(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for directory in (blocker, tmp_path / "missing" / "pp"):
        result = CliRunner().invoke(main, ["predict", source, "--phenopackets", str(directory), "--hpo", MINI_OBO])
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert result.output.startswith(f"phenorules: error: {directory}: cannot write Phenopackets")


# --- BioC ----------------------------------------------------------------------------


def test_bioc_xml_is_read_with_sentence_only_passages(tmp_path):
    (article,) = read_input(BIOC_XML)
    assert article.id == "9900002" and article.pmid == "99000022"
    case = article.passages[1]
    assert case.offset == 35 and case.text == "The boy had seizures and hypotonia. There was no microcephaly."
    assert layout_passages(article.passages)[84:96] == "microcephaly"


@pytest.mark.parametrize("source", [BIOC_JSON, BIOC_XML])
@pytest.mark.parametrize("form, load", [("bioc", biocjson.loads), ("bioc-xml", biocxml.loads)])
def test_bioc_output_reads_back_to_the_jsonl_mentions_with_the_input_untouched(tmp_path, source, form, load):
    plain, out = tmp_path / "plain.jsonl", tmp_path / "out"
    predict(source, "-o", str(plain))
    predict(source, "-o", str(out), "--output-format", form)
    collection = load(out.read_text(encoding="utf-8"))
    assert len(jsonl_mentions(plain)) >= 3 and bioc_mentions(collection) == jsonl_mentions(plain)
    with open(source, encoding="utf-8") as handle:
        original = biocxml.load(handle) if source == BIOC_XML else parse_collection(json.load(handle)[0])  # PMC serves a list
    assert (collection.source, collection.date, collection.key) == (original.source, original.date, original.key)
    for theirs, ours in zip(original.documents, collection.documents):
        assert ours.infons == theirs.infons
        assert [(p.offset, p.text, p.infons) for p in ours.passages] == [(p.offset, p.text, p.infons) for p in theirs.passages]
        assert [(s.offset, s.text) for p in ours.passages for s in p.sentences] == [(s.offset, s.text) for p in theirs.passages for s in p.sentences]
        kept = [a for p in ours.passages for h in [p, *p.sentences] for a in h.annotations if not a.id.startswith("phenorules")]
        assert [(a.id, a.text) for a in kept] == [(a.id, a.text) for p in theirs.passages for h in [p, *p.sentences] for a in h.annotations]


def test_bioc_annotations_carry_id_label_negation_patient_and_provenance(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    out = tmp_path / "out.json"
    predict(source, "-o", str(out), "--output-format", "bioc")
    (document,) = biocjson.loads(out.read_text(encoding="utf-8")).documents
    infons = {a.text: a.infons for p in document.passages for a in p.annotations}
    assert infons["microcephaly"]["negated"] == "true" and infons["microcephaly"]["patients"] == "O1"
    assert infons["ataxia"]["identifier"] == "HP:0001251" and infons["ataxia"]["label"] == "Ataxia"
    assert infons["ataxia"]["patients"] == "O2" and infons["ataxia"]["provenance"].startswith("name")
    # a document we made reads back as the same article
    (article,) = read_input(str(out))
    assert article.passages == to_article(case_article()).passages and article.pmid == "99000033"


# --- PubTator ------------------------------------------------------------------------


def read_pubtator(text):
    """PubTator blocks: (pmid, title, abstract, [(start, end, text, type, id)])."""
    blocks = []
    for block in filter(None, text.split("\n\n")):
        lines = block.split("\n")
        pmid, _, title = lines[0].partition("|t|")
        assert lines[1].startswith(f"{pmid}|a|")
        mentions = [line.split("\t") for line in lines[2:]]
        assert all(m[0] == pmid and len(m) == 6 for m in mentions)
        blocks.append((pmid, title, lines[1].partition("|a|")[2], [(int(m[1]), int(m[2]), m[3], m[4], m[5]) for m in mentions]))
    return blocks


def test_pubtator_reads_back_to_the_jsonl_mentions(tmp_path):
    abstract = (("TITLE", "front", "Seizures and ataxia"), ("ABSTRACT", "abstract_title_1", "Case"), ("ABSTRACT", "abstract", "A girl had hypotonia and no microcephaly."))
    articles = [case_article("1", "11", abstract, {}), case_article("2", None, (("ABSTRACT", "abstract", "Short stature."),), {})]
    source = write_jsonl(tmp_path / "in.jsonl", articles)
    plain, out = tmp_path / "plain.jsonl", tmp_path / "out.txt"
    predict(source, "-o", str(plain))
    predict(source, "-o", str(out), "--output-format", "pubtator")
    blocks = read_pubtator(out.read_text(encoding="utf-8"))
    assert [b[0] for b in blocks] == ["11", "2"]
    assert blocks[0][1:3] == ("Seizures and ataxia", "Case A girl had hypotonia and no microcephaly.")
    shift = {"1": (len("Seizures and ataxia") + 1) - 20, "2": 1}  # abstract at 20 in the article, after title + space in PubTator
    title_end = {"1": 19, "2": 0}
    read_back = []
    for (_, title, abstract, mentions), article in zip(blocks, articles):
        text = title + " " + abstract
        for start, end, mention, kind, identifier in mentions:
            assert text[start:end] == mention and kind == "Phenotype"
            offset = start if start < title_end[article["pmc_id"]] else start - shift[article["pmc_id"]]
            read_back.append((article["pmc_id"], offset, offset + end - start, mention, identifier))
    assert len(read_back) >= 4 and sorted(read_back) == [m[:5] for m in jsonl_mentions(plain)]


def test_pubtator_for_a_full_text_is_a_one_line_error(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    out = tmp_path / "out.txt"
    result = CliRunner().invoke(main, ["predict", source, "-o", str(out), "--output-format", "pubtator", "--hpo", MINI_OBO])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "article 9900003: PubTator holds a title and an abstract, this article also has CASE sections" in result.output
    assert not out.exists()


def test_a_hypothetical_or_relatives_finding_is_not_in_the_patients_phenopacket(mini_ontology):
    def entity(offset, identifier, assertions):
        return {"identifier": identifier, "offset": offset, "length": 5, "text": "x", "type": "Phenotype", "note": None, "patients": ["P1"], "assertions": assertions}

    entities = [entity(0, "HP:0001250", ["is_hypothetical"]), entity(10, "HP:0001251", ["is_family"]), entity(20, "HP:0001252", []), entity(30, "HP:0001252", ["is_family"])]
    record = {"pmc_id": "abc", "pmid": None, "entities": entities, "association": [{"patient_id": "P1", "phenotype": ["HP:0001250", "HP:0001251", "HP:0001252"]}]}
    (packet,) = phenopackets_for_record(record, mini_ontology, hpo_version="v1")
    assert [f["type"]["id"] for f in packet["phenotypicFeatures"]] == ["HP:0001252"]  # stated of P1 itself once


def test_bioc_infons_carry_every_assertion_and_its_cue():
    cue = {"category": "FAMILY", "text": "Her father", "start": 0, "end": 10, "rule": "context_rules.tsv:300"}
    phenotype = Phenotype(20, 26, "ataxia", ("HP:0001251",), "Ataxia", False, (), (), ("is_family",), (cue,))
    infons = annotation_infons(phenotype)
    assert (infons["negated"], infons["is_family"], infons["is_uncertain"], infons["is_hypothetical"], infons["is_historical"]) == ("false", "true", "false", "false", "false")
    assert infons["assertion_cues"] == "FAMILY:Her father@0-10"
