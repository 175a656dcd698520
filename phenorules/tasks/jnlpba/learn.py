"""Learning the JNLPBA lexicon from the training annotations.

Every annotated surface becomes a key -> type entry, kept only if it is reliable: of the
times the key occurs in the training text (word-bounded, case-sensitively for symbols,
not counting occurrences strictly inside a longer annotation), the share annotated (with
any type) must reach ``min_precision``. This is the dictionary filter of Tsuruoka & Tsujii
(2004, "Improving the performance of dictionary-based approaches in protein name
recognition"): a name that is mostly plain text elsewhere costs more precision than it
gains recall. Also learned here: where words sit relative to entities (:class:`Modifiers`),
the evidence the head-word and extension rules use.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from phenorules.kb.lexicon import Entry, Lexicon, is_abbreviation
from phenorules.kb.lexicon.normalize import normalize_text
from phenorules.kb.matcher import PhraseMatcher

from .io import Document
from .variants import GreekLetters, generate_variants, surface_keys

Form = tuple[str, str, bool]  # (key, surface the matcher checks, case-sensitive?)


@dataclass(frozen=True)
class LearnConfig:
    """Part of the cache key. ``min_precision`` was chosen on held-out training abstracts."""

    min_precision: float = 0.4
    variants: bool = True


def forms_of(surface: str) -> list[Form]:
    """The lexicon forms of an annotated surface: symbols like 'GR' or 'TCR' keep their case."""
    case_sensitive = is_abbreviation(surface)
    return [(key, surface if case_sensitive else key, case_sensitive) for key in surface_keys(surface)]


def count_annotations(documents: Sequence[Document]) -> Counter:
    """(form, type) -> how often the training set annotates that form with that type."""
    annotated: Counter = Counter()
    for document in documents:
        for entity in document.entities:
            for form in forms_of(entity.text):
                annotated[(form, entity.label)] += 1
    return annotated


def word_bounded(text: str, start: int, end: int) -> bool:
    before = start > 0 and text[start - 1].isalnum() and text[start].isalnum()
    after = end < len(text) and text[end].isalnum() and text[end - 1].isalnum()
    return not (before or after)


def count_occurrences(documents: Sequence[Document], forms: Sequence[Form]) -> Counter:
    """form -> word-bounded occurrences in the text, except strictly inside a longer annotation."""
    probe = Lexicon()
    for key, surface, case_sensitive in sorted(set(forms)):
        probe.add(key, Entry(0, (), surface, "", "", case_sensitive))
    matcher = PhraseMatcher(probe)
    occurrences: Counter = Counter()
    for document in documents:
        text, spans = document.text, [(e.start, e.end) for e in document.entities]
        for last, index in matcher.hits(normalize_text(text)):
            length, entries = matcher.entries(index)
            start, end = last - length + 1, last + 1
            if not word_bounded(text, start, end):
                continue
            if any(s <= start and end <= e and (s, e) != (start, end) for s, e in spans):
                continue
            key = normalize_text(text[start:end])
            for entry in entries:
                if not entry.case_sensitive or text[start:end] in (entry.surface, entry.surface + "s"):
                    occurrences[(key, entry.surface, entry.case_sensitive)] += 1
    return occurrences


def learn_lexicon(documents: Sequence[Document], greek: GreekLetters, config: LearnConfig = LearnConfig()) -> Lexicon:
    """Reliable forms with every type they were annotated with (majority first), and their variants.

    A form is reliable when annotations of any type make up ``min_precision`` of its
    occurrences (a name split between DNA and PROTEIN, like 'c-fos', is still a name).
    Provenance: 'train:<annotated with this type>/<occurrences>'; a variant keeps its base
    form as surface (it is matched case-insensitively) and names its rules. A variant is added only
    if it never occurs unannotated in the training text, where it would have been judged
    on its own; symbols (case-sensitive forms) get no variants.
    """
    annotated = count_annotations(documents)
    by_form: dict[Form, Counter] = {}
    for (form, label), count in annotated.items():
        by_form.setdefault(form, Counter())[label] = count
    occurrences = count_occurrences(documents, list(by_form))
    lexicon = Lexicon()
    for form, labels in sorted(by_form.items()):
        key, surface, case_sensitive = form
        total = sum(labels.values())
        seen = max(occurrences[form], total)
        if total / seen < config.min_precision:
            continue
        for label, count in sorted(labels.items()):
            lexicon.add(key, Entry(-count, (label,), surface, f"train:{count}/{seen}", "", case_sensitive))
    if config.variants:
        variants: dict[str, list[Entry]] = {}
        annotated_keys = {key for key, _, _ in by_form}
        for key, entries in sorted(lexicon.entries.items()):
            for entry in entries:
                if entry.case_sensitive:
                    continue
                for variant, chain in generate_variants(key, greek).items():
                    if variant not in annotated_keys:
                        variants.setdefault(variant, []).append(
                            Entry(entry.priority, entry.hpo_ids, entry.surface, entry.source, chain, False)
                        )
        seen_unannotated = count_occurrences(documents, [(v, v, False) for v in variants])
        for variant, entries in sorted(variants.items()):
            if not seen_unannotated[(variant, variant, False)]:
                for entry in entries:
                    lexicon.add(variant, entry)
    for key, entries in lexicon.entries.items():
        lexicon.entries[key] = sorted(set(entries))
    return lexicon


def rule_tokens(text: str) -> list[tuple[int, int]]:
    """Token spans the rules work on, GENIA-like: brackets, , ; : and a word's final full stops
    are tokens of their own; hyphens and inner full stops stay ('IL-2', '0.05', 'NFATc.beta')."""
    return [m.span() for m in RULE_TOKEN.finditer(text)]


RULE_TOKEN = re.compile(r"[^\s()\[\],;:]*[^\s()\[\],;:.]|[()\[\],;:.]")


@dataclass(frozen=True)
class Modifiers:
    """Where the training data puts each word (lower case) relative to entities.

    ``before_head``: word -> type -> times it is a non-final word of an entity of that type
    (what a head phrase may extend over, and the evidence for its type); ``closing``: times
    it ends a multi-word entity ("IkB alpha", "c-jun RNA"); ``occurrences``: times it occurs;
    ``rare_symbol``: type -> non-final occurrences of symbols seen only once in training, the
    evidence for a symbol never seen at all ('RWLeu-4 cells' is a cell line, not a cell type).
    """

    before_head: dict[str, dict[str, int]]
    closing: dict[str, int]
    occurrences: dict[str, int]
    rare_symbol: dict[str, int]

    def type_counts(self, word: str) -> dict[str, int]:
        """Per-type counts of a word before a head; for a word never seen, those of rare symbols."""
        return self.before_head.get(word, {}) if word in self.occurrences else self.rare_symbol

    def share_inside(self, word: str) -> float:
        """Share of the word's occurrences inside a multi-word entity (any position but alone)."""
        seen = self.occurrences.get(word, 0)
        return (sum(self.before_head.get(word, {}).values()) + self.closing.get(word, 0)) / seen if seen else 0.0

    def share_closing(self, word: str) -> float:
        seen = self.occurrences.get(word, 0)
        return self.closing.get(word, 0) / seen if seen else 0.0


