"""The article the core annotates: typed input objects, built by the readers of each format.

An :class:`Article` is an id, an optional PMID, its :class:`Passage` objects (each at its
global offset, with the section type and passage type PMC's BioC gives) and the patients
the input lists, each with the mentions the input gives for it. The readers of every
format (PatientPheX JSONL, BioC, plain text: ``formats/``) build these; the core
(``document.make_article_doc`` and the stages) reads nothing else.

The passages are laid out as one string, each at its global offset and the gaps filled
with newlines, so global offsets (entities, patient mentions) index that string directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

TEXT_SECTION_TYPE = "TEXT"  # the section of plain text that has no sections
PARAGRAPH = "paragraph"  # the passage type of plain text


@dataclass(frozen=True)
class Passage:
    """A piece of the article's text at its global ``offset``."""

    offset: int
    text: str
    section_type: str = TEXT_SECTION_TYPE  # TITLE, ABSTRACT, INTRO, METHODS, CASE, ...
    type: str = PARAGRAPH  # front, abstract, paragraph, fig_caption, table, ...


@dataclass(frozen=True)
class GivenMention:
    """A place the input names as referring to a patient, at global offsets."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Patient:
    """A patient the input lists: its ``id`` (written back as given), the ``label`` the
    article's text calls it by when the input says (PatientPheX's ``OII-1`` -> ``II-1``),
    and the mentions the input gives for it."""

    id: str
    label: str | None = None
    mentions: tuple[GivenMention, ...] = ()


@dataclass(frozen=True)
class Article:
    """An article to annotate. ``source`` keeps what a reader needs to write the article
    back in its own format (BioC: the collection header and the document as read)."""

    id: str | None
    passages: tuple[Passage, ...]
    pmid: str | None = None
    patients: tuple[Patient, ...] = ()
    source: Any = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The passages laid out at their offsets (:func:`layout_passages`)."""
        return layout_passages(self.passages)


def text_article(article_id: str | None, text: str, section_type: str = TEXT_SECTION_TYPE) -> Article:
    """Plain text as an article: one passage, no patients."""
    return Article(article_id, (Passage(0, text, section_type, PARAGRAPH),))


def layout_passages(passages: Iterable[Passage]) -> str:
    """The article with each passage at its global offset and the gaps filled with '\\n'.

    Global offsets (entities, patient mentions) then index this string directly.
    """
    pieces: list[str] = []
    end = 0
    for passage in passages:
        pieces.append("\n" * (passage.offset - end))
        pieces.append(passage.text)
        end = passage.offset + len(passage.text)
    return "".join(pieces)


# spaCy refuses texts over 1,000,000 characters (E088) for the memory its parser and NER
# need; this pipeline has neither, and annotates a long article in pieces of passages
# (core/pieces.py): one of this size in under 600 MB.
MAX_ARTICLE_CHARS = 10_000_000
# Gaps between passages are filled with newlines: more gap than text (and this allowance)
# is a broken offset, not an article, and would only cost memory.
GAP_ALLOWANCE = 100_000


def layout_problem(passages: Iterable[Passage]) -> tuple[int | None, str] | None:
    """(index of the passage, problem) when laying ``passages`` out would not give a
    processable article: gaps larger than the text itself (at that passage's offset), or
    more than MAX_ARTICLE_CHARS characters (index None: the whole article)."""
    passages = list(passages)
    allowed = max(GAP_ALLOWANCE, sum(len(passage.text) for passage in passages))
    end = gaps = 0
    for i, passage in enumerate(passages):
        gaps += passage.offset - end
        if gaps > allowed:
            return i, f"{passage.offset} leaves {gaps:,} characters of gaps before it, more than the {allowed:,} the article's text allows"
        end = passage.offset + len(passage.text)
    if end > MAX_ARTICLE_CHARS:
        return None, f"the article has {end:,} characters, more than the {MAX_ARTICLE_CHARS:,} phenorules processes"
    return None


def passages_problem(article: Article, field: str = "passages") -> tuple[str, str] | None:
    """(field, problem) when the article's passages would not lay out as a processable
    text (:func:`layout_problem`), the field named from ``field`` ("passages[3].offset")."""
    problem = layout_problem(article.passages)
    if problem is None:
        return None
    index, message = problem
    return (field if index is None else f"{field}[{index}].offset"), message


def article_fields(article: Article) -> dict:
    """The article's fields as a JSON value, for checks that name a field."""
    return {
        "id": article.id,
        "pmid": article.pmid,
        "passages": [{"offset": p.offset, "text": p.text, "section_type": p.section_type, "type": p.type} for p in article.passages],
        "patients": [{"id": p.id, "label": p.label, "mentions": [{"start": m.start, "end": m.end, "text": m.text} for m in p.mentions]} for p in article.patients],
    }
