"""The engine's result for one article: what every writer reads.

An :class:`AnnotatedArticle` is the :class:`~phenorules.core.article.Article` that was read and
what the pipeline found in it: its phenotype mentions as typed
:class:`~phenorules.core.phenotype.Phenotype` records (span, ids, assertions, patients,
provenance, the evidence of each attribution), the patients (the given ones, or the text's
proband), what the text says of each (sex, age), the per-patient associations, and the
mentions a stage dropped. It holds no spaCy object, so it pickles, crosses processes and
outlives the Doc, as BioC's collection/document/annotation objects hold data without I/O.
Readers of every format build Articles; writers of every format (``formats/``) read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc

from .article import Article, Patient
from .document import article_docs, working
from .pieces import PIECE_CHARS, annotated_in_pieces, in_pieces, piece_starts
from .phenotype import HpoIds, Phenotype

# A mention a stage removed: (start, end, ids, the rule row that removed it).
Dropped = tuple[int, int, HpoIds, str]
# Without the patient stage every given patient gets every non-negated id found outside
# these sections (the floor the PatientPheX task statistics describe).
FLOOR_SKIPPED_SECTIONS = frozenset({"INTRO", "DISCUSS"})


@dataclass(frozen=True)
class AnnotatedArticle:
    article: Article
    phenotypes: tuple[Phenotype, ...]
    patients: tuple[Patient, ...]  # the given patients, or the text's proband
    associations: dict[str, list[str]] | None  # patient id -> what it has; None: the patient stage did not run
    subjects: dict[str, dict] = field(default_factory=dict)  # patient id -> the sex and age the text says
    dropped: tuple[Dropped, ...] = ()


def patient_associations(result: AnnotatedArticle) -> dict[str, list[str]]:
    """Patient id -> what it has: the patient stage's associations, or without that stage
    the floor, every given patient the ids of the non-negated mentions outside the
    introduction and the discussion."""
    if result.associations is not None:
        return result.associations
    skipped = [(p.offset, p.offset + len(p.text)) for p in result.article.passages if p.section_type in FLOOR_SKIPPED_SECTIONS]
    ids = {
        hpo_id
        for phenotype in result.phenotypes
        if not phenotype.negated and not any(a <= phenotype.start < b for a, b in skipped)
        for hpo_id in phenotype.hpo_ids
    }
    return {patient.id: sorted(ids) for patient in result.patients}


def annotated_article(article: Article, doc: Doc) -> AnnotatedArticle:
    """The result of ``article`` from its processed Doc: its mention records (or its
    phenotype spans, where a pipe made them)."""
    state = working(doc)
    return AnnotatedArticle(
        article,
        tuple(state.mentions),
        tuple(doc._.patients or ()),
        doc._.associations,
        dict(doc._.subjects or {}),
        tuple(state.dropped),
    )


def annotated_articles(nlp: Language, articles: Iterable[Article], piece_chars: int = PIECE_CHARS) -> Iterator[AnnotatedArticle]:
    """The result of each article, in input order (no spaCy span is made); an article
    longer than ``piece_chars`` annotated in pieces where the pipeline can
    (:mod:`phenorules.core.pieces`: the same result, in a piece's memory)."""
    pieceable, whole = in_pieces(nlp), []
    for article in articles:
        starts = piece_starts(article.passages, piece_chars) if pieceable else [0]
        if len(starts) == 1:
            whole.append(article)
            continue
        yield from _whole(nlp, whole)
        whole = []
        yield annotated_article(article, annotated_in_pieces(nlp, article, starts))
    yield from _whole(nlp, whole)


def _whole(nlp: Language, articles: list[Article]) -> Iterator[AnnotatedArticle]:
    for article, doc in article_docs(nlp, articles, spans=False):
        yield annotated_article(article, doc)
