"""Reading the patient rule files: mention patterns, discourse cues, number words and the
attribution policy. Every row keeps its place (``file:line``) for the explanation chains."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

from ..core.errors import InputError
from ..core.patterns import caseless_body, tried_where_it_starts
from ..kb.lexicon.tsv import RuleRef, read_rules
from .prefilter import Occurrences, Prefilter, WordScan, prefilter

KINDS = ("pedigree", "number_list", "numbered", "kinship", "age_sex", "proband", "anaphor", "pronoun", "plural", "plural_generic", "plural_pronoun", "others")
# Discourse cues (rules/patient_cues.tsv): what the words around a patient mention say.
CUE_KINDS = ("male", "female", "comparison", "contrast", "postposed", "ascendant", "cell_present", "general", "subject", "parent_of", "case_heading", "anchor", "together")
MODES = ("carry", "paragraph", "sentence", "none")


@dataclass(frozen=True)
class MentionPattern:
    """One named row of ``patient_mentions.tsv``; ``rank`` is its row order (earlier wins ties)."""

    name: str
    kind: str
    regex: re.Pattern
    rank: int
    source: str  # file:line of the row
    # The pattern without its (?i:...) wrapper, to scan lower-cased text: Python's re is
    # two to three times slower case-insensitively. None when the pattern is not wrapped.
    lower_regex: re.Pattern | None = None
    # Skips the text where the scanned regex cannot match (see prefilter.py); None: scan all.
    prefilter: Prefilter | None = None

    def scan(self, text: str, lowered: str, found: Occurrences) -> Iterator[re.Match]:
        """Matches in ``text``; ``lowered`` is ``text.lower()``; ``found``: where the
        prefilter's words occur (:class:`~phenorules.patients.prefilter.WordScan`)."""
        if len(lowered) != len(text):
            return self.regex.finditer(text)
        regex, scanned = (self.regex, text) if self.lower_regex is None else (self.lower_regex, lowered)
        return regex.finditer(scanned) if self.prefilter is None else self.prefilter.finditer(regex, scanned, lowered, found)


@dataclass(frozen=True)
class Cue:
    """One named row of ``patient_cues.tsv``: a regex on the words around a mention."""

    name: str
    kind: str
    regex: re.Pattern
    source: str


class Cues:
    """The cue rows by kind; ``first`` names the row that matches a text, if any."""

    def __init__(self, cues: tuple[Cue, ...]):
        self.rows = cues
        self.by_kind = {kind: tuple(c for c in cues if c.kind == kind) for kind in CUE_KINDS}

    def first(self, kind: str, text: str, method: str = "search") -> Cue | None:
        for cue in self.by_kind[kind]:
            if getattr(cue.regex, method)(text):
                return cue
        return None

    def sex(self, text: str) -> str | None:
        """'male' or 'female' when the words say one and not the other ('the boy', 'she')."""
        male, female = self.first("male", text), self.first("female", text)
        if bool(male) == bool(female):
            return None
        return "male" if male else "female"


@dataclass(frozen=True)
class Policy:
    """The attribution settings of ``patient_policy.tsv`` (see the file for what each means)."""

    modes: dict[str, str]
    default_mode: str
    body_sections: frozenset[str]
    case_sections: frozenset[str]
    background_sections: frozenset[str]
    bodyless_mode: str
    heading_resets_focus: bool
    relative_sets_focus: bool
    unfocused_multi: str
    single_patient_carry_start: bool
    sentence_mode_plurals: str
    single_plurals_are_others: bool
    comparison_clause: bool
    float_sections: frozenset[str]
    case_heading_mode: str
    sources: dict[str, str]  # setting -> file:line

    def mode(self, section: str, has_body: bool, shape: tuple[str, str] = ("multi", "case")) -> tuple[str, str]:
        """(mode, setting that gave it) for a section in an article of ``shape``: ('single'
        or 'multi' patient, 'case' or 'nocase': has a CASE or RESULTS section or not). The most
        specific setting wins: ``mode.multi.nocase.METHODS``, ``mode.multi.METHODS``,
        ``mode.nocase.METHODS``, ``mode.METHODS``, ``mode.default``."""
        patients, case = shape
        keys = (f"{patients}.{case}.{section}", f"{patients}.{section}", f"{case}.{section}", section)
        key = next((k for k in keys if k in self.modes), None)
        mode, setting = (self.modes[key], f"mode.{key}") if key else (self.default_mode, "mode.default")
        if mode == "sentence" and not has_body:
            return self.bodyless_mode, "bodyless_mode"
        return mode, setting

    def cite(self, setting: str) -> str:
        return f"{setting}={self._value(setting)} ({self.sources.get(setting, '?')})"

    def _value(self, setting: str) -> str:
        if setting.startswith("mode."):
            key = setting[5:]
            return self.default_mode if key == "default" else self.modes[key]
        return str(getattr(self, setting)).lower()


@dataclass(frozen=True)
class PatientRules:
    patterns: tuple[MentionPattern, ...]
    number_words: dict[str, int]
    policy: Policy
    cues: Cues

    @cached_property
    def word_scan(self) -> WordScan:
        """The one scan for the words of every pattern's prefilter."""
        return WordScan([(pattern.prefilter, pattern.lower_regex is not None) for pattern in self.patterns])


