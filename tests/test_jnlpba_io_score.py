"""JNLPBA readers (brat standoff, IOB2) and the seqeval-style chunk scorer, on hand-made fixtures."""

from pathlib import Path

import pytest

from phenorules.core.errors import InputError
from phenorules.tasks.jnlpba.io import read_iob2, read_iob2_documents, read_standoff, spans_to_tags, token_offsets
from phenorules.tasks.jnlpba.score import chunks, format_table, score

FIXTURES = Path(__file__).parent / "fixtures"

TRAIN = FIXTURES / "jnlpba_train"
TEST = FIXTURES / "jnlpba_test.iob2"


def test_standoff_reader_keeps_offsets_and_canonical_types():
    documents = read_standoff(TRAIN)
    assert [d.doc_id for d in documents] == ["doc1", "doc2", "doc3"]
    first = documents[0]
    assert [(e.label, e.text) for e in first.entities][:3] == [("DNA", "IL-2 gene"), ("PROTEIN", "NF-kappa B"), ("CELL_TYPE", "human T cells")]
    assert all(first.text[e.start : e.end] == e.text for e in first.entities)


def test_standoff_offsets_that_disagree_with_the_text_are_an_error(tmp_path):
    (tmp_path / "a.txt").write_text("IL-2 binds.")
    (tmp_path / "a.ann").write_text("T1\tprotein 0 5\tIL-2\n")
    with pytest.raises(InputError, match=r"a\.ann:1: text at 0-5"):
        read_standoff(tmp_path)


def test_standoff_unknown_type_is_an_error(tmp_path):
    (tmp_path / "a.txt").write_text("IL-2 binds.")
    (tmp_path / "a.ann").write_text("T1\tgene 0 4\tIL-2\n")
    with pytest.raises(InputError, match="unknown entity type 'gene'"):
        read_standoff(tmp_path)


def test_iob2_reader_splits_sentences_and_documents():
    documents = read_iob2_documents(TEST)
    assert [len(d) for d in documents] == [2, 1]
    sentences = read_iob2(TEST)
    assert sentences[0].tokens[:3] == ("IL-2", "gene", "expression")
    assert sentences[0].tags[4:7] == ("B-CELL_TYPE", "I-CELL_TYPE", "I-CELL_TYPE")


def test_iob2_bad_tag_is_an_error(tmp_path):
    path = tmp_path / "bad.iob2"
    path.write_text("IL-2\tX-protein\n")
    with pytest.raises(InputError, match=r"bad\.iob2:1: bad IOB2 tag"):
        read_iob2(path)


def test_spans_map_to_the_tokens_they_overlap():
    tokens = ["NF-kappa", "B", "binds", "DNA"]
    offsets = token_offsets(tokens)
    assert offsets[1] == (9, 10)
    assert spans_to_tags([(0, 10, "PROTEIN"), (17, 20, "DNA")], offsets) == ["B-PROTEIN", "I-PROTEIN", "O", "B-DNA"]


def test_chunks_follow_seqeval_default_mode():
    # An I- without B- opens a chunk; a type change or a B- closes one; adjacent B- are two chunks.
    tags = ["I-PROTEIN", "I-PROTEIN", "B-PROTEIN", "I-DNA", "O", "B-RNA", "B-RNA", "I-RNA"]
    assert chunks(tags) == [("PROTEIN", 0, 1), ("PROTEIN", 2, 2), ("DNA", 3, 3), ("RNA", 5, 5), ("RNA", 6, 7)]


def test_score_is_exact_span_exact_type_micro_average():
    gold = [["B-PROTEIN", "I-PROTEIN", "O", "B-DNA"], ["B-CELL_TYPE", "O"]]
    pred = [["B-PROTEIN", "O", "O", "B-DNA"], ["B-CELL_LINE", "O"]]
    result = score(gold, pred)
    assert result["overall"]["tp"] == 1 and result["overall"]["pred"] == 3 and result["overall"]["gold"] == 3
    assert result["per_type"]["DNA"]["f1"] == 1.0
    assert result["per_type"]["PROTEIN"]["f1"] == 0.0
    assert result["accuracy"] == pytest.approx(4 / 6)
    assert "overall" in format_table(result)


def test_chunks_do_not_cross_sentences():
    result = score([["O", "B-DNA"], ["I-DNA", "O"]], [["O", "B-DNA"], ["I-DNA", "O"]])
    assert result["overall"]["gold"] == 2 and result["overall"]["f1"] == 1.0
