"""Misspelt long words read as the lexicon word they are one edit from.

A transposed, dropped, doubled or wrong letter in a long word ("hypertelroism",
"craniosynostsis") leaves the dictionary nothing to match. A word of the text of at least
MIN_WRITTEN letters (a long word of MIN_LENGTH, :mod:`phenorules.kb.spelling`, with a letter
dropped) that is no lexicon word, no inflected or
derived form of one the morphology knows ("myofibers", "homocystinuric"), and no English
word (``lexicons/english_words.txt.gz``, SCOWL up to size 95), and that is one edit
(insertion, deletion, substitution, transposition) from exactly one lexicon word, or from
several of one base word (singular, word family: "seizure" and "seizures"), is read as that
word (the first of them). A word with one wrong letter, but for a vowel written for a
vowel (as a word heard is spelt: "pigmentory"), is read only when no lexicon word of
another word family is within two edits of it ("microconia": microcoria by one letter,
microcornea by two). The words of a window around each of its uses, that word in its
place, are matched as the match and word_order stages match text; a term that holds the
corrected word becomes a mention at the written offsets, replacing the mentions inside it,
never cutting one. Provenance: the lexicon entry's, then ``spelling:EDIT:written>word`` for
each corrected word in it, then ``word_order`` for a term found in another word order.

Work per document: the distinct words of its word table, each looked up once (remembered
across documents), and the windows around the uses of the few words read as misspelt.
"""

from __future__ import annotations

from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, DocState, placed, working
from ..core.intervals import Extents
from ..core.memo import Remembered
from ..core.phenotype import Phenotype
from ..kb.cache_file import read_through
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon.tsv import RuleRef, read_rules
from ..kb.lexicon.word_lists import WordList
from ..kb.matcher import Match, resolve_overlaps
from ..kb.resources import data_file
from ..kb.spelling import MIN_WRITTEN, edit_of
from ..kb.word_sets import WordTable
from .knowledge import KB_CONFIG
from .match import RefinesMatches, matched

RULE = "spelling"
ORDER_FREE = "word_order"
ENGLISH_WORDS = "english_words.txt.gz"
GUARDS = "spelling_guards.tsv"
_KEPT = 100_000  # written words whose reading is remembered between texts
VOWELS = frozenset("aeiouy")
WINDOW = 16  # words read on each side of a misspelt word: the longest terms hold as many beside it

Fix = tuple[int, int, str, str]  # start, end of a written word; the word read; its provenance


@Language.factory("phenorules_spelling", default_config={"kb": KB_CONFIG, "words_file": None, "guards_file": None, "window": WINDOW, "spans": True})
def make_spelling(nlp: Language, name: str, kb: KnowledgeBase, words_file: str | None, guards_file: str | None, window: int, spans: bool):
    guards = [ref for _, ref in read_rules(data_file("rules", GUARDS, guards_file), 2)]
    return placed(Spelling(kb, data_file("lexicons", ENGLISH_WORDS, words_file), guards, window), spans)


