"""Scans that re tries only where they can match. Python's re tries every branch of an
alternation at every position, and finds candidate positions in C only for a pattern that
starts with a literal or a class: :func:`first_class` reads from a pattern's parse the
characters its matches start with, a look-ahead put before an alternative, so that a
position none of them stands at costs one class test instead of a try of the whole
alternative; :func:`by_first_character` and :func:`literal_alternation` group an
alternation's words by their first character, so that a position tries the words of its
character only; :func:`tried_where_it_starts` compiles a rule's pattern behind its
look-ahead; :func:`located` searches a whole text for a pattern through a locator that
starts with the class of those characters (case unfolded), which re skips to in C. None
of them changes a match."""

from __future__ import annotations

import re
import sys
from typing import Iterable, Iterator

try:  # Python 3.11+
    from re import _constants as sre, _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

_ZERO_WIDTH = {sre.AT, sre.ASSERT, sre.ASSERT_NOT}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)}
_CATEGORIES = {sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_WORD: r"\w"}
# A class item: a range of code points (one character: a range of one) or a category (r"\d").
_Item = tuple[int, int] | str
# (class items, nullable): the items a first character matches; None for any character
_First = tuple[set[_Item] | None, bool]
_INLINE_FLAGS = re.compile(r"\(\?[aiLmsux-]")  # (?i), (?i:...), (?-i:...)


def first_class(pattern: str, flags: int = 0) -> str:
    """A look-ahead ``(?=[...])`` that every match of ``pattern`` starts with (compiled with
    the same flags, so that letters fold as the pattern's do), or '' where the pattern may
    start with any character or match the empty string."""
    items = _first_items(pattern, flags)
    return f"(?=[{''.join(sorted(map(_rendered, items)))}])" if items else ""


def _first_items(pattern: str, flags: int) -> set[_Item] | None:
    """The class items every match of ``pattern`` starts with; None where a match may start
    with any character or be empty."""
    items, nullable = _sequence(sre_parse.parse(pattern, flags))
    return None if items is None or nullable or not items else items


def _rendered(item: _Item) -> str:
    if isinstance(item, str):
        return item
    low, high = item
    return _char(low) if low == high else f"{_char(low)}-{_char(high)}"


def _sequence(parsed: Iterable) -> _First:
    out: set[_Item] = set()
    for op, av in parsed:
        items, nullable = _item(op, av)
        if items is None:
            return None, False
        out |= items
        if not nullable:
            return out, False
    return out, True


def _item(op, av) -> _First:
    if op in _ZERO_WIDTH:
        return set(), True
    if op == sre.LITERAL:
        return {(av, av)}, False
    if op == sre.IN:
        return _in(av), False
    if op == sre.SUBPATTERN:
        return _sequence(av[-1])
    if op == getattr(sre, "ATOMIC_GROUP", None):
        return _sequence(av)
    if op == sre.BRANCH:
        return _branch(av[1])
    if op in _REPEATS:
        items, nullable = _sequence(av[2])
        return items, items is not None and (nullable or av[0] == 0)
    return None, False


def _branch(branches) -> _First:
    out: set[_Item] = set()
    nullable = False
    for branch in branches:
        items, empty = _sequence(branch)
        if items is None:
            return None, False
        out |= items
        nullable = nullable or empty
    return out, nullable


def _in(av) -> set[_Item] | None:
    items: set[_Item] = set()
    for op, value in av:
        if op == sre.LITERAL:
            items.add((value, value))
        elif op == sre.RANGE:
            items.add(tuple(value))
        elif op == sre.CATEGORY and value in _CATEGORIES:
            items.add(_CATEGORIES[value])
        else:
            return None
    return items


def _char(code: int) -> str:
    return re.escape(chr(code))


def by_first_character(alternatives: list[tuple[str, str]], flags: int = 0) -> str:
    """One alternation of ``alternatives`` ((the character a pattern's matches start with,
    the pattern), in their order), those of one first character (in any case) grouped
    behind their :func:`first_class`: a position tries the group of its character only,
    not every pattern. Patterns of other first characters never match at one position,
    so the order between groups changes no match. Where a first character is a cased
    letter outside ASCII (whose case may fold into another's), the plain alternation."""
    if any(not first.isascii() and first.lower() != first.upper() for first, _ in alternatives):
        return "|".join(pattern for _, pattern in alternatives)
    groups: dict[str, list[str]] = {}
    for first, pattern in alternatives:
        groups.setdefault(first.lower(), []).append(pattern)
    joined = ("|".join(patterns) for patterns in groups.values())
    return "|".join(f"{first_class(group, flags)}(?:{group})" for group in joined)


