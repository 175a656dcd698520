"""FastHPOCR (PyPI ``fasthpocr``) on a PatientPheX file, for ``benchmarks/bench.py`` to
time beside phenorules. Runs in the bench's own environment (.venv-bench).

    python fasthpocr_run.py index HP.OBO INDEX_DIR
    python fasthpocr_run.py annotate INDEX_DIR ARTICLES.jsonl
    python fasthpocr_run.py texts INDEX_DIR TEXTS.json

``index`` builds FastHPOCR's index once (as phenorules builds its cache once). FastHPOCR's
``CRIndexKB.compileClusterList`` scans every base-cluster token for every cluster (hours on
a current HPO); here the same lists are read from one inverted mapping (cluster -> tokens
in the base clusters' order), which gives the same index file in seconds.
``annotate`` loads the index and annotates every passage of every article; the caller
times the whole process (start-up included). Prints the number of annotations found.
``texts`` (for ``benchmarks/public_corpora.py``) annotates each text of a JSON object
{id: text} with FastHPOCR's defaults and prints {id: [[start, end, hpo_id], ...]} as JSON.
"""

from __future__ import annotations

import json
import os
import sys


def _inverted_prepare(self, baseClusters):
    """CRIndexKB.prepareClustersToSerialise with one pass over the base clusters."""
    tokens_of: dict[str, list[str]] = {}
    for token, cluster_id in baseClusters.items():
        tokens_of.setdefault(cluster_id, []).append(token)
    for token, cluster_id in self.invertedClusters.items():
        self.clusters[cluster_id] = [token]
    for cluster_id in self.clusters:
        listed = list(tokens_of.get(cluster_id, []))
        for token in self.clusters[cluster_id]:
            if token not in listed:
                listed.append(token)
        self.clusters[cluster_id] = listed


def build_index(obo: str, index_dir: str) -> None:
    from FastHPOCR.cr.CRIndexKB import CRIndexKB
    from FastHPOCR.IndexHPO import IndexHPO

    CRIndexKB.prepareClustersToSerialise = _inverted_prepare
    os.makedirs(index_dir, exist_ok=True)
    IndexHPO(obo, index_dir).index()


def annotate(index_dir: str, articles: str) -> None:
    from FastHPOCR.HPOAnnotator import HPOAnnotator

    annotator = HPOAnnotator(os.path.join(index_dir, "hp.index"))
    found = 0
    with open(articles, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                for passage in json.loads(line)["full_text"]:
                    found += len(annotator.annotate(passage["text"]))
    print(found)


def annotate_texts(index_dir: str, texts: str) -> None:
    from FastHPOCR.HPOAnnotator import HPOAnnotator

    annotator = HPOAnnotator(os.path.join(index_dir, "hp.index"))
    with open(texts, encoding="utf-8") as handle:
        by_id = json.load(handle)
    found = {
        text_id: sorted([a.getStartOffset(), a.getEndOffset(), a.getHPOUri()] for a in annotator.annotate(text))
        for text_id, text in by_id.items()
    }
    print(json.dumps(found, sort_keys=True))


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"index": build_index, "annotate": annotate, "texts": annotate_texts}[command](*arguments)
