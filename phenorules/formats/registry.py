"""Formats as a registry: each format is one module that registers what it reads and writes.

A :class:`Format` is registered by name in ``FORMATS`` (a `catalogue
<https://github.com/explosion/catalogue>`_ registry, as spaCy's ``registry.misc``).
``predict --from X --to Y``, the readers of files, globs and standard input (``inputs.py``,
``streaming.py``), ``predict``'s outputs (``run/outputs.py``) and ``serve`` all look
formats up here; the built-in ones are the modules of :data:`BUILT_IN`. A reader turns
bytes into :class:`~phenorules.core.article.Article` objects; a writer turns
:class:`~phenorules.core.annotated.AnnotatedArticle` results into text or bytes, the
whole file at once (``write``) or a result at a time (a :class:`Stream`), which is how
``predict`` writes a corpus in input order whatever annotates it, and resumes one.

Other packages add formats as plugins: each object of the ``phenorules_formats`` entry
point is a :class:`Format` of the entry point's name. A plugin is imported when it is
first needed (looked up by name, or with all the others when the formats are listed or a
file's format is told by its extension), each on its own: one that cannot be imported,
is no Format, or takes a built-in format's name is left out with one warning line, and
looking it up by name is one error line. The code of a format is called through the
``Format`` methods (:meth:`Format.read_articles`, ...), which turn what it raises, other
than a :class:`~phenorules.core.errors.PhenorulesError`, into one line naming the format and
the file or the article.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Iterator, Sequence

import catalogue

from ..core.annotated import AnnotatedArticle
from ..core.article import Article
from ..core.errors import InputError, PhenorulesError, SettingError, describe, warn
from ..stages.profiles import GENERAL

FORMATS = catalogue.create("phenorules", "formats")
PLUGINS = "phenorules_formats"  # the entry-point group of other packages' formats
# Names a built-in format had before, still taken: "jsonl" said the file's syntax, not
# that it is PatientPheX's.
ALIASES = {"jsonl": "patientphex"}
BUILT_IN = (
    "phenorules.formats.text",
    "phenorules.formats.bioc",
    "phenorules.formats.pubtator",
    "phenorules.formats.docbin",
    "phenorules.formats.patientphex.format",
    "phenorules.formats.patientphex.evidence",
)

# What a format's code may raise that is not ours to let through: any error, and a
# sys.exit() that would end the command with no output and no word.
THEIR_FAILURES = (Exception, SystemExit)

# read(name, data, text_id, on_error): the articles of a file's bytes; ``name`` places errors
Reader = Callable[[str, bytes, "str | None", str], list[Article]]


class BrokenPlugin(SettingError):
    """A format plugin that could not be loaded, looked up by its name."""


# The parts of a streamed file, in order, each time it is called (a join may read them twice).
Parts = Callable[[], Iterator[Any]]


@dataclass(frozen=True)
class Stream:
    """How a format is written a result at a time: ``part`` is what one article adds to
    the file, kept as it comes (``predict`` keeps it in ``OUT.partial``, which
    ``--resume`` takes up); ``join`` makes the file's text or bytes, in pieces, from the
    parts of all the articles, at the end: BioC opens its collection, adds each document
    and closes it; DocBin merges each article's Doc. Without ``join`` each part is a line
    of the file, the JSON object of one article naming it as ``pmc_id``: the file is
    written as it comes. A part is a JSON value (text for a line)."""

    part: Callable[[AnnotatedArticle], Any]
    join: Callable[[Parts], Iterator["str | bytes"]] | None = None

    def whole(self, results: Sequence[AnnotatedArticle]) -> str | bytes:
        """The file of ``results``, as streaming them gives it."""
        parts = [self.part(result) for result in results]
        if self.join is None:
            return "".join(parts)
        pieces = list(self.join(lambda: iter(parts)))
        return b"".join(pieces) if pieces and isinstance(pieces[0], bytes) else "".join(pieces)


@dataclass(frozen=True)
class Format:
    name: str
    title: str  # what it is ("PatientPheX JSONL")
    what: str  # what an output of it is called in messages ("predictions", "BioC JSON")
    profile: str = GENERAL  # the profile of rules/profiles.tsv its input gets (--profile auto)
    extensions: tuple[str, ...] = ()  # file extensions that tell it
    read: Reader | None = None
    write: Callable[[list[AnnotatedArticle]], "str | bytes"] | None = None  # a whole file of results at once (bytes: binary)
    stream: Stream | None = None  # or a result at a time
    read_line: Callable[[str, int, bytes], "Article | None"] | None = None  # one line of a line format: read a line at a time
    check: Callable[[list[Article]], None] | None = None  # refuses, before an article is written, what it cannot hold

    @property
    def writes(self) -> bool:
        return self.write is not None or self.stream is not None

    def read_articles(self, name: str, data: bytes, text_id: str | None, on_error: str) -> list[Article]:
        """The articles ``read`` gives for a file's bytes; a failure is one line naming the
        file (``name``) and the format."""
        articles = _called(f"{name}: format {self.name}: cannot read", self.read, name, data, text_id, on_error)
        if not isinstance(articles, list) or not all(isinstance(article, Article) for article in articles):
            raise InputError(f"{name}: format {self.name}: its reader gave {type(articles).__name__}, not a list of articles")
        return articles

    def article_of_line(self, name: str, lineno: int, raw: bytes) -> Article | None:
        """The article ``read_line`` gives for one line (None: a blank one); a failure is one
        line naming the file, the line and the format."""
        article = _called(f"{name}, line {lineno}: format {self.name}: cannot read", self.read_line, name, lineno, raw)
        if article is not None and not isinstance(article, Article):
            raise InputError(f"{name}, line {lineno}: format {self.name}: its reader gave {type(article).__name__}, not an article")
        return article

    def check_articles(self, articles: list[Article]) -> None:
        """Refuse, before the work, what this format cannot write (``check``)."""
        if self.check is not None:
            _called_on(f"format {self.name}: cannot check", self.check, articles, lambda article: article.id)

    def write_results(self, results: list[AnnotatedArticle]) -> str | bytes:
        """The file of the results (``write``, else the joined parts of ``stream``); a
        failure is one line naming the format and the article it fails on."""
        write = self.write or self.stream.whole
        output = _called_on(f"format {self.name}: cannot write", write, results, lambda result: result.article.id)
        if not isinstance(output, (str, bytes)):
            raise InputError(f"format {self.name}: its writer gave {type(output).__name__}, not text or bytes")
        return output

    def part_of(self, result: AnnotatedArticle) -> Any:
        """The part of the file ``stream`` gives for one result; a failure is one line
        naming the format and the article."""
        return _called(f"format {self.name}: cannot write article {result.article.id}", self.stream.part, result)

    def joined(self, parts: Parts) -> Iterator[str | bytes]:
        """The file's pieces ``stream.join`` makes of the parts, as they come; a failure
        is one line naming the format."""
        place = f"format {self.name}: cannot write"
        pieces = _called(place, self.stream.join, parts)
        while True:
            piece = _called(place, next, pieces, _END)
            if piece is _END:
                return
            yield piece


_END = object()


def _called(place: str, call: Callable, *args: Any) -> Any:
    """``call(*args)``; what it raises other than a PhenorulesError (a bug of a format's
    code, a plugin's) is one line naming ``place``."""
    try:
        return call(*args)
    except PhenorulesError:
        raise
    except THEIR_FAILURES as error:
        raise InputError(f"{place}: {describe(error)}") from None


def _called_on(doing: str, call: Callable[[list], Any], items: Sequence, article_id: Callable[[Any], str | None]) -> Any:
    """``call(items)``, as :func:`_called`, the message naming the first article it fails on
    alone (``article_id`` of an item)."""
    try:
        return call(items)
    except PhenorulesError:
        raise
    except THEIR_FAILURES as error:
        failing = next((item for item in items if _fails(call, item)), None)
        where = f"the {len(items)} articles together" if failing is None else f"article {article_id(failing)}"
        raise InputError(f"{doing} {where}: {describe(error)}") from None


def _fails(call: Callable[[list], Any], item: Any) -> bool:
    try:
        call([item])
    except THEIR_FAILURES:
        return True
    return False


def register(format_: Format) -> Format:
    FORMATS.register(format_.name, func=format_)
    _known.clear()
    return format_


_known: dict[str, Format] = {}  # formats() once read
_built_in: set[str] = set()  # the names the BUILT_IN modules register
_plugins: dict[str, Format | str] = {}  # entry point name -> its Format, or why it is left out
_warned: set[str] = set()  # the plugins left out that a warning named


def formats() -> dict[str, Format]:
    """Every registered format by name: the built-in ones, imported on first use, and the
    plugins that load (a warning names each that does not)."""
    if not _known:
        _import_built_in()
        for name in sorted(_entry_points()):
            loaded = _plugin(name)
            if isinstance(loaded, str) and name not in _warned:
                _warned.add(name)
                warn(f"{loaded}; left out")
        _known.update(sorted(FORMATS.get_all().items()))
    return dict(_known)


def get(name: str) -> Format:
    """The format called ``name`` (or an alias of its: :data:`ALIASES`); a plugin is loaded
    here if it was not yet."""
    _import_built_in()
    name = ALIASES.get(name, name)
    if name in FORMATS:
        return FORMATS.get(name)
    if name in _entry_points():
        loaded = _plugin(name)
        if isinstance(loaded, str):
            raise BrokenPlugin(loaded)
        return loaded
    raise SettingError(f"unknown format {name!r}; formats are {sorted(formats())}")


def readers() -> list[str]:
    return [name for name, format_ in formats().items() if format_.read is not None]


def writers() -> list[str]:
    return [name for name, format_ in formats().items() if format_.writes]


def _import_built_in() -> None:
    if not _built_in:
        for module in BUILT_IN:
            importlib.import_module(module)
        _built_in.update(FORMATS.get_all())


def _entry_points() -> dict[str, EntryPoint]:
    """The installed plugins by name, none imported: read afresh from the installed
    distributions, to list them all or to look up a name no built-in format has."""
    return {entry.name: entry for entry in entry_points(group=PLUGINS)}


def _plugin(name: str) -> Format | str:
    """The plugin's Format, registered, or why it is left out; each is imported once."""
    if name not in _plugins:
        _plugins[name] = _load(_entry_points()[name])
        if isinstance(_plugins[name], Format):
            register(_plugins[name])
    return _plugins[name]


def _load(entry: EntryPoint) -> Format | str:
    """The entry point's Format, or why it is none; whatever its import raises is caught
    here, so that one broken plugin leaves the others and the built-in formats working."""
    place = f"format plugin {entry.name} ({entry.value})"
    if entry.name in _built_in or entry.name in ALIASES:
        return f"{place}: {entry.name} is a built-in format"
    try:
        loaded = entry.load()
    except THEIR_FAILURES as error:
        return f"{place}: {describe(error)}"
    if not isinstance(loaded, Format):
        return f"{place}: a {type(loaded).__name__}, not a phenorules.formats.registry.Format"
    if loaded.name != entry.name:
        return f"{place}: its Format is named {loaded.name!r}"
    return loaded
