"""Deterministic, stratified assignment of articles to cross-validation folds.

Single-patient and multi-patient articles differ most in the association task, so each
kind is dealt round-robin over the folds on its own (stratified k-fold); the order within
a kind is a hash of the seed and the article id, so the folds do not depend on file order.
"""

from __future__ import annotations

import hashlib

from ...core.errors import SettingError


def _shuffle_key(seed: int, pmc_id: str) -> str:
    return hashlib.sha256(f"{seed}:{pmc_id}".encode()).hexdigest()


def assign_folds(articles: list[dict], folds: int, seed: int = 0) -> dict[str, int]:
    """pmc_id -> fold in ``range(folds)``; fold sizes and patient mixes differ by at most one."""
    if folds < 2 or folds > len(articles):
        raise SettingError(f"--folds must be between 2 and the number of articles ({len(articles)}), got {folds}")
    single = [a["pmc_id"] for a in articles if len(a.get("patient") or []) <= 1]
    multi = [a["pmc_id"] for a in articles if len(a.get("patient") or []) > 1]
    assignment: dict[str, int] = {}
    for pmc_id in sorted(single, key=lambda i: _shuffle_key(seed, i)) + sorted(multi, key=lambda i: _shuffle_key(seed, i)):
        assignment[pmc_id] = len(assignment) % folds
    return assignment
