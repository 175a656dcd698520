"""A request body read as JSON, within the bounds an untrusted body needs.

Python's ``json`` accepts what would later fail far from the parser: nesting a thousand
levels deep (RecursionError), an integer of 5,000 digits (ValueError past Python's 4,300),
``NaN``, and ``"\\ud800"``, a lone surrogate that no UTF-8 encoder takes (so the answer
could not be written). Each is refused here as a 400 that says what it is.
"""

from __future__ import annotations

import json
from typing import Any

from .guard import RequestError

MAX_DEPTH = 32  # arrays and objects inside each other; a BioC collection needs 6
MAX_DIGITS = 100  # of an integer literal; offsets and counts need a dozen


class _Refused(ValueError):
    pass


def _integer(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"an integer of {len(literal.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(literal)


def _constant(name: str) -> None:
    raise _Refused(f"{name} is not JSON")


def parse_json(body: bytes) -> Any:
    """The JSON value of ``body``; RequestError 400 naming the problem."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequestError(400, "invalid_json", f"request body: not UTF-8 (byte 0x{body[error.start]:02x} at offset {error.start})") from None
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise RequestError(400, "invalid_json", f"request body: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except _Refused as error:
        raise RequestError(400, "invalid_json", f"request body: {error}") from None
    except RecursionError:
        raise RequestError(400, "invalid_json", f"request body: nested deeper than {MAX_DEPTH} levels") from None
    _check_tree(value)
    return value


def _check_tree(value: Any) -> None:
    """Depth at most MAX_DEPTH, every string (keys too) encodable as UTF-8."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise RequestError(400, "invalid_json", f"request body: nested deeper than {MAX_DEPTH} levels")
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RequestError(400, "invalid_json", f"request body: a lone surrogate (U+{ord(text[error.start]):04X}) in a string: not Unicode text") from None
