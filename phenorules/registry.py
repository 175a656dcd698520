"""Formats as a registry: each format is one module that registers what it reads and writes.

A :class:`Format` is registered by name in ``FORMATS`` (a `catalogue
<https://github.com/explosion/catalogue>`_ registry, as spaCy's ``registry.misc``; other
packages add formats with the ``phenorules_formats`` entry point). ``predict --from X --to
Y``, the readers of files, globs and standard input (``inputs.py``, ``streaming.py``),
the corpus backends (``article_chunks.py``) and ``serve`` all look formats up here;
the built-in ones are the modules of :data:`BUILT_IN`. A reader turns bytes into
:class:`~phenorules.article.Article` objects; a writer turns
:class:`~phenorules.annotated.AnnotatedArticle` results into text.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import catalogue

from .annotated import AnnotatedArticle
from .article import Article
from .errors import SettingError
from .profiles import GENERAL

FORMATS = catalogue.create("phenorules", "formats", entry_points=True)
BUILT_IN = (
    "phenorules.formats.text",
    "phenorules.formats.bioc",
    "phenorules.formats.pubtator",
    "phenorules.formats.docbin",
    "phenorules.tasks.patientphex.format",
)

# read(name, data, text_id, on_error): the articles of a file's bytes; ``name`` places errors
Reader = Callable[[str, bytes, "str | None", str], list[Article]]


@dataclass(frozen=True)
class Format:
    name: str
    title: str  # what it is ("PatientPheX JSONL")
    what: str  # what an output of it is called in messages ("predictions", "BioC JSON")
    profile: str = GENERAL  # the profile of rules/profiles.tsv its input gets (--profile auto)
    extensions: tuple[str, ...] = ()  # file extensions that tell it
    read: Reader | None = None
    write: Callable[[list[AnnotatedArticle]], "str | bytes"] | None = None  # a whole file of results (bytes: binary)
    line: Callable[[AnnotatedArticle], str] | None = None  # one line per result, streamed
    explain: Callable[[AnnotatedArticle], str] | None = None  # the evidence line of --explain
    record: Callable[[AnnotatedArticle], dict] | None = None  # a result as a JSON value (serve's answers)
    read_line: Callable[[str, int, bytes], "Article | None"] | None = None  # one line of a line format
    check: Callable[[list[Article]], None] | None = None  # refuses, before any work, what it cannot write


def register(format_: Format) -> Format:
    FORMATS.register(format_.name, func=format_)
    _known.clear()
    return format_


_known: dict[str, Format] = {}  # formats() once read (its entry points are looked up once)


def formats() -> dict[str, Format]:
    """Every registered format by name: the built-in ones, imported on first use, and those
    of the ``phenorules_formats`` entry point."""
    if not _known:
        for module in BUILT_IN:
            importlib.import_module(module)
        _known.update(sorted(FORMATS.get_all().items()))
    return dict(_known)


def get(name: str) -> Format:
    known = formats()
    if name not in known:
        raise SettingError(f"unknown format {name!r}; formats are {sorted(known)}")
    return known[name]


def readers() -> list[str]:
    return [name for name, format_ in formats().items() if format_.read is not None]


def writers() -> list[str]:
    return [name for name, format_ in formats().items() if format_.write is not None or format_.line is not None]
