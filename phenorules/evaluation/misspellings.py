"""A generated suite of misspelt term names, and a check that English words stay words.

``misspelling_cases``: term names of the phenotype branch that hold a lexicon word of at
least MIN_LENGTH letters (the spelling index's words), each written in a sentence once as
it is (the control) and once per edit kind with that word misspelt: a letter dropped, a
letter inserted, a letter replaced, two neighbouring different letters swapped, at places
and with letters drawn from a seeded random generator. An edit that makes another lexicon
word is drawn again. :func:`misspelling_recall` counts, per edit kind, the cases whose
term id is found among those whose control is found.

``english_hits``: English words of another list than the stage's (``benchmarks/
misspellings.py`` reads Webster's Second International, web2, through the english-words
package) that are no lexicon word, each in the sentence "It was WORD."; a hit is a mention
the spelling stage made. Only the words the stage reads as misspelt can give one, so only
their sentences are run.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Iterable

from ..kb.lexicon.normalize import normalize_key
from ..kb.ontology import PHENOTYPIC_ABNORMALITY, Ontology
from ..kb.spelling import EDITS, MIN_WRITTEN, SpellingIndex
from .phrasing import found_ids

SPELLING_RULE = "spelling:"


@dataclass(frozen=True)
class Misspelling:
    kind: str  # one of EDITS
    control: str  # the sentence with the name as it is
    text: str  # the sentence with one word misspelt
    hpo_id: str
    written: str  # the misspelt word


def misspelt(word: str, kind: str, rng: random.Random) -> str:
    """``word`` with one edit of ``kind`` at a random place."""
    i = rng.randrange(len(word))
    if kind == "deletion":
        return word[:i] + word[i + 1 :]
    if kind == "insertion":
        return word[:i] + rng.choice(string.ascii_lowercase) + word[i:]
    if kind == "substitution":
        return word[:i] + rng.choice(string.ascii_lowercase.replace(word[i], "")) + word[i + 1 :]
    places = [j for j in range(len(word) - 1) if word[j] != word[j + 1]]
    j = rng.choice(places)
    return word[:j] + word[j + 1] + word[j] + word[j + 2 :]


def misspelling_cases(ontology: Ontology, index: SpellingIndex, terms: int = 500, seed: int = 0) -> list[Misspelling]:
    """Four cases (one per edit kind) for each of ``terms`` names drawn with ``seed``."""
    rng = random.Random(seed)
    names = []
    for hpo_id, name in sorted(ontology.names.items()):
        words = [word for word in normalize_key(name).split() if word in index.word_set]
        if hpo_id != PHENOTYPIC_ABNORMALITY and words:
            names.append((hpo_id, normalize_key(name), words))
    cases = []
    for hpo_id, name, words in rng.sample(names, min(terms, len(names))):
        word = rng.choice(words)
        control = f"The patient had {name}."
        for kind in EDITS:
            written = misspelt(word, kind, rng)
            while written in index.word_set:
                written = misspelt(word, kind, rng)
            phrase = " ".join(written if part == word else part for part in name.split())
            cases.append(Misspelling(kind, control, f"The patient had {phrase}.", hpo_id, written))
    return cases


def misspelling_recall(nlp, cases: list[Misspelling]) -> dict[str, tuple[int, int]]:
    """Edit kind (and ``all``) -> (cases found, cases whose control is found)."""
    controls = sorted({case.control for case in cases})
    control_ids = dict(zip(controls, found_ids(nlp, controls)))
    kept = [case for case in cases if case.hpo_id in control_ids[case.control]]
    found = found_ids(nlp, (case.text for case in kept))
    counts = {kind: [0, 0] for kind in (*EDITS, "all")}
    for case, ids in zip(kept, found):
        for kind in (case.kind, "all"):
            counts[kind][1] += 1
            counts[kind][0] += case.hpo_id in ids
    return {kind: (hit, total) for kind, (hit, total) in counts.items()}


def english_hits(nlp, words: Iterable[str]) -> tuple[int, list[str], list[str]]:
    """(the English words checked, those the spelling stage reads as misspelt, those that
    gave a mention of the spelling stage): the words of ``words`` of at least MIN_WRITTEN
    letters that are no lexicon word."""
    stage, index = nlp.get_pipe("spelling"), nlp.get_pipe("spelling").kb.spelling
    checked = sorted({word for word in map(normalize_key, words) if len(word) >= MIN_WRITTEN and word.isalpha() and word not in index.word_set})
    read = [word for word in checked if stage.reading(word) is not None]
    docs = nlp.pipe((f"It was {word}." for word in read), batch_size=256)
    hits = [word for word, doc in zip(read, docs) if any(SPELLING_RULE in rule for span in doc.spans["phenotypes"] for rule in span._.provenance)]
    return len(checked), read, hits
