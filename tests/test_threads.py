"""One pipeline shared by threads annotates as it does serially: no stage keeps a document's
state on itself. Over the shared task file's passages when ../shared is there (the spaCy
component with the full ontology, as a user's threads would share it), else over
clinical sentences with the test ontology."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import spacy

from conftest import MINI_OBO

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "patientphex" / "train.jsonl"
SENTENCES = [
    "A 7-year-old boy had cleft lip and palate; he was hypotonic. His sister had seizures.",
    "There was no evidence of cleft palate, hypotonia or ataxia. Short stature is suspected.",
    "Developmental delay (DD) was noted. DD was evident by 9 months, with microcephaly.",
    "Her father has hearing impairment. Atrial and ventricular septal defects were repaired.",
    "The child was ataxic; intellectual disability, moderate, and edema. Return if seizures occur.",
]


def passages() -> list[str]:
    if SHARED.is_file():
        with open(SHARED, encoding="utf-8") as handle:
            return [passage["text"] for line in handle if line.strip() for passage in json.loads(line)["full_text"]]
    return [" ".join(SENTENCES[(i + j) % len(SENTENCES)] for j in range(1 + i % 4)) for i in range(200)]


@pytest.fixture(scope="module")
def shared_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={} if SHARED.is_file() else {"hpo": MINI_OBO, "kb": {"use_cache": False}})
    return nlp


def entities(nlp, text: str) -> list[tuple]:
    doc = nlp(text)
    flags = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")
    return [
        (span.start_char, span.end_char, span._.hpo_ids, tuple(span._.get(flag) for flag in flags), str(span._.patient), tuple(span._.provenance or ()))
        for span in doc.spans["phenotypes"]
    ]


def test_one_pipeline_shared_by_eight_threads_gives_the_entities_it_gives_serially(shared_nlp):
    texts = passages()
    serial = [entities(shared_nlp, text) for text in texts]
    with ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(lambda text: entities(shared_nlp, text), texts))
    assert threaded == serial
    assert sum(map(len, serial)) > 500
