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
the clause gives way to it ("[hearing loss] was severe" is Severe hearing impairment); one
around it stays.

An adjectival form of a single-word term (``lexicons/adjectival_endings.tsv``: "ataxic",
"microcephalic") is that term where it describes a person: after a copula ("he was
ataxic") and before a person noun of the rules ("a microcephalic girl"). Elsewhere it
modifies another noun ("granulomatous inflammation") and is left alone. A person's state,
an adjective of a single-word term by a ``state`` ending of the rules ("deaf": Deafness,
"obese": Obesity), is read of a person only: after a copula whose subject is a person noun
or a pronoun of the rules (or is not written: "... and was deaf"), and before a person noun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, placed, working
from ..core.patterns import by_first_character, first_class
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon import adjectival_forms, ontology_keys
from ..kb.lexicon.normalize import normalize_key
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules
from ..kb.resources import data_dir, data_file
from .compounds import Compound, merge, unit_ending_at, unit_pattern
from .knowledge import KB_CONFIG
from .match import RefinesMatches

WORD_KINDS = ("copula", "adverb", "negation", "absence", "conjunction", "person", "noun_marker", "pronoun", "state", "not_state")
_UNIT_JOINERS = frozenset("-\u2010\u2011'\u2019")  # inside a _UNIT, between its word characters
_UNIT = unit_pattern(_UNIT_JOINERS)
_MAX_NOUN = 3  # words of the noun ("nasal bridge", "upper eyelid crease")
_MAX_ADJECTIVE = 2  # words of one adjective ("deep set", "widely spaced")
_MAX_ADJECTIVES = 4
_WINDOW = 60  # characters read on each side of a copula


@dataclass(frozen=True)
class PredicativeRules:
    copulas: dict[str, RuleRef]  # "were noted to be" -> its row
    adverbs: frozenset[str]
    negations: frozenset[str]
    absences: frozenset[str]  # "absent": after a phenotype noun it says the phenotype is not there
    conjunctions: frozenset[str]
    persons: dict[str, RuleRef]  # "girl" -> its row
    noun_markers: frozenset[str]  # "of": the word before it is a noun ("contracture of")
    pronouns: frozenset[str] = frozenset()  # "he": a person, whose state an adjective may be
    states: tuple[RuleRef, ...] = ()  # "iness>y": the noun ending of a state and its adjective's
    not_states: frozenset[str] = frozenset()  # "alone": no state, though an ending makes it one


def read_predicative_rules(path: Path) -> PredicativeRules:
    kinds = read_grouped_rules(path, WORD_KINDS)
    copulas = {" ".join(ref.name.lower().split()): ref for ref in kinds["copula"]}
    return PredicativeRules(
        copulas,
        frozenset(ref.name.lower() for ref in kinds["adverb"]),
        frozenset(ref.name.lower() for ref in kinds["negation"]),
        frozenset(ref.name.lower() for ref in kinds["absence"]),
        frozenset(ref.name.lower() for ref in kinds["conjunction"]),
        {ref.name.lower(): ref for ref in kinds["person"]},
        frozenset(ref.name.lower() for ref in kinds["noun_marker"]),
        frozenset(ref.name.lower() for ref in kinds["pronoun"]),
        tuple(kinds["state"]),
        frozenset(ref.name.lower() for ref in kinds["not_state"]),
    )


def state_forms(keys: list[str], rules: PredicativeRules) -> dict[str, tuple[str, RuleRef]]:
    """Adjective -> (the single-word term name or synonym it is the state of, the ``state``
    row): 'deaf' -> 'deafness', 'drowsy' -> 'drowsiness', 'rigid' -> 'rigidity'; each noun by
    its longest state ending that leaves a stem of three letters or more and an adjective of
    four or more ('shy' is none); none the rules list as no state. ``keys``: the ontology's
    names and synonyms normalised (:func:`~phenorules.kb.lexicon.ontology_keys`)."""
    endings = sorted(((*ref.name.lower().split(">", 1), ref) for ref in rules.states if ">" in ref.name), key=lambda row: -len(row[0]))
    nouns = sorted({key for key in keys if key.isalpha()})
    forms: dict[str, tuple[str, RuleRef]] = {}
    for noun in nouns:
        for noun_ending, adjective_ending, ref in endings:
            stem = noun[: len(noun) - len(noun_ending)]
            if noun.endswith(noun_ending) and len(stem) >= 3 and len(stem + adjective_ending) >= 4:
                forms.setdefault(stem + adjective_ending, (noun, ref))
                break
    return {form: found for form, found in forms.items() if form not in nouns and form not in rules.not_states}


@Language.factory("phenorules_predicative", default_config={"kb": KB_CONFIG, "rules_file": None, "lexicon_dir": None, "spans": True})
def make_predicative(nlp: Language, name: str, kb: KnowledgeBase, rules_file: str | None, lexicon_dir: str | None, spans: bool):
    rules = read_predicative_rules(data_file("rules", "predicative.tsv", rules_file))
    keys = ontology_keys(kb.ontology)  # normalised once for both tables
    return placed(Predicative(rules, kb, adjectival_forms(keys, lexicon_dir or data_dir("lexicons")), state_forms(keys, rules)), spans)


class Predicative(RefinesMatches):
    pieces = LOCAL

    def __init__(
        self, rules: PredicativeRules, kb: KnowledgeBase, adjectival: dict[str, tuple[str, RuleRef]] | None = None, states: dict[str, tuple[str, RuleRef]] | None = None
    ):
        self.rules, self.kb, self.adjectival, self.states = rules, kb, adjectival or {}, states or {}
        words = by_first_character([(c[0], re.escape(c).replace(r"\ ", " +")) for c in sorted(rules.copulas, key=len, reverse=True) if c[:1].isalnum()], re.IGNORECASE) or "(?!)"
        marks = "|".join(re.escape(c) for c in sorted(rules.copulas, key=len, reverse=True) if not c[:1].isalnum()) or "(?!)"
        # A word copula between spaces ("was"), a mark after the noun ("Palate: high"). Each
        # pattern starts with a literal, searched for in C; what stands before it is checked
        # where one is found (:meth:`copulas`, :meth:`person_phrases`).
        firsts = re.escape("".join(sorted({c[0] for c in rules.copulas if not c[:1].isalnum()})))
        self.copula = re.compile(rf"(?=[ {firsts}])(?: +{first_class(words, re.IGNORECASE)}({words})| *({marks})) +(?=\w)", re.IGNORECASE)  # class tests first
        persons = by_first_character([(p[:1], re.escape(p)) for p in sorted(rules.persons, key=len, reverse=True)], re.IGNORECASE) or "(?!)"
        conjunctions = "|".join(re.escape(c) for c in sorted(rules.conjunctions, key=len, reverse=True)) or "(?!)"
        self.joined_before = re.compile(rf"(?<=\w)(?:,? +(?:{conjunctions})|,) +$", re.IGNORECASE)
        self.before_person = re.compile(rf"\b([^\W\d_]+) +(?:{persons})s?\b", re.IGNORECASE)
        # " " before " *": a literal first, which re searches for in C (not a try at every position)
        self.person = re.compile(rf"  *{first_class(persons, re.IGNORECASE)}(?:{persons})s?\b", re.IGNORECASE)

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        text = state.text
        compounds = [c for found in self.copulas(text) if (c := self.clause(text, found)) is not None]
        compounds += [c for found in self.person_phrases(text) if (c := self.attributive(text, found)) is not None]
        # a mention of the dictionary around one stays ("were [hypotonic seizures]")
        compounds = [c for c in compounds if not any(m.start <= c.start and c.end <= m.end for m in state.mentions)]
        if compounds:
            state.mentions = merge(doc, state, compounds, self.kb.ontology)

    def copulas(self, text: str) -> Iterator[re.Match]:
        """The copulas written after a word (:attr:`copula` right after a word character),
        as a search for that pattern would find them."""
        found = self.copula.search(text)
        while found is not None:
            if found.start() and _is_word_char(text[found.start() - 1]):
                yield found
                found = self.copula.search(text, found.end())
            else:
                found = self.copula.search(text, found.start() + 1)

    def person_phrases(self, text: str) -> Iterator[re.Match]:
        """:attr:`before_person` in text order without overlaps, as its ``finditer`` finds
        them: tried at the start of the letters before each person word."""
        end = 0
        for person in self.person.finditer(text):
            start = person.start()
            while start and _is_letter(text[start - 1]):
                start -= 1
            found = self.before_person.match(text, start) if start < person.start() and start >= end else None
            if found is not None:
                end = found.end()
                yield found

    def adjective_term(self, text: str, start: int, end: int, of_person: bool = False) -> tuple[tuple[str, ...], str] | None:
        """The term of an adjectival form ('ataxic': Ataxia) and the rule of its ending
        (``adjectival:ROW``); of a person, also of a state ('deaf': Hearing impairment,
        ``state:ROW``)."""
        word = normalize_key(text[start:end])
        found, kind = self.adjectival.get(word), "adjectival"
        if found is None and of_person:
            found, kind = self.states.get(word), "state"
        if found is None:
            return None
        hpo_ids = self.phrase_term(found[0])
        return (hpo_ids, f"{kind}:{found[1]}") if hpo_ids is not None else None

    def attributive(self, text: str, found: re.Match) -> Compound | None:
        """'a microcephalic girl', 'a deaf boy': the adjective alone is the mention."""
        term = self.adjective_term(text, found.start(1), found.end(1), of_person=True)
        if term is None:
            return None
        return Compound(found.start(1), found.end(1), term[0], term[1])

    def of_person(self, text: str, subjects: list[list[tuple[int, int]]]) -> bool:
        """Whether the subject of a clause is a person: a person noun or a pronoun of the
        rules ('the twins', 'patient 3', 'he'), or none written ('... and was deaf')."""
        if not subjects:
            return True
        persons, pronouns = self.rules.persons, self.rules.pronouns
        for start, end in subjects[0]:
            word = text[start:end].lower()
            if word in pronouns or word in persons or (word.endswith("s") and word[:-1] in persons):
                return True
        return False

    def clause(self, text: str, copula: re.Match) -> Compound | None:
        """The mention of the clause around ``copula``, or None. Without a noun before the
        copula ("... and was hypotonic") only an adjectival form is read. A colon is a
        copula after a noun that heads its line or sentence ("Palate: high"; in "..., and
        mild dysmorphism: round face" it opens a list)."""
        listed = copula.group(2) is not None  # "Palate: high": a heading noun and its findings
        subjects = self.subjects(text, copula.start())
        if listed:
            subjects = subjects[:1] if subjects and self.heads_a_line(text, subjects[0][0][0]) else []
            if not subjects:
                return None
        found, rules = self.clause_terms(text, copula.end(), subjects, listed)
        if not found:
            return None
        ref = self.rules.copulas[" ".join((copula.group(1) or copula.group(2)).lower().split())]
        hpo_ids = tuple(dict.fromkeys(i for _, _, ids in found for i in ids))
        rule = f"predicative:{ref}" + "".join(f"+{adjective}" for adjective in dict.fromkeys(rules))
        start, end = min(s for s, _, _ in found), max(e for _, e, _ in found)
        return Compound(start, end, hpo_ids, rule, tuple(found) if len(found) > 1 else ())

    def clause_terms(self, text: str, start: int, subjects: list[list[tuple[int, int]]], listed: bool) -> tuple[list, list[str]]:
        """(start, end, ids) of each term the adjectives after a copula ending at ``start``
        make with the subjects or alone, and the rules of the adjectival forms and states
        read. After a colon (``listed``) an adjectival form is read only standing alone in
        its item ("Neuro: hypotonic", not "Skin: edematous dermal plaques": an adjective
        before a noun there modifies it)."""
        found, rules = [], []
        adjectives, negated = self.adjectives(text, start)
        of_person = self.of_person(text, subjects)
        for words in adjectives:
            # a negated clause keeps only the adjectives standing alone, which the negation
            # stage then reads with the cue before them ("was not ataxic")
            if self.states_absence(text, words, subjects):
                continue
            readings = self.readings(text, words)
            terms = [] if negated else [term for nouns in subjects if (term := self.noun_term(text, nouns, readings)) is not None]
            alone = not (listed and len(words) > 1)
            adjective = self.adjective_term(text, *words[0], of_person=of_person) if not terms and alone else None  # its first word: "hypotonic [at] birth"
            if adjective is not None:
                terms = [(words[0][0], words[0][1], adjective[0])]
                rules.append(adjective[1])
            found += terms
        return found, rules

    def heads_a_line(self, text: str, start: int) -> bool:
        """Whether the word at ``start`` begins the text, a line or a sentence (a bullet or
        spaces before it)."""
        before = text[max(0, start - _WINDOW) : start].rstrip(" \t\u2022*-")
        return not before or before[-1] in "\n.;"

    def states_absence(self, text: str, words: list[tuple[int, int]], subjects: list[list[tuple[int, int]]]) -> bool:
        """'seizures were absent': an absence word after a noun that is a phenotype itself
        says the phenotype is not there (the assertion stage reads it so); 'the reflexes
        were absent' (Areflexia: 'reflexes' is no phenotype) is a term."""
        if text[slice(*words[0])].lower() not in self.rules.absences:
            return False
        return any(self.phrase_term(text[nouns[i][0] : nouns[-1][1]]) is not None for nouns in subjects for i in range(len(nouns)))

    def noun_term(self, text: str, nouns: list[tuple[int, int]], readings: list[tuple[int, int]]) -> tuple[int, int, tuple[str, ...]] | None:
        """(start, end, ids) of the first adjective reading that makes a term with the noun
        (its words, the longest first)."""
        if not self.known(text[nouns[-1][0] : nouns[-1][1]]):
            return None
        for first, last in readings:
            for start in range(len(nouns)):
                hpo_ids = self.phrase_term(f"{text[first:last]} {text[nouns[start][0] : nouns[-1][1]]}")
                if hpo_ids is not None:
                    return nouns[start][0], last, hpo_ids
        return None

    def subjects(self, text: str, end: int) -> list[list[tuple[int, int]]]:
        """The noun before a copula, and the nouns coordinated with it ("his hands and feet
        were small"), the nearest first; the coordination is read through words some term
        has only ("seizures, which were partial" is no clause about seizures: "which" stops it)."""
        subjects = [self.noun(text, end)]
        while subjects[-1] and len(subjects) < _MAX_ADJECTIVES and self.known(text[slice(*subjects[-1][-1])]):
            joined = self.joined_before.search(text, max(0, subjects[-1][0][0] - 8), subjects[-1][0][0])
            if joined is None:
                break
            subjects.append(self.noun(text, joined.start()))
        return [nouns for nouns in subjects if nouns]

    def noun(self, text: str, end: int) -> list[tuple[int, int]]:
        """The words just before a copula, back to punctuation, a function word or a
        conjunction: read backwards from ``end`` a word at a time (:func:`unit_ending_at`),
        as the words of the ``_WINDOW`` characters before it are."""
        words: list[tuple[int, int]] = []
        begin, position = max(0, end - _WINDOW), end
        while True:
            unit_end = position
            while unit_end > begin and text[unit_end - 1].isspace():
                unit_end -= 1
            unit = unit_ending_at(text, begin, unit_end, _UNIT_JOINERS)
            if unit is None:
                break
            word = unit.lower()
            if len(words) == _MAX_NOUN or word in self.kb.word_sets.function_words or word in self.rules.conjunctions:
                break
            words.insert(0, (unit_end - len(unit), unit_end))
            position = unit_end - len(unit)
        return words

    def adjectives(self, text: str, start: int) -> tuple[list[list[tuple[int, int]]], bool]:
        """The adjectives after a copula, each as its one or two words ("deep set", "long
        in"); adverbs and negations skipped, several joined by commas and conjunctions; the
        list ends at any other mark. And whether a negation was skipped."""
        items: list[list[tuple[int, int]]] = [[]]
        position, negated = start, False
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
            if word in self.rules.negations and not items[-1]:
                negated = True
                continue
            if word in self.rules.adverbs and not items[-1]:
                continue
            if len(items[-1]) == _MAX_ADJECTIVE:
                break
            items[-1].append((found.start(), found.end()))
        return [words for words in items if words and not self.before_noun_marker(text, words)], negated

    def readings(self, text: str, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """An adjective's readings: its words, then its first word alone ("long [in]
        appearance", "short [compared] with"), unless that word is an adverb of the
        second ("partially controlled", "mildly elevated"); its first word only when the
        second is a function word ("brisk [at] the knees" ends at "brisk")."""
        whole = [(words[0][0], words[-1][1])]
        if len(words) == 1 or text[slice(*words[0])].lower().endswith("ly"):
            return whole
        if text[slice(*words[-1])].lower() in self.kb.word_sets.function_words:
            return [words[0]]
        return whole + [words[0]]

    def before_noun_marker(self, text: str, words: list[tuple[int, int]]) -> bool:
        """Whether the words are a noun's, not an adjective's ("and [contracture of] the elbows")."""
        return len(words) > 1 and text[slice(*words[1])].lower() in self.rules.noun_markers


def _is_word_char(char: str) -> bool:
    """re's \\w: a letter, digit or underscore."""
    return char.isalnum() or char == "_"


def _is_letter(char: str) -> bool:
    """re's [^\\W\\d_]: a word character that is no decimal digit nor underscore."""
    return char.isalnum() and not char.isdecimal()
