"""An article as one spaCy ``Doc`` whose character offsets are the article's global offsets.

Each passage is placed at its global offset and the gaps between passages are filled with
newlines, so ``doc.text[offset:offset + length]`` is exactly the task's span text and no
offset arithmetic is needed anywhere downstream. Passages are a span group with their
section type as label; phenotype mentions are the span group ``phenotypes``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from bisect import bisect_left
from dataclasses import asdict
from typing import Iterable, Iterator, Sequence

import numpy
from spacy.attrs import IDX, LENGTH, SENT_START
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .errors import InputError
from .phenotype import ASSERTION_FLAGS, Phenotype, patient_ids
from ..kb.lexicon.normalize import is_mark
from ..kb.word_sets import WordTable, word_table
from .article import PARAGRAPH, TEXT_SECTION_TYPE, Article, GivenMention, Passage, Patient, layout_passages, layout_problem, text_article

PASSAGES = "passages"
PHENOTYPES = "phenotypes"
PHENOTYPE_LABEL = "PHENOTYPE"

NIL = "NIL"  # spaCy's EntityLinker id of a mention with no knowledge base entry

DOC_EXTENSIONS = {
    "article_id": None,
    "patients": None,  # the article's given patients (article.Patient)
    "associations": None,
    "subjects": None,  # patient id -> Subject.data(): the sex and age the text says (patients/subjects.py)
    "dropped": None,  # mentions a stage removed: (start_char, end_char, hpo_ids, rule), see drop
}
SPAN_EXTENSIONS = {
    "hpo_ids": None,  # ("HP:0000175",); ("HP:0410030", "HP:0000175") for a compound; () when no HPO term fits
    "hpo_label": None,  # the ontology's label of the ids (Ontology.label)
    "provenance": None,  # lexicon entry and rules that produced or changed the span
    # set by the assertion stage (ConText): medspaCy's names, and the cues that set them
    "is_negated": False,
    "is_uncertain": False,
    "is_hypothetical": False,
    "is_historical": False,
    "is_family": False,
    "assertion_cues": None,  # [{"category", "text", "start", "end", "rule"}], start/end: Doc characters
    "parts": None,  # of a coordination: ((start_char, end_char, hpo_ids), ...), each term's own extent
    "coordination": None,  # of one term of a coordination, as the spaCy component gives it: the whole phrase (a Span)
    "patient": None,  # patient ids the phenotype is attributed to
    "patient_evidence": None,  # why: the rule and the patient mention that linked it
    "passage_type": None,  # on passage spans: paragraph, fig_caption, ...
}


def kb_id(hpo_ids: tuple[str, ...] | None) -> str:
    """A phenotype span's ``kb_id_``: its first HPO id, where spaCy's ``EntityLinker`` puts
    the linked id; :data:`NIL` when no term fits."""
    return hpo_ids[0] if hpo_ids else NIL


_SCALARS = (str, int, float, type(None))  # bool is an int


def _plain(value):
    """A value of JSON's kinds with every sequence a list: msgpack gives a tuple back as a
    list (``Doc.to_bytes``), and ``DocBin`` every list as a tuple."""
    if isinstance(value, (list, tuple)):
        return [item if isinstance(item, _SCALARS) else _plain(item) for item in value]  # no call per string of a provenance
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _patients_data(patients: Iterable[Patient]) -> list[dict]:
    return [asdict(patient) for patient in patients]


def _patients(data: list[dict]) -> tuple[Patient, ...]:
    return tuple(Patient(**{**fields, "mentions": tuple(GivenMention(**m) for m in fields["mentions"])}) for fields in data)


def _dropped(data: list) -> list[tuple]:
    return [(start, end, tuple(hpo_ids), rule) for start, end, hpo_ids, rule in data]


def _parts(data: list) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    return tuple((start, end, tuple(hpo_ids)) for start, end, hpo_ids in data)


# Extensions whose values a Doc's bytes would not keep as they are: spaCy writes user_data
# with msgpack (Doc.to_bytes, as nlp.pipe(n_process=...) hands Docs back; DocBin), which
# makes a tuple a list (DocBin: a list a tuple) and cannot write a dataclass or a Span.
# Each is stored as plain data and read back in its own type: name -> (value -> stored
# form, stored form -> value).
_TYPED_EXTENSIONS = {
    "hpo_ids": (list, tuple),
    "parts": (_plain, _parts),
    "dropped": (_plain, _dropped),
    "patients": (_patients_data, _patients),
    **{name: (_plain, _plain) for name in ("provenance", "assertion_cues", "patient", "patient_evidence", "associations", "subjects")},
}
# Span extensions whose value is another span of the Doc, stored as its offsets and
# re-made from them: a phenotype span (label PHENOTYPE, its first id as kb_id_).
_SPAN_VALUED_EXTENSIONS = ("coordination",)


def _extension_key(name: str, obj: Doc | Span) -> tuple:
    """The user_data key under which spaCy stores extension ``name`` of ``obj``."""
    return ("._.", name, None, None) if isinstance(obj, Doc) else ("._.", name, obj.start_char, obj.end_char)


def _typed_extension(name: str) -> dict:
    """The getter and setter of ``name`` in :data:`_TYPED_EXTENSIONS`, on the user_data key
    spaCy's own storage uses."""
    to_data, from_data = _TYPED_EXTENSIONS[name]

    def getter(obj: Doc | Span):
        data = obj.doc.user_data.get(_extension_key(name, obj))
        return None if data is None else from_data(data)

    def setter(obj: Doc | Span, value) -> None:
        obj.doc.user_data[_extension_key(name, obj)] = None if value is None else to_data(value)

    return {"getter": getter, "setter": setter}


