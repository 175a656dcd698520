"""evalscope's answer format: the sentence with entities wrapped in lower-case XML tags.

:func:`to_response` writes what evalscope's ``create_target_text`` writes for well-formed IOB2
(tokens joined by single spaces, ``<protein>...</protein>`` around each chunk, all inside
``<response>...</response>``). :func:`response_to_tags` reads a response back to IOB2
tags over the whitespace tokens with the rules of evalscope's ``clean_prediction``,
``extract_entities_from_text`` and ``xml_to_bio_tags`` (evalscope 1.14.1,
``evalscope/utils/ner.py``): the ``<response>`` body, mismatched closing tags renamed,
well-formed tags first and then unclosed ones, character offsets taken exactly when the
tag-free text equals the input and by (context-checked) search otherwise, and every token
an entity overlaps tagged ``B-``/``I-`` unless an earlier entity took it.
"""

from __future__ import annotations

import re
from typing import Sequence

from . import TYPES
from .score import chunks

_RESPONSE = re.compile(r"<response>(.*?)</response>", re.DOTALL)
_MISMATCHED = re.compile(r"<(\w+)>(.*?)</\w+>")
_WELL_FORMED = re.compile(r"<(\w+)>(.*?)</\1>")
_UNCLOSED = re.compile(r"<(\w+)>(.*?)(?=<|$)")
_ANY_TAG = re.compile(r"<[^>]+>")
TAG_OF = {label: label.lower() for label in TYPES}
TYPE_OF = {tag: label for label, tag in TAG_OF.items()}


def to_response(tokens: Sequence[str], tags: Sequence[str]) -> str:
    """The tokens joined by spaces, each chunk wrapped in its type's lower-case tag."""
    pieces = list(tokens)
    for label, first, last in reversed(chunks(tags)):
        tag = TAG_OF.get(label, label.lower())
        pieces[first : last + 1] = [f"<{tag}>{' '.join(tokens[first : last + 1])}</{tag}>"]
    return f"<response>{' '.join(pieces)}</response>"


def clean_response(text: str) -> str:
    """The ``<response>`` body (or all the text), with ``<a>..</b>`` renamed ``<a>..</a>``."""
    found = _RESPONSE.search(text)
    body = found.group(1) if found else text
    return _MISMATCHED.sub(r"<\1>\2</\1>", body)


def tagged_entities(body: str) -> list[tuple[str, str, int, int]]:
    """(type, text, start, end in ``body``): well-formed tags, then unclosed tags outside them."""
    entities = [(TYPE_OF.get(m.group(1).lower(), m.group(1).lower()), m.group(2), m.start(), m.end()) for m in _WELL_FORMED.finditer(body)]
    for m in _UNCLOSED.finditer(body):
        if any(start <= m.start() < end for _, _, start, end in entities):
            continue
        label = TYPE_OF.get(m.group(1).lower())
        if label:
            entities.append((label, m.group(2), m.start(), m.end()))
    return entities


def _locate(body: str, original: str, text: str, start: int, end: int, preserves: bool) -> int:
    """Offset of an entity in the input text, as evalscope finds it (-1: not found)."""
    if preserves and not _ANY_TAG.search(text):
        return len(_ANY_TAG.sub("", body[:start]))
    before = _ANY_TAG.sub("", body[max(0, start - 20) : start])
    after = _ANY_TAG.sub("", body[end : min(len(body), end + 20)])
    cursor = 0
    while cursor < len(original):
        found = original.find(text, cursor)
        if found == -1:
            break
        window_before = original[max(0, found - len(before)) : found].strip()
        window_after = original[found + len(text) : min(len(original), found + len(text) + len(after))].strip()
        if before.strip() in window_before or after.strip() in window_after or cursor > len(original) // 2:
            return found
        cursor = found + 1
    return original.find(text)


def response_to_tags(response: str, tokens: Sequence[str]) -> list[str]:
    """IOB2 tags over ``tokens`` that evalscope reads from a tagged response."""
    body = clean_response(response)
    original = " ".join(tokens)
    preserves = _ANY_TAG.sub("", body) == original
    positions, cursor = [], 0
    for token in tokens:
        found = original.find(token, cursor)
        positions.append(cursor if found == -1 else found)
        cursor = cursor if found == -1 else found + len(token)
    tags = ["O"] * len(tokens)
    for label, text, start, end in tagged_entities(body):
        entity_start = _locate(body, original, text, start, end, preserves)
        if entity_start == -1:
            continue
        entity_end = entity_start + len(text)
        first = True
        for i, (token_start, token) in enumerate(zip(positions, tokens)):
            if token_start < entity_end and token_start + len(token) > entity_start:
                if tags[i] == "O":
                    tags[i] = f"{'B' if first else 'I'}-{label}"
                first = False
    return tags
