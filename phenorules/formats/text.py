"""Plain text: a file is one article of one passage, its id the file's name; no patients
(the patient stage gives the text its proband)."""

from __future__ import annotations

from ..core.article import Article, text_article
from .admit import admitted, decode
from .registry import Format, register


def read_text(name: str, data: bytes, text_id: str | None, on_error: str) -> list[Article]:
    return admitted(name, [text_article(text_id, decode(name, data))], on_error)


TEXT = register(Format("text", "plain text", "text", extensions=(".txt", ".text"), read=read_text))