def _span_valued_extension(name: str) -> dict:
    """The getter and setter of ``name`` in :data:`_SPAN_VALUED_EXTENSIONS`."""

    def getter(span: Span) -> Span | None:
        offsets = span.doc.user_data.get(_extension_key(name, span))
        return None if offsets is None else phenotype_span(span.doc, *offsets)

    def setter(span: Span, value: Span | None) -> None:
        span.doc.user_data[_extension_key(name, span)] = None if value is None else [value.start_char, value.end_char]

    return {"getter": getter, "setter": setter}


def phenotype_span(doc: Doc, start_char: int, end_char: int) -> Span | None:
    """The phenotype span at these offsets (token boundaries), its kb_id_ from its ids."""
    span = doc.char_span(start_char, end_char, label=PHENOTYPE_LABEL)
    if span is not None:
        span.kb_id_ = kb_id(span._.hpo_ids)
    return span


def _is_negated(span: Span) -> bool:
    return span._.is_negated


def _set_negated(span: Span, value: bool) -> None:
    span._.is_negated = value


def _extension_settings(name: str, default) -> dict:
    if name in _TYPED_EXTENSIONS:
        return _typed_extension(name)
    if name in _SPAN_VALUED_EXTENSIONS:
        return _span_valued_extension(name)
    return {"default": default}


def register_extensions() -> None:
    for kind, extensions in ((Doc, DOC_EXTENSIONS), (Span, SPAN_EXTENSIONS)):
        for name, default in extensions.items():
            if not kind.has_extension(name):
                kind.set_extension(name, **_extension_settings(name, default))
    if not Span.has_extension("negex"):  # negspacy's name, kept as an alias of is_negated
        Span.set_extension("negex", getter=_is_negated, setter=_set_negated)


register_extensions()


