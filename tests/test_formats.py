"""Phenopackets, BioC and PubTator outputs, each read back with its own library or a parser:
the same mentions, offsets and texts as the submission JSONL, and the same patients."""

from __future__ import annotations

import json
from pathlib import Path

from bioc import biocjson, biocxml
import pytest
from click.testing import CliRunner
from google.protobuf import json_format
from bioc.biocjson.decoder import parse_collection
from phenopackets import Phenopacket, Sex

from phenorules.cli import main
from phenorules.formats.bioc import annotation_infons
from phenorules.formats.patientphex.records import record_result
from phenorules.formats.phenopackets import phenopacket_file_name, phenopackets_of
from phenorules.formats.inputs import read_input
from phenorules.core.article import layout_passages
from phenorules.core.phenotype import Phenotype
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.io import article_text

from conftest import FIXTURES, MINI_OBO

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "patientphex" / "train.jsonl"
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
    (packet,) = phenopackets_of(record_result(record), mini_ontology, hpo_version="v1")
    assert packet["subject"] == {"id": "abc_P1"}
    assert [f["type"] for f in packet["phenotypicFeatures"]] == [{"id": "HP:0001250", "label": "Seizure"}]
    assert packet["metaData"]["resources"][0]["version"] == "v1" and "externalReferences" not in packet["metaData"]


def test_conflicting_sex_or_age_in_the_mentions_gives_none(mini_ontology):
    mentions = [{"text": t, "offset": 0, "length": len(t)} for t in ("a 3-year-old boy", "the 5-year-old girl", "the boy's mother")]
    record = {"pmc_id": "1", "pmid": "2", "entities": [], "association": [], "patient": [{"patient_id": "P1", "mention": mentions}]}
    (packet,) = phenopackets_of(record_result(record), mini_ontology)
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


def test_created_is_never_the_clock(mini_ontology, monkeypatch):
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from phenorules.formats.phenopackets import created_time

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    dated = SimpleNamespace(data_version="hp/releases/2024-04-26")
    given = datetime(2026, 3, 1, 12, 30, 5, 999, tzinfo=timezone.utc)
    assert created_time(dated) == "2024-04-26T00:00:00Z"  # the loaded release's date
    assert created_time(mini_ontology) == "1970-01-01T00:00:00Z"  # hp/releases/test-mini names none
    assert created_time(dated, given) == "2026-03-01T12:30:05Z"  # --created
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert created_time(dated, given) == "1970-01-02T00:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")  # empty: unset
    assert created_time(dated) == "2024-04-26T00:00:00Z"


