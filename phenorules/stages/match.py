"""The dictionary stage: Aho-Corasick lexicon matches become phenotype mentions.

Each mention carries the HPO id(s), the term label and the provenance of the lexicon entry
that produced it (``name``, ``synonym:EXACT``, a variant chain, a TSV file and line).
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cached_property

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, DocState, MentionStage, placed, working
from ..core.memo import Remembered
from ..core.phenotype import Phenotype
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon import Entry
from ..kb.lexicon.normalize import SPACES, grapheme_end, marks_in, normalize_key, normalize_text
from ..kb.matcher import Match, PhraseMatcher, best_entry
from ..kb.word_sets import WordTable
from .knowledge import KB_CONFIG

# Provenance of a span widened to token boundaries (spaCy's default tokenizer keeps
# "palate;seizures" as one token, ours splits it).
EXPANDED_TO_TOKENS = "token_alignment:expand"
_PHRASES_KEPT = 100_000  # rebuilt phrases whose term is remembered between texts
_WORDS_KEPT = 100_000  # words whose :meth:`RefinesMatches.known` is remembered between texts


@Language.factory("phenorules_match", default_config={"kb": KB_CONFIG, "spans": True})
def make_phenotype_matcher(nlp: Language, name: str, kb: KnowledgeBase, spans: bool):
    return placed(PhenotypeMatcher(kb), spans)


class RefinesMatches(MentionStage):
    """Base of the stages that refine the match stage's spans, on the same knowledge base."""

    kb: KnowledgeBase

    @property
    def matcher(self) -> PhraseMatcher:
        return self.kb.matcher

    def phrase_term(self, phrase: str) -> tuple[str, ...] | None:
        """:meth:`term` of a phrase a stage rebuilt, remembered as written and by its key
        (the same phrase recurs in an article), and tried only when its content words could
        make one indexed term."""
        return self._written_terms[phrase]

    @cached_property
    def _written_terms(self) -> Remembered[str, tuple[str, ...] | None]:
        return Remembered(self._written_term, _PHRASES_KEPT)

    def _written_term(self, phrase: str) -> tuple[str, ...] | None:
        return self._key_term(normalize_key(phrase))

    def _key_term(self, key: str, fits: bool | None = None) -> tuple[str, ...] | None:
        """:meth:`phrase_term` of a lexicon key; ``fits``: :meth:`words_fit` of it, if known."""
        known = self.__dict__.setdefault("_phrase_terms", {})
        if key not in known:
            if len(known) >= _PHRASES_KEPT:
                known.clear()
            known[key] = self.term(key) if (self.words_fit(key) if fits is None else fits) else None
        return known[key]

    def extents_term(self, table: WordTable, *extents: tuple[int, int] | None) -> tuple[str, ...] | None:
        """:meth:`phrase_term` of the phrase the ``extents`` of a text make, joined by spaces
        (None: no part), read from its word table (``table``,
        :func:`~phenorules.kb.word_sets.word_table`): one whose content words could make no
        indexed term is told from the table's words without making the phrase (most phrases
        a stage rebuilds are such), the others' key from its normal form."""
        starts, surfaces = table.starts, table.surfaces
        words: list[str] = []
        for extent in extents:
            if extent is not None:
                words += surfaces[bisect_left(starts, extent[0]) : bisect_left(starts, extent[1])]
        word_sets = self.kb.word_sets
        function_words, suffix_words, base, partners = word_sets.function_words, word_sets.suffix_words, word_sets.morphology.base, word_sets.partners
        content = [base(word) for i, word in enumerate(words) if word not in function_words and not (i and word in suffix_words)]
        if not all(b in partners.get(a, ()) for i, a in enumerate(content) for b in content[i + 1 :] if a != b):
            return None
        # normalize_key of the phrase, from the text's normal form (normalising is letter by letter)
        key = SPACES.sub(" ", " ".join(table.normal[start:end] for start, end in filter(None, extents))).strip()
        return self._key_term(key, fits=True)

    def words_fit(self, phrase: str) -> bool:
        """Whether each pair of the content words of ``phrase`` shares an indexed word set
        (a cheap test before the automaton's)."""
        word_sets = self.kb.word_sets
        words, partners = word_sets.content_words(phrase), word_sets.partners
        return all(b in partners.get(a, ()) for i, a in enumerate(words) for b in words[i + 1 :] if a != b)

    def known(self, word: str) -> bool:
        """A word some indexed term has (each part of a hyphenated one); remembered (the
        stages ask of the same words at every conjunction and copula)."""
        return self._known_words[word]

    @cached_property
    def _known_words(self) -> Remembered[str, bool]:
        return Remembered(self._known_word, _WORDS_KEPT)

    def _known_word(self, word: str) -> bool:
        word_sets = self.kb.word_sets
        return all(word_sets.base_word(part) in word_sets.partners for part in normalize_key(word).split())

    def in_written_order(self, phrase: str) -> bool:
        """Whether the lexicon has ``phrase`` whole as one term in the order it is written."""
        return self.whole_key_entry(normalize_key(phrase)) is not None

    def whole_key_entry(self, phrase: str) -> Entry | None:
        """The entry the matcher would give ``phrase`` matched whole, as one key (looked
        up, not scanned for: a whole match is the longest, so the matcher would keep it)."""
        normal = normalize_text(phrase)
        if marks_in(normal):  # read through its marks, as the matcher reads a text
            matches = self.matcher(phrase)
            return matches[0].entry if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(phrase) else None
        row = self.matcher.row_of(normal, None)
        return None if row is None else best_entry(self.matcher.entries(row)[1], phrase)

    def term(self, phrase: str) -> tuple[str, ...] | None:
        """The ids of ``phrase`` if the lexicon knows the whole phrase as one term, in
        its own word order or in another ('pain of the wrists' is Wrist pain); remembered
        (the stages rebuild the same phrases around every list and range)."""
        return self._terms[phrase]

    @cached_property
    def _terms(self) -> Remembered[str, tuple[str, ...] | None]:
        return Remembered(self._lexicon_term, _PHRASES_KEPT)

    def _lexicon_term(self, phrase: str) -> tuple[str, ...] | None:
        whole = self.whole_key_entry(phrase)
        if whole is not None:
            return whole.hpo_ids
        for match in self.kb.word_sets.find(phrase, self.matcher):
            if match.start == 0 and match.end == len(phrase):
                return match.entry.hpo_ids
        return None


