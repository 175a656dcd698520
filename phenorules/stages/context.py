"""The assertion stage on anyone's spans: ConText over the entities another component made.

A medspaCy user runs ConText over the entities of any NER; ``nlp.add_pipe("phenorules_context")``
does the same with phenorules' rows (``rules/context_rules.tsv``) and scope: it judges
``doc.ents`` (or the span group ``span_key``), those of the ``labels`` given (all when none),
for the ``categories`` given, and sets on each span the flags of the assertion stage under
medspaCy's names (``span._.is_negated``, ``is_uncertain``, ``is_hypothetical``,
``is_historical``, ``is_family``), the cues that set them (``span._.assertion_cues``) and
their rows in ``span._.provenance``. A cue reaches to the end of its sentence unless a
terminating cue, a nearer cue of its category or its row's ``max_scope`` ends it
(``window``: a reach in words for every row without one). The sentences are the
pipeline's (a parser, a sentencizer, ``phenorules_sentences``); a Doc that has none gets
phenorules' sentence splitter's.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..assertion.rules import CATEGORIES, FLAGS
from ..core.document import DocState
from ..core.phenotype import Phenotype
from ..kb.resources import data_file
from .assertion import ConText, context_stage
from .sentences import SentenceSplitter, read_word_list


@Language.factory(
    "phenorules_context",
    default_config={"span_key": None, "labels": [], "categories": list(CATEGORIES), "rules_file": None, "scope_file": None, "window": None, "off_cues": []},
)
def make_context(
    nlp: Language,
    name: str,
    span_key: str | None,
    labels: list[str],
    categories: list[str],
    rules_file: str | None,
    scope_file: str | None,
    window: int | None,
    off_cues: list[str],
):
    """``span_key``: the span group to judge (None: ``doc.ents``); ``labels``: the span
    labels judged (none: every span); ``categories``: the ConText categories judged."""
    context = context_stage(nlp, name, rules_file, scope_file, window, [], off_cues, categories)
    splitter = SentenceSplitter(read_word_list(data_file("rules", "sentence_abbreviations.txt", None)))
    return SpanContext(context, span_key, frozenset(labels), tuple(category for category in CATEGORIES if category in categories), splitter)


class SpanContext:
    """The component: the stage's cue matcher and scope over another component's spans.
    Keeps nothing between calls."""

    def __init__(self, context: ConText, span_key: str | None, labels: frozenset[str], categories: tuple[str, ...], splitter: SentenceSplitter):
        self.context = context
        self.span_key = span_key
        self.labels = labels
        self.categories = categories
        self.splitter = splitter

    def __call__(self, doc: Doc) -> Doc:
        if not doc.has_annotation("SENT_START"):
            self.splitter(doc)
        spans = self.targets(doc)
        records = [Phenotype(span.start_char, span.end_char, span.text, (), span.label_) for span in spans]
        self.context.assert_mentions(doc, DocState(doc.text, records))
        for span, record in zip(spans, records):
            write(span, record, self.categories)
        return doc

    def targets(self, doc: Doc) -> list[Span]:
        """The spans judged, in text order."""
        spans = doc.ents if self.span_key is None else doc.spans.get(self.span_key, [])
        return sorted((span for span in spans if not self.labels or span.label_ in self.labels), key=lambda span: (span.start, span.end))


def write(span: Span, record: Phenotype, categories: tuple[str, ...]) -> None:
    """The record's verdicts on its span: each judged category's flag, the cues, and the
    rows in the provenance (after what other components wrote there; a Doc judged again
    replaces this component's entries)."""
    for category in categories:
        span._.set(FLAGS[category], record.flagged(FLAGS[category]))
    span._.assertion_cues = record.cues or None
    kept = [entry for entry in span._.provenance or () if not entry.startswith("context:")]
    span._.provenance = [*kept, *record.provenance] or None
