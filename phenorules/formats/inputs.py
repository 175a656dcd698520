"""The inputs people have: plain text, PatientPheX JSONL, BioC JSON or XML; all become articles.

An article is an :class:`~phenorules.core.article.Article`, which ``document.make_article_doc``
turns into a Doc, so every command treats the three alike.
Unless given, the format is told by the extension and the content together, and never by
falling back silently: ``.jsonl`` is JSONL, ``.txt`` text, ``.xml`` BioC XML; otherwise
an XML declaration or a ``<collection>`` element is BioC XML, and content that parses as
JSON is JSON (JSONL when a line holds an object, or a value that no text would be, like
``null`` or ``[1,2]``; BioC for a document with ``documents``, or a broken one that surely
is JSON, like ``{"key":``); anything else is text, and text that merely starts like JSON
(``[[``, ``{"``) is read as text with a warning saying so. An empty input is no article,
with a warning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import registry
from ..core.article import Article
from ..core.errors import ON_ERROR, warn
from ..core.files import STDIN, read_bytes
from ..options import AUTO_PROFILE
from .bioc import XML_START
from .patientphex import FORMAT as JSON_LINES  # the format of a file of JSON objects a line

AUTO = "auto"  # the format told by the content
_BOM = b"\xef\xbb\xbf"
_JSON_LIKE = re.compile(rb'\{\s*["}]|\[\s*[\[{]')  # starts like an object or an array of them
# ... and surely is JSON: a quoted key and a colon, or an array of arrays of values
_JSON_START = re.compile(rb'\[?\s*\{\s*"[^"\n]{0,200}"\s*:|\[\s*\[\s*[\[{"\d-]')
_LINES_SNIFFED = 20


def read_input(path: str, input_format: str = "auto", on_error: str = "fail") -> list[Article]:
    """Articles of a file (``-``: standard input) in the given or the detected format;
    ``on_error`` 'skip' leaves a bad article out with a warning instead of refusing."""
    return read_input_format(path, input_format, on_error)[0]


def read_input_format(path: str, input_format: str = "auto", on_error: str = "fail") -> tuple[list[Article], str]:
    """:func:`read_input`'s articles and the format they were read in."""
    return parse_input_format("<stdin>" if path == STDIN else path, read_bytes(path), input_format, article_id(path), on_error)


def parse_input(name: str, data: bytes, input_format: str = "auto", text_id: str | None = None, on_error: str = "fail") -> list[Article]:
    """:func:`read_input` for content already read; ``name`` places errors (and its
    extension helps detection), ``text_id`` is the article id of plain text."""
    return parse_input_format(name, data, input_format, text_id, on_error)[0]


def parse_input_format(name: str, data: bytes, input_format: str = "auto", text_id: str | None = None, on_error: str = "fail") -> tuple[list[Article], str]:
    """:func:`parse_input`'s articles and the format they were read in."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    chosen = input_format
    if not data.removeprefix(_BOM).strip():
        warn(f"{name}: empty: no article to read")
        return [], chosen
    chosen = detect_format(data, name) if input_format == "auto" else input_format
    return registry.get(chosen).read_articles(name, data, text_id, on_error), chosen


def format_profile(input_format: str, profile: str = AUTO_PROFILE) -> str:
    """The profile of ``rules/profiles.tsv`` for input of ``input_format``: ``profile``
    unless it is ``auto``; then the format's own (PatientPheX JSONL: its annotators'
    conventions, ``patientphex``; text and BioC the general one)."""
    if profile != AUTO_PROFILE:
        return profile
    return registry.get(input_format).profile


def detect_format(data: bytes, name: str = "<stdin>") -> str:
    """'patientphex' (JSON lines), 'bioc' (JSON or XML) or 'text', from the content and
    the extension of ``name``."""
    start = data.removeprefix(_BOM).lstrip()
    extension = Path(name.removesuffix(".gz")).suffix.lower() if name != "<stdin>" else ""
    told = {suffix: key for key, format_ in registry.formats().items() if format_.read for suffix in format_.extensions}
    if extension in told:
        return told[extension]
    if XML_START.match(start):
        return "bioc"
    first = _first_value(start)
    if isinstance(first, dict):
        return "bioc" if "documents" in first and not {"pmc_id", "full_text"} & first.keys() else JSON_LINES
    if first is not _NOT_JSON and (not isinstance(first, (str, int, float)) or isinstance(first, bool)):
        return "bioc" if isinstance(first, list) and _whole_json(start) is not _NOT_JSON else JSON_LINES
    if _any_object_line(start):
        return JSON_LINES  # the first line is broken; the JSONL reader says where
    if _whole_json(start) is not _NOT_JSON or extension == ".json" or _JSON_START.match(start):
        return "bioc"  # a JSON document over several lines, or a broken one: BioC reading says where
    if _JSON_LIKE.match(start):
        warn(f"{name}: starts like JSON but is not JSON: read as plain text (pass --format patientphex or bioc to see the JSON error)")
    return "text"


def article_id(path: str) -> str:
    """A text file's article id: its name without the extension ('stdin' for ``-``)."""
    return "stdin" if path == STDIN else Path(path.removesuffix(".gz")).stem


_NOT_JSON = object()


def _first_value(start: bytes):
    """The first line as JSON, or _NOT_JSON."""
    return _json(start.split(b"\n", 1)[0])


def _whole_json(start: bytes):
    return _json(start)


def _any_object_line(start: bytes) -> bool:
    lines = [line for line in start.split(b"\n", _LINES_SNIFFED)[1:_LINES_SNIFFED] if line.strip()]
    return any(isinstance(_json(line), dict) for line in lines)


def _json(data: bytes):
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # broken, nested too deeply, too many digits, not UTF-8
        return _NOT_JSON
