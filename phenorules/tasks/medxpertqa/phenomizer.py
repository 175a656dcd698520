"""Phenomizer's similarity of a query to a disease, as a z-score against random queries.

Köhler S, Schulz MH, Krawitz P, et al. Clinical diagnostics in human genetics with semantic
similarity searches in ontologies. Am J Hum Genet 2009;85(4):457-464.

As Phenomizer scores a query of phenotypes against a disease, the similarity is
asymmetric: the mean, over the query's terms, of the Resnik similarity (IC of the most
informative common ancestor; Resnik 1995) of the term's best match in the option's
profile. A large profile matches any query well, so the score is that similarity's z-score
against random queries of the same size, drawn without replacement from all terms below
Phenotypic abnormality; their mean and variance are computed exactly over that
population, not sampled, so the score is deterministic.
"""

from __future__ import annotations

import math

import numpy as np

from .knowledge import Knowledge, closure


def resnik(knowledge: Knowledge, a: str, b: str) -> float:
    common = knowledge.ancestors_of(a) & knowledge.ancestors_of(b)
    ic = knowledge.information_content
    return max((ic.get(term, 0.0) for term in common), default=0.0)


def query_similarity(knowledge: Knowledge, query: frozenset[str], profile_closure: frozenset[str]) -> float:
    """Mean over the query's terms of the best Resnik match in the profile (the most
    informative of the term's ancestors that the profile's closure holds)."""
    if not query:
        return 0.0
    ic = knowledge.information_content
    return sum(max((ic.get(a, 0.0) for a in knowledge.ancestors_of(term) if a in profile_closure), default=0.0) for term in query) / len(query)


def best_match_moments(knowledge: Knowledge, profile_closure: frozenset[str]) -> tuple[float, float]:
    """Mean and standard deviation, over all terms below Phenotypic abnormality, of one
    term's best Resnik match in the profile."""
    random = knowledge.random
    inside = np.zeros(len(random.terms), dtype=bool)
    inside[[random.terms[term] for term in profile_closure]] = True
    best = np.maximum.reduceat(np.where(inside[random.ancestors], random.ic, 0.0), random.starts)
    return float(best.mean()), float(best.std())


def z_score(knowledge: Knowledge, query: frozenset[str], profile: frozenset[str]) -> float:
    """The query similarity's z-score against all random queries of the query's size (a
    mean of n draws without replacement from N terms has variance var/n * (N-n)/(N-1))."""
    profile_closure = closure(knowledge, profile)
    mean, std = best_match_moments(knowledge, profile_closure)
    n, population = len(query), len(knowledge.random.starts)
    spread = std * math.sqrt((population - n) / (n * (population - 1))) if population > 1 and n < population else 0.0
    if spread == 0.0:
        return 0.0
    return (query_similarity(knowledge, query, profile_closure) - mean) / spread
