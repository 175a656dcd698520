"""Vital signs and laboratory values outside their reference range become HPO findings.

Case reports and clinical vignettes write findings as numbers: "temperature is 102°F",
"platelets 40,000/µL", "blood pressure 157/98 mmHg", and lab tables put the unit in the
column heading: "| Total cholesterol (mg/dL) | 426 | 125–200 |". Each row of
``rules/measurements.tsv`` names a measure, its unit, the reference range and the HPO term
of a value below or above it; a measurement whose value falls outside becomes a phenotype
span over the name, the number and the unit, with provenance
``rules/measurements.tsv:LINE:measure:below|above``. A measurement that overlaps a mention
the dictionary found is left to that mention, and one whose finding (or a broader or
narrower term) the text already names elsewhere adds nothing: annotators mark the named
finding, not the number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sortedcontainers import SortedList
from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import GATHERS, MentionStage, placed, working
from ..core.phenotype import Phenotype
from ..core.errors import InputError
from ..core.intervals import Extents
from ..kb.knowledge_base import KnowledgeBase
from ..kb.lexicon.tsv import read_tsv
from ..kb.resources import data_file
from .knowledge import KB_CONFIG

PARTS = ("value", "first", "second")
NO_VALUE = "-"
# Between the name and the number: a few characters with no digit, full stop, line break
# or comparison ("HbA1c is lower than 6.5%" is a threshold, not a measurement).
_COMPARISON = r"(?:less|lower|greater|higher|more)\s+than|above|below|under|over"
_GAP = rf"(?:(?!{_COMPARISON})[^\d.\n<>≤≥]){{0,25}}?"
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# Characters mapped one to one before matching, so offsets stay the text's own.
_SAME_LENGTH = str.maketrans({"µ": "u", "μ": "u", "×": "x", "⁹": "9", "³": "3", "²": "2", "⁰": "0", "¹": "1", "−": "-"})


@dataclass(frozen=True)
class MeasurementRule:
    measure: str
    part: str
    low: float | None
    high: float | None
    below: str | None
    above: str | None
    line: int
    patterns: tuple[re.Pattern, ...]  # the unit after the number; the unit in brackets after the name

    def finding(self, value: float) -> tuple[str, str] | None:
        """(HPO id, "below" or "above") for a value outside the range, else None."""
        if self.low is not None and value < self.low and self.below:
            return self.below, "below"
        if self.high is not None and value > self.high and self.above:
            return self.above, "above"
        return None


def _alternatives(cells: str, pattern_of) -> str:
    spellings = sorted({s.strip() for s in cells.split("|") if s.strip()}, key=lambda s: (-len(s), s))
    return "|".join(pattern_of(s) for s in spellings)


def _name_pattern(name: str) -> str:
    """A name of three characters or fewer, or with a capital after its first letter, is a
    symbol and matches only as written ("Mg", not the "mg" of a unit; "K+", "HbA1c")."""
    pattern = r"\s+".join(re.escape(word) for word in name.split())
    symbol = len(name) <= 3 or any(c.isupper() for c in name[1:])
    return f"(?-i:{pattern})" if symbol else pattern


def _unit_pattern(unit: str) -> str:
    return r"\s*".join(re.escape(piece) for piece in unit.split()).replace(r"\^", r"\^?")


def _bound(cell: str, path: Path, number: int) -> float | None:
    if cell == NO_VALUE:
        return None
    try:
        return float(cell)
    except ValueError:
        raise InputError(f"{path}:{number}: range bound {cell!r} is not a number or '-'") from None


def read_measurement_rules(path: Path, known_ids) -> list[MeasurementRule]:
    """The rules of ``path`` whose findings are terms of the ontology (``known_ids``)."""
    rules = []
    for row, number in read_tsv(path, 8):
        measure, names, part, units, low, high, below, above = row[:8]
        if part not in PARTS:
            raise InputError(f"{path}:{number}: part {part!r}; expected one of {list(PARTS)}")
        findings = [None if cell == NO_VALUE else cell for cell in (below, above)]
        for hpo_id in findings:
            if hpo_id is not None and not re.fullmatch(r"HP:\d{7}", hpo_id):
                raise InputError(f"{path}:{number}: {hpo_id!r} is not an HPO id or '-'")
        findings = [hpo_id if hpo_id in known_ids else None for hpo_id in findings]
        if not any(findings):
            continue
        number_part = f"{_NUMBER}\\s*/\\s*{_NUMBER}" if part != "value" else _NUMBER
        unit = "(?:" + _alternatives(units, _unit_pattern) + ")"
        name = r"(?<![\w+-])(?:" + _alternatives(names, _name_pattern) + r")(?![\w+-])"
        patterns = (
            re.compile(name + _GAP + r"(?<![\d.])" + number_part + r"\s*" + unit + r"(?![A-Za-z\d])", re.IGNORECASE),
            re.compile(name + r"\s*\(\s*" + unit + r"\s*\)" + _GAP + r"(?<![\d.])" + number_part + r"(?![\d.,]*\d)(?!\s*[A-Za-z%/])", re.IGNORECASE),
        )
        rules.append(MeasurementRule(measure, part, _bound(low, path, number), _bound(high, path, number), findings[0], findings[1], number, patterns))
    return rules


def measured_value(match: re.Match, part: str) -> float:
    """The number the rule reads: the only one, or the first or second of a pair."""
    return float(match.group(2 if part == "second" else 1).replace(",", ""))


@Language.factory("phenorules_measurements", default_config={"kb": KB_CONFIG, "rules_file": None, "spans": True})
def make_measurements(nlp: Language, name: str, kb: KnowledgeBase, rules_file: str | None, spans: bool):
    path = data_file("rules", "measurements.tsv", rules_file)
    return placed(Measurements(read_measurement_rules(path, kb.ontology.names), kb, path.name), spans)


class Measurements(MentionStage):
    pieces = GATHERS  # the ids the whole article names

    def __init__(self, rules: list[MeasurementRule], kb: KnowledgeBase, file_name: str):
        self.rules = rules
        self.kb = kb
        self.file_name = file_name

    def gather(self, doc: Doc) -> set[str]:
        """The ontology's ids a piece's mentions name."""
        ontology = self.kb.ontology
        return {hpo_id for m in working(doc).mentions for hpo_id in m.hpo_ids if hpo_id in ontology}

    def merged(self, gathered: list[tuple[int, set[str]]], text: str) -> set[str]:
        return {hpo_id for _, named in gathered for hpo_id in named}

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        mentions = list(state.mentions)
        found_before = Extents((m.start, m.end) for m in mentions)
        # The mentions added here: token-aligned, as the others are, and each added where it
        # overlaps nothing, so they never overlap each other and a sorted list of them
        # answers overlaps by its neighbours.
        added = SortedList()
        ontology = self.kb.ontology
        named = self.gather(doc) if state.carried is None else state.carried
        related: dict[str, bool] = {}  # finding -> whether a mention names it, an ancestor or a descendant
        text = state.text.translate(_SAME_LENGTH)
        for rule in self.rules:
            for match in (match for pattern in rule.patterns for match in pattern.finditer(text)):
                found = rule.finding(measured_value(match, rule.part))
                start, end = match.span()
                if found is None or found_before.overlaps_any(start, end) or _overlaps_sorted(added, start, end):
                    continue
                extent = state.expanded(doc, start, end)
                if extent is None:
                    continue
                hpo_id, side = found
                if hpo_id not in related:
                    related[hpo_id] = any(hpo_id == other or ontology.is_ancestor(hpo_id, other) or ontology.is_ancestor(other, hpo_id) for other in named)
                if related[hpo_id]:
                    continue
                start, end = extent
                provenance = [f"rules/{self.file_name}:{rule.line}:{rule.measure}:{side}"]
                mentions.append(Phenotype(start, end, state.text[start:end], (hpo_id,), ontology.label((hpo_id,)), provenance))
                added.add(extent)
        state.mentions = sorted(mentions, key=lambda m: (m.start, m.end))


def _overlaps_sorted(extents: SortedList, start: int, end: int) -> bool:
    """Whether one of ``extents`` (sorted, none overlapping another) overlaps ``[start, end)``:
    the last one starting before ``end`` is the one that reaches furthest."""
    before = extents.bisect_left((end,))
    return before > 0 and extents[before - 1][1] > start
