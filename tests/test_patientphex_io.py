"""PatientPheX JSONL reading (one-line errors), article text, and deterministic atomic writing."""

import copy
import json
import os
from pathlib import Path

import pytest

from phenorules.core.errors import InputError
from phenorules.formats.patientphex.io import (
    article_text,
    read_articles,
    read_predictions,
    write_predictions,
)

FIXTURE = Path(__file__).parent / "fixtures" / "patientphex_annotated.jsonl"


@pytest.fixture
def articles():
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path, rows):
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def read_error(tmp_path, rows, gold=True):
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    with pytest.raises(InputError) as caught:
        read_articles(str(path), gold=gold)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}, line ")
    return message


# --- reading the fixture -------------------------------------------------------------


def test_fixture_reads_in_file_order(articles):
    read = read_articles(str(FIXTURE), gold=True)
    assert [article["pmc_id"] for article in read] == ["9000001", "9000002"]
    assert read == articles


def test_global_offsets_index_the_article_text(articles):
    text = article_text(articles[0])
    assert text.startswith("Seizures and microcephaly in two siblings\nWe describe")
    assert "hypotonia.\n\n\nThe proband" in text
    for entity in articles[0]["entities"]:
        assert text[entity["offset"] : entity["offset"] + entity["length"]] == entity["text"]


