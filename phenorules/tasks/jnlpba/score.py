"""Chunk scoring over IOB2 tags exactly as evalscope computes it (seqeval, default mode).

seqeval's default (non-strict, conlleval-compatible) chunking: a chunk starts at ``B-``,
at an ``I-`` that follows ``O`` or a chunk of another type (so an ``I-`` without ``B-``
opens a chunk, as in conlleval), and ends before ``B-``, ``O`` or a change of type.
Sentences are concatenated with an ``O`` between them, so no chunk crosses a sentence.
Precision, recall and F1 are micro averages over exact (type, start, end) chunks;
"accuracy" is seqeval's ``accuracy_score``: the share of tokens whose tag string is equal.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence


def chunks(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """(type, first token, last token) of every chunk, in seqeval's default semantics."""
    out: list[tuple[str, int, int]] = []
    start, current = None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        prefix, label = (tag[0], tag[2:]) if tag != "O" else ("O", None)
        ends = current is not None and (prefix in ("B", "O") or label != current)
        if ends:
            out.append((current, start, i - 1))
            current = None
        if prefix in ("B", "I") and current is None:
            start, current = i, label
    return out


def _prf(tp: int, n_pred: int, n_gold: int) -> dict:
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "pred": n_pred, "gold": n_gold}


def score(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> dict:
    """Per-type and overall (micro) P/R/F1 of exact chunks, and token tag accuracy."""
    if len(gold) != len(pred) or any(len(g) != len(p) for g, p in zip(gold, pred)):
        raise ValueError("gold and predicted tag sequences differ in number or length")
    gold_chunks, pred_chunks = set(), set()
    for sentence, (g, p) in enumerate(zip(gold, pred)):
        gold_chunks.update((sentence,) + c for c in chunks(g))
        pred_chunks.update((sentence,) + c for c in chunks(p))
    correct = gold_chunks & pred_chunks
    count = lambda chunk_set: Counter(c[1] for c in chunk_set)  # noqa: E731
    n_gold, n_pred, n_tp = count(gold_chunks), count(pred_chunks), count(correct)
    types = sorted(set(n_gold) | set(n_pred))
    tokens = sum(len(g) for g in gold)
    equal = sum(a == b for g, p in zip(gold, pred) for a, b in zip(g, p))
    return {
        "per_type": {t: _prf(n_tp[t], n_pred[t], n_gold[t]) for t in types},
        "overall": _prf(len(correct), len(pred_chunks), len(gold_chunks)),
        "accuracy": equal / tokens if tokens else 0.0,
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