def test_every_phenopacket_has_its_created_from_the_input_or_an_option(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    created = {}
    for name, options, env in (("default", [], {}), ("option", ["--created", "2026-03-01T12:00:00+02:00"], {}), ("epoch", ["--created", "2026-03-01"], {"SOURCE_DATE_EPOCH": "1700000000"})):
        directory = tmp_path / name
        result = CliRunner().invoke(main, ["predict", source, "-o", str(tmp_path / f"{name}.jsonl"), "--phenopackets", str(directory), *options, "--hpo", MINI_OBO, "-q"], env={"SOURCE_DATE_EPOCH": None, **env})
        assert result.exit_code == 0, result.output
        created[name] = {json.loads(p.read_text(encoding="utf-8"))["metaData"]["created"] for p in directory.iterdir()}
    assert created == {"default": {"1970-01-01T00:00:00Z"}, "option": {"2026-03-01T10:00:00Z"}, "epoch": {"2023-11-14T22:13:20Z"}}
    again = tmp_path / "again"
    result = CliRunner().invoke(main, ["phenopackets", str(tmp_path / "option.jsonl"), "-o", str(again), "--created", "2026-03-01T10:00:00Z", "--hpo", MINI_OBO, "-q"], env={"SOURCE_DATE_EPOCH": None})
    assert result.exit_code == 0, result.output
    assert {json.loads(p.read_text(encoding="utf-8"))["metaData"]["created"] for p in again.iterdir()} == {"2026-03-01T10:00:00Z"}
    result = CliRunner().invoke(main, ["predict", source, "--created", "2026-03-01", "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "--created" in result.output and "--phenopackets" in result.output
    result = CliRunner().invoke(main, ["predict", source, "--phenopackets", str(tmp_path / "x"), "--created", "March 1st", "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "'March 1st' is no ISO 8601 date" in result.output


@pytest.mark.parametrize("epoch", ["99999999999999999", "253402300800", "-1", "1.5", "12a", " 12", "\u00b2", "9" * 5000])
def test_a_bad_source_date_epoch_is_one_line_naming_it_before_any_work(tmp_path, epoch):
    source = write_jsonl(tmp_path / "in.jsonl", [case_article()])
    out, directory = tmp_path / "out.jsonl", tmp_path / "pp"
    prediction = write_jsonl(tmp_path / "pred.jsonl", [{"pmc_id": "1", "pmid": None, "entities": [], "association": []}])
    for args in (["predict", source, "-o", str(out), "--phenopackets", str(directory)], ["phenopackets", prediction, "-o", str(directory)]):
        result = CliRunner().invoke(main, [*args, "--hpo", MINI_OBO], env={"SOURCE_DATE_EPOCH": epoch})
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert result.output.startswith("phenorules: error: SOURCE_DATE_EPOCH: ") and "Traceback" not in result.output
        assert not out.exists() and not directory.exists()


def _entity(offset, identifier, patients, assertions=(), negated=False):
    return {
        "identifier": identifier, "offset": offset, "length": 5, "text": "x", "type": "Phenotype", "note": "NO" if negated else None,
        "patients": list(patients), "assertions": ["is_negated", *assertions] if negated else list(assertions),
    }


def _features(record, ontology) -> dict[str, list[tuple[str, bool]]]:
    return {p["subject"]["id"]: [(f["type"]["id"], f.get("excluded", False)) for f in p.get("phenotypicFeatures", [])] for p in phenopackets_of(record_result(record), ontology)}


def _record(entities, association):
    patients = [{"patient_id": patient_id, "mention": [], "subject": None} for patient_id in association]
    return {"pmc_id": "abc", "pmid": None, "entities": entities, "association": [{"patient_id": p, "phenotype": ids} for p, ids in association.items()], "patient": patients}


@pytest.mark.parametrize(
    "entities, observed",
    [
        ([_entity(0, "HP:0001250", ["P1"], ["is_uncertain"])], []),  # "seizures are suspected but not confirmed"
        ([_entity(0, "HP:0001250", ["P1"], ["is_hypothetical"])], []),  # "return if seizures occur"
        ([_entity(0, "HP:0001250", ["P1"], ["is_uncertain"]), _entity(9, "HP:0001250", ["P1"])], ["HP:0001250"]),  # stated plainly once
        ([_entity(0, "HP:0001250", ["P1"], ["is_uncertain"]), _entity(9, "HP:0001250", ["P2"])], []),  # plainly of another patient
        ([_entity(0, "HP:0001250", ["P1"], ["is_historical"])], ["HP:0001250"]),  # a past finding is observed
        ([], ["HP:0001250"]),  # an association written without its mentions is taken as it is
    ],
)
def test_an_id_only_stated_uncertain_or_hypothetical_of_the_patient_is_not_observed(mini_ontology, entities, observed):
    record = _record(entities, {"P1": ["HP:0001250"], "P2": []})
    assert _features(record, mini_ontology)["abc_P1"] == [(hpo_id, False) for hpo_id in observed]


def test_a_relatives_finding_belongs_to_the_relative_who_is_a_listed_patient(mini_ontology):
    """'the father (P2) presented with hearing impairment': flagged is_family, attributed to P2."""
    record = _record([_entity(0, "HP:0000365", ["P2"], ["is_family"]), _entity(9, "HP:0001251", ["P1"], ["is_family"])], {"P1": ["HP:0001251"], "P2": ["HP:0000365"]})
    assert _features(record, mini_ontology) == {"abc_P1": [("HP:0001251", False)], "abc_P2": [("HP:0000365", False)]}


def test_a_negated_mention_of_the_patient_is_an_excluded_feature_unless_observed(mini_ontology):
    entities = [
        _entity(0, "HP:0000252", ["P1"], negated=True),  # "no microcephaly"
        _entity(9, "HP:0001263", ["P1"], negated=True), _entity(18, "HP:0001263", ["P1"]),  # stated absent and present: observed
        _entity(27, "HP:0001252", ["P1"], ["is_uncertain"], negated=True),  # "hypotonia could not be excluded": neither
        _entity(36, "HP:0001250", ["P2"], negated=True),  # another patient's
    ]
    record = _record(entities, {"P1": ["HP:0001263"], "P2": []})
    assert _features(record, mini_ontology) == {"abc_P1": [("HP:0001263", False), ("HP:0000252", True)], "abc_P2": [("HP:0001250", True)]}


def stated_features(record: dict, evidence: dict, resolve) -> dict[str, set[tuple[str, bool]]]:
    """Each patient's features by the rule, read from a prediction record and its
    --explain line: observed, the association's ids less those whose every non-negated
    mention attributed to the patient is uncertain or hypothetical; excluded, the ids of its
    negated mentions that are neither, unless observed."""
    unstated = {"is_uncertain", "is_hypothetical"}
    features = {}
    for entry in record["association"]:
        patient = entry["patient_id"]
        mentions = [item for item in evidence["evidence"] if patient in item["patients"]]
        plain = {i for m in mentions if m["note"] != "NO" and not unstated & set(m["assertions"]) for i in m["identifier"].split(";")}
        hedged = {i for m in mentions if m["note"] != "NO" and unstated & set(m["assertions"]) for i in m["identifier"].split(";")}
        absent = {i for m in mentions if m["note"] == "NO" and not unstated & set(m["assertions"]) for i in m["identifier"].split(";")}
        observed = {i for i in entry["phenotype"] if i.startswith("HP:")} - (hedged - plain)
        features[patient] = {(resolve(i), False) for i in observed} | {(resolve(i), True) for i in absent - observed}
    return features


@pytest.mark.skipif(not SHARED.is_file(), reason="the shared task file is not there")
def test_the_phenopackets_of_the_shared_file_state_what_the_association_and_the_mentions_state(tmp_path):
    from phenorules.kb.ontology import default_obo_path, load_ontology

    out, evidence, directory, again = tmp_path / "out.jsonl", tmp_path / "evidence.jsonl", tmp_path / "pp", tmp_path / "again"
    result = CliRunner().invoke(main, ["predict", str(SHARED), "-o", str(out), "--explain", str(evidence), "--phenopackets", str(directory), "-q"], env={"SOURCE_DATE_EPOCH": None})
    assert result.exit_code == 0, result.output
    ontology = load_ontology(default_obo_path())
    resolve = ontology.resolve
    explained = {line["pmc_id"]: line for line in map(json.loads, open(evidence, encoding="utf-8"))}
    checked = 0
    for record in map(json.loads, open(out, encoding="utf-8")):
        for patient, features in stated_features(record, explained[record["pmc_id"]], resolve).items():
            packet = json.loads((directory / phenopacket_file_name(f"PMID_{record['pmid']}_{patient}")).read_text(encoding="utf-8"))
            assert {(f["type"]["id"], f.get("excluded", False)) for f in packet.get("phenotypicFeatures", [])} == features, (record["pmc_id"], patient)
            checked += 1
    assert checked > 100
    father = json.loads((directory / "PMID_26467218_P2.json").read_text(encoding="utf-8"))  # "the father in our family presented with ..."
    assert "HP:0008527" in {f["type"]["id"] for f in father["phenotypicFeatures"]}  # Congenital sensorineural hearing impairment
    assert father["metaData"]["created"] == ontology.data_version.removeprefix("hp/releases/") + "T00:00:00Z"
    args = ["phenopackets", str(out), "--articles", str(SHARED), "--evidence", str(evidence), "-o", str(again), "-q"]
    assert CliRunner().invoke(main, args, env={"SOURCE_DATE_EPOCH": None}).exit_code == 0
    assert {p.name: p.read_bytes() for p in again.iterdir()} == {p.name: p.read_bytes() for p in directory.iterdir()}


def test_bioc_infons_carry_every_assertion_and_its_cue():
    cue = {"category": "FAMILY", "text": "Her father", "start": 0, "end": 10, "rule": "context_rules.tsv:300"}
    phenotype = Phenotype(20, 26, "ataxia", ("HP:0001251",), "Ataxia", assertions=("is_family",), cues=[cue])
    infons = annotation_infons(phenotype)
    assert (infons["negated"], infons["is_family"], infons["is_uncertain"], infons["is_hypothetical"], infons["is_historical"]) == ("false", "true", "false", "false", "false")
    assert infons["assertion_cues"] == "FAMILY:Her father@0-10"
