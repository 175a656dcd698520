"""Terms written in predicative order: "the philtrum was long" is Long philtrum.

HPO names a finding "Adjective Noun"; a clinical note states it "Noun be Adjective" ("her
eyes were deep set", "the nasal bridge was flat and broad", "the ears appeared low set").
At each copula of ``rules/predicative.tsv`` this stage reads the noun just before it (up to
three words, the determiner left out) and the adjectives after it (one or two words each,
adverbs of the file skipped, several joined by commas and a conjunction), and keeps each
adjective whose phrase with the noun is an HPO term or synonym, in any word order the
word-set index knows (:meth:`~phenorules.stages.match.RefinesMatches.term`). A clause with
one term is one mention from the noun to its adjective; with several, one mention over the
whole clause whose ``hpo_ids`` are all its terms and whose ``parts`` hold each term's own
extent, as the coordination stage writes a coordination. A mention of the dictionary inside
the clause gives way to it ("[hearing loss] was severe" is Severe hearing impairment).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..document import PHENOTYPES, doc_text
from ..knowledge_base import KnowledgeBase
from ..lexicon.tsv import RuleRef, read_grouped_rules
from ..resources import data_dir
from .coordination import Compound, merge
from .knowledge import KB_CONFIG
from .match import RefinesMatches

WORD_KINDS = ("copula", "adverb", "conjunction")
_UNIT = re.compile(r"[^\W_]+(?:[-\u2010\u2011'\u2019][^\W_]+)*")
_MAX_NOUN = 3  # words of the noun ("nasal bridge", "upper eyelid crease")
_MAX_ADJECTIVE = 2  # words of one adjective ("deep set", "widely spaced")
_MAX_ADJECTIVES = 4
_WINDOW = 60  # characters read on each side of a copula


@dataclass(frozen=True)
class PredicativeRules:
    copulas: dict[str, RuleRef]  # "were noted to be" -> its row
    adverbs: frozenset[str]
    conjunctions: frozenset[str]


def read_rules(path: Path) -> PredicativeRules:
    kinds = read_grouped_rules(path, WORD_KINDS, "kind")
    copulas = {" ".join(ref.name.lower().split()): ref for ref in kinds["copula"]}
    return PredicativeRules(
        copulas, frozenset(ref.name.lower() for ref in kinds["adverb"]), frozenset(ref.name.lower() for ref in kinds["conjunction"])
    )


@Language.factory("phenorules_predicative", default_config={"kb": KB_CONFIG, "rules_file": None})
def make_predicative(nlp: Language, name: str, kb: KnowledgeBase, rules_file: str | None):
    return Predicative(read_rules(Path(rules_file) if rules_file else data_dir("rules") / "predicative.tsv"), kb)


class Predicative(RefinesMatches):
    def __init__(self, rules: PredicativeRules, kb: KnowledgeBase):
        self.rules, self.kb = rules, kb
        copulas = "|".join(re.escape(c).replace(r"\ ", " +") for c in sorted(rules.copulas, key=len, reverse=True))
        self.copula = re.compile(rf"(?<=\w) +({copulas}) +(?=\w)", re.IGNORECASE)

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        compounds = [c for found in self.copula.finditer(text) if (c := self.clause(text, found)) is not None]
        if compounds:
            spans = list(doc.spans.get(PHENOTYPES, []))
            doc.spans[PHENOTYPES] = merge(doc, spans, compounds, self.kb.ontology)
        return doc

    def clause(self, text: str, copula: re.Match) -> Compound | None:
        """The mention of the clause around ``copula``, or None."""
        nouns = self.noun(text, copula.start())
        if not nouns or not self.known(text[nouns[-1][0] : nouns[-1][1]]):
            return None
        found = []
        for readings in self.adjectives(text, copula.end()):
            term = next(
                (
                    (nouns[start][0], last, hpo_ids)
                    for first, last in readings
                    for start in range(len(nouns))
                    if (hpo_ids := self.phrase_term(f"{text[first:last]} {text[nouns[start][0] : nouns[-1][1]]}")) is not None
                ),
                None,
            )
            if term is not None:
                found.append(term)
        if not found:
            return None
        ref = self.rules.copulas[" ".join(copula.group(1).lower().split())]
        hpo_ids = tuple(dict.fromkeys(i for _, _, ids in found for i in ids))
        return Compound(found[0][0], found[-1][1], hpo_ids, f"predicative:{ref}", tuple(found) if len(found) > 1 else ())

    def noun(self, text: str, end: int) -> list[tuple[int, int]]:
        """The words just before a copula, back to punctuation or a function word."""
        words: list[tuple[int, int]] = []
        position = end
        for found in reversed(list(_UNIT.finditer(text, max(0, end - _WINDOW), end))):
            if text[found.end() : position].strip() or len(words) == _MAX_NOUN or found.group().lower() in self.kb.word_sets.function_words:
                break
            words.insert(0, (found.start(), found.end()))
            position = found.start()
        return words

    def adjectives(self, text: str, start: int) -> list[list[tuple[int, int]]]:
        """The adjectives after a copula, each as its readings (two words, then the first
        alone: "deep set", "long in"); adverbs skipped, several joined by commas and
        conjunctions; the list ends at any other mark."""
        items: list[list[tuple[int, int]]] = [[]]
        position = start
        for found in _UNIT.finditer(text, start, start + _WINDOW):
            gap, word = text[position : found.start()].strip(), found.group().lower()
            if gap not in ("", ",") or (gap == "," and not items[-1]):
                break
            position = found.end()
            if gap == "," or word in self.rules.conjunctions:
                if len(items) == _MAX_ADJECTIVES:
                    break
                items.append([])
                if word in self.rules.conjunctions:
                    continue
            if word in self.rules.adverbs and not items[-1]:
                continue
            if len(items[-1]) == _MAX_ADJECTIVE:
                break
            items[-1].append((found.start(), found.end()))
        return [[(words[0][0], words[-1][1]), (words[0][0], words[0][1])][: len(words)] for words in items if words]
