import pytest

from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.stages.scope import read_passage_types
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.records import predict

from conftest import MINI_OBO

CAPTION = "Table 1. Seizures in the cohort."
PARAGRAPH = "The boy had seizures."


def _article() -> dict:
    return {
        "pmc_id": "T1",
        "pmid": None,
        "patient": [{"patient_id": "P1", "mention": []}],
        "full_text": [
            {"section_type": "CASE", "type": "paragraph", "offset": 0, "text": PARAGRAPH},
            {"section_type": "TABLE", "type": "table_caption", "offset": len(PARAGRAPH) + 1, "text": CAPTION},
        ],
    }


def _mentions(nlp) -> list[tuple[int, str]]:
    (record,) = predict(nlp, [to_article(_article())])
    return [(entity["offset"], entity["text"]) for entity in record["entities"]]


def test_mentions_in_a_table_caption_are_dropped(mini_nlp):
    assert _mentions(mini_nlp) == [(12, "seizures")]


def test_without_the_scope_stage_the_caption_keeps_its_mention():
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, disable=["scope"])
    assert _mentions(nlp) == [(12, "seizures"), (len(PARAGRAPH) + 10, "Seizures")]


def test_an_empty_passage_list_is_refused(tmp_path):
    path = tmp_path / "passages.tsv"
    path.write_text("# nothing\n")
    with pytest.raises(InputError, match="no passage type listed"):
        read_passage_types(path)


def test_a_dropped_mention_is_in_the_explain_evidence_with_the_passage_type_row(mini_nlp):
    from phenorules.core.annotated import annotated_articles
    from phenorules.formats.patientphex.evidence import evidence_record

    evidence = [evidence_record(result) for result in annotated_articles(mini_nlp, [to_article(_article())])]
    ((dropped,),) = [record["dropped"] for record in evidence]
    ref = mini_nlp.get_pipe("scope").passage_types["table_caption"]
    assert str(ref).startswith("unannotated_passages.tsv:")
    assert dropped == {"offset": len(PARAGRAPH) + 10, "length": 8, "text": "Seizures", "identifier": "HP:0001250", "rule": f"scope:{ref}"}