def learn_modifiers(documents: Sequence[Document]) -> Modifiers:
    before_head: dict[str, Counter] = {}
    closing: Counter = Counter()
    occurrences: Counter = Counter()
    symbols: list[tuple[str, str]] = []  # (word, type) of symbol-shaped non-final words
    for document in documents:
        tokens = rule_tokens(document.text)
        occurrences.update(document.text[s:e].lower() for s, e in tokens)
        for entity in document.entities:
            words = [document.text[s:e] for s, e in tokens if s >= entity.start and e <= entity.end]
            for word in words[:-1]:
                before_head.setdefault(word.lower(), Counter())[entity.label] += 1
                if is_symbol(word):
                    symbols.append((word.lower(), entity.label))
            if len(words) > 1:
                closing[words[-1].lower()] += 1
    rare_symbol = Counter(label for word, label in symbols if occurrences[word] == 1)
    return Modifiers(
        {w: dict(sorted(c.items())) for w, c in sorted(before_head.items())},
        dict(sorted(closing.items())),
        dict(sorted(occurrences.items())),
        dict(sorted(rare_symbol.items())),
    )


def is_symbol(token: str) -> bool:
    """A gene/protein-symbol shape: a letter and, after the first character, a capital or a digit ('hTR', 'Jak3')."""
    return any(c.isalpha() for c in token) and any(c.isupper() or c.isdigit() for c in token[1:])
