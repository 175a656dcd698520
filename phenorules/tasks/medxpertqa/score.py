"""Scoring the options: the vignette's similarity to each option's profile.

Two similarities, one module each: simGIC (:mod:`.simgic`, Pesquita et al. 2008; the
default, chosen on the development half of the sample) and Phenomizer's Resnik
query-to-disease similarity as a z-score against random queries (:mod:`.phenomizer`,
Köhler et al. 2009).

The option with the highest score is the answer; ties go to the earliest letter. An option
with no profile gets no score and is never chosen over one with a profile. The knowledge
"speaks" on a question when the vignette has a phenotype and some option has a profile;
when it does not, the answer is the first letter (deterministic, counted outside the
coverage).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import phenomizer, simgic
from .knowledge import Knowledge
from .profile import QuestionProfile

Similarity = Callable[[Knowledge, frozenset, frozenset], float]
SIMILARITIES: dict[str, Similarity] = {"simgic": simgic.similarity, "phenomizer": phenomizer.z_score}
DEFAULT_SIMILARITY = "simgic"


@dataclass(frozen=True)
class Answer:
    letter: str
    scores: dict[str, float]  # similarity of each option with a profile
    speaks: bool


def answer(profile: QuestionProfile, knowledge: Knowledge, similarity: str = DEFAULT_SIMILARITY) -> Answer:
    measure = SIMILARITIES[similarity]
    letters = [option.letter for option in profile.options]
    if not profile.present:
        return Answer(letters[0], {}, False)
    scores = {option.letter: round(measure(knowledge, profile.present, option.terms), 6) for option in profile.options if option.terms}
    if not scores:
        return Answer(letters[0], {}, False)
    best = max(scores, key=lambda letter: (scores[letter], -letters.index(letter)))
    return Answer(best, scores, True)