class PhenotypeMatcher(MentionStage):
    pieces = LOCAL

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions: list[Phenotype] = []
        taken: set[tuple[int, int]] = set()
        for match in self.kb.matcher(state.text):
            mention = matched(doc, state, match, self.kb)
            # Two matches inside one foreign token would be one span.
            if mention is None or (mention.start, mention.end) in taken:
                continue
            taken.add((mention.start, mention.end))
            mentions.append(mention)
        state.mentions = mentions


def matched(doc: Doc, state: DocState, match: Match, kb: KnowledgeBase, rules: list[str] | None = None) -> Phenotype | None:
    """The mention of a match at its exact offsets, its end past the combining marks of its
    last letter; with a foreign tokenizer whose tokens do not end where the match does, over
    the tokens that hold it (so that no match is lost: :meth:`DocState.expanded`).
    ``rules``: the provenance after the lexicon entry's."""
    end = grapheme_end(state.text, match.end)
    extent = state.expanded(doc, match.start, end)
    if extent is None:
        return None
    provenance = [match.entry.provenance] + ([EXPANDED_TO_TOKENS] if extent != (match.start, end) else []) + (rules or [])
    return mention_of(state.text, *extent, match.entry, provenance, kb)


def mention_of(text: str, start: int, end: int, entry: Entry, provenance: list[str], kb: KnowledgeBase) -> Phenotype:
    """A mention of the lexicon entry ``entry`` at [start, end)."""
    return Phenotype(start, end, text[start:end], entry.hpo_ids, kb.ontology.label(entry.hpo_ids), provenance)
