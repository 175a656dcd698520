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
