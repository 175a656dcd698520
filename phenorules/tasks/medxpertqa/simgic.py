"""simGIC: graph information content similarity of two sets of terms.

Pesquita C, Faria D, Bastos H, Falcão AO, Couto FM. Evaluating GO-based semantic
similarity measures. BMC Bioinformatics 2008;9(Suppl 5):S4 (also in Pesquita et al.,
Metrics for GO based protein semantic similarity: a systematic evaluation, ibid.).

Each set stands for its closure (its terms and all their ancestors). simGIC is the summed
information content of the terms both closures hold over that of the terms either holds:
a Jaccard index in which a term weighs its IC. It is symmetric and in [0, 1]; an option's
profile is rewarded for explaining the vignette's findings and penalised, through the
union, for everything it predicts that the vignette does not say, so a large disease
family does not match every query (the job the Phenomizer score's null model does).
"""

from __future__ import annotations

from .knowledge import Knowledge, closure


def similarity(knowledge: Knowledge, query: frozenset[str], profile: frozenset[str]) -> float:
    """simGIC of the query and the profile (0 when both are empty or carry no IC)."""
    ic = knowledge.information_content
    left, right = closure(knowledge, query), closure(knowledge, profile)
    union = sum(ic.get(term, 0.0) for term in left | right)
    if union == 0.0:
        return 0.0
    return sum(ic.get(term, 0.0) for term in left & right) / union
