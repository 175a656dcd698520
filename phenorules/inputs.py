"""The inputs people have: plain text, PatientPheX JSONL, BioC JSON or XML; all become articles.

An article is the task's dict (``pmc_id``, ``pmid``, ``patient``, ``full_text``), which
``document.make_article_doc`` turns into a Doc, so every command treats the three alike.
The format is told by the content unless given: text that starts like a JSON object or
array of objects is JSON; JSONL (one article a line) if its first line is a whole object,
else BioC; an XML declaration or a ``<collection>`` element is BioC XML; anything else is text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .formats.bioc import parse_bioc, parse_bioc_xml
from .errors import InputError
from .files import STDIN, read_bytes
from .passages import text_article
from .tasks.patientphex.io import parse_articles

FORMATS = ("text", "jsonl", "bioc")
# An object with a key, or an array of objects or arrays: '[1] Smith et al.' stays text.
JSON_START = re.compile(rb'\{\s*["}]|\[\s*[\[{]')
XML_START = re.compile(rb"<\?xml\b|<!DOCTYPE\s+collection\b|<collection\b")


def read_input(path: str, input_format: str = "auto") -> list[dict]:
    """Articles of a file (``-``: standard input) in the given or the detected format."""
    return parse_input("<stdin>" if path == STDIN else path, read_bytes(path), input_format, article_id(path))


def parse_input(name: str, data: bytes, input_format: str = "auto", text_id: str | None = None) -> list[dict]:
    """:func:`read_input` for content already read; ``name`` places errors, ``text_id``
    is the article id of plain text."""
    chosen = detect_format(data) if input_format == "auto" else input_format
    if chosen == "jsonl":
        return parse_articles(name, data)
    text = _decode(name, data)
    if chosen == "bioc":
        return parse_bioc_xml(name, text) if XML_START.match(text.lstrip()[:64].encode()) else parse_bioc(name, text)
    return [text_article(text_id, text)]


def detect_format(data: bytes) -> str:
    """'jsonl', 'bioc' or 'text', from the first characters and the first line."""
    start = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if XML_START.match(start):
        return "bioc"
    if not JSON_START.match(start):
        return "text"
    try:
        first = json.loads(start.split(b"\n", 1)[0])
    except ValueError:  # a JSON document over several lines (or a broken one): BioC reports where
        return "bioc"
    return "jsonl" if isinstance(first, dict) and "documents" not in first else "bioc"


def article_id(path: str) -> str:
    """A text file's article id: its name without the extension ('stdin' for ``-``)."""
    return "stdin" if path == STDIN else Path(path.removesuffix(".gz")).stem


def _decode(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{name}, line {line}: not UTF-8 (byte 0x{data[error.start]:02x})") from None
