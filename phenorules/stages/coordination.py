"""Coordinated and compound phenotypes: one mention for a phrase naming several terms.

Articles write coordinated findings with the shared words once: "atrial or ventricular
septal defects" (shared head), "cleft lip and palate" (shared modifier), "short third and
fourth metatarsals" (both), "syndactyly of the 2nd and 3rd toes", "toes II-IV" (ordinals),
"cleft lip/palate" (the same inside one dictionary match), "mild to moderate intellectual
disability" (a severity range). The dictionary stage finds at most the conjunct written in
full. This stage reads the phrase around each conjunction as shared modifier + conjuncts +
shared head (:class:`Conjuncts`), rebuilds every conjunct's phrase, and keeps a reading only
if each rebuilt phrase is a term of the lexicon (its automaton or its word-set index
decides). The covered mentions give way to one mention over the whole phrase whose
``hpo_ids`` are the ids of all its terms, as PatientPheX annotates compounds, and whose
``parts`` hold each term's own extent (the spaCy component makes one span of each).
Rules: ``rules/coordination.tsv`` (conjunctions per pattern), ``rules/ordinals.tsv``,
``rules/severity_ranges.tsv``; the ``patterns`` setting says which patterns run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Iterator

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, DocState, placed, working
from ..core.phenotype import Phenotype
from ..core.errors import InputError, SettingError
from ..core.intervals import Extents
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules, read_tsv
from ..kb.word_sets import WordTable, word_table
from ..kb.resources import data_file
from .compounds import Compound, Reading, UnitBases, joined, merge, pairwise_partners, unit_ending_at, unit_pattern, words_of
from .coordinated_lists import DistributedLists, phrase_alternation, read_list_words
from .knowledge import KB_CONFIG
from .match import RefinesMatches
from .ordinals import OrdinalReadings, Ordinals, read_ordinals
from .word_order import RULE as WORD_ORDER_RULE

CONJUNCTION_KINDS = ("shared_head", "shared_modifier", "inner_modifier", "range")
PARTICIPLE = "participle"  # the kind of the rows of a past participle's endings
ELISION_PATTERNS = ("shared_head", "shared_modifier", "ordinal")
MENTION_PATTERNS = ("inner_modifier", "severity_range")  # read at each mention (Coordination.compounds)
PATTERNS = (*ELISION_PATTERNS, *MENTION_PATTERNS, "distributed_list")
# shared_head, shared_modifier and ordinal are off by default: on PatientPheX the annotators
# mark only the conjunct written in full ("cerebral and [cerebellar atrophy]"); docs/context.md.
DEFAULT_PATTERNS = ["inner_modifier", "severity_range", "distributed_list"]
_WORD = r"[^\W_]+"
_CONTEXT_TOKENS = 8  # "mild to moderate " is at most 6 tokens
# A word of a conjunct: letters and digits, hyphens and apostrophes inside ("deep-set", "II-IV").
_UNIT_JOINERS = frozenset("-\u2010\u2011\u2013'\u2019")  # inside a _UNIT, between its word characters
_UNIT = unit_pattern(_UNIT_JOINERS)
_SITE_WINDOW = 120  # characters read on each side of a conjunction
_MAX_SIDE_WORDS = 10  # words of a conjunct with its shared words, on each side
_MAX_SHARED = 4  # words of a shared modifier or head ("syndactyly of the", "septal defects")
_MAX_SHARED_BEFORE_NUMBER = 9  # "abnormality of the middle phalanx of the [2nd and 3rd] finger"
_MAX_CONJUNCT = 2  # words of one conjunct ("mild", "cleft lip")


@dataclass(frozen=True)
class CoordinationRules:
    conjunctions: dict[str, tuple[str, ...]]  # kind -> conjunctions, longest first
    severity_ranges: dict[str, str]  # "mild to moderate" -> "moderate"
    list_words: dict[str, tuple[str, ...]]  # kind (conjunction, preposition, determiner) -> words
    conjunction_refs: dict[tuple[str, str], RuleRef]  # (kind, conjunction) -> its row
    ordinals: Ordinals
    participles: tuple[RuleRef, ...] = ()  # endings of a past participle ("ed"), a verb after a phrase


def read_rules(coordination_file: Path, ranges_file: Path, lists_file: Path, ordinals_file: Path | None = None) -> CoordinationRules:
    grouped = read_grouped_rules(coordination_file, (*CONJUNCTION_KINDS, PARTICIPLE))
    participles = tuple(grouped.pop(PARTICIPLE))
    for pattern, listed in grouped.items():
        if not listed:
            raise InputError(f"{coordination_file}: no conjunction listed for pattern {pattern!r}")
    ranges = {" ".join(row[0].lower().split()): row[1].lower() for row, _ in read_tsv(ranges_file, 2)}
    conjunctions = {p: tuple(sorted((ref.name for ref in refs), key=len, reverse=True)) for p, refs in grouped.items()}
    refs = {(p, ref.name): ref for p, listed in grouped.items() for ref in listed}
    ordinals = read_ordinals(data_file("rules", "ordinals.tsv", ordinals_file))
    return CoordinationRules(conjunctions, ranges, read_list_words(lists_file), refs, ordinals, participles)


@Language.factory(
    "phenorules_coordination",
    default_config={
        "kb": KB_CONFIG,
        "coordination_file": None,
        "ranges_file": None,
        "lists_file": None,
        "ordinals_file": None,
        "patterns": DEFAULT_PATTERNS,
        "min_list_items": 3,
        "spans": True,
    },
)
def make_coordination(
    nlp: Language,
    name: str,
    kb: KnowledgeBase,
    coordination_file: str | None,
    ranges_file: str | None,
    lists_file: str | None,
    ordinals_file: str | None,
    patterns: list[str],
    min_list_items: int,
    spans: bool,
):
    unknown = sorted(set(patterns) - set(PATTERNS))
    if unknown:
        raise SettingError(f"unknown coordination pattern(s) {unknown}; expected some of {list(PATTERNS)}")
    if min_list_items < 2:
        raise SettingError(f"coordination: min_list_items must be at least 2, not {min_list_items}")
    rules = read_rules(
        data_file("rules", "coordination.tsv", coordination_file),
        data_file("rules", "severity_ranges.tsv", ranges_file),
        data_file("rules", "coordinated_lists.tsv", lists_file),
        data_file("rules", "ordinals.tsv", ordinals_file),
    )
    return placed(Coordination(rules, kb, tuple(patterns), min_list_items), spans)


class Context:
    """The text just before a mention, read only when a pattern asks for it."""

    def __init__(self, doc: Doc, state: DocState, mention: Phenotype):
        self.doc, self.state, self.mention = doc, state, mention

    @cached_property
    def before(self) -> tuple[str, int]:
        """(text, start offset) of the ``_CONTEXT_TOKENS`` tokens before the mention, as
        ``doc[first:start]`` has them."""
        return self.state.tokens_before(self.doc, self.mention.start, _CONTEXT_TOKENS)


class Coordination(OrdinalReadings, DistributedLists, RefinesMatches):
    pieces = LOCAL

    def __init__(self, rules: CoordinationRules, kb: KnowledgeBase, patterns: tuple[str, ...], min_list_items: int = 3):
        self.rules = rules
        self.kb = kb
        self.patterns = patterns
        conj = {p: phrase_alternation(c) for p, c in rules.conjunctions.items()}
        self.inner = re.compile(rf"({_WORD}(?:\s+{_WORD})+)\s*(?:{conj['inner_modifier']})\s*({_WORD})", re.IGNORECASE)
        elided = sorted(set(rules.conjunctions["shared_head"]) | set(rules.conjunctions["shared_modifier"]), key=len, reverse=True)
        spelled = lambda listed, alnum: "|".join(re.escape(c).replace(r"\ ", r"\s+") for c in listed if c[0].isalnum() == alnum) or "(?!)"  # noqa: E731
        # "A and B", "A, and B", "A/B"; a range word or dash only between two numbers
        # ("second to fourth", "II-IV": read_site checks). A site starts after a character
        # that is no space and its spaces are taken possessively, so a long run of spaces
        # (the newlines between passages) is read once, not once per position. A site starts
        # with a space, a comma or a symbol conjunction: a position at any other character is
        # left at one class test.
        symbols = "".join(sorted({c[0] for c in (*elided, *rules.conjunctions["range"]) if not c[0].isalnum()}))
        self.site = re.compile(
            rf"(?=[\s,{re.escape(symbols)}])(?:"
            rf"(?<!\s)(?:\s*+,)?\s++(?:({spelled(elided, True)})|({spelled(rules.conjunctions['range'], True)}))\s+"
            rf"|(?<!\s)\s*+({spelled(elided, False)})\s*+|(?<=\w)({spelled(rules.conjunctions['range'], False)})(?=\w))",
            re.IGNORECASE,
        )
        # The text before a mention ends without its last token's trailing space.
        self.full_range = re.compile(rf"\b({phrase_alternation(rules.severity_ranges)})\s*$", re.IGNORECASE)
        self.open_range = re.compile(rf"\b({_WORD})[\s-]+to[\s-]*$", re.IGNORECASE)
        # Both range patterns need the word "to" (the full one if each row holds it): a text
        # before a mention without it is not searched.
        self.ranges_need_to = all("to" in re.split(r"[\s-]+", phrase) for phrase in rules.severity_ranges)
        self.mention_patterns = tuple(pattern for pattern in patterns if pattern in MENTION_PATTERNS)  # each a method of its name
        self.compile_lists(rules.list_words, min_list_items)

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions, text = state.mentions, state.text
        compounds = [c for mention in mentions for c in self.compounds(Context(doc, state, mention))]
        if "distributed_list" in self.patterns:
            compounds += self.distributed_lists(text)
        readings = self.readings(text, state.words) if set(ELISION_PATTERNS) & set(self.patterns) else []
        if readings:  # the mentions' index only where a reading is to be checked against it
            extents = [(mention.start, mention.end, matched_in_order(mention)) for mention in mentions]
            indexed = Extents((start, end) for start, end, _ in extents)
            compounds += [self.compound(reading, text) for reading in readings if self.keeps(reading, text, extents, indexed)]
        if compounds:
            state.mentions = merge(doc, state, compounds, self.kb.ontology)

    def compounds(self, context: Context) -> list[Compound]:
        """What each enabled per-mention pattern makes of the mention ``context.mention``
        (elided conjuncts and lists are found in the text: :meth:`readings`,
        :meth:`distributed_lists`)."""
        found = (getattr(self, pattern)(context) for pattern in self.mention_patterns)
        return [compound for compound in found if compound is not None]

    def keeps(self, reading: Reading, text: str, mentions: list[tuple[int, int, bool]], indexed: Extents) -> bool:
        """An enabled pattern's reading that cuts no mention off at its end ('[renal
        anomalies] and [sensorineural hearing loss]' is no 'anomalies and sensorineural
        hearing'), nor a mention in its written order at its start ('bowed [long bones] and
        broad ribs' shares no 'ribs'; such a mention may end in the shared modifier, and
        one matched in another word order gives way: 'mask-like [face with a wide] and flat
        nasal bridge'), and whose last conjunct is not a modifier of the word after it
        ('abnormal eye and hand movements' lends 'abnormal' to no 'hand')."""
        if reading.kind not in self.patterns:
            return False
        if reading.head is None and self.modifies_next_word(text, reading.end):
            return False
        first_conjunct = reading.conjuncts[0][0]
        return not any(
            (reading.start <= start and end > reading.end) or (ordered and start < reading.start and first_conjunct < end <= reading.end)
            for start, end, ordered in (mentions[i] for i in indexed.overlapping(reading.start, reading.end))
        )

    def modifies_next_word(self, text: str, end: int) -> bool:
        """Whether the word right after ``end`` (a space between) heads a noun phrase: an
        HPO name or synonym ends with it (``KnowledgeBase.head_words``) and it is no past
        participle (:meth:`participle_ending`). The phrase goes on, and its last conjunct
        modifies that word."""
        word = self.head_after(text, end)
        return word is not None and self.participle_ending(word) is None

    def head_after(self, text: str, end: int) -> str | None:
        """The word right after ``end`` (a space between), lower-case, if an HPO name or
        synonym ends with it as written or as its base ('movements', 'repaired': repair)."""
        found = _NEXT_WORD.match(text, end)
        if found is None:
            return None
        word = found.group(1).lower()
        return word if word not in self.kb.word_sets.function_words and self.base_word(word) in self.kb.head_words else None

    def participle_ending(self, word: str) -> RuleRef | None:
        """The row of the ending that makes ``word`` a past participle: the word ends with
        it and the morphology reads it as made of another word ('repaired': repair; not
        'bleed')."""
        if self.base_word(word) == word:
            return None
        return next((ref for ref in self.rules.participles if word.endswith(ref.name)), None)

    def compound(self, reading: Reading, text: str) -> Compound:
        """The reading's compound; a shared modifier's names the participle row that read
        the word after it as a verb ('cleft lip and palate [repaired] at 6 months')."""
        compound = reading.compound()
        word = self.head_after(text, reading.end) if reading.head is None else None
        ref = self.participle_ending(word) if word is not None else None
        return compound if ref is None else replace(compound, rule=f"{compound.rule}+{ref}")

    def base_word(self, word: str) -> str:
        return self.kb.word_sets.morphology.base(word) or word

    def compound_word(self, text: str, site: re.Match, reading: Reading) -> bool:
        """Whether the slash of ``site`` joins one compound word, as a hyphen does: the
        phrase written with a hyphen there, with or without the shared modifier, is a term
        ('generalized tonic/clonic seizures' is Generalized tonic-clonic seizure, no tonic
        seizure and clonic seizure)."""
        after = text[site.end() : reading.end]
        starts = dict.fromkeys((reading.start, reading.conjuncts[0][0]))
        return any(self.in_written_order(f"{text[start : site.start()]}-{after}") for start in starts)

    # ------------------------------------------------------------ elided conjuncts

    def readings(self, text: str, table: WordTable | None = None) -> list[Reading]:
        """The best reading of the phrase around each conjunction (and each "II-IV"). A
        comma before the conjunction belongs to a list of three or more ("cleft lip,
        palate, and uvula"); between two items it parts two findings ("liver fibrosis, and
        xanthomata"), which share no words. A slash may join a compound word instead
        (:meth:`compound_word`). ``table``: :func:`word_table` of ``text``, if read already."""
        table = table or word_table(text)
        out = []
        known, number = self.known, self.rules.ordinals.number
        for site in self.site.finditer(text):
            right_start = site.end()
            first = _UNIT.match(text, right_start, right_start + _SITE_WINDOW)
            # the word after first (one match in C): most sites end here, the word before unread
            if first is None or not (known(first_right := first.group().lower()) or number(first_right, True) is not None):
                continue
            written = site.lastindex  # the one group of the site's alternative
            reading = self.read_site(text, table, (site.start(), right_start), first_right, site.group(written), "range" if written in (2, 4) else "shared_head")
            if reading is None or ("," in site.group() and len(reading.conjuncts) == 2):
                continue
            if site.group().strip() == "/" and self.compound_word(text, site, reading):
                continue
            out.append(reading)
        return out

    def read_site(self, text: str, table: WordTable, site: tuple[int, int], first_right: str, written: str, kind: str) -> Reading | None:
        """The longest reading whose every rebuilt conjunct is a term, or None (``site``: the
        extent of the conjunction, ``written`` as written; ``first_right``: the word after
        it, lower-case, a number or a word some term has). Only a site between two words
        some term has, or two numbers, is read further: most conjunctions join no terms
        ("patients and", "and the")."""
        left_end, right_start = site
        last = unit_ending_at(text, max(0, left_end - _SITE_WINDOW), left_end, _UNIT_JOINERS)
        if last is None:
            return None
        ordinals = self.rules.ordinals
        last_left = last.lower()
        roman = last_left in ordinals.roman and first_right in ordinals.roman
        numbered = ordinals.number(last_left, roman) is not None and ordinals.number(first_right, roman) is not None
        if (kind == "range" and not numbered) or not (numbered or (self.known(last_left) and self.known(first_right))):
            return None
        right, chunks = self.right_words(text, right_start), self.left_chunks(text, left_end)
        if not chunks:
            return None
        conjunction = " ".join(written.lower().split())
        # the items between the first and the last: whole chunks of one or two words
        items = []
        for chunk in chunks[:-1]:
            if len(chunk) > _MAX_CONJUNCT:
                break
            items.insert(0, (chunk[0][0], chunk[-1][1]))
        best: Reading | None = None
        bases = UnitBases(table, self.skipped_words, self.kb.word_sets.morphology.base)  # one for every reading of the site
        for listed in range(len(items) + 1):
            middle, first_chunk = items[len(items) - listed :], chunks[listed]
            for reading in self.site_readings(text, table, bases, first_chunk, middle, right, numbered, kind == "range", roman, conjunction):
                if best is None or reading.end - reading.start > best.end - best.start:
                    best = reading
        return best

    def site_readings(self, text, table, bases, first_chunk, middle, right, numbered, is_range, roman, conjunction) -> Iterator[Reading]:
        """Every reading of a conjunct of one or two words on each side, up to
        ``_MAX_SHARED`` words of modifier and of head, whose conjuncts are all terms.

        A rebuilt conjunct is a term only if its content words share indexed sets pairwise
        (:meth:`words_fit`), and a longer modifier or head only adds words: once the
        first or the last conjunct with the shared words so far fails that test (a number's
        shared words: with every form of a number), no longer modifier or head is tried.
        Each word added is tested against the words so far only (:meth:`fits`), and a
        unit's words are read only when a reading reaches it (``bases``: :class:`UnitBases`)."""
        partners = self.kb.word_sets.partners
        for size in range(1, _MAX_CONJUNCT + 1):
            if size > len(right) or size > len(first_chunk):
                break
            first = (first_chunk[-size][0], first_chunk[-1][1])
            last = (right[0][0], right[size - 1][1])
            most = _MAX_SHARED_BEFORE_NUMBER if numbered else _MAX_SHARED
            of_number = numbered and size == 1
            conjunct_words = () if of_number else (words_of(bases, first_chunk[-size:]), words_of(bases, right[:size]))
            if not all(pairwise_partners(words, partners) for words in conjunct_words):
                continue
            for modifier_words, head_words in self.shared_words(bases, first_chunk[: len(first_chunk) - size], right[size:], most, conjunct_words, of_number):
                modifier = (first_chunk[-size - modifier_words][0], first_chunk[-size - 1][1]) if modifier_words else None
                head = (right[size][0], right[size + head_words - 1][1]) if head_words else None
                reading = self.rebuild(text, table, modifier, (first, *middle, last), head, numbered and size == 1, is_range, roman, conjunction)
                if reading is not None:
                    yield reading

    def shared_words(self, bases: "UnitBases", before: list, after: list, most: int, conjunct_words: tuple, of_number: bool) -> Iterator[tuple[int, int]]:
        """(units of modifier, units of head) of each reading, not both none, whose shared
        words fit with the conjuncts' (:meth:`fits`): up to ``most`` of the units ``before``
        the first conjunct, the nearest first, and up to ``_MAX_SHARED`` of those ``after``
        the last; once a unit fails, no longer modifier (or head) is tried."""
        shared_before: list[str | None] = []
        for modifier_words in range(0, min(most, len(before)) + 1):
            if modifier_words:
                added = bases[before[-modifier_words]]
                if not self.fits(added, (), shared_before, conjunct_words, of_number):
                    break
                shared_before = added + shared_before
            shared = shared_before
            for head_words in range(0, min(_MAX_SHARED, len(after)) + 1):
                if head_words:
                    added = bases[after[head_words - 1]]
                    if not self.fits(added, shared, (), conjunct_words, of_number):
                        break
                    shared = shared + added
                if modifier_words or head_words:
                    yield modifier_words, head_words

    @cached_property
    def skipped_words(self) -> frozenset[str]:
        """The function and suffix words, which a rebuilt conjunct's test skips."""
        return self.kb.word_sets.function_words | self.kb.word_sets.suffix_words

    def fits(self, words: list[str | None], before: list[str | None] | tuple, after: list[str | None] | tuple, conjunct_words: tuple, of_number: bool) -> bool:
        """Whether shared words (modifier or head) that fit with each conjunct's words
        still may make a term with ``words`` added between the shared words ``before``
        and ``after`` them: pairwise partners with those, each other and each conjunct's
        words; a number's shared words each a partner of a number's form (``number_partners``)."""
        partners, number_partners = self.kb.word_sets.partners, self.number_partners
        if of_number and number_partners is not None and not all(word in number_partners for word in words):
            return False
        for i, word in enumerate(words):
            if not all(word == other or word in partners.get(other, ()) for other in (*before, *words[:i])):
                return False
            own = partners.get(word, ())  # the conjuncts' words come after the shared words
            if not all(word == other or other in own for other in (*after, *(w for listed in conjunct_words for w in listed))):
                return False
        return True

    def rebuild(self, text, table, modifier, conjuncts, head, numbered: bool, is_range: bool, roman: bool, conjunction: str) -> Reading | None:
        """The reading if every rebuilt conjunct is a term: numbers also as "N-M" together
        and as each of their written forms."""
        shared = lambda extent: text[extent[0] : extent[1]] if extent else ""  # noqa: E731
        before, after = shared(modifier), shared(head)
        written = [text[start:end] for start, end in conjuncts]
        shape = "shared_modifier" if modifier and not head else "shared_head"
        ref = self.rules.conjunction_refs.get(("range" if is_range else shape, conjunction))
        if numbered:
            return self.rebuild_numbers(before, after, written, (modifier, conjuncts, head), is_range, roman, ref)
        found = []
        for conjunct in conjuncts:  # most readings fail at their first conjunct
            ids = self.extents_term(table, modifier, conjunct, head)
            if ids is None:
                return None
            found.append(ids)
        if len(set(found)) < 2:
            return None
        return Reading(modifier, conjuncts, head, tuple(found), shape, ref)

    def right_words(self, text: str, start: int) -> list[tuple[int, int]]:
        """The words after a conjunction up to the end of the phrase."""
        window = text[start : start + _SITE_WINDOW]
        words = []
        position = 0
        for found in _UNIT.finditer(window):
            if window[position : found.start()].strip() or len(words) == _MAX_SIDE_WORDS:
                break
            words.append((start + found.start(), start + found.end()))
            position = found.end()
        return words

    def left_chunks(self, text: str, end: int) -> list[list[tuple[int, int]]]:
        """The words before a conjunction back to the start of the phrase, in comma-separated
        chunks, the nearest chunk first: read backwards from ``end`` a word at a time
        (:func:`unit_ending_at`), as the words of the ``_SITE_WINDOW`` characters before it are."""
        begin = max(0, end - _SITE_WINDOW)
        chunks: list[list[tuple[int, int]]] = [[]]
        position, count = end, 0
        while True:
            unit_end = position
            while unit_end > begin and not text[unit_end - 1].isalnum():
                unit_end -= 1
            unit = unit_ending_at(text, begin, unit_end, _UNIT_JOINERS)
            if unit is None:
                break
            gap = text[unit_end:position].strip()
            if gap == "," and chunks[-1]:
                chunks.append([])
            elif gap:
                break
            if count == _MAX_SIDE_WORDS or unit.lower() in self.rules.conjunctions["shared_head"]:
                break
            chunks[-1].insert(0, (unit_end - len(unit), unit_end))
            position, count = unit_end - len(unit), count + 1
        return [chunk for chunk in chunks if chunk]

    def inner_modifier(self, context: Context) -> Compound | None:
        """'cleft lip/palate' matched whole as a synonym of a broader term (``context.mention``): split it.

        Only synonym matches are split, never a term's own name ('Aplasia/Hypoplasia of
        the thumb' stays one term).
        """
        mention = context.mention
        if not mention.provenance or mention.provenance[0].startswith("name"):
            return None
        found = self.inner.fullmatch(mention.text)
        if found is None:
            return None
        first = self.term(found.group(1))
        second = self.term(f"{found.group(1).rsplit(None, 1)[0]} {found.group(2)}")
        if first is None or second is None:
            return None
        return Compound(mention.start, mention.end, joined(first, second), "coordination:inner_modifier")

    def severity_range(self, context: Context) -> Compound | None:
        """'mild to moderate [intellectual disability]': one mention, the listed degree's term.

        The dictionary may have taken the upper degree into the mention already
        ('mild to [moderate intellectual disability]').
        """
        mention = context.mention
        text, offset = context.before
        if self.ranges_need_to and "to" not in text.lower():
            return None
        found, rest = self.full_range.search(text), mention.text
        if found is not None:
            bounds = " ".join(re.split(r"[\s-]+", found.group(1).lower()))
        else:
            found = self.open_range.search(text)
            words = mention.text.split(None, 1)
            if found is None or len(words) < 2:
                return None
            bounds, rest = f"{found.group(1).lower()} to {words[0].lower()}", words[1]
            if bounds not in self.rules.severity_ranges:
                return None
        hpo_ids = self.term(f"{self.rules.severity_ranges[bounds]} {rest}")
        if hpo_ids is None:
            return None
        return Compound(offset + found.start(), mention.end, hpo_ids, f"coordination:severity_range:{bounds}")


def matched_in_order(mention: Phenotype) -> bool:
    """Whether the dictionary matched the mention in its term's word order."""
    return not any(rule.startswith(WORD_ORDER_RULE) for rule in mention.provenance)
_NEXT_WORD = re.compile(r" +([^\W\d_][\w-]*)")