class Spelling(RefinesMatches):
    """``name_endings``: the rows of ``rules/spelling_guards.tsv``; ``window``: words read
    on each side of a misspelt word."""

    pieces = LOCAL

    def __init__(self, kb: KnowledgeBase, words_file: Path, name_endings: list[RuleRef] = (), window: int = WINDOW):
        self.kb, self.words_file, self.window = kb, words_file, window
        self.name_endings = tuple(ref.name for ref in name_endings)
        self._readings: Remembered[str, tuple[str, str] | None] = Remembered(self._read, _KEPT)

    @property
    def english(self) -> WordList:
        """The English word list, read when a word the morphology does not know is first read."""
        words = self.__dict__.get("_english")
        if words is None:
            words = self.__dict__["_english"] = cached_word_list(self.words_file, checked=Path(self.words_file) != data_file("lexicons", ENGLISH_WORDS))
        return words

    def reading(self, written: str) -> tuple[str, str] | None:
        """(the lexicon word, the provenance) a written word is read as, or None."""
        return self._readings[written]

    def _read(self, written: str) -> tuple[str, str] | None:
        if len(written) < MIN_WRITTEN or not written.isalpha():
            return None
        morphology = self.kb.word_sets.morphology
        if morphology.base(written) in morphology.vocabulary:
            return None  # a form of a word of the ontology the morphology knows (most words of a text: asked first)
        if written in self.english:
            return None  # an English word (most of the others: asked before the lexicon's words one edit away)
        candidates = self.kb.spelling.candidates(written)
        if not candidates:
            return None  # no lexicon word one edit away
        if len({morphology.singular(word) for word in candidates}) > 1:
            return None  # one edit from different words, not the singular and plural of one: which is meant is unknown
        word = candidates[0]
        if written.endswith(self.name_endings) and not word.endswith(self.name_endings):
            return None  # a name of the field (a protein, an enzyme), not a term word misspelt
        edit = edit_of(written, word)
        if edit == "substitution" and not vowel_for_vowel(written, word) and self.rivals(written, word):
            return None  # 'microconia': one letter from microcoria, two from microcornea
        return word, f"{RULE}:{edit}:{written}>{word}"

    def rivals(self, written: str, word: str) -> list[str]:
        """The lexicon words within two edits of ``written`` that are more than one edit
        from ``word`` (a word one edit from it is another spelling or form of it, or a
        misspelling the ontology holds: 'haemangioma', 'ciculating') and of another word
        family (:meth:`~phenorules.kb.lexicon.morphology.Morphology.base`)."""
        base = self.kb.word_sets.morphology.base
        family = base(word)
        return sorted(other for other in self.kb.spelling.within_two(written) if other != word and edit_of(other, word) is None and base(other) != family)

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        table = state.words
        readings = {written: found for written in set(table.surfaces) if len(written) >= MIN_WRITTEN and (found := self.reading(written))}
        if not readings:
            return
        found = [match for window in self.windows(table, readings) for match in self.window_matches(state, window)]
        if found:
            self.place(doc, state, found)

    def windows(self, table: WordTable, readings: dict[str, tuple[str, str]]) -> list[tuple[int, int, list[Fix]]]:
        """(start, end, fixes) of each stretch of text within ``window`` words of a misspelt
        word, stretches that overlap joined; the uses are the places of the misspelt words
        in the word table (a search of its list for each)."""
        starts, surfaces, last = table.starts, table.surfaces, len(table.surfaces) - 1
        out: list[tuple[int, int, list[Fix]]] = []
        for index in sorted(place for written in readings for place in places(surfaces, written)):
            first, final = max(0, index - self.window), min(last, index + self.window)
            start, end = starts[first], starts[final] + len(surfaces[final])
            fix = (starts[index], starts[index] + len(surfaces[index]), *readings[surfaces[index]])
            if out and start < out[-1][1]:
                out[-1] = (out[-1][0], max(end, out[-1][1]), out[-1][2] + [fix])
            else:
                out.append((start, end, [fix]))
        return out

    def window_matches(self, state: DocState, window: tuple[int, int, list[Fix]]) -> list[tuple[Match, list[str]]]:
        """The terms of a window read with its misspelt words corrected that hold one of them,
        at the written offsets, each with the provenance of its corrections."""
        start, end, fixes = window
        text, normal = state.text, state.words.normal
        pieces, normal_pieces, placed_fixes, at = [], [], [], start
        length = 0
        for fix_start, fix_end, word, rule in fixes:
            pieces.append(text[at:fix_start])
            normal_pieces.append(normal[at:fix_start])
            length += fix_start - at
            placed_fixes.append((length, length + len(word), fix_start, fix_end, rule))
            pieces.append(word)
            normal_pieces.append(word)
            length += len(word)
            at = fix_end
        pieces.append(text[at:end])
        normal_pieces.append(normal[at:end])
        corrected, corrected_normal = "".join(pieces), "".join(normal_pieces)
        # The dictionary's reading of a span first: the word-order reading of the same span
        # with the same entry adds nothing.
        found = [(match, []) for match in self.matcher.candidates(corrected, corrected_normal)]
        found += [(match, [ORDER_FREE]) for match in self.kb.word_sets.find(corrected, self.matcher)]
        out = []
        for match, rules in found:
            held = [fix for fix in placed_fixes if match.start < fix[1] and fix[0] < match.end]
            if held:
                extent = (written_offset(start, placed_fixes, match.start, False), written_offset(start, placed_fixes, match.end, True))
                out.append((Match(*extent, match.entry), [fix[4] for fix in held] + rules))
        return out

    def place(self, doc: Doc, state: DocState, found: list[tuple[Match, list[str]]]) -> None:
        """The corrected terms, longest first, in place of the mentions inside them; none
        where it would cut a mention or the dictionary found the span as written."""
        rules: dict[tuple, list[str]] = {}
        for match, provenance in found:
            rules.setdefault((match.start, match.end, match.entry), provenance)
        mentions: list[Phenotype | None] = list(state.mentions)
        index = Extents((m.start, m.end) for m in mentions)
        added: list[Phenotype] = []
        for match in resolve_overlaps(match for match, _ in found):
            overlapping = index.overlapping(match.start, match.end)
            if any(mentions[i] is None or mentions[i].start < match.start or mentions[i].end > match.end for i in overlapping):
                continue
            if any(mentions[i].start == match.start and mentions[i].end == match.end for i in overlapping):
                continue
            mention = matched(doc, state, match, self.kb, rules[match.start, match.end, match.entry])
            if mention is None:
                continue
            for i in overlapping:
                mentions[i] = None
            added.append(mention)
        state.mentions = sorted([m for m in mentions if m is not None] + added, key=lambda m: (m.start, m.end))


def places(words: list[str], word: str) -> list[int]:
    """Where ``word`` stands in ``words``: list.index from each place on, so only the uses
    are visited in Python."""
    found, place = [], -1
    try:
        while True:
            place = words.index(word, place + 1)
            found.append(place)
    except ValueError:
        return found


def vowel_for_vowel(written: str, word: str) -> bool:
    """Whether ``written`` is ``word`` (of its length) with a vowel written for another
    vowel, as a word heard is spelt ('pigmentory', 'collosum', 'sinovial')."""
    return all(a in VOWELS and b in VOWELS for a, b in zip(written, word) if a != b)


def written_offset(start: int, fixes: list[tuple[int, int, int, int, str]], offset: int, is_end: bool) -> int:
    """The text offset of ``offset`` in a window read from ``start`` with its ``fixes``
    ((start, end) in the window, (start, end) in the text, rule) corrected: inside a
    corrected word, that word's written start (or end, for an ``is_end`` offset)."""
    shift = start
    for fixed_start, fixed_end, written_start, written_end, _ in fixes:
        if offset < fixed_start or (offset == fixed_start and is_end):
            break
        if offset < fixed_end or (offset == fixed_end and is_end):
            return written_end if is_end else written_start
        shift = written_end - fixed_end
    return offset + shift


def cached_word_list(path: Path, checked: bool = True) -> WordList:
    """:meth:`WordList.read`, from a cache entry keyed by the file's path, size and time (a
    list is checked when the entry is written): Zstandard inflates the English list in a
    quarter of gzip's time."""
    return read_through("word-list", str(path), "words", lambda: WordList.read(path, checked), lambda words: words.data, lambda data: WordList(data, str(path)) if data.startswith(b"\n") else None)
