"""Passages with global offsets (PatientPheX, BioC) laid out as one article string."""

from __future__ import annotations

from typing import Iterable


TEXT_SECTION_TYPE = "TEXT"  # the section of plain text that has no sections


def text_article(pmc_id: str | None, text: str, section_type: str = TEXT_SECTION_TYPE) -> dict:
    """Plain text as a task article: one passage, no patients."""
    passage = {"section_type": section_type, "type": "paragraph", "offset": 0, "text": text}
    return {"pmc_id": pmc_id, "pmid": None, "patient": [], "full_text": [passage]}


def layout_passages(passages: Iterable[dict]) -> str:
    """The article with each passage at its global offset and the gaps filled with '\\n'.

    Global offsets (entities, patient mentions) then index this string directly.
    """
    pieces: list[str] = []
    end = 0
    for passage in passages:
        pieces.append("\n" * (passage["offset"] - end))
        pieces.append(passage["text"])
        end = passage["offset"] + len(passage["text"])
    return "".join(pieces)


# spaCy refuses texts over 1,000,000 characters (E088) for the memory its parser and NER
# need; this pipeline has neither, and processes an article of this size in a few GB.
MAX_ARTICLE_CHARS = 10_000_000
# Gaps between passages are filled with newlines: more gap than text (and this allowance)
# is a broken offset, not an article, and would only cost memory.
GAP_ALLOWANCE = 100_000


def layout_problem(passages: list[dict]) -> tuple[str, str] | None:
    """(field, problem) when laying ``passages`` out would not give a processable article:
    gaps larger than the text itself, or more than MAX_ARTICLE_CHARS characters."""
    allowed = max(GAP_ALLOWANCE, sum(len(passage["text"]) for passage in passages))
    end = gaps = 0
    for i, passage in enumerate(passages):
        gaps += passage["offset"] - end
        if gaps > allowed:
            return f"full_text[{i}].offset", f"{passage['offset']} leaves {gaps:,} characters of gaps before it, more than the {allowed:,} the article's text allows"
        end = passage["offset"] + len(passage["text"])
    if end > MAX_ARTICLE_CHARS:
        return "full_text", f"the article has {end:,} characters, more than the {MAX_ARTICLE_CHARS:,} phenorules processes"
    return None
