"""Morphology of medical words: what counts as "the same word".

One component answers it for the variant generator (plural and singular forms of a term's
head word) and for the order-free word-set index (the base of every word: singular, then
the head of its word family). Two sources, in this order:

* tables kept as data: irregular and Greco-Latin plurals (``irregular_plurals.tsv``),
  noun/adjective pairs (``noun_adjective.tsv``), word families (``word_clusters.tsv``);
* rules: regular English and Greco-Latin endings ("-ses" -> "-sis", "-es" -> "-is", "-ces" -> "-x",
  "-ata" -> "-a", "-itides" -> "-itis", "-ae" -> "-a", "-i" -> "-us", "-a" -> "-um") and
  derivational endings (``derivations.tsv``: "-otic" = "-osis", "-ic" = "-y", "-ied" = "-y").

Every form a rule proposes for a word is kept only when it is a word of the
ontology's names and synonyms (the vocabulary), so an ending never invents a word
("facies" stays "facies", not "facy"; "hernia" never becomes "hernium").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ...core.errors import InputError
from .tsv import RuleRef, read_rules, read_tsv

IRREGULAR_PLURALS = "irregular_plurals.tsv"
NOUN_ADJECTIVE = "noun_adjective.tsv"
WORD_CLUSTERS = "word_clusters.tsv"
DERIVATIONS = "derivations.tsv"
DEFAULT_SHORTEST_STEM = 4  # 'face' + 'ing' is not 'facing'
BASES_KEPT = 200_000  # words whose base word is remembered

# (plural ending, singular ending), tried longest first: Greco-Latin nouns.
_CLASSICAL_SINGULARS = (
    ("itides", "itis"), ("omata", "oma"), ("ices", "ix"), ("ices", "ex"), ("ges", "x"), ("ces", "x"),
    ("ses", "sis"), ("xes", "xis"), ("ae", "a"), ("ia", "ium"), ("a", "um"), ("a", "on"), ("i", "us"), ("ora", "us"), ("es", "is"),
)
_CLASSICAL_PLURALS = tuple((singular, plural) for plural, singular in _CLASSICAL_SINGULARS)
_CLASSICAL_PLURAL_ENDINGS = tuple(dict.fromkeys(plural for plural, _ in _CLASSICAL_SINGULARS))
_LATIN_ION = ("tion", "sion", "xion")  # Latin nouns of action, whose -on is no Greek -on


def _regular_plurals(word: str) -> list[str]:
    if len(word) < 3 or not word.isalpha():
        return []
    if word.endswith(("sis", "xis")):
        return [word[:-2] + "es"]  # exostosis -> exostoses
    if word.endswith("s") and not word.endswith("ss"):
        return []  # already plural, or 'pubis'
    if word.endswith(("ss", "x", "z", "ch", "sh")):
        return [word + "es"]
    if word.endswith("y") and word[-2] not in "aeiou":
        return [word[:-1] + "ies"]
    if word.endswith("a"):
        return [word + "s", word + "e"]  # hernias; maxillae
    if word.endswith("um"):
        return [word + "s", word[:-2] + "a"]  # septa
    return [word + "s"]


def _regular_singulars(word: str) -> list[str]:
    if len(word) < 4 or not word.isalpha():
        return []
    if word.endswith("ies"):
        return [word[:-3] + "y"]
    if word.endswith(("oses", "ases", "eses")):
        return [word[:-2] + "is"]
    if word.endswith(("ches", "shes", "xes", "sses")):
        return [word[:-2]]
    if word.endswith("ae"):
        return [word[:-1]]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        return [word[:-1]]
    return []


@dataclass
class Morphology:
    """Inflection and derivation of single lower-cased words."""

    irregular_plurals: dict[str, str]  # singular -> plural
    derivations: tuple[tuple[str, str, int], ...]  # (ending, ending, shortest stem) of two forms of one word
    family_pairs: tuple[tuple[str, str], ...]  # noun/adjective pairs and word-cluster lines
    vocabulary: frozenset[str] = frozenset()
    pair_refs: tuple[RuleRef, ...] = ()  # the table row of each family pair
    derivation_refs: tuple[RuleRef, ...] = ()  # the ``derivations.tsv`` row of each ending pair
    families: dict[str, str] = field(init=False, repr=False)
    _irregular_singulars: dict[str, str] = field(init=False, repr=False)
    _singular_cache: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _base_cache: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _endings: dict[str, tuple[tuple[int, str, int], ...]] = field(init=False, repr=False, compare=False)
    _ending_lengths: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._irregular_singulars = {plural: singular for singular, plural in self.irregular_plurals.items()}
        self._index_endings()
        links = list(self.family_pairs)
        for word in sorted(self.vocabulary):
            links += [(word, other) for other in self.derived_forms(word) if other in self.vocabulary]
        self.families = families(links)

    def state(self) -> dict:
        """Plain data (lists, dicts, strings) for the resource cache, whose loading runs no code."""
        return {
            "irregular_plurals": self.irregular_plurals,
            "derivations": [list(row) for row in self.derivations],
            "family_pairs": [list(pair) for pair in self.family_pairs],
            "vocabulary": sorted(self.vocabulary),
            "families": self.families,
            "pair_refs": [[ref.file, ref.line, ref.name] for ref in self.pair_refs],
            "derivation_refs": [[ref.file, ref.line, ref.name] for ref in self.derivation_refs],
        }

    @classmethod
    def from_state(cls, state: dict) -> "Morphology":
        """The Morphology :meth:`state` describes, its families as they were computed."""
        morphology = cls.__new__(cls)
        morphology.irregular_plurals = state["irregular_plurals"]
        morphology.derivations = tuple(tuple(row) for row in state["derivations"])
        morphology.family_pairs = tuple(tuple(pair) for pair in state["family_pairs"])
        morphology.vocabulary = frozenset(state["vocabulary"])
        morphology.families = state["families"]
        morphology.pair_refs = tuple(RuleRef(*ref) for ref in state["pair_refs"])
        morphology.derivation_refs = tuple(RuleRef(*ref) for ref in state["derivation_refs"])
        morphology._irregular_singulars = {plural: singular for singular, plural in morphology.irregular_plurals.items()}
        morphology._singular_cache, morphology._base_cache = {}, {}
        morphology._index_endings()
        return morphology

    @classmethod
    def from_dir(cls, lexicon_dir: str | Path, vocabulary: Iterable[str] = (), derivations: bool = True) -> "Morphology":
        """The tables of ``lexicon_dir``; ``derivations`` switches the derivational endings on or off."""
        lexicon_dir = Path(lexicon_dir)
        plurals = {row[0]: row[1] for row, _ in read_tsv(lexicon_dir / IRREGULAR_PLURALS, 2)}
        ending_rows = list(read_rules(lexicon_dir / DERIVATIONS, 1))
        endings = tuple(_ending_row(row, f"{lexicon_dir / DERIVATIONS}:{ref.line}") for row, ref in ending_rows)
        if not derivations:
            endings, ending_rows = (), []
        pairs = [((row[0], row[1]), ref) for row, ref in read_rules(lexicon_dir / NOUN_ADJECTIVE, 2)]
        pairs += [((row[0], other), ref) for row, ref in read_rules(lexicon_dir / WORD_CLUSTERS, 2) for other in row[1:]]
        return cls(
            plurals, endings, tuple(pair for pair, _ in pairs), frozenset(vocabulary), tuple(ref for _, ref in pairs), tuple(ref for _, ref in ending_rows)
        )

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_singular_cache"], state["_base_cache"] = {}, {}
        return state

    # ------------------------------------------------------------ inflection

    def plurals(self, word: str) -> list[str]:
        """Plurals of a noun: the table's, else the regular and Greco-Latin ones (a
        Greco-Latin form only for a word of the vocabulary, 'foramen' -> 'foramina')."""
        if word in self.irregular_plurals:
            return [self.irregular_plurals[word]]
        out = _regular_plurals(word)
        if word in self.vocabulary and len(word) >= 5:
            for singular, plural in _CLASSICAL_PLURALS:
                # Latin nouns of action (-tion, -sion, -xion: a supine stem) are no Greek -on
                # ones: 'aggression' has no plural 'aggressia'; 'chalazion' has 'chalazia'.
                if word.endswith(singular) and singular not in ("a", "um", "sis", "xis", "is") and not (singular == "on" and word.endswith(_LATIN_ION)):
                    out.append(word[: len(word) - len(singular)] + plural)
        return list(dict.fromkeys(out))

    def singulars(self, word: str) -> list[str]:
        """Singulars of a plural noun: the table's; the regular ones; then the Greco-Latin
        ones that are words of the vocabulary."""
        if word in self._irregular_singulars:
            return [self._irregular_singulars[word]]
        out = _regular_singulars(word)
        if word.endswith("ies") and word in self.vocabulary and out[0] not in self.vocabulary:
            out = []  # 'facies' is a word; 'facy' is not
        if word.endswith(("oses", "ases", "eses")) and word[:-1] in self.vocabulary:
            out.append(word[:-1])  # 'diseases' is 'disease', as 'exostoses' is 'exostosis'
        if len(word) >= 4 and word.endswith(_CLASSICAL_PLURAL_ENDINGS) and word.isalpha():
            found = [
                word[: len(word) - len(plural)] + singular
                for plural, singular in _CLASSICAL_SINGULARS
                if word.endswith(plural) and word[: len(word) - len(plural)] + singular in self.vocabulary
            ]
            out += [form for form in found if form not in out]
        return out

    def singular(self, word: str) -> str:
        """The one singular that stands for the word: the first singular that is a
        vocabulary word, else the first one, else the word itself."""
        cached = self._singular_cache.get(word)
        if cached is None:
            forms = self.singulars(word)
            known = [form for form in forms if form in self.vocabulary]
            cached = known[0] if known else forms[0] if forms else word
            self._singular_cache[word] = cached
        return cached

    # ------------------------------------------------------------ derivation

    def _index_endings(self) -> None:
        """Each ending of :attr:`derivations` -> (place in the table, the other ending,
        shortest stem), so that a word is looked up by its last letters, not tested
        against every ending."""
        endings: dict[str, list[tuple[int, str, int]]] = {}
        for i, (a, b, shortest_stem) in enumerate(self.derivations):
            for place, (old, new) in enumerate(((a, b), (b, a)), start=2 * i):
                endings.setdefault(old, []).append((place, new, shortest_stem))
        self._endings = {old: tuple(rows) for old, rows in endings.items()}
        self._ending_lengths = tuple(sorted({len(old) for old in endings}))

    def derived_forms(self, word: str) -> list[str]:
        """Other forms of the word by one derivational ending ('kyphotic' -> 'kyphosis',
        'atrophied' -> 'atrophy'), in the order of the table; not checked against the
        vocabulary."""
        found = sorted(self._derivations(word))
        return [form for form in dict.fromkeys(form for _, form in found) if form != word]

    def _derivations(self, word: str) -> Iterator[tuple[int, str]]:
        """(place in the table, form) of each derivational ending the word takes."""
        endings, size = self._endings, len(word)
        for length in self._ending_lengths:
            stem = size - length
            if stem < 0:
                break
            for place, new, shortest_stem in endings.get(word[stem:], ()):
                if stem >= shortest_stem:
                    yield place, word[:stem] + new

    def links(self, word: str, other: str) -> tuple[RuleRef, ...]:
        """The rows that make two words of one family the same word, by file and line: the
        table rows (noun/adjective pairs, word clusters) that list either word, and the
        ``derivations.tsv`` rows that turn one into the other."""
        refs = {ref for (a, b), ref in zip(self.family_pairs, self.pair_refs) if {a, b} & {word, other}}
        if self.derivation_refs:
            for one, two in ((word, other), (other, word)):
                refs.update(self.derivation_refs[place // 2] for place, form in self._derivations(one) if form == two)
        return tuple(sorted(refs))

    def base(self, word: str) -> str:
        """The word's singular, then the head of its word family: 'contractures' ->
        'contracture', 'delayed' -> 'delay', 'hyperkeratotic' -> 'hyperkeratosis''s head.
        A word outside the vocabulary joins the family of a derived form that is in it.
        Remembered (the 400,000 lexicon keys share 50,000 words), up to BASES_KEPT words."""
        base = self._base_cache.get(word)
        if base is None:
            if len(self._base_cache) >= BASES_KEPT:
                self._base_cache.clear()
            base = self._base_cache[word] = self._find_base(word)
        return base

    def _find_base(self, word: str) -> str:
        word = self.singular(word)
        if word in self.families:
            return self.families[word]
        if word not in self.vocabulary:
            # the first of derived_forms in the vocabulary: the least (place, form) of those in it
            vocabulary = self.vocabulary
            known = [found for found in self._derivations(word) if found[1] in vocabulary]
            if known:
                form = min(known)[1]
                return self.families.get(form, form)
        return word


MIN_ADJECTIVAL_STEMS = 3  # pairs that must show a noun ending with an adjective ending


def adjectival_endings(
    nouns: Iterable[str], vocabulary: Iterable[str], endings: dict[str, list[RuleRef]], min_stems: int = MIN_ADJECTIVAL_STEMS
) -> dict[str, tuple[str, RuleRef]]:
    """Noun ending -> (adjective ending, its row), learned from the ontology: a pair is a
    single-word term name or synonym (``nouns``: "hypotonia") and a word of the vocabulary
    with the same stem of four letters or more and an adjective ending ("hypotonic", of
    "Hypotonic seizure"). For each noun ending of ``endings["noun"]`` the adjective ending
    of ``endings["adjective"]`` that the most stems show, if at least ``min_stems`` do (ties:
    the one listed first)."""
    adjectives = [ref for ref in endings["adjective"]]
    by_stem: dict[str, set[str]] = {}
    for word in vocabulary:
        for ref in adjectives:
            if word.endswith(ref.name) and len(word) - len(ref.name) >= 4:
                by_stem.setdefault(word[: len(word) - len(ref.name)], set()).add(ref.name)
    counts: dict[tuple[str, str], int] = {}
    for noun in set(nouns):
        for ref in endings["noun"]:
            stem = noun[: len(noun) - len(ref.name)]
            if noun.endswith(ref.name) and len(stem) >= 4:
                for adjective in by_stem.get(stem, ()):
                    counts[(ref.name, adjective)] = counts.get((ref.name, adjective), 0) + 1
    out = {}
    for noun_ref in endings["noun"]:
        ranked = [(-counts.get((noun_ref.name, ref.name), 0), i, ref) for i, ref in enumerate(adjectives)]
        count, _, ref = min(ranked) if ranked else (0, 0, None)
        if ref is not None and -count >= min_stems:
            out[noun_ref.name] = (ref.name, ref)
    return out


def _ending_row(row: list[str], place: str) -> tuple[str, str, int]:
    """(ending, other ending or '', shortest stem) of a ``derivations.tsv`` row."""
    other = row[1] if len(row) > 1 else ""
    stem = row[2] if len(row) > 2 and row[2] else str(DEFAULT_SHORTEST_STEM)
    if not stem.isdigit():
        raise InputError(f"{place}: the shortest stem must be a number, got {stem!r}")
    return row[0], other, int(stem)


def families(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Word -> the alphabetically first word of its family, the families being the
    connected words of ``pairs`` (a word in two lines joins them)."""
    parent: dict[str, str] = {}

    def root(word: str) -> str:
        while parent.setdefault(word, word) != word:
            word = parent[word]
        return word

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {word: root(word) for word in sorted(parent) if root(word) != word}
