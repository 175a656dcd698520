"""The variants of many phrases at once, spread over the machine's cores.

Variant generation is most of a lexicon build (40,000 HPO names and synonyms, each chained
through every rule) and each phrase is independent of the others, so the phrases are cut
into chunks that forked processes (:mod:`phenorules.core.forking`) work through with the
parent's :class:`~.variants.VariantResources`; the results come back in input order, so
the lexicon is the same whatever the number of processes.
"""

from __future__ import annotations

from itertools import chain
from typing import Iterator

from ...core.forking import available_cores, forked_pool, inherited
from .variants import VariantResources, chain_rules, variant_stages

CHUNKS_PER_PROCESS = 8  # small enough to even out phrases of unequal cost
MAX_PROCESSES = 8  # beyond this, forking and sending the results back cost more than they save
MIN_PHRASES = 2000  # fewer (a fold's learned rows) are done here: a fork costs more


def variants_of_phrases(phrases: list[str], res: VariantResources, rules: tuple[str, ...], max_chain: int) -> Iterator[dict[str, str]]:
    """:func:`~.variants.generate_variants` of each phrase, in the order given. A phrase
    given several times (a name or synonym of several terms) is worked on once and its
    variants given each time, the same dict: a caller reads them. Each chunk's are given as
    it comes back, so that the caller's work on them goes on beside the workers'."""
    distinct = list(dict.fromkeys(phrases))
    processes = min(available_cores(), MAX_PROCESSES)
    pool = forked_pool(processes, (res, rules, max_chain)) if processes > 1 and len(distinct) >= MIN_PHRASES else None
    if pool is None:
        stages = variant_stages(res, rules)
        yield from _each_phrase(phrases, zip(distinct, (chain_rules(phrase, stages, max_chain) for phrase in distinct)))
        return
    size = -(-len(distinct) // (processes * CHUNKS_PER_PROCESS))
    with pool:
        chunks = pool.map(_variants_of_chunk, (distinct[start : start + size] for start in range(0, len(distinct), size)))
        yield from _each_phrase(phrases, zip(distinct, chain.from_iterable(chunks)))


def _each_phrase(phrases: list[str], made: Iterator[tuple[str, dict[str, str]]]) -> Iterator[dict[str, str]]:
    """The variants of each phrase, from ``made``: (phrase, variants) in the order in which
    the phrases first occur, read as far as the phrase asked for."""
    known: dict[str, dict[str, str]] = {}
    for phrase in phrases:
        if phrase not in known:
            known.update([next(made)])  # the next distinct phrase is this one
        yield known[phrase]


def _variants_of_chunk(phrases: list[str]) -> list[dict[str, str]]:
    res, rules, max_chain = inherited()
    stages = variant_stages(res, rules)
    return [chain_rules(phrase, stages, max_chain) for phrase in phrases]