def _rows(path: Path, width: int) -> list[tuple[RuleRef, list[str]]]:
    """(row, first ``width`` tab-separated fields) of the non-comment lines."""
    return [(ref, row[:width]) for row, ref in read_rules(path, width)]


def pattern_row(path: Path, lineno: int, name: str, kind: str, pattern: str, kinds, what: str) -> re.Pattern:
    """The compiled regex of a (name, kind, pattern) row; a kind not in ``kinds`` or a bad
    pattern is an InputError naming the file and line."""
    if kind not in kinds:
        raise InputError(f"{path}, line {lineno}: unknown {what} {kind!r}; kinds are {', '.join(kinds)}")
    try:
        return re.compile(pattern)
    except re.error as error:
        raise InputError(f"{path}, line {lineno}: bad pattern for {name}: {error}") from None


NONE = "-"  # an empty starts, anchors or reads cell


def read_patterns(path: Path) -> tuple[MentionPattern, ...]:
    """The rows (name, kind, pattern[, starts, anchors, reads]); the last three, the
    prefilter's (see prefilter.py), are optional."""
    patterns = []
    for rank, (row, ref) in enumerate(read_rules(path, 3)):
        lineno = ref.line
        name, kind, pattern, starts, anchors, reads = (row + [NONE] * 3)[:6]
        regex = pattern_row(path, lineno, name, kind, pattern, KINDS, "kind")
        lower_regex = re.compile(body) if (body := caseless_body(pattern)) else None
        scanned = lower_regex or regex
        finder = prefilter(scanned, _words(starts), _words(anchors), _reads(path, lineno, reads))
        patterns.append(MentionPattern(name, kind, regex, rank, str(ref), lower_regex, finder))
    return tuple(patterns)


def _words(cell: str) -> tuple[str, ...]:
    return () if cell == NONE else tuple(cell.split())


def _reads(path: Path, lineno: int, cell: str) -> str | None:
    if cell == NONE:
        return None
    try:
        re.compile(f"[{cell}]")
    except re.error as error:
        raise InputError(f"{path}, line {lineno}: bad reads character class: {error}") from None
    return cell


def read_cues(path: Path) -> Cues:
    cues = []
    for ref, (name, kind, pattern) in _rows(path, 3):
        regex = pattern_row(path, ref.line, name, kind, pattern, CUE_KINDS, "cue kind")
        cues.append(Cue(name, kind, tried_where_it_starts(regex.pattern), str(ref)))  # searched in every sentence with a finding
    return Cues(tuple(cues))


def read_number_words(path: Path) -> dict[str, int]:
    words = {}
    for ref, (word, value) in _rows(path, 2):
        if not value.strip().isdigit():
            raise InputError(f"{path}, line {ref.line}: {value!r} is not a number")
        words[word.strip().lower()] = int(value)
    return words


def _flag(path: Path, settings: dict[str, str], key: str) -> bool:
    value = _setting(path, settings, key)
    if value not in ("true", "false"):
        raise InputError(f"{path}: {key} must be true or false, not {value!r}")
    return value == "true"


def _setting(path: Path, settings: dict[str, str], key: str, choices: tuple[str, ...] = ()) -> str:
    if key not in settings:
        raise InputError(f"{path}: missing setting {key}")
    value = settings[key]
    if choices and value not in choices:
        raise InputError(f"{path}: {key} must be one of {', '.join(choices)}, not {value!r}")
    return value


def read_policy(path: Path) -> Policy:
    rows = _rows(path, 2)
    settings = {key.strip(): value.strip() for _, (key, value) in rows}
    sources = {key.strip(): str(ref) for ref, (key, _) in rows}
    modes = {key.split(".", 1)[1]: _setting(path, settings, key, MODES) for key in settings if key.startswith("mode.") and key != "mode.default"}
    return Policy(
        modes=modes,
        default_mode=_setting(path, settings, "mode.default", MODES),
        body_sections=frozenset(_setting(path, settings, "body_sections").split()),
        case_sections=frozenset(_setting(path, settings, "case_sections").split()),
        background_sections=frozenset(_setting(path, settings, "background_sections").split()),
        bodyless_mode=_setting(path, settings, "bodyless_mode", MODES),
        heading_resets_focus=_flag(path, settings, "heading_resets_focus"),
        relative_sets_focus=_flag(path, settings, "relative_sets_focus"),
        unfocused_multi=_setting(path, settings, "unfocused_multi", ("none", "all")),
        single_patient_carry_start=_flag(path, settings, "single_patient_carry_start"),
        sentence_mode_plurals=_setting(path, settings, "sentence_mode_plurals", ("none", "counted", "all")),
        single_plurals_are_others=_flag(path, settings, "single_plurals_are_others"),
        comparison_clause=_flag(path, settings, "comparison_clause"),
        float_sections=frozenset(_setting(path, settings, "float_sections").split()),
        case_heading_mode=_setting(path, settings, "case_heading_mode", MODES),
        sources=sources,
    )


def load_patient_rules(mentions_file: Path, number_words_file: Path, policy_file: Path, cues_file: Path) -> PatientRules:
    return PatientRules(read_patterns(mentions_file), read_number_words(number_words_file), read_policy(policy_file), read_cues(cues_file))
