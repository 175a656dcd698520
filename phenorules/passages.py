"""Passages with global offsets (PatientPheX, BioC) laid out as one article string."""

from __future__ import annotations

from typing import Iterable


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