def test_blank_lines_are_skipped_and_still_counted(tmp_path, articles):
    path = tmp_path / "in.jsonl"
    path.write_text("\n" + json.dumps(articles[0]) + "\n  \n{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match=r", line 4: malformed JSON at column 2"):
        read_articles(str(path))


def test_unannotated_reading_ignores_entities_and_association(tmp_path, articles):
    articles[0]["entities"] = [{"garbage": True}]
    articles[0]["association"] = "nonsense"
    del articles[1]["entities"], articles[1]["association"]
    path = write_jsonl(tmp_path / "in.jsonl", articles)
    assert len(read_articles(str(path))) == 2


def test_gold_quirks_of_the_real_training_file_are_accepted(tmp_path, articles):
    entities = articles[0]["entities"]
    entities[0]["identifier"] = "HP:000328"  # six digits
    entities[1]["identifier"] = "MESH:D009069;MESH:D014786"
    entities[2]["note"] = "D"
    entities[5]["identifier"] = "HP:0410030;-1"
    articles[0]["full_text"][1]["title"] = "an extra passage key"
    path = write_jsonl(tmp_path / "in.jsonl", articles)
    assert read_articles(str(path), gold=True)[0]["entities"][0]["identifier"] == "HP:000328"


# --- file-level errors ---------------------------------------------------------------


def test_missing_file(tmp_path):
    path = tmp_path / "nope.jsonl"
    with pytest.raises(InputError, match=r"nope\.jsonl: no such file$"):
        read_articles(str(path))


def test_not_utf8_names_the_line_and_byte(tmp_path, articles):
    path = tmp_path / "in.jsonl"
    path.write_bytes(json.dumps(articles[0]).encode() + b'\n{"pmc_id": "caf\xe9"}\n')
    expected = r"in\.jsonl, line 2: not UTF-8 \(byte 0xe9 at column 16\)$"
    with pytest.raises(InputError, match=expected):
        read_articles(str(path))


def test_malformed_json_names_the_line(tmp_path, articles):
    path = tmp_path / "in.jsonl"
    truncated = json.dumps(articles[1])[:-1]
    path.write_text(json.dumps(articles[0]) + "\n" + truncated + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"in\.jsonl, line 2: malformed JSON at column \d+: "):
        read_articles(str(path))


def test_duplicate_pmc_id_names_both_lines(tmp_path, articles):
    message = read_error(tmp_path, [articles[0], articles[1], articles[0]])
    assert message.endswith("line 3, article 9000001: pmc_id: duplicate of line 1")


# --- article-level errors ------------------------------------------------------------

DELETE = object()


def _broken(article, path, value):
    """A copy of ``article`` with the item at ``path`` set to ``value`` (or deleted)."""
    article = copy.deepcopy(article)
    target = article
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return article


MENTION = ("patient", 0, "mention", 0)

ARTICLE_ERRORS = [
    (("pmc_id",), DELETE, "line 2: pmc_id: missing"),
    (("pmc_id",), 9000002, "line 2: pmc_id: expected string, got integer"),
    (("pmc_id",), "", "line 2: pmc_id: empty string"),
    (("pmid",), 123, "article 9000002: pmid: expected string or null, got integer"),
    (("patient",), {}, "article 9000002: patient: expected array, got object"),
    (("patient", 0, "patient_id"), DELETE, "patient[0].patient_id: missing"),
    (("patient", 1, "patient_id"), "P1", "patient[1].patient_id: duplicate patient 'P1'"),
    (("patient", 0, "mention"), None, "patient[0].mention: expected array, got null"),
    (("patient", 1, "mention", 0, "offset"), DELETE, "patient[1].mention[0].offset: missing"),
    (MENTION + ("offset",), True, "mention[0].offset: expected integer, got boolean"),
    (MENTION + ("offset",), 1.0, "mention[0].offset: expected integer, got number"),
    (MENTION + ("offset",), -1, "patient[0].mention[0].offset: negative (-1)"),
    (MENTION + ("length",), 0, "patient[0].mention[0].length: a mention cannot be empty"),
    (
        MENTION + ("offset",),
        1,
        "patient[0].mention[0].text: 'A 3-year-old girl' does not equal the article text "
        "at offset 1, length 17 (' 3-year-old girl ')",
    ),
    (
        MENTION + ("offset",),
        60,
        "patient[0].mention[0].text: 'A 3-year-old girl' does not equal the article text "
        "at offset 60, length 17 ('lthy.')",
    ),
    (("full_text",), DELETE, "article 9000002: full_text: missing"),
    (("full_text", 0, "section_type"), DELETE, "full_text[0].section_type: missing"),
    (("full_text", 0, "text"), ["x"], "full_text[0].text: expected string, got array"),
]


@pytest.mark.parametrize("path,value,expected", ARTICLE_ERRORS)
def test_article_errors_name_line_article_and_field(tmp_path, articles, path, value, expected):
    broken = _broken(articles[1], path, value)
    message = read_error(tmp_path, [articles[0], broken], gold=False)
    assert message.endswith(expected)


def test_non_object_line(tmp_path, articles):
    message = read_error(tmp_path, [articles[0], [1, 2]])
    assert message.endswith("line 2: article: expected object, got array")


def test_overlapping_passages(tmp_path, articles):
    message = read_error(tmp_path, [_broken(articles[0], ("full_text", 2, "offset"), 100)])
    assert message.endswith(
        "line 1, article 9000001: full_text[2].offset: 100 overlaps or precedes the previous "
        "passage, which ends at 120"
    )


def test_passages_going_backwards(tmp_path, articles):
    passages = articles[0]["full_text"]
    backwards = [passages[0], passages[2], passages[1]]
    message = read_error(tmp_path, [_broken(articles[0], ("full_text",), backwards)])
    assert message.endswith(
        "full_text[2].offset: 42 overlaps or precedes the previous passage, which ends at 240"
    )


NOT_AN_ID = "is not '-1' or ';'-joined ids like HP:0001250"

ANNOTATION_ERRORS = [
    (("entities",), DELETE, "article 9000001: entities: missing"),
    (("entities", 0, "offset"), DELETE, "entities[0].offset: missing"),
    (("entities", 0, "text"), DELETE, "entities[0].text: missing"),
    (
        ("entities", 2, "offset"),
        89,
        "entities[2].text: 'seizures' does not equal the article text at offset 89, "
        "length 8 ('eizures.')",
    ),
    (("entities", 0, "identifier"), 1250, "entities[0].identifier: expected string, got integer"),
    (("entities", 0, "note"), 0, "entities[0].note: expected string or null, got integer"),
    (("entities", 0, "type"), None, "entities[0].type: expected string, got null"),
    (("association",), DELETE, "article 9000001: association: missing"),
    (
        ("association", 1, "patient_id"),
        "OII-9",
        "association[1].patient_id: 'OII-9' is not one of the article's patients",
    ),
    (
        ("association", 0, "phenotype"),
        "HP:0001250",
        "association[0].phenotype: expected array, got string",
    ),
    (
        ("association", 0, "phenotype", 2),
        None,
        "association[0].phenotype[2]: expected a non-empty string",
    ),
]


@pytest.mark.parametrize("path,value,expected", ANNOTATION_ERRORS)
def test_annotation_errors_when_annotated(tmp_path, articles, path, value, expected):
    message = read_error(tmp_path, [_broken(articles[0], path, value), articles[1]])
    assert message.endswith(expected)
    assert "line 1, article 9000001: " in message


@pytest.mark.parametrize("identifier", ["N", "HP:0000252 ", "seizure", "HP:0001250;", "HP:0001250; HP:0000252"])
def test_odd_gold_identifiers_are_scored_as_written_with_a_warning(tmp_path, articles, capsys, identifier):
    path = write_jsonl(tmp_path / "gold.jsonl", [_broken(articles[0], ("entities", 0, "identifier"), identifier), articles[1]])
    gold = read_articles(str(path), gold=True)
    assert gold[0]["entities"][0]["identifier"] == identifier
    (warning,) = capsys.readouterr().err.splitlines()
    assert warning.startswith(f"phenorules: warning: {path}, line 1, article 9000001: entities[0].identifier: {identifier!r} {NOT_AN_ID}")


def test_odd_identifiers_in_predictions_are_still_refused(tmp_path, articles):
    record = {key: articles[0][key] for key in ("pmc_id", "pmid", "entities", "association")}
    record["entities"][0]["identifier"] = "N"
    path = write_jsonl(tmp_path / "pred.jsonl", [record])
    with pytest.raises(InputError, match=f"entities\\[0\\].identifier: 'N' {NOT_AN_ID}"):
        read_predictions(str(path))


# --- predictions ---------------------------------------------------------------------


def _records(articles):
    return [
        {key: article[key] for key in ("pmc_id", "pmid", "entities", "association")}
        for article in articles
    ]


def test_round_trip_through_read_predictions(tmp_path, articles):
    path = tmp_path / "pred.jsonl"
    write_predictions(str(path), _records(articles))
    read = read_predictions(str(path))
    assert [r["pmc_id"] for r in read] == ["9000001", "9000002"]
    assert read[0]["entities"] == sorted(
        articles[0]["entities"], key=lambda e: (e["offset"], e["length"], e["identifier"])
    )
    assert read[0]["association"] == [
        {
            "patient_id": "OII-1",
            "phenotype": ["HP:0000175", "HP:0000252", "HP:0001250", "HP:0410030"],
        },
        {"patient_id": "OII-2", "phenotype": ["HP:0001250", "Moebius-like facial weakness"]},
    ]
    assert read[1]["pmid"] is None


def test_output_keys_are_in_the_fixed_order_and_unicode_is_kept(tmp_path, articles):
    path = tmp_path / "pred.jsonl"
    write_predictions(str(path), _records(articles))
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    assert list(record) == ["pmc_id", "pmid", "entities", "association"]
    assert list(record["entities"][0]) == ["identifier", "type", "offset", "length", "text", "note"]
    assert "café-au-lait spots" in lines[1]


def test_same_predictions_in_another_order_give_the_same_bytes(tmp_path, articles):
    records = _records(articles)
    shuffled = copy.deepcopy(records)
    shuffled[0]["entities"].reverse()
    shuffled[0]["entities"].append(dict(shuffled[0]["entities"][0]))  # an exact duplicate
    for entry in shuffled[0]["association"]:
        entry["phenotype"].reverse()
    for entity in shuffled[0]["entities"]:
        entity_items = list(entity.items())
        entity.clear()
        entity.update(reversed(entity_items))
    write_predictions(str(tmp_path / "a.jsonl"), records)
    write_predictions(str(tmp_path / "b.jsonl"), shuffled)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_ties_on_span_and_id_sort_the_same_way(tmp_path):
    entities = [
        {"identifier": "HP:0000001", "offset": 0, "length": 1, "text": "x", "note": "NO"},
        {"identifier": "HP:0000001", "offset": 0, "length": 1, "text": "x", "note": None},
    ]
    write_predictions(str(tmp_path / "a.jsonl"), [{"pmc_id": "1", "entities": entities}])
    write_predictions(str(tmp_path / "b.jsonl"), [{"pmc_id": "1", "entities": entities[::-1]}])
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    written = json.loads((tmp_path / "a.jsonl").read_text())
    assert [e["note"] for e in written["entities"]] == [None, "NO"]
    assert written["pmid"] is None and written["association"] == []
    assert written["entities"][0]["type"] == "Phenotype"


def test_dash_writes_to_stdout(capsys, articles):
    write_predictions("-", _records(articles)[1:])
    out = capsys.readouterr().out
    assert json.loads(out)["pmc_id"] == "9000002"
    assert out.count("\n") == 1


def test_failure_mid_write_leaves_the_previous_file_intact(tmp_path, articles):
    path = tmp_path / "pred.jsonl"
    path.write_text("previous\n", encoding="utf-8")
    records = _records(articles)
    records[1]["entities"][0]["note"] = object()  # not JSON: fails on the second line
    with pytest.raises(TypeError):
        write_predictions(str(path), records)
    assert path.read_text(encoding="utf-8") == "previous\n"
    assert os.listdir(tmp_path) == ["pred.jsonl"]


def test_failed_rename_is_an_input_error_and_leaves_no_temporary(tmp_path, articles, monkeypatch):
    path = tmp_path / "pred.jsonl"
    path.write_text("previous\n", encoding="utf-8")

    def refuse(source, target):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    expected = r"pred\.jsonl: cannot write the predictions: Permission denied$"
    with pytest.raises(InputError, match=expected):
        write_predictions(str(path), _records(articles))
    assert path.read_text(encoding="utf-8") == "previous\n"
    assert os.listdir(tmp_path) == ["pred.jsonl"]


def test_unwritable_path_is_an_input_error_naming_it(tmp_path, articles):
    path = tmp_path / "no-such-dir" / "pred.jsonl"
    with pytest.raises(InputError, match=r"no-such-dir/pred\.jsonl: cannot write the predictions: "):
        write_predictions(str(path), _records(articles))


def test_written_file_is_readable_by_others(tmp_path, articles):
    path = tmp_path / "pred.jsonl"
    write_predictions(str(path), _records(articles))
    assert path.stat().st_mode & 0o777 == 0o644


def test_read_predictions_checks_shape(tmp_path):
    record = {"pmc_id": "1", "pmid": None, "entities": [{"identifier": "HP:0000001"}]}
    path = write_jsonl(tmp_path / "pred.jsonl", [{**record, "association": []}])
    with pytest.raises(InputError, match=r"line 1, article 1: entities\[0\]\.offset: missing$"):
        read_predictions(str(path))
