"""Chunk scoring over IOB2 tags with seqeval, as evalscope scores it (default mode).

seqeval's default (non-strict, conlleval-compatible) chunking: a chunk starts at ``B-``,
at an ``I-`` that follows ``O`` or a chunk of another type (so an ``I-`` without ``B-``
opens a chunk, as in conlleval), and ends before ``B-``, ``O`` or a change of type.
Sentences are concatenated with an ``O`` between them, so no chunk crosses a sentence.
Precision, recall and F1 are micro averages over exact (type, start, end) chunks;
"accuracy" is seqeval's ``accuracy_score``: the share of tokens whose tag string is equal.
The chunk counts beside them (gold, predicted, correct) are counted from the same chunks.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from seqeval.metrics import accuracy_score
from seqeval.metrics.sequence_labeling import get_entities, precision_recall_fscore_support


def chunks(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """(type, first token, last token) of every chunk, in seqeval's default semantics."""
    return get_entities(list(tags))


def score(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> dict:
    """Per-type and overall (micro) P/R/F1 of exact chunks, and token tag accuracy."""
    if len(gold) != len(pred) or any(len(g) != len(p) for g, p in zip(gold, pred)):
        raise ValueError("gold and predicted tag sequences differ in number or length")
    gold, pred = [list(tags) for tags in gold], [list(tags) for tags in pred]
    gold_chunks, pred_chunks = set(get_entities(gold)), set(get_entities(pred))
    count = lambda chunk_set: Counter(c[0] for c in chunk_set)  # noqa: E731
    n_gold, n_pred, n_tp = count(gold_chunks), count(pred_chunks), count(gold_chunks & pred_chunks)
    types = sorted(set(n_gold) | set(n_pred))

    def figures(precision, recall, f1, tp: int, n_predicted: int, n_true: int) -> dict:
        return {"precision": float(precision), "recall": float(recall), "f1": float(f1), "tp": tp, "pred": n_predicted, "gold": n_true}

    per_type, overall = [], (0.0, 0.0, 0.0)  # seqeval refuses input without a chunk
    if types:
        per_type = list(zip(*precision_recall_fscore_support(gold, pred, zero_division=0)[:3]))
        overall = precision_recall_fscore_support(gold, pred, average="micro", zero_division=0)[:3]
    tokens = sum(len(g) for g in gold)
    return {
        "per_type": {t: figures(*prf, n_tp[t], n_pred[t], n_gold[t]) for t, prf in zip(types, per_type)},
        "overall": figures(*overall, sum(n_tp.values()), len(pred_chunks), len(gold_chunks)),
        "accuracy": float(accuracy_score(gold, pred)) if tokens else 0.0,
        "sentences": len(gold),
        "tokens": tokens,
    }


def format_table(result: dict) -> str:
    """The per-type table, then the micro average and token accuracy."""
    lines = [f"{'type':<10} {'P':>7} {'R':>7} {'F1':>7} {'gold':>6} {'pred':>6} {'tp':>6}"]
    rows = list(result["per_type"].items()) + [("overall", result["overall"])]
    for name, r in rows:
        lines.append(f"{name:<10} {r['precision']:>7.4f} {r['recall']:>7.4f} {r['f1']:>7.4f} {r['gold']:>6} {r['pred']:>6} {r['tp']:>6}")
    lines.append(f"token accuracy {result['accuracy']:.4f} over {result['tokens']} tokens in {result['sentences']} sentences")
    return "\n".join(lines)
