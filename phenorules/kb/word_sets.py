"""Order-free matching: a run of words is a term when it holds exactly the term's words.

Articles reorder and inflect term names freely: "flexion contractures of the elbows" is
Elbow flexion contracture, "deformity of the femoral neck" is Femoral neck deformity. As in
FastHPOCR (Groza et al. 2024, Bioinformatics 40:btae406), a candidate is a run of words that
all belong to ontology terms, and it is recognised by its set of normalised words, not their
order. Here every lexicon key is indexed by the sorted multiset of its content words, each
replaced by its base word (:mod:`phenorules.kb.lexicon.morphology`, the same notion of "the
same word" the variant generator uses: singular, then the head of its word family,
"delayed" -> "delay", "hyperkeratotic" = "hyperkeratosis"); function words ("of", "the",
"both": ``lexicons/function_words.tsv``) are skipped on both sides. A run stops at
punctuation other than a hyphen or an apostrophe, at a conjunction, and at the first word
no term uses, so it never leaves its phrase.

Laboratory findings are named with specimen and quantity words that writers drop or
change: HPO's "Elevated circulating creatine concentration" is written "elevated levels of
creatine", "Low T cell count" "low T-cells". A set that holds a word of a change family
("increased", "decreased", "abnormal": kind ``change``) also stands without its quantity
words ("serum", "level", "count": kind ``quantity``), on both sides, when two words or more
are left; such a set never takes the place of a set a key has as it is.
"""

from __future__ import annotations

from bisect import bisect_right
import re
from array import array
from dataclasses import dataclass, field, replace
from itertools import accumulate, chain, combinations, compress, repeat
from operator import ne
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import numpy
import srsly

from ..core.memo import Remembered, one_object_each
from .cache_file import WordNumbers, little_endian, numbers_of
from .lexicon import Lexicon
from .lexicon.normalize import normalize_text
from .lexicon.morphology import Morphology
from .lexicon.substitutions import Substitution
from .lexicon.tsv import RuleRef, read_grouped_rules
from .matcher import KeysAsked, Match, PhraseMatcher, best_entry

FUNCTION_WORDS = "function_words.tsv"
WORD = re.compile(r"[^\W_]+")  # a word, as a run and a key are read
_WORDS_AND_GAPS = re.compile(r"([^\W_]+)")
_JOINERS = frozenset(("", "-", "'", "/"))  # what may stand between two words of one run
_BOUND = frozenset("-‐‑'’")  # what binds a suffix word to the word before
# Phrase rewrites ('X changes' for Abnormality of X) are paraphrases already; reordering
# them too drifts ('changes of the skin' is rarely a finding): they are not indexed.
_REWRITE = "rewrite"
_BASES_KEPT = 200_000  # words whose base word is remembered between texts
_FEW_WORDS = 32  # kept words up to which a text's run starts are found in Python (WordSetIndex._pairs)


class TextWords(NamedTuple):
    """The words of a text as a run reads them: a base word is '' for a function word (and
    a bound suffix word), None for one that ends a run; ``breaks[i]`` counts the gaps up to
    word i that no run crosses ('.', ',', '(', a line break); ``kept`` lists the words that
    are not ''; ``starts`` holds the word offsets, or is [] until a run needs them."""

    surfaces: list[str]
    gaps: list[str]  # gaps[i] is what stands before surfaces[i]
    words: list[str | None]
    breaks: Sequence[int]
    kept: Sequence[int]
    starts: Sequence[int]
    pairs: list[int]  # positions k in ``kept`` where a run may go on from kept[k] to kept[k + 1] (:meth:`WordSetIndex.words`)


def _drop_bound_suffixes(text: str, starts: Sequence[int], bound: list[int], words: list[str]) -> None:
    """A suffix word joined to the word before it is no word of its own: 'bird-like facies'
    holds the words of Bird facies (the original text: normalising makes a hyphen a space)."""
    for i in bound:
        if text[starts[i] - 1] in _BOUND:
            words[i] = ""


def _end_runs_at_tabs(text: str, starts: Sequence[int], ends_run: list[bool]) -> None:
    """A tab parts a table's cells: the word after it starts a run ('Myopia<TAB>-<TAB>Astigmatism'
    is two findings)."""
    for tab in re.finditer("\t", text):
        after = bisect_right(starts, tab.start())
        if after < len(ends_run):
            ends_run[after] = True


