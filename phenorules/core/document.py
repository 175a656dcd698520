"""An article as one spaCy ``Doc`` whose character offsets are the article's global offsets.

Each passage is placed at its global offset and the gaps between passages are filled with
newlines, so ``doc.text[offset:offset + length]`` is exactly the task's span text and no
offset arithmetic is needed anywhere downstream. Passages are a span group with their
section type as label; phenotype mentions are the span group ``phenotypes``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Iterable, Iterator

import numpy
from spacy.attrs import IDX, SENT_START
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .errors import InputError
from .article import PARAGRAPH, TEXT_SECTION_TYPE, Article, GivenMention, Patient, layout_passages, layout_problem, text_article

PASSAGES = "passages"
PHENOTYPES = "phenotypes"
PHENOTYPE_LABEL = "PHENOTYPE"
_TEXT_KEY = "phenorules.text"  # doc.user_data key of the cached text (see doc_text)

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


def drop(span: Span, rule: str) -> None:
    """Record on the Doc that a stage removed the mention ``span`` and which rule (row) did."""
    # Appended to the stored list in place: the getter hands out a copy, and setting a
    # copy per drop would be quadratic.
    stored = span.doc.user_data.setdefault(_extension_key("dropped", span.doc), [])
    stored.append([span.start_char, span.end_char, list(span._.hpo_ids or ()), rule])


def kb_id(hpo_ids: tuple[str, ...] | None) -> str:
    """A phenotype span's ``kb_id_``: its first HPO id, where spaCy's ``EntityLinker`` puts
    the linked id; :data:`NIL` when no term fits."""
    return hpo_ids[0] if hpo_ids else NIL


def _plain(value):
    """A value of JSON's kinds with every sequence a list: msgpack gives a tuple back as a
    list (``Doc.to_bytes``), and ``DocBin`` every list as a tuple."""
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
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


def make_article_doc(nlp: Language, article: Article) -> Doc:
    """A tokenised (not yet processed) Doc for an article, with passages and patients.

    Readers refuse bad offsets with the file and line; this refuses, naming the article,
    what would lay out as an absurdly long string (for articles made in code).
    """
    problem = layout_problem(article.passages)
    if problem is not None:
        index, message = problem
        raise InputError(f"article {article.id}: {'passages' if index is None else f'passages[{index}].offset'}: {message}")
    text = layout_passages(article.passages)
    if len(text) > nlp.max_length:
        raise InputError(f"article {article.id}: passages: {len(text):,} characters, more than this pipeline's max_length ({nlp.max_length:,})")
    doc = nlp.make_doc(text)
    doc.user_data[_TEXT_KEY] = text
    doc._.article_id = article.id
    doc._.patients = article.patients
    spans = []
    for passage in article.passages:
        start, end = passage.offset, passage.offset + len(passage.text)
        span = doc.char_span(start, end, label=passage.section_type, alignment_mode="expand")
        if span is not None and len(span):
            span._.passage_type = passage.type
            spans.append(span)
    doc.spans[PASSAGES] = spans
    return doc


def annotate_articles(nlp: Language, articles: Iterable[Article], batch_size: int = 8) -> Iterator[tuple[Article, Doc]]:
    """(article, processed Doc) pairs in input order."""
    articles = list(articles)
    docs = (make_article_doc(nlp, article) for article in articles)
    yield from zip(articles, nlp.pipe(docs, batch_size=batch_size))


def make_text_doc(nlp: Language, text: str, section_type: str = TEXT_SECTION_TYPE) -> Doc:
    """A Doc for plain text: one passage covering everything."""
    return make_article_doc(nlp, text_article(None, text, section_type))


def add_text_passage(doc: Doc, section_type: str = TEXT_SECTION_TYPE) -> None:
    """One passage over the whole Doc, for a Doc made by someone else's ``nlp(text)``."""
    span = doc[:]
    span.label_ = section_type
    span._.passage_type = PARAGRAPH
    doc.spans[PASSAGES] = [span] if len(span) else []


def doc_text(doc: Doc) -> str:
    """``doc.text``, built once: spaCy rebuilds it from every token on each access, which
    costs several milliseconds per article and stage."""
    text = doc.user_data.get(_TEXT_KEY)
    if text is None:
        text = doc.user_data[_TEXT_KEY] = doc.text
    return text


def sentence_offsets(doc: Doc) -> list[tuple[int, int]]:
    """(start_char, end_char) of every sentence, as ``doc.sents`` gives them, read from
    arrays: iterating ``doc.sents`` makes a Token object per token, slow on long articles."""
    if not len(doc):
        return []
    starts = numpy.flatnonzero(doc.to_array([SENT_START]).astype("int64") == 1).tolist()
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    token_offsets = doc.to_array([IDX]).tolist()
    lasts = [start - 1 for start in starts[1:]] + [len(doc) - 1]
    return [(token_offsets[first], token_offsets[last] + len(doc[last])) for first, last in zip(starts, lasts)]


def non_overlapping(spans: Iterable[Span]) -> list[Span]:
    """Of overlapping spans the longest (then the first), in text order: what ``doc.ents``
    and displaCy's entity view can hold."""
    return filter_spans(list(spans))
