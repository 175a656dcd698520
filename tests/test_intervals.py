"""Overlap queries (phenorules/core/intervals.py) and the greedy choice of matches give what the
obvious scan over all extents gives, on random extents."""

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.intervals import Extents
from phenorules.kb.matcher import non_overlapping

extent = st.tuples(st.integers(0, 60), st.integers(0, 12)).map(lambda pair: (pair[0], pair[0] + pair[1]))
extents = st.lists(extent, max_size=40)


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@settings(max_examples=300, deadline=None)
@given(extents, extents)
def test_overlapping_lists_what_a_scan_finds(indexed, queries):
    index = Extents(indexed)
    for query in queries:
        expected = [i for i, other in enumerate(indexed) if overlap(query, other)]
        assert index.overlapping(*query) == expected
        assert index.overlaps_any(*query) == bool(expected)


def test_no_extents_overlap_nothing():
    assert Extents([]).overlapping(0, 10) == [] and not Extents([]).overlaps_any(0, 10)


@dataclass(frozen=True)
class Candidate:
    start: int
    end: int
    rank: int


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(extent.filter(lambda e: e[1] > e[0]), st.integers(0, 5)), max_size=40))
def test_the_greedy_choice_is_the_one_a_scan_makes(drawn):
    candidates = [Candidate(start, end, rank) for (start, end), rank in drawn]
    chosen: list[Candidate] = []
    for candidate in sorted(candidates, key=lambda c: c.rank):
        if not any(overlap((candidate.start, candidate.end), (c.start, c.end)) for c in chosen):
            chosen.append(candidate)
    assert non_overlapping(candidates, lambda c: c.rank) == sorted(chosen, key=lambda c: c.start)


@settings(max_examples=300, deadline=None)
@given(extents, extents)
def test_a_sorted_list_of_disjoint_extents_answers_overlaps_by_its_neighbours(drawn, queries):
    from sortedcontainers import SortedList

    from phenorules.stages.measurements import _overlaps_sorted

    disjoint: list[tuple[int, int]] = []
    for candidate in drawn:
        if candidate[1] > candidate[0] and not any(overlap(candidate, other) for other in disjoint):
            disjoint.append(candidate)
    for query in queries:
        assert _overlaps_sorted(SortedList(disjoint), *query) == any(overlap(query, other) for other in disjoint)


def test_dense_text_gives_one_mention_per_term_name(mini_nlp):
    """Term names back to back, as in the scaling bench's dense text (benchmarks/scaling.py
    times it; here only what it gives): each name one mention, in text order."""
    from phenorules.core.document import PHENOTYPES, make_text_doc

    names = ["Cleft palate", "Seizure", "Hypotonia", "Ataxia", "Microcephaly", "Short stature", "Hypertelorism", "Edema"] * 40
    doc = mini_nlp(make_text_doc(mini_nlp, ", ".join(names)))
    assert [span.text for span in doc.spans[PHENOTYPES]] == names
    assert not any(span._.negex for span in doc.spans[PHENOTYPES])