class DocState:
    """What the stages of one Doc share while they run: the text, read from the Doc once;
    the phenotype mentions as :class:`~phenorules.core.phenotype.Phenotype` records, which
    each stage changes in place or replaces; the mentions a stage removed, with the rule row
    that removed each; and, read from the Doc when a stage first asks, its passages, its
    sentences and its token boundaries.

    A Span would make Python objects at every read and write of an extension value, and
    spaCy keys those values by the span's offsets: records are passed on instead, and the
    spaCy component makes one Span of each after the last stage
    (:func:`phenotype_spans`). Kept in ``doc.user_data`` under :data:`STATE_KEY` until then."""

    def __init__(self, text: str, mentions: list[Phenotype] | None = None):
        self.text = text
        self.mentions: list[Phenotype] = mentions or []
        self.offset = 0  # where the Doc's text starts in its article: a piece's start (core/pieces.py)
        self.carried: object = None  # what every piece of the article told the running stage (MentionStage.gather)
        self.dropped: list[tuple[int, int, tuple[str, ...], str]] = []  # (start, end, ids, rule)
        self._passages: list[tuple[int, int, str, str]] | None = None
        self._sentences: list[tuple[int, int]] | None = None
        self._token_starts: Sequence[int] | None = None
        self._token_ends: Sequence[int] = ()
        self._words: WordTable | None = None

    @property
    def words(self) -> WordTable:
        """The text's words in normal form, read once for every stage that reads words."""
        if self._words is None:
            self._words = word_table(self.text)
        return self._words

    def lay_out(self, passages: list[tuple[int, int, str, str]], sentences: list[tuple[int, int]]) -> None:
        """Give the passages and the sentences (as :meth:`passages` and :meth:`sentences`
        have them) of a text whose Doc holds no token: an article annotated in pieces."""
        self._passages, self._sentences = passages, sentences

    def drop(self, mention: Phenotype, rule: str) -> None:
        """Record that a stage removed ``mention`` and which rule (row) did."""
        self.dropped.append((mention.start, mention.end, mention.hpo_ids, rule))

    def passages(self, doc: Doc) -> list[tuple[int, int, str, str]]:
        """(start, end, section type, passage type: read where spaCy keeps it, no Span ``_`` made) of each
        passage, in text order; one passage of plain text over a Doc that has none (someone else's ``nlp(text)``)."""
        if self._passages is None:
            spans = doc.spans[PASSAGES] if PASSAGES in doc.spans else ([doc[:]] if len(doc) else [])
            self._passages = [(s.start_char, s.end_char, s.label_ or TEXT_SECTION_TYPE, doc.user_data.get(_extension_key("passage_type", s)) or PARAGRAPH) for s in spans]
        return self._passages

    def sentences(self, doc: Doc) -> list[tuple[int, int]]:
        """(start, end) of every sentence, as ``doc.sents`` gives them, read once."""
        if self._sentences is None:
            self._sentences = sentence_offsets(doc, self.token_bounds(doc))
        return self._sentences

    def _bounds(self, doc: Doc) -> tuple[Sequence[int], Sequence[int]]:
        """Where each token starts and ends, as machine integers (8 bytes a token)."""
        if self._token_starts is None:
            starts, lengths = doc.to_array([IDX, LENGTH]).astype("int64").T if len(doc) else (numpy.zeros(0, "int64"), numpy.zeros(0, "int64"))
            self._token_starts, self._token_ends = array("q", starts.tobytes()), array("q", (starts + lengths).tobytes())
        return self._token_starts, self._token_ends

    def token_bounds(self, doc: Doc) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Where each token starts and ends, as numpy arrays over the same memory."""
        return tuple(numpy.frombuffer(bounds, dtype="int64") for bounds in self._bounds(doc))  # type: ignore[return-value]

    def aligned(self, doc: Doc, start: int, end: int) -> bool:
        """Whether [start, end) starts and ends at token boundaries, as ``doc.char_span`` asks
        (without making a Span)."""
        starts, ends = self._bounds(doc)
        first, last = bisect_left(starts, start), bisect_left(ends, end)
        return start < end and first < len(starts) and starts[first] == start and last < len(ends) and ends[last] == end

    def token_extent(self, doc: Doc, start: int, end: int) -> tuple[int, int]:
        """The token indices [first, last + 1) of the characters [start, end) that start and
        end at token boundaries."""
        starts, ends = self._bounds(doc)
        return bisect_left(starts, start), bisect_left(ends, end) + 1

    def inner_tokens(self, doc: Doc, extents: list[tuple[int, int]]) -> numpy.ndarray:
        """Per character extent, the token indices ``[first, last + 1)`` of the tokens wholly
        inside it, as ``doc.char_span(start, end, alignment_mode="contract")`` has them (first
        >= last: none), for all extents at once."""
        starts, ends = self.token_bounds(doc)
        extents = numpy.array(extents, dtype="int64").reshape(-1, 2)
        first = numpy.searchsorted(starts, extents[:, 0], side="left")
        last = numpy.searchsorted(ends, extents[:, 1], side="right")
        return numpy.stack([first, last], axis=1)

    def tokens_before(self, doc: Doc, start: int, count: int) -> tuple[str, int]:
        """(text, start offset) of the ``count`` tokens before the token that starts at
        ``start``, as ``doc[first:index]`` has them (no trailing white space)."""
        starts, ends = self._bounds(doc)
        index = bisect_left(starts, start)
        first = max(0, index - count)
        if first == index:
            return "", start
        return self.text[starts[first] : ends[index - 1]], starts[first]

    def expanded(self, doc: Doc, start: int, end: int) -> tuple[int, int] | None:
        """The extent of the tokens that hold [start, end), as ``doc.char_span(...,
        alignment_mode="expand")`` gives it, with the tokens written together before them
        while it would begin on a combining mark (:func:`off_marks`); None where there is no
        such extent."""
        if self.aligned(doc, start, end):
            return start, end
        span = off_marks(doc.char_span(start, end, alignment_mode="expand"))
        return None if span is None else (span.start_char, span.end_char)


def off_marks(span: Span | None) -> Span | None:
    """``span`` with the tokens before it that it takes while it would begin on a combining
    mark (tokens written together, with no white space between: spaCy leaves the mark of
    "(" on the next word, "(\u0301hypotonia"); None if it still would, or if there is no
    span: a span never begins on a mark."""
    if span is None:
        return None
    doc, start = span.doc, span.start
    while is_mark(doc[start].text[0]) and start and not doc[start - 1].whitespace_:
        start -= 1
    if is_mark(doc[start].text[0]):
        return None
    return span if start == span.start else Span(doc, start, span.end, label=span.label_)


STATE_KEY = "phenorules.state"
TEXT_KEY = "phenorules.text"  # the text of an article's Doc, laid out once (make_article_doc)
SPANS_PIPE = "phenorules"  # the spaCy component's last pipe: it makes the spans
NIL = "NIL"  # spaCy's EntityLinker id of a mention with no knowledge base entry


# How a stage reads an article annotated in pieces (core/pieces.py): LOCAL, each piece's
# Doc alone decides its mentions as the whole article's Doc would; GATHERS, it needs what
# every piece says (MentionStage.gather, merged), then decides each piece; ARTICLE, it reads
# no token, and runs once over the article's records, passages and sentences. A stage of
# none of these (None) has its article annotated whole.
LOCAL, GATHERS, ARTICLE = "local", "gathers", "article"


class MentionStage(ABC):
    """Base of the stages that read or change the phenotype mentions: :meth:`apply` works on
    the Doc's records (:func:`working`). A stage placed on its own in a pipeline leaves them
    as spans after it (``spans``, each stage's setting, true by default); the stages the
    ``phenorules`` pipe places do not (:func:`~phenorules.stages.pipeline.stage_plan`), as
    that pipe makes them spans once, after the last stage. ``pieces``: how it reads an
    article annotated in pieces (:data:`LOCAL`, :data:`GATHERS`, :data:`ARTICLE` or None)."""

    spans: bool = True
    pieces: str | None = None

    def __call__(self, doc: Doc) -> Doc:
        self.apply(doc)
        if self.spans:
            phenotype_spans(doc)
        return doc

    @abstractmethod
    def apply(self, doc: Doc) -> None:
        """Read and change the Doc's mention records."""

    def gather(self, doc: Doc) -> object:
        """A :data:`GATHERS` stage's: what one piece's Doc tells the whole article, at the
        piece's own offsets, before the stage runs on any piece."""
        raise NotImplementedError

    def merged(self, gathered: list[tuple[int, object]], text: str) -> object:
        """A :data:`GATHERS` stage's: what the article's pieces told it ((piece start,
        :meth:`gather`'s) in text order) as one, over the article's ``text``; the stage
        reads it as ``working(doc).carried`` on every piece."""
        raise NotImplementedError


def placed(stage: MentionStage, spans: bool) -> MentionStage:
    """``stage`` with its ``spans`` setting."""
    stage.spans = spans
    return stage


def working(doc: Doc) -> DocState:
    """The Doc's :class:`DocState`, made on first use; a Doc that holds phenotype spans
    already (set by another component, or by :func:`phenotype_spans`) starts with them as
    records."""
    state = doc.user_data.get(STATE_KEY)
    if state is None:
        text = doc.user_data.pop(TEXT_KEY, None) or doc.text
        state = doc.user_data[STATE_KEY] = DocState(text, [span_phenotype(span, text) for span in doc.spans.get(PHENOTYPES, [])])
        state.dropped = list(doc._.dropped or [])
    return state


def span_phenotype(span: Span, text: str) -> Phenotype:
    """The record of a phenotype span (its extension values)."""
    extensions = span._
    return Phenotype(
        span.start_char,
        span.end_char,
        text[span.start_char : span.end_char],
        tuple(extensions.hpo_ids or ()),
        extensions.hpo_label,
        list(extensions.provenance or ()),
        tuple(extensions.parts or ()),
        tuple(flag for flag in ASSERTION_FLAGS if extensions.get(flag)),
        list(extensions.assertion_cues or ()),
        patient_ids(extensions.patient),
        list(extensions.patient_evidence or ()),
    )


def phenotype_spans(doc: Doc) -> list[Span]:
    """The Doc's mention records as spans in ``doc.spans["phenotypes"]``, each with its
    extension values and its first HPO id as ``kb_id_`` (:data:`NIL` when no term fits:
    where spaCy's ``EntityLinker`` puts the linked id and displaCy's ``kb_url_template``
    reads it), and the removed mentions in ``doc._.dropped``; the records are then
    gone from the Doc (a Doc holds plain data only, so that it serialises). Spans that
    another component set there become records and spans again, with their ``kb_id_``. A record that
    does not start and end at token boundaries (another tokenizer's) covers the tokens that
    hold it."""
    state = working(doc)
    del doc.user_data[STATE_KEY]
    spans, data = [], doc.user_data
    for mention in state.mentions:
        span = doc.char_span(mention.start, mention.end, label=PHENOTYPE_LABEL, kb_id=kb_id(mention.hpo_ids), alignment_mode="expand")
        if span is None:
            continue
        key = (span.start_char, span.end_char)
        values = {
            "hpo_ids": mention.hpo_ids,
            "hpo_label": mention.label,
            "provenance": mention.provenance,
            "parts": mention.parts or None,
            "assertion_cues": mention.cues or None,
            "patient": mention.patients,
            "patient_evidence": mention.evidence,
            **{flag: flag in mention.assertions for flag in ASSERTION_FLAGS},
        }
        for name, value in values.items():  # as each extension's setter stores it, without a Span's _ object
            typed = _TYPED_EXTENSIONS.get(name)
            data[("._.", name, *key)] = typed[0](value) if typed and value is not None else value
        spans.append(span)
    doc.spans[PHENOTYPES] = spans
    if state.dropped:
        doc._.dropped = state.dropped
    return spans


def make_article_doc(nlp: Language, article: Article) -> Doc:
    """A tokenised (not yet processed) Doc for an article, with passages and patients.

    Readers refuse bad offsets with the file and line; this refuses, naming the article,
    what would lay out as an absurdly long string (for articles made in code).
    """
    return piece_doc(nlp, article, article_text(nlp, article), 0, article.passages)


def article_text(nlp: Language, article: Article) -> str:
    """The article's passages laid out (:func:`layout_passages`), refused as
    :func:`make_article_doc` says."""
    problem = layout_problem(article.passages)
    if problem is not None:
        index, message = problem
        raise InputError(f"article {article.id}: {'passages' if index is None else f'passages[{index}].offset'}: {message}")
    text = layout_passages(article.passages)
    if len(text) > nlp.max_length:
        raise InputError(f"article {article.id}: passages: {len(text):,} characters, more than this pipeline's max_length ({nlp.max_length:,})")
    return text


def piece_doc(nlp: Language, article: Article, text: str, offset: int, passages: Iterable[Passage]) -> Doc:
    """The Doc of ``text``, the article's laid-out characters from ``offset`` on (0 and the
    whole text: the article's Doc), with the article's patients and ``passages``, the
    article's passages that ``text`` holds, at the Doc's offsets."""
    doc = nlp.make_doc(text)
    doc.user_data[TEXT_KEY] = text  # plain data: a Doc sent to nlp.pipe's processes is serialised
    doc._.article_id = article.id
    doc._.patients = article.patients
    spans, data = [], doc.user_data
    for passage in passages:
        start = passage.offset - offset
        end = start + len(passage.text)
        span = doc.char_span(start, end, label=passage.section_type, alignment_mode="expand")
        if span is not None and len(span):
            data[_extension_key("passage_type", span)] = passage.type  # as span._.passage_type's setter stores it
            spans.append(span)
    doc.spans[PASSAGES] = spans
    return doc


def article_docs(nlp: Language, articles: Iterable[Article], batch_size: int = 8, spans: bool = True) -> Iterator[tuple[Article, Doc]]:
    """(article, processed Doc) pairs in input order; without ``spans``, the pipe that makes
    the spans (:data:`SPANS_PIPE`) does not run and the mentions stay records
    (:func:`working`)."""
    articles = list(articles)
    docs = (make_article_doc(nlp, article) for article in articles)
    disabled = [] if spans or SPANS_PIPE not in nlp.pipe_names else [SPANS_PIPE]
    yield from zip(articles, nlp.pipe(docs, batch_size=batch_size, disable=disabled))


def make_text_doc(nlp: Language, text: str, section_type: str = TEXT_SECTION_TYPE) -> Doc:
    """A Doc for plain text: one passage covering everything."""
    return make_article_doc(nlp, text_article(None, text, section_type))


def sentence_offsets(doc: Doc, bounds: tuple[numpy.ndarray, numpy.ndarray]) -> list[tuple[int, int]]:
    """(start_char, end_char) of every sentence, as ``doc.sents`` gives them, read from
    arrays: iterating ``doc.sents`` makes a Token object per token, slow on long articles.
    ``bounds``: where each token starts and ends (:meth:`DocState.token_bounds`)."""
    if not len(doc):
        return []
    firsts = numpy.flatnonzero(doc.to_array([SENT_START]).astype("int64") == 1)
    if not len(firsts) or firsts[0] != 0:
        firsts = numpy.concatenate(([0], firsts))
    lasts = numpy.concatenate((firsts[1:] - 1, [len(doc) - 1]))
    starts, ends = bounds
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist()))


def longest_spans(spans: Iterable[Span]) -> list[Span]:
    """Of overlapping spans the longest (then the first), in text order: what ``doc.ents``
    and displaCy's entity view can hold."""
    return filter_spans(list(spans))
