"""Lexicon keys of a GENIA entity name, and the other ways abstracts write it.

A surface is keyed twice: as written, and with brackets and list punctuation spaced out
the way the IOB2 test set is tokenised ("Ro(SSA)" -> "Ro ( SSA )"). Variants: a Greek
letter spelled out, as a symbol, or (in the few fixed names that do it) abbreviated
("NF-kappa B" / "NF-κB" / "NF-kB"), joined to or split from the word before it
("TNFalpha" / "TNF alpha"), and the plural or singular of the last word. Each variant
keeps the name of the rule that made it, for provenance.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from phenorules.kb.lexicon.normalize import normalize_key
from phenorules.kb.lexicon.variants import chain_rules
from phenorules.kb.lexicon.tsv import read_tsv

_SPACED = re.compile(r"\s*([()\[\],;:])\s*")


@dataclass(frozen=True)
class GreekLetters:
    spelled: tuple[str, ...]
    symbol: dict[str, str]  # spelled -> symbol
    abbreviation: dict[str, str]  # spelled -> one letter, where GENIA uses one

    @classmethod
    def from_file(cls, path: str | Path) -> "GreekLetters":
        rows = [row for row, _ in read_tsv(path, 2)]
        return cls(
            tuple(sorted((row[0] for row in rows), key=lambda s: (-len(s), s))),
            {row[0]: row[1] for row in rows},
            {row[0]: row[2] for row in rows if len(row) > 2 and row[2]},
        )


def spaced(surface: str) -> str:
    """The surface as the test set tokenises it: brackets and , ; : are tokens of their own."""
    return " ".join(_SPACED.sub(r" \1 ", surface).split())


def surface_keys(surface: str) -> list[str]:
    """The lookup keys of a surface: as written, and spaced; deduplicated, in that order."""
    keys = [normalize_key(surface), normalize_key(spaced(surface))]
    return list(dict.fromkeys(k for k in keys if k))


def greek_symbol(key: str, greek: GreekLetters) -> list[str]:
    """'kappa' <-> 'κ' (each direction over the whole key)."""
    to_symbol, to_spelled = key, key
    for name in greek.spelled:
        to_symbol = to_symbol.replace(name, greek.symbol[name])
        to_spelled = to_spelled.replace(greek.symbol[name], name)
    return [form for form in (to_symbol, to_spelled) if form != key]


def greek_abbreviation(key: str, greek: GreekLetters) -> list[str]:
    """'nf kappa b' -> 'nf kb': a spelled letter directly before a single upper-case-style letter."""
    out = []
    for name, letter in greek.abbreviation.items():
        pattern = re.compile(rf"(?<![a-z]){name} ?(?=[a-z]\b)")
        if pattern.search(key):
            out.append(pattern.sub(letter, key))
    return out


def greek_spacing(key: str, greek: GreekLetters) -> list[str]:
    """'tnfalpha' <-> 'tnf alpha', 'nf kappab' <-> 'nf kappa b' <-> 'nfkappab': every way of
    joining or splitting a spelled Greek letter and its neighbours (at most 3 such places)."""
    alternatives = "|".join(greek.spelled)
    pieces = re.split(rf"((?:{alternatives}))", key)
    words = [p for p in pieces if p]  # alternating runs of plain text and Greek names
    joints = []  # (index in words, text before the joint ends with a space?)
    for i in range(1, len(words)):
        left, right = words[i - 1], words[i]
        if left[-1:].isalnum() or left.endswith(" ") and len(left) > 1 and left[-2].isalnum():
            if right[:1].isalnum() or right.startswith(" ") and len(right) > 1:
                joints.append(i)
    if not joints or len(joints) > 3:
        return []
    out = []
    for mask in range(1 << len(joints)):
        parts = list(words)
        for bit, i in enumerate(joints):
            parts[i - 1] = parts[i - 1].rstrip(" ")
            parts[i] = parts[i].lstrip(" ")
            if mask >> bit & 1:
                parts[i - 1] += " "
        form = "".join(parts)
        if form != key:
            out.append(form)
    return out


def number(key: str, greek: GreekLetters) -> list[str]:
    """Plural <-> singular of the last word, regular English only ('cells', 'factors')."""
    head = key.rsplit(" ", 1)[-1]
    if len(head) < 4 or not head.isalpha() or head.rstrip("s") in greek.symbol:
        return []
    if head.endswith("s") and not head.endswith(("ss", "us", "is")):
        return [key[:-1]]
    if not head.endswith("s"):
        return [key + "s"]
    return []


RULES = (("greek_spacing", greek_spacing), ("greek_symbol", greek_symbol), ("greek_abbreviation", greek_abbreviation), ("number", number))


def generate_variants(key: str, greek: GreekLetters) -> dict[str, str]:
    """Every variant of a key with the '+'-joined rule chain that made it (the phenotype
    lexicon's :func:`~phenorules.kb.lexicon.variants.chain_rules`, every rule chainable)."""
    return chain_rules(key, [(name, functools.partial(rule, greek=greek)) for name, rule in RULES], len(RULES))
