"""Single-word substitutions: a word of a term written as another word that means the same.

"learning problems" is Learning difficulties, "brown patches" is brown spots: one word of
the term replaced by a word that, elsewhere, stands for it. Candidate pairs come from two
kinds of evidence:

* ``synonyms``: HPO's own synonym sets. Two names of one term whose content words differ
  in exactly one word make a pair (Learning difficulty / Learning problem), when it recurs
  in at least ``min_terms`` terms.
* ``mentions``: annotated articles. A gold mention whose content words differ from one of
  its term's names in exactly one word makes a pair (name word -> mention word), when it
  recurs in at least ``min_articles`` articles and ``min_terms`` terms.

Either kind is a candidate only: the learner (:mod:`phenorules.kb.learn`) keeps a
pair when the matches it makes in the training articles are annotated often enough, and
writes the kept pairs with their counts to ``learned_substitutions.tsv`` (cross-validation
learns them inside each fold).

Words are compared as base words (:meth:`Morphology.base`), so a pair never restates an
inflection or a derivation. A pair is applied by the order-free word-set index
(:mod:`phenorules.kb.word_sets`): a term's word set with one word replaced is a term too, and
the match's provenance names the pair and its source (``subst:spots>patches``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Callable, Iterable

from ...core.errors import InputError
from .normalize import normalize_key
from .tsv import read_tsv
from ...core.outputs import OutputFiles

SOURCES = ("synonyms", "mentions")
LEARNED_SUBSTITUTIONS = "learned_substitutions.tsv"

ContentWords = Callable[[str], list[str]]


@dataclass(frozen=True, order=True)
class Substitution:
    """A term's ``term_word`` may be written ``text_word``; ``terms`` and ``articles`` are
    the support that kept the pair."""

    term_word: str
    text_word: str
    source: str  # one of SOURCES
    terms: int
    articles: int = 0
    hits: int = 0  # matches the pair made in the training articles
    annotated: int = 0  # of which the annotators marked with the term's id

    @property
    def rule(self) -> str:
        return f"subst:{self.term_word}>{self.text_word}"


def _word_ok(word: str) -> bool:
    return len(word) >= 3 and word.isalpha()


def one_word_apart(a: list[str], b: list[str]) -> tuple[str, str] | None:
    """(the word only ``a`` has, the word only ``b`` has) when the two word multisets
    differ in exactly one word each way."""
    ca, cb = Counter(a), Counter(b)
    only_a, only_b = ca - cb, cb - ca
    if sum(only_a.values()) == 1 and sum(only_b.values()) == 1 and len(a) >= 2:
        x, y = next(iter(only_a)), next(iter(only_b))
        if _word_ok(x) and _word_ok(y):
            return x, y
    return None


def from_synonyms(names: dict[str, list[str]], content_words: ContentWords, min_terms: int) -> list[Substitution]:
    """Pairs from the names of each term (``names``: id -> its name and synonyms)."""
    terms: dict[tuple[str, str], set[str]] = defaultdict(set)
    for hpo_id, texts in names.items():
        forms = sorted({tuple(content_words(normalize_key(text))) for text in texts})
        for a, b in combinations(forms, 2):
            pair = one_word_apart(list(a), list(b))
            if pair:
                terms[pair].add(hpo_id)
                terms[(pair[1], pair[0])].add(hpo_id)
    return sorted(
        Substitution(a, b, "synonyms", len(ids)) for (a, b), ids in terms.items() if len(ids) >= min_terms
    )


def from_mentions(
    mentions: Iterable[tuple[int, str, str]],
    names: dict[str, list[str]],
    content_words: ContentWords,
    min_articles: int,
    min_terms: int,
) -> list[Substitution]:
    """Pairs from annotated (article number, mention text, id) triples: a term word the
    annotators' mention replaces, kept when it recurs across articles and terms."""
    articles: dict[tuple[str, str], set[int]] = defaultdict(set)
    terms: dict[tuple[str, str], set[str]] = defaultdict(set)
    cached: dict[str, list[list[str]]] = {}
    for article, text, hpo_id in mentions:
        if hpo_id not in names:
            continue
        if hpo_id not in cached:
            cached[hpo_id] = [content_words(normalize_key(name)) for name in names[hpo_id]]
        words = content_words(normalize_key(text))
        if any(sorted(words) == sorted(name) for name in cached[hpo_id]):
            continue  # the lexicon has this wording already
        pairs = {pair for name in cached[hpo_id] if (pair := one_word_apart(name, words))}
        for pair in pairs:
            articles[pair].add(article)
            terms[pair].add(hpo_id)
    return sorted(
        Substitution(a, b, "mentions", len(terms[(a, b)]), len(ids))
        for (a, b), ids in articles.items()
        if len(ids) >= min_articles and len(terms[(a, b)]) >= min_terms
    )


_COLUMNS = ("term_word", "text_word", "source", "terms", "articles", "hits", "annotated")


def write_substitutions(substitutions: list[Substitution], path: Path, header: str, outputs: OutputFiles | None = None) -> None:
    lines = [header, "# " + "\t".join(_COLUMNS) + "\n"]
    lines += ["\t".join(str(getattr(s, column)) for column in _COLUMNS) + "\n" for s in substitutions]
    (outputs or OutputFiles()).write(str(path), lines, "learned substitutions")


def read_substitutions(path: Path) -> list[Substitution]:
    """The rows of a learned substitution file; none if there is no such file."""
    if not path.is_file():
        return []
    out = []
    for row, number in read_tsv(path, 3):
        counts = row[3:7]
        if row[2] not in SOURCES or not all(count.isdigit() for count in counts):
            raise InputError(f"{path}:{number}: expected {', '.join(_COLUMNS)} with a source of {list(SOURCES)} and counts")
        out.append(Substitution(row[0], row[1], row[2], *map(int, counts)))
    return out


def term_names(ontology) -> dict[str, list[str]]:
    """Id -> its name and all its synonyms."""
    return {hpo_id: [name, *(s.text for s in ontology.synonyms[hpo_id])] for hpo_id, name in sorted(ontology.names.items())}
