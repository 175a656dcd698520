"""Accuracy as evalscope counts it (the parsed letter equals the label), overall and per
group, with coverage, the random baseline and a 95% Wilson interval beside each figure.

The questions are also split into a development half and a held-out half by a hash of
their id (:func:`half`), fixed before any scorer variant was tried: methods and thresholds
are chosen on the development half, and the held-out half says how far that choice carries.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass

from scipy.stats import binomtest

from .io import GROUP_FIELDS


@dataclass(frozen=True)
class Outcome:
    id: str
    groups: dict[str, str]
    correct: bool
    speaks: bool
    options: int


SPLIT_FIELD = "split"


def half(question_id: str) -> str:
    """"dev" when the first byte of the SHA-256 of the id is even, else "held-out"."""
    return "dev" if hashlib.sha256(question_id.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def interval(correct: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (scipy's binomtest)."""
    if total == 0:
        return (0.0, 0.0)
    ci = binomtest(correct, total).proportion_ci(confidence_level=0.95, method="wilson")
    return (ci.low, ci.high)


def summary(outcomes: list[Outcome]) -> dict:
    """Counts, accuracy and interval, on all questions and on those the knowledge speaks to."""
    n = len(outcomes)
    right = sum(o.correct for o in outcomes)
    spoken = [o for o in outcomes if o.speaks]
    spoken_right = sum(o.correct for o in spoken)
    random = sum(1 / o.options for o in outcomes) / n if n else 0.0
    return {
        "questions": n,
        "correct": right,
        "accuracy": right / n if n else 0.0,
        "interval": interval(right, n),
        "coverage": len(spoken) / n if n else 0.0,
        "spoken": len(spoken),
        "spoken_correct": spoken_right,
        "spoken_accuracy": spoken_right / len(spoken) if spoken else 0.0,
        "spoken_interval": interval(spoken_right, len(spoken)),
        "random": random,
    }


def report(outcomes: list[Outcome]) -> dict:
    groups: dict[str, dict[str, list[Outcome]]] = {name: defaultdict(list) for name in (SPLIT_FIELD, *GROUP_FIELDS)}
    for outcome in outcomes:
        groups[SPLIT_FIELD][half(outcome.id)].append(outcome)
        for name in GROUP_FIELDS:
            if name in outcome.groups:
                groups[name][outcome.groups[name]].append(outcome)
    return {
        "overall": summary(outcomes),
        "groups": {name: {value: summary(members) for value, members in sorted(by_value.items())} for name, by_value in groups.items() if by_value},
    }


def _row(name: str, s: dict) -> str:
    low, high = s["interval"]
    spoken = "-"
    if s["spoken"]:
        spoken_low, spoken_high = s["spoken_interval"]
        spoken = f"{s['spoken_correct']}/{s['spoken']} = {s['spoken_accuracy']:.3f} [{spoken_low:.3f}, {spoken_high:.3f}]"
    return f"| {name} | {s['questions']} | {s['accuracy']:.3f} [{low:.3f}, {high:.3f}] | {s['random']:.3f} | {s['coverage']:.3f} | {spoken} |"


def format_table(result: dict) -> str:
    """Markdown: one row overall, then one per value of each group field."""
    lines = [
        "| group | n | accuracy [95% Wilson] | random | coverage (silent: first letter) | where the knowledge speaks [95% Wilson] |",
        "| --- | ---: | --- | ---: | ---: | --- |",
        _row("all", result["overall"]),
    ]
    for name, by_value in result["groups"].items():
        for value, s in by_value.items():
            lines.append(_row(f"{name}: {value}", s))
    return "\n".join(lines)
