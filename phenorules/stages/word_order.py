"""Terms written in another word order or number: the order-free match of a word run.

"flexion contractures of the elbows", "deformity of the femoral neck", "cysts in the
liver": the dictionary holds Elbow flexion contracture, Femoral neck deformity and Liver
cyst, and at most some of their inflected and inverted forms. This stage adds the runs of
words whose content words are a lexicon key's (:mod:`phenorules.kb.word_sets`), longest first.
A run replaces the dictionary mentions inside it ("[flexion contractures] of the elbows")
and never one it would cut or one that covers it; each mention's provenance ends in
``word_order``, then the word-family rows that made a word of the run the term's
(``word_family:word_clusters.tsv:12``, :meth:`~phenorules.kb.word_sets.WordSetIndex.family_rows`), then,
when a specimen or quantity word was left out ("elevated levels of creatine" for Elevated
circulating creatine concentration), the ``function_words.tsv`` rows of the words left out
and of the change word (``quantity:function_words.tsv:35``,
:meth:`~phenorules.kb.word_sets.WordSetIndex.quantity_rows`). Then, with ``skip_one_word`` (on), a run that holds a key's words but for
one word of another term inside it ("thinning of the entire retina") is added where no
mention lies (provenance ``word_order:skip_one_word`` and its word-family rows).

A run that holds an absence word of ``rules/word_order.tsv`` and whose other content words
are a term by themselves says that term is not there ("the absence of anemia", "lack of
seizures"): it is no term (not Aplastic anemia through the family of absence and aplasia,
not Absence seizure), and is recorded as dropped with the row (``word_order:absence:word_order.tsv:9``).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import LOCAL, DocState, placed, working
from ..core.intervals import Extents
from ..core.memo import Remembered
from ..core.phenotype import Phenotype
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon.normalize import normalize_key
from ..kb.lexicon.tsv import RuleRef, read_grouped_rules
from ..kb.matcher import Match, resolve_overlaps
from ..kb.resources import data_file
from ..kb.word_sets import WORD
from .knowledge import KB_CONFIG
from .match import RefinesMatches, matched

RULE = "word_order"
SKIP_RULE = "word_order:skip_one_word"
FAMILY_RULE = "word_family"
QUANTITY_RULE = "quantity"
ABSENCE_RULE = "word_order:absence"
WORD_KINDS = ("absence",)
_FAMILIES_KEPT = 100_000  # (run, term) pairs whose rows are remembered between texts


def read_absence_words(path: Path) -> dict[str, RuleRef]:
    """Absence word (lower case) -> its row."""
    return {ref.name.lower(): ref for ref in read_grouped_rules(path, WORD_KINDS)["absence"]}


@Language.factory("phenorules_word_order", default_config={"kb": KB_CONFIG, "skip_one_word": True, "rules_file": None, "spans": True})
def make_word_order(nlp: Language, name: str, kb: KnowledgeBase, skip_one_word: bool, rules_file: str | None, spans: bool):
    return placed(WordOrder(kb, skip_one_word, read_absence_words(data_file("rules", "word_order.tsv", rules_file))), spans)


class WordOrder(RefinesMatches):
    pieces = LOCAL

    def __init__(self, kb: KnowledgeBase, skip_one_word: bool = True, absence_words: dict[str, RuleRef] | None = None):
        self.kb, self.skip_one_word = kb, skip_one_word
        self.absence_words = absence_words or {}

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions: list[Phenotype | None] = list(state.mentions)
        word_sets, text = self.kb.word_sets, state.text
        words = word_sets.words(text, state.words)
        added = self.reordered(doc, state, mentions, word_sets.find(text, self.matcher, words))
        kept = [mention for mention in mentions if mention is not None] + added
        if self.skip_one_word:
            kept += self.skipping_one(doc, state, kept, word_sets.find_skipping_one(text, self.matcher, words))
        state.mentions = sorted(kept, key=lambda m: (m.start, m.end))

    def reordered(self, doc: Doc, state: DocState, mentions: list[Phenotype | None], found: list[Match]) -> list[Phenotype]:
        """The order-free matches that replace the mentions inside them; each replaced
        mention's place in ``mentions`` becomes None.

        The matches are taken in text order and never overlap, so a mention an earlier one
        replaced ends before the next starts, and one an earlier one added starts before
        it: whether a mention overlaps the next match is read from an index of the
        mentions as they came and the furthest end of those added so far."""
        index = Extents((m.start, m.end) for m in mentions)
        added: list[Phenotype] = []
        added_reach = -1  # the furthest end of the mentions added
        for match in resolve_overlaps(found):
            start, end = match.start, match.end
            if added_reach > start:
                continue  # it would cut a mention added before
            overlapping = index.overlapping(start, end)
            if any(mentions[i].start < start or mentions[i].end > end for i in overlapping):
                continue  # it would cut a mention or lie inside one
            if any(mentions[i].start == start and mentions[i].end == end for i in overlapping):
                continue  # the dictionary found this span as it is written
            mention = self.mention(doc, state, match, RULE)
            if mention is None:
                continue
            for i in overlapping:
                mentions[i] = None
            added.append(mention)
            added_reach = max(added_reach, mention.end)
        return added

    def skipping_one(self, doc: Doc, state: DocState, mentions: list[Phenotype], found: list[Match]) -> list[Phenotype]:
        """The matches skipping one word, where no mention lies (in text order, so a
        mention added here starts before the next match)."""
        index = Extents((m.start, m.end) for m in mentions)
        added: list[Phenotype] = []
        added_reach = -1
        for match in resolve_overlaps(found):
            if added_reach > match.start or index.overlaps_any(match.start, match.end):
                continue  # only where no mention lies
            mention = self.mention(doc, state, match, SKIP_RULE)
            if mention is None:
                continue
            added.append(mention)
            added_reach = max(added_reach, mention.end)
        return added

    def mention(self, doc: Doc, state: DocState, match: Match, rule: str) -> Phenotype | None:
        """The mention of an order-free match, or None: none at token boundaries, or one
        that states the absence of a term (:meth:`absence_row`), which is recorded as dropped."""
        mention = matched(doc, state, match, self.kb, [rule, *self.families(state.text, match)])
        if mention is None:
            return None
        absence = self.absence_row(mention.text)
        if absence is not None:
            state.drop(mention, f"{ABSENCE_RULE}:{absence}")
            return None
        return mention

    def absence_row(self, run: str) -> RuleRef | None:
        """The row of the absence word of ``run`` if its other content words are a term by
        themselves ('absence of anemia'), else None."""
        words = WORD.findall(normalize_key(run))
        absent = [word for word in words if word in self.absence_words]
        if not absent:
            return None
        function_words = self.kb.word_sets.function_words
        rest = " ".join(word for word in words if word not in self.absence_words and word not in function_words)
        return self.absence_words[absent[0]] if rest and self.phrase_term(rest) is not None else None

    def families(self, text: str, match: Match) -> list[str]:
        """The provenance entries of the word-family rows and the quantity rows the match
        used; remembered by run and term, which recur in an article."""
        return list(self._families[text[match.start : match.end], match.entry.surface])

    @cached_property
    def _families(self) -> Remembered[tuple[str, str], list[str]]:
        return Remembered(self._family_entries, _FAMILIES_KEPT)

    def _family_entries(self, run_and_term: tuple[str, str]) -> list[str]:
        word_sets = self.kb.word_sets
        families = [f"{FAMILY_RULE}:{ref}" for ref in word_sets.family_rows(*run_and_term)]
        return families + [f"{QUANTITY_RULE}:{ref}" for ref in word_sets.quantity_rows(*run_and_term)]
