"""The rows of ``rules/growth.tsv``: the measures, the findings their values give, and the
words the grammar (:mod:`.grammar`) reads a value with.

A finding row gives an HPO term for the values of a measure group that lie in an interval
of one scale: a centile, a standard-deviation score (SD, SDS, z) or the measure's own value
(BMI in kg/m2), as the term's definition states it ("more than -2 SD but not more than -3
SD" is Mild short stature's [-3,-2)). Of the rows a value satisfies, the one whose interval
lies inside the others' is the finding: the most specific grade. A value in a scale the
group has no row of is read in the other through the standard normal distribution, which
is how growth references relate a centile and an SD score (Cole & Green 1992, the LMS
method: the centile of a score z is 100 x Phi(z)).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

from ..core.errors import InputError
from ..kb.lexicon.tsv import RuleRef, read_rules, read_tsv

SCALES = ("centile", "sd", "value")
BARE_SCALES = ("sd", "value")
NONE = "-"
WORD_KINDS = (
    "centile", "centile_prefix", "sd", "less", "more", "within", "mean", "article", "range", "between",
    "respectively", "filler", "unit", "age", "later", "lead", "foreign", "birth", "conjunction", "connector",
)  # fmt: skip
_COLUMNS = {"measure": 5, "finding": 6, **{kind: 2 for kind in WORD_KINDS}}
_BOUND = r"(-inf|inf|[+-]?\d+(?:\.\d+)?)"
_INTERVAL = re.compile(rf"([\[(])\s*{_BOUND}\s*,\s*{_BOUND}\s*([\])])")
_HPO_ID = re.compile(r"HP:\d{7}")
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Interval:
    """Values from ``low`` to ``high``, each end in or out (``low_closed``, ``high_closed``)."""

    low: float
    high: float
    low_closed: bool = True
    high_closed: bool = True

    def holds(self, value: float) -> bool:
        above = value >= self.low if self.low_closed else value > self.low
        below = value <= self.high if self.high_closed else value < self.high
        return above and below

    def within(self, other: Interval) -> bool:
        """Whether this lies inside ``other`` with its ends: a range or a bound reaches the
        threshold it names ("-2 to -3 SD" is Mild short stature's [-3,-2); "below the 3rd
        centile" is below 3)."""
        return other.low <= self.low and self.high <= other.high

    def mapped(self, function) -> Interval:
        """The interval through an increasing ``function`` (one scale read in another)."""
        return Interval(function(self.low), function(self.high), self.low_closed, self.high_closed)


def centile_of(score: float) -> float:
    """The centile of an SD score (0 and 100 for the infinite ones)."""
    return 100 * _NORMAL.cdf(score) if math.isfinite(score) else (0.0 if score < 0 else 100.0)


def score_of(centile: float) -> float:
    """The SD score of a centile (infinite at 0 and 100 and beyond)."""
    return _NORMAL.inv_cdf(centile / 100) if 0 < centile < 100 else (-math.inf if centile <= 0 else math.inf)


READ_AS = {("sd", "centile"): centile_of, ("centile", "sd"): score_of}


@dataclass(frozen=True)
class Value:
    """A value read from the text: its scale, the values it allows, and whether it is one
    number (a point: "-2.8 SD"), not a range ("-2 to -3 SD") or a bound ("<3rd centile")."""

    scale: str
    interval: Interval
    point: bool

    def satisfies(self, interval: Interval) -> bool:
        return interval.holds(self.interval.low) if self.point else self.interval.within(interval)


@dataclass(frozen=True)
class Finding:
    group: str
    scale: str
    interval: Interval
    hpo_id: str
    ref: RuleRef
    written: str  # the interval as the row writes it

    @property
    def provenance(self) -> str:
        return f"rules/{self.ref}:{self.scale} {self.written}"


@dataclass(frozen=True)
class Measure:
    group: str | None  # None: another measure, whose value gives nothing
    bare: str | None  # the scale of a number written right after the name, if any
    at_birth: str | None  # the group read where a birth word comes first in the clause
    ref: RuleRef


@dataclass
class GrowthRules:
    measures: dict[str, Measure]  # by name, lower-cased
    findings: dict[str, list[Finding]]  # by group, in file order
    words: dict[str, list[str]]  # by kind
    numbers: dict[str, float] = field(default_factory=dict)  # number words ("two")
    ordinals: dict[str, float] = field(default_factory=dict)  # ordinal words ("third")
    names: list[str] = field(default_factory=list)  # the measures' names as written

    def finding(self, group: str, value: Value) -> Finding | None:
        """The most specific finding of ``group`` that ``value`` satisfies, or None."""
        rows = self.findings.get(group, [])
        scales = {row.scale for row in rows}
        if value.scale not in scales:
            other = next((scale for scale in sorted(scales) if (value.scale, scale) in READ_AS), None)
            if other is None:
                return None
            value = Value(other, in_scale(value.interval, value.scale, other), value.point)
        held = [row for row in rows if row.scale == value.scale and value.satisfies(row.interval)]
        return _innermost(held)

    def related_ids(self, finding: Finding) -> tuple[str, ...]:
        """The finding's id and those of its group's rows on whose interval it lies (a
        grade's base: Mild microcephaly's Microcephaly): a text naming any of these, a
        broader or a narrower term names the finding."""
        ids = [finding.hpo_id]
        for row in self.findings.get(finding.group, []):
            interval = in_scale(finding.interval, finding.scale, row.scale)
            if interval is not None and interval.within(row.interval) and row.hpo_id not in ids:
                ids.append(row.hpo_id)
        return tuple(ids)


def in_scale(interval: Interval, scale: str, other: str) -> Interval | None:
    """``interval`` of ``scale`` read in ``other``; None where one is not the other's."""
    if scale == other:
        return interval
    return interval.mapped(READ_AS[scale, other]) if (scale, other) in READ_AS else None


def _innermost(rows: list[Finding]) -> Finding | None:
    """The first row whose interval lies inside every other's."""
    inner = [row for row in rows if all(row.interval.within(other.interval) for other in rows)]
    return (inner or rows or [None])[0]


def parse_interval(cell: str, where: str) -> Interval:
    found = _INTERVAL.fullmatch(cell.replace(" ", ""))
    if not found:
        raise InputError(f"{where}: interval {cell!r}; expected one like [-3,-2), (97,inf) or (-inf,18.5)")
    opening, low, high, closing = found.groups()
    interval = Interval(float(low), float(high), opening == "[", closing == "]")
    if interval.low >= interval.high:
        raise InputError(f"{where}: interval {cell!r} is empty")
    return interval


def _cells(cell: str) -> list[str]:
    return [part.strip() for part in cell.split("|") if part.strip()]


def read_growth_rules(path: Path, known_ids, ordinals_path: Path, numbers_path: Path) -> GrowthRules:
    """The rows of ``path``; finding rows whose term is not in ``known_ids`` are left out.
    Ordinal and number words come from the coordination and patient stages' files."""
    rules = GrowthRules({}, {}, {kind: [] for kind in WORD_KINDS})
    for row, ref in read_rules(path, 2):
        kind, where = row[0], f"{path}:{ref.line}"
        if kind not in _COLUMNS:
            raise InputError(f"{where}: unknown kind {kind!r}; expected one of {sorted(_COLUMNS)}")
        if len(row) < _COLUMNS[kind] or not all(row[: _COLUMNS[kind]]):
            raise InputError(f"{where}: a {kind} row has {_COLUMNS[kind]} tab-separated columns")
        if kind == "measure":
            _add_measure(rules, row, ref, where)
        elif kind == "finding":
            _add_finding(rules, row, ref, where, known_ids)
        else:
            rules.words[kind].extend(_cells(row[1]))
    groups = {measure.group for measure in rules.measures.values()}
    for measure in rules.measures.values():
        if measure.at_birth is not None and measure.at_birth not in groups:
            raise InputError(f"{path}:{measure.ref.line}: at birth: {measure.at_birth!r} is no measure's group")
    rules.ordinals = {form: float(number) for (form, number, *rest), _ in read_rules(ordinals_path, 2) if form.isalpha() and not rest}
    rules.numbers = {word: float(value) for (word, value, *_), _ in read_tsv(numbers_path, 2)}
    return rules


def _add_measure(rules: GrowthRules, row: list[str], ref: RuleRef, where: str) -> None:
    _, group, names, bare, at_birth = row[:5]
    if bare != NONE and bare not in BARE_SCALES:
        raise InputError(f"{where}: bare {bare!r}; expected one of {[NONE, *BARE_SCALES]}")
    measure = Measure(None if group == NONE else group, None if bare == NONE else bare, None if at_birth == NONE else at_birth, ref)
    for name in _cells(names):
        key = " ".join(name.lower().split())
        if key in rules.measures:
            raise InputError(f"{where}: the name {name!r} is another row's ({rules.measures[key].ref})")
        rules.measures[key] = measure
        rules.names.append(name)


def _add_finding(rules: GrowthRules, row: list[str], ref: RuleRef, where: str, known_ids) -> None:
    _, group, scale, written, hpo_id = row[:5]
    if scale not in SCALES:
        raise InputError(f"{where}: scale {scale!r}; expected one of {list(SCALES)}")
    if not _HPO_ID.fullmatch(hpo_id):
        raise InputError(f"{where}: {hpo_id!r} is not an HPO id")
    interval = parse_interval(written, where)
    if hpo_id in known_ids:
        rules.findings.setdefault(group, []).append(Finding(group, scale, interval, hpo_id, ref, written))
