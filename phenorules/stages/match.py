"""The dictionary stage: Aho-Corasick lexicon matches become phenotype spans.

Each span carries the HPO id(s), the term label and the provenance of the lexicon entry
that produced it (``name``, ``synonym:EXACT``, a variant chain, a TSV file and line).
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..core.document import PHENOTYPE_LABEL, PHENOTYPES, doc_text
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon import Entry
from ..kb.lexicon.normalize import grapheme_end, is_mark, normalize_key
from ..kb.matcher import Match, PhraseMatcher
from .knowledge import KB_CONFIG

# Provenance of a span widened to token boundaries (spaCy's default tokenizer keeps
# "palate;seizures" as one token, ours splits it).
EXPANDED_TO_TOKENS = "token_alignment:expand"
_PHRASES_KEPT = 100_000  # rebuilt phrases whose term is remembered between texts


@Language.factory("phenorules_match", default_config={"kb": KB_CONFIG})
def make_phenotype_matcher(nlp: Language, name: str, kb: KnowledgeBase):
    return PhenotypeMatcher(kb)


class RefinesMatches:
    """Base of the stages that refine the match stage's spans, on the same knowledge base."""

    kb: KnowledgeBase

    @property
    def matcher(self) -> PhraseMatcher:
        return self.kb.matcher

    def phrase_term(self, phrase: str) -> tuple[str, ...] | None:
        """:meth:`term` of a phrase a stage rebuilt, remembered (the same phrase recurs in an
        article), and tried only when its content words could make one indexed term."""
        known = self.__dict__.setdefault("_phrase_terms", {})
        key = normalize_key(phrase)
        if key not in known:
            if len(known) >= _PHRASES_KEPT:
                known.clear()
            known[key] = self.term(key) if self.words_fit(key) else None
        return known[key]

    def words_fit(self, phrase: str) -> bool:
        """Whether each pair of the content words of ``phrase`` shares an indexed word set
        (a cheap test before the automaton's)."""
        word_sets = self.kb.word_sets
        words, partners = word_sets.content_words(phrase), word_sets.partners
        return all(b in partners.get(a, ()) for i, a in enumerate(words) for b in words[i + 1 :] if a != b)

    def known(self, word: str) -> bool:
        """A word some indexed term has (each part of a hyphenated one)."""
        word_sets = self.kb.word_sets
        return all(word_sets.base_word(part) in word_sets.partners for part in normalize_key(word).split())

    def in_written_order(self, phrase: str) -> bool:
        """Whether the lexicon has ``phrase`` whole as one term in the order it is written."""
        key = normalize_key(phrase)
        matches = self.matcher(key)
        return len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(key)

    def term(self, phrase: str) -> tuple[str, ...] | None:
        """The ids of ``phrase`` if the lexicon knows the whole phrase as one term, in
        its own word order or in another ('pain of the wrists' is Wrist pain)."""
        matches = self.matcher(phrase)
        if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(phrase):
            return matches[0].entry.hpo_ids
        for match in self.kb.word_sets.find(phrase, self.matcher):
            if match.start == 0 and match.end == len(phrase):
                return match.entry.hpo_ids
        return None


class PhenotypeMatcher:
    def __init__(self, kb: KnowledgeBase):
        self.kb = kb

    def __call__(self, doc: Doc) -> Doc:
        spans: list[Span] = []
        taken: set[tuple[int, int]] = set()
        for match in self.kb.matcher(doc_text(doc)):
            span, provenance = align(doc, match)
            # Two matches inside one foreign token would share the span's extension values.
            if span is None or (span.start, span.end) in taken:
                continue
            taken.add((span.start, span.end))
            spans.append(annotate(span, match.entry, provenance, self.kb))
        doc.spans[PHENOTYPES] = spans
        return doc


def align(doc: Doc, match: Match) -> tuple[Span | None, list[str]]:
    """The span at the match's exact offsets, its end past the combining marks of its last
    letter; with a foreign tokenizer whose tokens do not end where the match does, the
    tokens that hold it (so that no match is lost), and the tokens before those while
    they would begin on a combining mark (spaCy leaves the mark of "(" on the next word:
    "(\u0301hypotonia"). None where the tokens begin on one at the start of the text or
    after white space: a span never begins on a mark."""
    provenance = [match.entry.provenance]
    end = grapheme_end(doc_text(doc), match.end)
    span = doc.char_span(match.start, end, label=PHENOTYPE_LABEL)
    if span is None:
        span = off_marks(doc.char_span(match.start, end, label=PHENOTYPE_LABEL, alignment_mode="expand"))
        provenance.append(EXPANDED_TO_TOKENS)
    return span, provenance


def off_marks(span: Span | None) -> Span | None:
    """``span`` with the tokens before it that it takes while it would begin on a combining
    mark (tokens written together, with no white space between); None if it still would,
    or if there is no span."""
    if span is None:
        return None
    doc, start = span.doc, span.start
    while is_mark(doc[start].text[0]) and start and not doc[start - 1].whitespace_:
        start -= 1
    if is_mark(doc[start].text[0]):
        return None
    return span if start == span.start else Span(doc, start, span.end, label=PHENOTYPE_LABEL)


def annotate(span: Span, entry: Entry, provenance: list[str], kb: KnowledgeBase) -> Span:
    span._.hpo_ids = entry.hpo_ids
    span._.hpo_label = kb.ontology.label(entry.hpo_ids)
    span._.provenance = provenance
    return span