@dataclass
class WordSetIndex:
    """Sorted content words (('contracture', 'elbow', 'flexion')) -> the matcher row of the
    best key; and for each word the words it shares a set with, so that a run stops at the
    first word that shares none with every word before it."""

    rows: dict[tuple[str, ...], int]
    partners: dict[str, frozenset[str]]  # word -> the words it shares an indexed set with
    function_words: frozenset[str]  # skipped
    stop_words: frozenset[str]  # end a run
    morphology: Morphology  # each word's base word ('teeth' -> 'tooth', 'delayed' -> 'delay')
    max_words: int
    rules: dict[tuple[str, ...], str] = field(default_factory=dict)  # word set made by a substitution -> its rule
    suffix_words: frozenset[str] = frozenset()  # skipped when bound to the word before ('bird-like', "cupid's")
    quantity_words: dict[str, RuleRef] = field(default_factory=dict)  # base word -> its row; left out beside a change word
    change_words: dict[str, RuleRef] = field(default_factory=dict)  # base word -> its row; lets the quantity words go
    quantity_sets: frozenset[tuple[str, ...]] = frozenset()  # indexed sets that only keys without their quantity words have
    # each word's reading in a text (:meth:`_reading`), remembered, shared by the copies of the index
    _bases: Remembered[str, str | None] | None = field(default=None, repr=False, compare=False)
    # each word's reading, remembered (the 364,000 keys of a build hold 50,000 words)
    _content_bases: Remembered[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._content_bases = Remembered(self._content_base, _BASES_KEPT)
        if self._bases is None:
            self._bases = Remembered(self._reading, _BASES_KEPT)

    @classmethod
    def build(
        cls,
        lexicon: Lexicon,
        matcher: PhraseMatcher | KeysAsked,
        lexicon_dir: str | Path,
        morphology: Morphology | None = None,
        max_words: int = 6,
    ) -> "WordSetIndex":
        """Index every key of two to ``max_words`` content words (not made by a phrase
        rewrite); on a shared word set the key whose best entry ranks first wins. A key with
        a change word is also indexed without its quantity words (:meth:`without_quantities`)
        where no key has that set as it is. Without a ``morphology``, the one of
        ``lexicon_dir`` over the words of the lexicon's keys."""
        lexicon_dir = Path(lexicon_dir)
        if morphology is None:
            morphology = Morphology.from_dir(lexicon_dir, {word for key in lexicon.entries for word in key.split()})
        kinds = read_function_words(lexicon_dir / FUNCTION_WORDS)
        index = cls({}, {}, kinds.skip, kinds.stop, morphology, max_words, suffix_words=kinds.suffix)
        index.quantity_words = {morphology.base(ref.name): ref for ref in reversed(kinds.quantity)}  # the first row of a base word
        index.change_words = {morphology.base(ref.name): ref for ref in reversed(kinds.change)}
        best: dict[tuple[str, ...], tuple] = {}
        fewer: dict[tuple[str, ...], tuple] = {}  # the sets of keys without their quantity words

        def hold(held: dict[tuple[str, ...], tuple], words: list[str], rank: tuple) -> None:
            if 2 <= len(words) <= max_words:
                word_set = tuple(sorted(words))
                if word_set not in held or rank < held[word_set]:
                    held[word_set] = rank

        for key, entries in lexicon.entries.items():
            ranked = [entry for entry in entries if not entry.case_sensitive and _REWRITE not in entry.rule]
            if not ranked:
                continue
            words = index.content_words(key)
            if not kinds.stop.isdisjoint(words):
                continue
            rank = (ranked[0], key)
            hold(best, words, rank)
            kept = index.without_quantities(words)
            if len(kept) < len(words):
                hold(fewer, kept, rank)
        index.quantity_sets = frozenset(word_set for word_set in fewer if word_set not in best)
        best.update((word_set, fewer[word_set]) for word_set in index.quantity_sets)
        index.rows = {word_set: matcher.row_of(key) for word_set, (_, key) in sorted(best.items())}
        index.partners = partner_words(index.rows)
        return index

    def renumbered(self, rows: Sequence[int]) -> "WordSetIndex":
        """The index built with :class:`~.matcher.KeysAsked`, each set's number ``i`` made
        ``rows[i]``: the matcher's row of the i-th key asked for."""
        return replace(self, rows={word_set: rows[asked] for word_set, asked in self.rows.items()}, _bases=self._bases)

    def with_substitutions(self, matcher: PhraseMatcher, substitutions: Iterable[Substitution]) -> "WordSetIndex":
        """A copy that also holds every indexed word set with one word substituted, unless
        a key has that set already; on a shared set the better-ranked key wins, then the
        pair that comes first (HPO synonyms before articles)."""
        rows = {word_set: row for word_set, row in self.rows.items() if word_set not in self.rules}
        best = {word_set: (matcher.entries(row)[1][0], row) for word_set, row in rows.items()}
        kept = [s for s in substitutions if s.text_word not in self.function_words | self.stop_words]
        substituted = substituted_sets(best, kept)
        rows.update((word_set, row) for word_set, (_, row, _) in sorted(substituted.items()))
        rules = {word_set: rule for word_set, (_, _, rule) in sorted(substituted.items())}
        return replace(self, rows=rows, partners=partner_words(rows), rules=rules, _bases=self._bases)

    def to_bytes(self) -> bytes:
        """The index as msgpack data (a cache section; what a forked build sends back), its
        word sets and partner lists as numbers into one list of words (:class:`WordNumbers`)."""
        numbered = WordNumbers.of([*self.rows, *self.partners.values(), self.partners, *self.quantity_sets])
        return srsly.msgpack_dumps(
            {
                "words": numbered.text(),
                "row_words": numbered.lists(self.rows),
                "rows": little_endian(array("I", self.rows.values())),
                "partner_words": numbered.numbers(self.partners),
                "partners": numbered.lists(sorted(others) for others in self.partners.values()),
                "function_words": sorted(self.function_words),
                "stop_words": sorted(self.stop_words),
                "morphology": self.morphology.state(),
                "max_words": self.max_words,
                "rule_sets": list(self.rules),
                "rules": list(self.rules.values()),
                "suffix_words": sorted(self.suffix_words),
                "quantity_words": [[word, ref.file, ref.line, ref.name] for word, ref in sorted(self.quantity_words.items())],
                "change_words": [[word, ref.file, ref.line, ref.name] for word, ref in sorted(self.change_words.items())],
                "quantity_sets": numbered.lists(sorted(self.quantity_sets)),
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> "WordSetIndex":
        """The index of :meth:`to_bytes`. Read with ``srsly.msgpack.loads``, which leaves the
        garbage collector as it is (``srsly.msgpack_loads`` switches it back on)."""
        state = srsly.msgpack.loads(data, raw=False, use_list=True)
        words = state["words"].split("\n") if state["words"] else []
        return cls(
            dict(zip(WordNumbers.numbered_lists(words, state["row_words"]), numbers_of("I", state["rows"]))),
            dict(zip(WordNumbers.numbered_words(words, state["partner_words"]), map(frozenset, WordNumbers.numbered_lists(words, state["partners"])))),
            frozenset(state["function_words"]),
            frozenset(state["stop_words"]),
            Morphology.from_state(state["morphology"]),
            state["max_words"],
            dict(zip(map(tuple, state["rule_sets"]), state["rules"])),
            frozenset(state["suffix_words"]),
            {word: RuleRef(file, line, name) for word, file, line, name in state["quantity_words"]},
            {word: RuleRef(file, line, name) for word, file, line, name in state["change_words"]},
            frozenset(WordNumbers.numbered_lists(words, state["quantity_sets"])),
        )

    def content_words(self, phrase: str) -> list[str]:
        """The base words of a normalised phrase less its function words. A key is
        normalised ('bird-like' is 'bird like'): a suffix word after another word is bound."""
        surfaces = WORD.findall(phrase)
        words = [word for word in map(self._content_bases.__getitem__, surfaces) if word]
        if surfaces and surfaces[0] in self.suffix_words and surfaces[0] not in self.function_words:
            words.insert(0, self.base_word(surfaces[0]))
        return words

    def _content_base(self, word: str) -> str:
        """:meth:`content_words`' reading of a word: '' for a function word and a suffix word
        (kept only as a phrase's first word), else its base word."""
        return "" if word in self.function_words or word in self.suffix_words else self.base_word(word)

    def without_quantities(self, words: list[str]) -> list[str]:
        """Base words less the quantity words if they hold a change word (['elevate',
        'circulating', 'creatine', 'concentration'] -> ['elevate', 'creatine']), else ``words``."""
        if self.change_words.keys().isdisjoint(words):
            return words
        return [word for word in words if word not in self.quantity_words]

    def quantity_rows(self, run: str, term: str) -> tuple[RuleRef, ...]:
        """The ``function_words.tsv`` rows that let a run stand for the term name ``term``:
        the rows of the quantity words one of them holds and the other does not, and of the
        change words of the run; none when no quantity word was left out."""
        own = {self.base_word(word) for word in self._content_surfaces(normalize_text(term))}
        written = {self.base_word(word) for word in self._content_surfaces(normalize_text(run))}
        left_out = [self.quantity_words[word] for word in own ^ written if word in self.quantity_words]
        if not left_out:
            return ()
        return tuple(sorted(left_out + [self.change_words[word] for word in written if word in self.change_words]))

    def family_rows(self, run: str, term: str) -> tuple[RuleRef, ...]:
        """The word-family rows (:meth:`Morphology.links`) that make a run's words the
        words of the term name ``term``: for each content word of ``run`` that is not, in
        the singular, one of the term's, the rows linking it to the term's word of the
        same base word; by file and line."""
        singular = self.morphology.singular
        own = {singular(word): self.base_word(word) for word in self._content_surfaces(normalize_text(term))}
        refs: set[RuleRef] = set()
        for word in self._content_surfaces(normalize_text(run)):
            if singular(word) not in own:
                base = self.base_word(word)
                for other, other_base in own.items():
                    if other_base == base:
                        refs.update(self.morphology.links(singular(word), other))
        return tuple(sorted(refs))

    def _content_surfaces(self, phrase: str) -> list[str]:
        words = WORD.findall(phrase)
        return [word for i, word in enumerate(words) if word not in self.function_words and not (i and word in self.suffix_words)]

    def base_word(self, word: str) -> str:
        """'contractures' -> 'contracture', 'delayed' -> 'delay' (:meth:`Morphology.base`)."""
        return self.morphology.base(word)

    def words(self, text: str, table: "WordTable | None" = None) -> TextWords:
        """The words of ``text`` as :meth:`find` and :meth:`find_skipping_one` read them
        (a stage that calls both reads the text once); ``table``: :func:`word_table` of
        ``text``, if read already."""
        if table is None:
            normal = normalize_text(text)
            surfaces = WORD.findall(normal)
            gaps = WORD.split(normal)  # gaps[i] is what stands before surfaces[i]
        else:
            surfaces, gaps = table.surfaces, table.gaps
        words = list(map(self._bases.__getitem__, surfaces))
        suffixes = self.suffix_words
        bound = [i for i, surface in enumerate(surfaces) if surface in suffixes and i]
        tabbed = "\t" in text
        starts: Sequence[int] = table.starts if table is not None else word_offsets(surfaces, gaps) if bound or tabbed else []  # word offsets, computed when needed
        _drop_bound_suffixes(text, starts, bound, words)
        breaking = {gap: gap.strip() not in _JOINERS for gap in set(gaps)}  # each distinct gap once
        ends_run = list(map(breaking.__getitem__, gaps[: len(words)]))
        if tabbed:
            _end_runs_at_tabs(text, starts, ends_run)
        breaks = array("q", accumulate(ends_run))
        kept = array("q", compress(range(len(words)), map(ne, words, repeat(""))))  # all but function words
        return TextWords(surfaces, gaps, words, breaks, kept, starts, self._pairs(words, breaks, kept))

    def _pairs(self, words: list[str], breaks: array, kept: array) -> list[int]:
        """The places k in ``kept`` where a run may start: kept[k] and kept[k + 1] in one
        phrase, the first word of some indexed set, the second too or a quantity word. In
        numpy for a text; in Python for a phrase of a few words (a stage's rebuilt phrase,
        asked of thousands), where numpy's calls cost more than the loop."""
        partners, quantities = self.partners, self.quantity_words
        if len(kept) <= _FEW_WORDS:
            return [
                k
                for k, (first, second) in enumerate(zip(kept, kept[1:]))
                if breaks[first] == breaks[second] and words[first] in partners and (words[second] in partners or words[second] in quantities)
            ]
        indexed = numpy.fromiter(map(partners.__contains__, words), bool, len(words))
        quantity = numpy.fromiter(map(quantities.__contains__, words), bool, len(words))
        phrase, first, second = numpy.frombuffer(breaks, "int64"), numpy.frombuffer(kept, "int64")[:-1], numpy.frombuffer(kept, "int64")[1:]
        return numpy.flatnonzero((phrase[first] == phrase[second]) & indexed[first] & (indexed[second] | quantity[second])).tolist()

    def find(self, text: str, matcher: PhraseMatcher, words: TextWords | None = None) -> list[Match]:
        """Every run of words in ``text`` whose content words are an indexed set; ``words``:
        :meth:`words` of ``text``, if already read."""
        surfaces, gaps, words, breaks, kept, starts, pairs = words if words is not None else self.words(text)
        partners, rows, max_words = self.partners, self.rows, self.max_words  # locals: a hot loop
        quantities, changes = self.quantity_words, self.change_words
        out = []
        for k in self._run_starts(words, kept, pairs):
            first = kept[k]
            phrase = breaks[first]
            content, measured = [words[first]], []  # the first word is kept as it is
            # The words every word so far shares a set with, as the partner sets of the
            # words so far: testing a word against each is cheaper than intersecting them.
            shared = [partners[words[first]]]
            for last in kept[k + 1 : k + max_words]:
                word = words[last]
                if breaks[last] != phrase:
                    break
                if word in quantities:
                    # It may be left out, so the other words need not share a set with it.
                    measured.append(word)
                elif word in shared[0] and (len(shared) == 1 or all(word in others for others in shared)):  # most runs share one set so far
                    content.append(word)
                    shared.append(partners[word])
                else:
                    break
                word_set = tuple(sorted(content + measured)) if measured else tuple(sorted(content))
                row = rows.get(word_set)
                if row is None and measured and len(content) > 1 and not changes.keys().isdisjoint(content):
                    word_set = tuple(sorted(content))
                    row = rows.get(word_set)
                if row is not None:
                    starts = starts or word_offsets(surfaces, gaps)
                    match = self._match(text, matcher, row, word_set, starts[first], starts[last] + len(surfaces[last]))
                    if match is not None:
                        out.append(match)
        return out

    def _run_starts(self, words: list, kept: Sequence[int], pairs: list[int]) -> list[int]:
        """Where a run may start (positions in ``kept``): two kept words in one phrase that
        share an indexed set, or whose second is a quantity word ("elevated levels of
        creatine")."""
        partners, quantities = self.partners, self.quantity_words
        return [k for k in pairs if words[kept[k + 1]] in partners[words[kept[k]]] or words[kept[k + 1]] in quantities]

    def _match(self, text: str, matcher: PhraseMatcher, row: int, word_set: tuple[str, ...], start: int, end: int) -> Match | None:
        """The match of an indexed set's row at ``[start, end)``: its best entry for the
        surface, with the substitution rule that made the set, if any."""
        entry = best_entry(matcher.entries(row)[1], text[start:end])
        if entry is None:
            return None
        rule = self.rules.get(word_set) if self.rules else None
        if rule:
            entry = entry._replace(rule=f"{entry.rule}+{rule}" if entry.rule else rule)
        return Match(start, end, entry)

    def find_skipping_one(self, text: str, matcher: PhraseMatcher, words: TextWords | None = None) -> list[Match]:
        """Runs whose content words are an indexed set but for one word inside the run:
        "thinning of the entire retina" (Retinal thinning), "widely spaced lower teeth". As
        in FastHPOCR's runs of known words, the skipped word is a word of an indexed set;
        the run still starts and ends with words of the set, and never crosses a break. A
        set made by a substitution or left without its quantity words is not one of them."""
        surfaces, gaps, words, breaks, kept, starts, pairs = words if words is not None else self.words(text)
        partners, rows, rules, max_words, quantity_sets = self.partners, self.rows, self.rules, self.max_words, self.quantity_sets
        # A run goes on past its first word only if the next kept word is in its phrase and
        # in some indexed set (shared with the first word or skipped).
        firsts = [k for k in pairs if words[kept[k + 1]] in partners]
        out = []
        for k in firsts:
            first = kept[k]
            phrase = breaks[first]
            content, shared, skipped = [words[first]], [partners[words[first]]], False
            for last in kept[k + 1 : k + max_words + 1]:
                word = words[last]
                if breaks[last] != phrase or word is None:
                    break
                if not (word in shared[0] and (len(shared) == 1 or all(word in others for others in shared))):
                    if skipped or word not in partners:
                        break
                    skipped = True
                    continue
                content.append(word)
                shared.append(partners[word])
                if skipped:
                    word_set = tuple(sorted(content))
                    row = rows.get(word_set)
                    if row is not None:
                        starts = starts or word_offsets(surfaces, gaps)
                        start, end = starts[first], starts[last] + len(surfaces[last])
                        entry = best_entry(matcher.entries(row)[1], text[start:end])
                        if entry is not None and not rules.get(word_set) and word_set not in quantity_sets:
                            out.append(Match(start, end, entry))
        return out

    def _reading(self, surface: str) -> str | None:
        """'' for a function word, None for a word that ends a run, else its base word."""
        if surface in self.function_words:
            return ""
        return None if surface in self.stop_words else self.base_word(surface)


def substituted_sets(best: dict[tuple[str, ...], tuple], substitutions: Iterable[Substitution]) -> dict[tuple[str, ...], tuple]:
    """Word set -> (rank, row, rule) for every indexed set with one word substituted."""
    by_word: dict[str, list[Substitution]] = {}
    for substitution in sorted(substitutions, key=lambda s: (s.source != "synonyms", s)):
        by_word.setdefault(substitution.term_word, []).append(substitution)
    out: dict[tuple[str, ...], tuple] = {}
    if not by_word:
        return out
    for word_set, (rank, row) in sorted(best.items()):
        for i, word in enumerate(word_set):
            if word not in by_word or (i and word_set[i - 1] == word):
                continue
            for substitution in by_word[word]:
                new = tuple(sorted(word_set[:i] + (substitution.text_word,) + word_set[i + 1 :]))
                if new in best:
                    continue
                candidate = (rank, row, f"subst:{substitution.source}:{word}>{substitution.text_word}")
                if new not in out or candidate[:2] < out[new][:2]:
                    out[new] = candidate
    return out


def partner_words(rows: dict[tuple[str, ...], int]) -> dict[str, frozenset[str]]:
    """Word -> the words it shares an indexed set with."""
    partners: dict[str, set[str]] = {}
    for word_set in rows:
        for a, b in combinations(word_set, 2):
            partners.setdefault(a, set()).add(b)
            partners.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in sorted(partners.items())}


class WordTable(NamedTuple):
    """The words of a text in normal form (:func:`normalize_text`: the offsets are the
    text's), read once: what the stages that read words share (``DocState.words``). A word
    or gap written twice is one string, and the offsets are machine integers: a table takes
    about 3 pointers and 8 bytes a word, whatever the text."""

    normal: str
    surfaces: list[str]
    gaps: list[str]  # gaps[i] is what stands before surfaces[i]
    starts: Sequence[int]


def word_table(text: str) -> WordTable:
    normal = normalize_text(text)
    parts = one_object_each(_WORDS_AND_GAPS.split(normal))  # gap, word, gap, ..., word, gap: one scan
    return WordTable(normal, parts[1::2], parts[0::2], _word_starts(parts))


def word_offsets(surfaces: list[str], gaps: list[str]) -> array:
    """Where each word starts, from the words and the gaps before them."""
    return _word_starts(list(chain.from_iterable(zip(gaps, surfaces))))


def _word_starts(parts: list[str]) -> array:
    """Where each word of ``parts`` (gap, word, gap, ..., word, and a last gap or none)
    starts: the lengths summed in numpy."""
    ends = numpy.cumsum(numpy.fromiter(map(len, parts), dtype=numpy.int64, count=len(parts)))
    return array("q", ends[0 : 2 * (len(parts) // 2) : 2].tobytes())


class FunctionWords(NamedTuple):
    """The words of the function-word file, by kind."""

    skip: frozenset[str]  # left out
    stop: frozenset[str]  # end a run
    suffix: frozenset[str]  # left out when bound to the word before
    quantity: tuple[RuleRef, ...]  # left out beside a change word
    change: tuple[RuleRef, ...]  # let the quantity words go


def read_function_words(path: Path) -> FunctionWords:
    """The words of each kind of the function-word file."""
    kinds = read_grouped_rules(path, ("skip", "stop", "suffix", "quantity", "change"), group_column=1)
    skip, stop, suffix = (frozenset(ref.name for ref in kinds[kind]) for kind in ("skip", "stop", "suffix"))
    return FunctionWords(skip, stop, suffix, tuple(kinds["quantity"]), tuple(kinds["change"]))