def literal_alternation(words: list[str]) -> str:
    """One case-sensitive alternation of the literal ``words``, in their order, those of one
    first character written after it once ("s(?:ds|d)"): every branch still starts with a
    literal, so re finds where one may start in C, and a position tries the words of its
    character only. Words of other first characters never match at one position, so the
    order between groups changes no match."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[:1], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" if rests != [""] else re.escape(first) for first, rests in groups.items())


def tried_where_it_starts(pattern: str, flags: int = 0) -> re.Pattern:
    """``pattern`` compiled behind its :func:`first_class` look-ahead: the same matches,
    and a position none can start at costs one class test, not a try of every alternative.
    A pattern written wholly as ``(?i:...)`` gets the look-ahead inside, where its letters
    fold; one that sets flags anywhere else keeps none."""
    body = caseless_body(pattern)
    if body is not None:
        ahead = first_class(body, flags | re.IGNORECASE)
        return re.compile(f"(?i:{ahead}(?:{body}))" if ahead else pattern, flags)
    ahead = "" if _INLINE_FLAGS.search(pattern) else first_class(pattern, flags)
    return re.compile(f"{ahead}(?:{pattern})" if ahead else pattern, flags)


def located(pattern: str, flags: int = 0) -> "re.Pattern | LocatedPattern":
    """``pattern`` as :func:`tried_where_it_starts` compiles it, searched for through a
    locator (:class:`LocatedPattern`) where the characters its matches start with make a
    class that ignores no case: re then skips every other character in C. Where they do
    not (any character; a cased letter outside ASCII when case is ignored), or the pattern
    sets flags of its own, the compiled pattern itself."""
    compiled = tried_where_it_starts(pattern, flags)
    body = caseless_body(pattern)
    ignores_case = body is not None or bool(flags & re.IGNORECASE)
    if flags & ~re.IGNORECASE or (body is None and _INLINE_FLAGS.search(pattern)):
        return compiled
    starts = _unfolded_class(_first_items(pattern if body is None else body, flags | (re.IGNORECASE if ignores_case else 0)), ignores_case)
    if starts is None:
        return compiled
    inside = f"(?i:{pattern})" if flags & re.IGNORECASE else pattern
    try:
        locator = re.compile(f"[{starts}](?<=(?={inside}).)")
    except re.error:  # a group reference, which a look-behind cannot hold
        return compiled
    return LocatedPattern(compiled, locator)


# The characters outside ASCII that an ASCII letter matches when case is ignored: İ ı ſ K.
_FOLDED_INTO_ASCII = {(0x130, 0x131), (0x17F, 0x17F), (0x212A, 0x212A)}


def _unfolded_class(items: set[_Item] | None, ignores_case: bool) -> str | None:
    """The body of a class, read with case, of every character that ``items`` match (read
    ignoring case, if ``ignores_case``): each ASCII letter in both cases, with the letters
    outside ASCII that fold into one. None for no items, or (ignoring case) a letter outside
    ASCII or a wide range beyond it."""
    if not items:
        return None
    out: set[_Item] = set()
    for item in items:
        out.add(item)
        if not ignores_case or isinstance(item, str):
            continue
        low, high = item
        if high >= 0x80 and (high - low > _CASE_CHECKED or any(_cased(code) for code in range(max(low, 0x80), high + 1))):
            return None
        for code in filter(_cased, range(low, min(high, 0x7F) + 1)):
            out |= {(ord(chr(code).lower()),) * 2, (ord(chr(code).upper()),) * 2, *_FOLDED_INTO_ASCII}
    return "".join(sorted(map(_rendered, out)))


_CASE_CHECKED = 256  # the widest range whose characters are read for case


def _cased(code: int) -> bool:
    return chr(code).lower() != chr(code).upper()


class LocatedPattern:
    """A pattern searched for in two steps: its ``locator``, a regex that starts with the
    class of the characters its matches start with and then looks behind for the whole
    pattern there (``[ABC](?<=(?=PATTERN).)``), finds where the first match starts, and the
    pattern matches there. The matches are the pattern's own; a position that no match can
    start at costs re's skip in C, not a try of the pattern. The pattern never matches
    the empty string (:func:`first_class` has no class for one), so each match moves on."""

    def __init__(self, pattern: re.Pattern, locator: re.Pattern):
        self.compiled, self.locator = pattern, locator

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groupindex(self):
        return self.compiled.groupindex

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        found = self.locator.search(string, pos, endpos)
        return None if found is None else self.compiled.match(string, found.start(), endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match]:
        while (hit := self.search(string, pos, endpos)) is not None:
            yield hit
            pos = hit.end()


def caseless_body(pattern: str) -> str | None:
    """The inside of a pattern written wholly as ``(?i:...)``, else None."""
    if not (pattern.startswith("(?i:") and pattern.endswith(")")):
        return None
    depth, escaped, in_class = 0, False, False
    for i, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0 and i != len(pattern) - 1:
                return None  # the wrapper closes before the end: '(?i:a)|b'
    return pattern[4:-1]
