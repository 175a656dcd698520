"""Terms written in another word order or number: the order-free match of a word run.

"flexion contractures of the elbows", "deformity of the femoral neck", "cysts in the
liver": the dictionary holds Elbow flexion contracture, Femoral neck deformity and Liver
cyst, and at most some of their inflected and inverted forms. This stage adds the runs of
words whose content words are a lexicon key's (:mod:`phenorules.kb.word_sets`), longest first.
A run replaces the dictionary mentions inside it ("[flexion contractures] of the elbows")
and never one it would cut or one that covers it; each span's provenance ends in
``word_order``, then the word-family rows that made a word of the run the term's
(``word_family:word_clusters.tsv:12``, :meth:`~phenorules.kb.word_sets.WordSetIndex.family_rows`), then,
when a specimen or quantity word was left out ("elevated levels of creatine" for Elevated
circulating creatine concentration), the ``function_words.tsv`` rows of the words left out
and of the change word (``quantity:function_words.tsv:35``,
:meth:`~phenorules.kb.word_sets.WordSetIndex.quantity_rows`). Then, with ``skip_one_word`` (on), a run that holds a key's words but for
one word of another term inside it ("thinning of the entire retina") is added where no
mention lies (provenance ``word_order:skip_one_word`` and its word-family rows).
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..core.document import PHENOTYPES, doc_text
from ..core.intervals import Extents
from ..kb.knowledge_base import KnowledgeBase
from ..kb.matcher import Match, resolve_overlaps
from .knowledge import KB_CONFIG
from .match import RefinesMatches, align, annotate

RULE = "word_order"
SKIP_RULE = "word_order:skip_one_word"
FAMILY_RULE = "word_family"
QUANTITY_RULE = "quantity"


@Language.factory("phenorules_word_order", default_config={"kb": KB_CONFIG, "skip_one_word": True})
def make_word_order(nlp: Language, name: str, kb: KnowledgeBase, skip_one_word: bool):
    return WordOrder(kb, skip_one_word)


class WordOrder(RefinesMatches):
    def __init__(self, kb: KnowledgeBase, skip_one_word: bool = True):
        self.kb, self.skip_one_word = kb, skip_one_word

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(PHENOTYPES, []))
        word_sets, text = self.kb.word_sets, doc_text(doc)
        words = word_sets.words(text)
        added = self.reordered(doc, text, spans, word_sets.find(text, self.matcher, words))
        spans = [span for span in spans if span is not None] + added
        if self.skip_one_word:
            spans += self.skipping_one(doc, text, spans, word_sets.find_skipping_one(text, self.matcher, words))
        doc.spans[PHENOTYPES] = sorted(spans, key=lambda s: (s.start_char, s.end_char))
        return doc

    def reordered(self, doc: Doc, text: str, spans: list[Span | None], found: list[Match]) -> list[Span]:
        """The order-free matches that replace the mentions inside them; each replaced
        mention's place in ``spans`` becomes None.

        The matches are taken in text order and never overlap, so a mention an earlier one
        replaced ends before the next starts, and one an earlier one added starts before
        it: whether a mention overlaps the next match is read from an index of the
        mentions as they came and the furthest end of those added so far."""
        index = Extents((s.start_char, s.end_char) for s in spans)
        added: list[Span] = []
        added_reach = -1  # the furthest end of the spans added
        for match in resolve_overlaps(found):
            start, end = match.start, match.end
            if added_reach > start:
                continue  # it would cut a mention added before
            overlapping = index.overlapping(start, end)
            if any(spans[i].start_char < start or spans[i].end_char > end for i in overlapping):
                continue  # it would cut a mention or lie inside one
            if any(spans[i].start_char == start and spans[i].end_char == end for i in overlapping):
                continue  # the dictionary found this span as it is written
            span, provenance = align(doc, match)
            if span is None:
                continue
            for i in overlapping:
                spans[i] = None
            added.append(annotate(span, match.entry, provenance + [RULE, *self.families(text, match)], self.kb))
            added_reach = max(added_reach, span.end_char)
        return added

    def skipping_one(self, doc: Doc, text: str, spans: list[Span], found: list[Match]) -> list[Span]:
        """The matches skipping one word, where no mention lies (in text order, so a span
        added here starts before the next match)."""
        index = Extents((s.start_char, s.end_char) for s in spans)
        added: list[Span] = []
        added_reach = -1
        for match in resolve_overlaps(found):
            if added_reach > match.start or index.overlaps_any(match.start, match.end):
                continue  # only where no mention lies
            span, provenance = align(doc, match)
            if span is None:
                continue
            added.append(annotate(span, match.entry, provenance + [SKIP_RULE, *self.families(text, match)], self.kb))
            added_reach = max(added_reach, span.end_char)
        return added

    def families(self, text: str, match: Match) -> list[str]:
        """The provenance entries of the word-family rows and the quantity rows the match used."""
        run, term, word_sets = text[match.start : match.end], match.entry.surface, self.kb.word_sets
        families = [f"{FAMILY_RULE}:{ref}" for ref in word_sets.family_rows(run, term)]
        return families + [f"{QUANTITY_RULE}:{ref}" for ref in word_sets.quantity_rows(run, term)]
