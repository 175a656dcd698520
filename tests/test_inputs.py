"""Plain text, PatientPheX JSONL and BioC JSON all read as Article objects."""

import json
from pathlib import Path

import pytest

from phenorules.core.article import Article, Passage, layout_passages
from phenorules.core.document import PASSAGES, PHENOTYPES, make_article_doc
from phenorules.core.errors import InputError
from phenorules.formats.inputs import detect_format, read_input

from conftest import FIXTURES
from phenorules.formats.patientphex.identifiers import task_identifier

BIOC = FIXTURES / "bioc_article.json"
EXAMPLE = Path(__file__).parent.parent / "examples" / "example_article.jsonl"


def bioc_collection():
    return json.loads(BIOC.read_text(encoding="utf-8"))


def write_json(path, value, indent=None):
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"She had seizures.", "text"),
        (b"  \n[1] Smith et al. reported seizures.", "text"),  # starts with '[' but is no JSON
        (b'{"pmc_id": "1", "full_text": [', "bioc"),  # a broken JSON line: BioC reading says where
        (EXAMPLE.read_bytes(), "patientphex"),
        (BIOC.read_bytes(), "bioc"),  # pretty-printed: a JSON document over many lines
        (json.dumps(json.loads(BIOC.read_bytes())).encode(), "bioc"),  # one line, a list of collections
        (json.dumps(json.loads(BIOC.read_bytes())[0]).encode(), "bioc"),  # one line, one collection
    ],
)
def test_format_is_told_by_content(content, expected):
    assert detect_format(content) == expected


def test_bioc_documents_become_articles_with_section_types_and_global_offsets():
    (article,) = read_input(str(BIOC))
    assert (article.id, article.pmid, article.patients) == ("9900001", "99000011", ())
    passages = article.passages
    assert [(p.section_type, p.type) for p in passages] == [
        ("TITLE", "front"),
        ("ABSTRACT", "abstract"),
        ("CASE", "title_1"),
        ("CASE", "paragraph"),
        ("FIG", "fig_caption"),
    ]
    text = layout_passages(article.passages)
    for passage, source in zip(passages, bioc_collection()[0]["documents"][0]["passages"]):
        assert text[source["offset"] : source["offset"] + len(source["text"])] == source["text"] == passage.text


def test_bioc_phenotypes_are_at_the_bioc_offsets(mini_nlp):
    (article,) = read_input(str(BIOC))
    doc = mini_nlp(make_article_doc(mini_nlp, article))
    assert [span.label_ for span in doc.spans[PASSAGES]] == ["TITLE", "ABSTRACT", "CASE", "CASE", "FIG"]
    case = bioc_collection()[0]["documents"][0]["passages"][3]
    offset = case["offset"] + case["text"].index("atrial septal defect")
    assert ("atrial septal defect", "HP:0001631") in [(s.text, task_identifier(s._.hpo_ids)) for s in doc.spans[PHENOTYPES] if s.start_char == offset]


def test_bioc_without_pmc_infons_gets_default_section_and_type(tmp_path):
    collection = {"documents": [{"id": "123", "passages": [{"offset": 0, "text": "Hypotonia.", "infons": {}}]}]}
    (article,) = read_input(write_json(tmp_path / "in.json", collection), "bioc")
    assert article.pmid is None
    assert article.passages == (Passage(offset=0, text="Hypotonia.", section_type="TEXT", type="paragraph"),)


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda c: c[0].pop("documents"), r"collection 0\.documents: missing$"),
        (lambda c: c[0]["documents"][0].update(id=7), r"collection 0, documents\[0\]\.id: expected a string, got 7$"),
        (lambda c: c[0]["documents"].append(c[0]["documents"][0]), r"documents\[1\]\.id: duplicate document '9900001'$"),
        (lambda c: c[0]["documents"][0]["passages"][2].update(offset="80"), r"\(9900001\), passages\[2\]\.offset: expected a non-negative integer, got \"80\"$"),
        (lambda c: c[0]["documents"][0]["passages"][2].update(offset=80), r"passages\[2\]\.offset: 80 overlaps or precedes the previous passage, which ends at 144$"),
    ],
)
def test_bioc_errors_name_the_place(tmp_path, change, expected):
    collection = bioc_collection()
    change(collection)
    path = write_json(tmp_path / "in.json", collection)
    with pytest.raises(InputError, match=f"^{path}: .*{expected}"):
        read_input(path)


def test_malformed_bioc_names_the_line(tmp_path):
    path = tmp_path / "in.json"
    lines = BIOC.read_text(encoding="utf-8").splitlines()
    lines[11] = lines[11].rstrip(",")  # '"id": "9900001"' without its comma
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError, match=r"in\.json, line 13: malformed JSON at column \d+: Expecting ',' delimiter$"):
        read_input(str(path))


def test_plain_text_is_one_passage_named_after_the_file(tmp_path):
    path = tmp_path / "case-7.txt"
    path.write_text("She had seizures.\n", encoding="utf-8")
    assert read_input(str(path)) == [
        Article(id="case-7", pmid=None, patients=(), passages=(Passage(section_type="TEXT", type="paragraph", offset=0, text="She had seizures.\n"),))
    ]


def test_text_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(InputError, match=r"in\.txt, line 2: not UTF-8 \(byte 0xe9\)$"):
        read_input(str(path))


def test_jsonl_is_read_and_checked_as_the_task_defines_it():
    (article,) = read_input(str(EXAMPLE))
    assert article.id == "EXAMPLE1" and [p.id for p in article.patients] == ["P1", "P2"]
