"""The shapes of JSON inputs as pydantic models, and a refusal naming the first wrong field.

A :class:`Shape` says which keys an object must hold and their JSON types, strictly (JSON
``true`` is no integer, ``1.0`` no offset); keys it does not name are ignored. A reader
validates a parsed value with :func:`check` and words the :class:`ShapeError` it may raise
(the place as keys and list indices, and what is wrong there) in its own message format.
Rules across fields (offsets in order, a mention's text at its offset) stay with the
reader.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

NonNegative = Annotated[int, Field(ge=0)]
NonEmpty = Annotated[str, Field(min_length=1)]

JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
MISSING, WRONG_TYPE, NEGATIVE, EMPTY = "missing", "type", "negative", "empty"
_KINDS = {"missing": MISSING, "greater_than_equal": NEGATIVE, "string_too_short": EMPTY}


class Shape(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class ShapeError(Exception):
    """The first problem pydantic found: at ``loc`` (keys and indices from the value
    checked), of ``kind`` (MISSING, WRONG_TYPE, NEGATIVE, EMPTY), with the JSON types the
    place takes (``expected``) and the ``value`` found there."""

    def __init__(self, loc: tuple[str | int, ...], kind: str, expected: tuple[type, ...], value: Any) -> None:
        super().__init__(f"{dotted(loc)}: {kind}")
        self.loc, self.kind, self.expected, self.value = loc, kind, expected, value


def check(model: type[Shape] | Any, value: Any) -> Any:
    """``value`` validated as ``model`` (a Shape or a type such as ``list[Shape]``)."""
    try:
        if isinstance(model, type) and issubclass(model, BaseModel):
            return model.model_validate(value)
        return _adapter(model).validate_python(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        loc = tuple(first["loc"])
        kind = _KINDS.get(first["type"], WRONG_TYPE)
        raise ShapeError(loc, kind, _json_kinds(_annotation_at(model, loc)), first["input"]) from None


def dotted(loc: tuple[str | int, ...], root: str = "article") -> str:
    """``('patient', 0, 'mention')`` as ``patient[0].mention``; ``root`` for ``()``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else part
    return text or root


def json_type(value: Any) -> str:
    return JSON_TYPES.get(type(value), type(value).__name__)


def type_problem(error: ShapeError) -> str:
    """'expected string or null, got integer' (MISSING: 'missing'; NEGATIVE: 'negative (-1)';
    EMPTY: 'empty string')."""
    if error.kind == MISSING:
        return "missing"
    if error.kind == NEGATIVE:
        return f"negative ({error.value})"
    if error.kind == EMPTY:
        return "empty string"
    return f"expected {' or '.join(JSON_TYPES[kind] for kind in error.expected)}, got {json_type(error.value)}"


_ADAPTERS: dict[Any, Any] = {}


def _adapter(model: Any) -> TypeAdapter:
    if model not in _ADAPTERS:
        _ADAPTERS[model] = TypeAdapter(model)
    return _ADAPTERS[model]


def _annotation_at(annotation: Any, loc: tuple[str | int, ...]) -> Any:
    """The declared type at ``loc`` inside ``annotation``."""
    for part in loc:
        annotation = _bare(annotation)
        if isinstance(part, int):
            annotation = typing.get_args(annotation)[0]
        else:
            annotation = annotation.model_fields[part].annotation
    return annotation


def _bare(annotation: Any) -> Any:
    """Without ``Annotated[...]`` and without None of an optional type."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if _is_union(annotation):
        (annotation,) = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _json_kinds(annotation: Any) -> tuple[type, ...]:
    """The Python types of JSON values an annotation takes: ``str | None`` -> (str, NoneType)."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if _is_union(annotation):
        return tuple(kind for arg in typing.get_args(annotation) for kind in _json_kinds(arg))
    origin = typing.get_origin(annotation) or annotation
    if isinstance(origin, type) and issubclass(origin, BaseModel):
        return (dict,)
    return (origin,)


# A JSON string may escape half of a UTF-16 pair (\ud800), which is no Unicode text and
# could not be written out.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
SURROGATE = re.compile(r"[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    return SURROGATE.search(text) is not None


def surrogate_problem(value: Any, root: str = "article") -> tuple[str, str] | None:
    """(field, problem) for the first string of a JSON value holding a lone UTF-16
    surrogate (a key too), fields named from ``root`` down ("full_text[0].text")."""
    found = first_character(value, SURROGATE, root)
    if found is None:
        return None
    field, position, char = found
    if position is None:
        return field, "a key holds a lone UTF-16 surrogate (not Unicode text)"
    return field, f"lone UTF-16 surrogate \\u{ord(char):04x} at character {position} (not Unicode text)"


def first_character(value: Any, characters: re.Pattern, root: str = "article") -> tuple[str, int | None, str] | None:
    """(field, position, character) of the first character of a JSON value's strings that
    ``characters`` matches, fields named from ``root`` down ("full_text[0].text"); in a
    key, the field is the object's and the position None."""
    stack: list[tuple[str, Any]] = [(root, value)]
    while stack:
        field, item = stack.pop()
        if isinstance(item, str):
            found = characters.search(item)
            if found:
                return field, found.start(), found.group()
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                found = characters.search(key)
                if found:
                    return field, None, found.group()
                stack.append((key if field == root else f"{field}.{key}", inner))
        elif isinstance(item, list):
            stack.extend((f"{field}[{i}]", inner) for i, inner in reversed(list(enumerate(item))))
    return None
