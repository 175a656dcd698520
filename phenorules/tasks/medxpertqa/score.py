"""Scoring the options: information-content weighted similarity of two term sets.

Resnik similarity of two terms is the information content of their most informative
common ancestor; two sets are compared by the best-match average (the mean, over each
set's terms, of its best match in the other set, averaged over both directions). The
option with the highest score is the answer; ties go to the earliest letter, and an
option with no profile scores nothing. The knowledge "speaks" on a question when the
vignette has a phenotype and some option scores above zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from .knowledge import Knowledge
from .profile import QuestionProfile


def resnik(knowledge: Knowledge, a: str, b: str) -> float:
    common = knowledge.ancestors_of(a) & knowledge.ancestors_of(b)
    ic = knowledge.information_content
    return max((ic.get(term, 0.0) for term in common), default=0.0)


def best_match_average(knowledge: Knowledge, first: frozenset[str], second: frozenset[str]) -> float:
    if not first or not second:
        return 0.0
    best_first = dict.fromkeys(first, 0.0)
    best_second = dict.fromkeys(second, 0.0)
    for a in first:
        for b in second:
            similarity = resnik(knowledge, a, b)
            if similarity > best_first[a]:
                best_first[a] = similarity
            if similarity > best_second[b]:
                best_second[b] = similarity
    return 0.5 * (sum(best_first.values()) / len(first) + sum(best_second.values()) / len(second))


@dataclass(frozen=True)
class Answer:
    letter: str
    scores: dict[str, float]
    speaks: bool


def answer(profile: QuestionProfile, knowledge: Knowledge) -> Answer:
    scores = {option.letter: round(best_match_average(knowledge, profile.present, option.terms), 6) for option in profile.options}
    letters = [option.letter for option in profile.options]
    best = max(letters, key=lambda letter: (scores[letter], -letters.index(letter)))
    return Answer(best, scores, scores[best] > 0.0)
