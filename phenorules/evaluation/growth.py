"""A generated suite of growth measurements, built from ``rules/growth.tsv`` and the ontology.

Every finding row of ``rules/growth.tsv`` gives an HPO growth term for a measure's values
in an interval, citing the definition, name or synonym of the HPO term that states the
threshold (:func:`source_problems` checks each quote against the ontology file; the rows
HPO states no threshold for say whose convention they take). The suite writes values on a
grid around every threshold (points, bounds, ranges; centiles, SD scores, BMI values) in
the ways case reports write them, beside the ways they name the measure, before or after
the value, alone or coordinated, next to another measure's normal value:

* ``abnormal``: a value that gives a finding; the case expects the most specific one (of
  the rows the value lies in, the narrowest), for each measure it is written for;
* ``normal``: a value inside the normal range, a range that reaches a threshold only at its
  normal end ("-1.5 to -2 SD"), a bound that does not pass one ("<10th centile" of
  height): no growth finding;
* ``other``: a measure named with no value, and abnormal values of other measures (IQ,
  femur length, the mother's height): no growth finding.

:func:`uncovered_terms` lists the terms under the growth branches whose definition, name or
synonym states a centile, an SD or a BMI that no row gives; each is in :data:`LEFT_OUT`
with the reason. ``benchmarks/growth_suite.py`` (``make measurements``) prints the figures.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import cycle, islice
from pathlib import Path
from typing import Iterable

from ..growth.rules import READ_AS, Finding, Interval, in_scale, read_growth_rules
from ..kb.ontology import Ontology
from ..kb.resources import data_file

SUITES = ("abnormal", "normal", "other")
# Where growth terms are: Growth abnormality, Abnormality of skull size.
GROWTH_ROOTS = ("HP:0001507", "HP:0000240")
LEFT_OUT = {
    "HP:0001530": "Mild postnatal growth retardation: growth over time; a height at its SD scores is a grade of Short stature",
    "HP:0008855": "Moderate postnatal growth retardation: as Mild postnatal growth retardation",
    "HP:0008850": "Severe postnatal growth retardation: as Mild postnatal growth retardation",
    "HP:0004482": "Relative macrocephaly: a head circumference compared with the height, two measures",
    "HP:0005484": "Secondary microcephaly: head growth after birth, a course; one value is Microcephaly",
    "HP:0040195": "Decreased head circumference: the parent, whose definition restates Microcephaly's threshold",
}
THRESHOLD_WORDS = re.compile(r"centile|percentile|standard deviation|\bSDS?\b|body mass index of", re.IGNORECASE)
_SOURCE = re.compile(r'(HP:\d{7}) (def|name|synonym): "([^"]*)"')
_STANZA_FIELD = re.compile(r'^(id|name|def|synonym): "?((?:[^"\\\n]|\\.)*)', re.MULTILINE)

# How the measures are named (the suite's own list) and what is written between.
MEASURE_NAMES = {
    "head": ("head circumference", "OFC", "occipitofrontal circumference", "occipito-frontal circumference (OFC)", "HC"),
    "birth head": ("head circumference at birth", "birth OFC", "OFC at birth"),
    "height": ("height", "length", "stature", "body length", "standing height"),
    "birth length": ("birth length", "length at birth"),
    "weight": ("weight", "body weight"),
    "birth weight": ("birth weight", "weight at birth", "birthweight"),
    "fetal weight": ("estimated fetal weight", "EFW", "fetal weight"),
    "bmi": ("BMI", "body mass index"),
}
RAW = {
    "head": ("42 cm", "31.5 cm", "48.2 cm"),
    "birth head": ("31 cm", "36.5 cm"),
    "height": ("95 cm", "121.5 cm", "68 cm"),
    "birth length": ("44 cm", "53 cm"),
    "weight": ("12.4 kg", "7,800 g", "31 kg"),
    "birth weight": ("2,150 g", "4.3 kg"),
    "fetal weight": ("1,250 g", "2.1 kg"),
}
AGES = ("2 years", "18 months", "7 years", "14 months", "10 years")
PRENATAL_AGES = ("38 weeks", "32 weeks of gestation", "36 weeks")
PRENATAL = ("birth head", "birth length", "birth weight", "fetal weight")
POSSESSIVES = ("His", "Her", "The patient's", "The child's")
COORDINATED = (("height", "weight"), ("weight", "head"), ("head", "height"), ("height", "weight", "head"))
OTHER_MEASURES = (
    "IQ", "full-scale IQ", "the verbal score", "bone mineral density", "the aortic root diameter", "femur length", "ear length",
    "palpebral fissure length", "sitting height", "arm span", "telomere length", "the mother's height", "his father's height",
    "target height", "mid-parental height", "the mean height of the cohort", "hand length", "penile length", "crown-rump length",
)  # fmt: skip
NO_VALUE = (
    "{M} was measured at each visit.", "{P} {m} was plotted on the growth chart.", "The {m} was recorded but not reported.",
    "{M} and arm span were measured in the clinic.", "Growth ({m}) was followed for two years.", "{P} {m} was normal for age.",
    "{M} is expressed in centiles and SD scores.", "{M} was within the normal range, between the 10th and 90th centiles.",
)  # fmt: skip
# A measure's value the text says it is not, and values of others in the same sentence.
NOT_THE_VALUE = (
    "{P} {m} was never {V}.", "{P} {m} was normal, but the verbal score was {V}.", "{P} {m} was not {V}.",
    "{M} 50th centile; IQ {V}.",
)  # fmt: skip
VALUE_FIRST = ("On examination he was {V} for {m}.", "She was {V} in {m} and had no other finding.", "At the last visit he was {V} for {m} and for age.")
OFFSETS = {"sd": (0.1, 0.4, 0.9), "centile": (1, 2), "value": (0.4, 2.1)}  # grid points beside a threshold
CENTRES = {"sd": 0.0, "centile": 50.0, "value": 22.0}  # a normal value of each scale
RANGE_WIDTH = {"sd": 0.5, "centile": 1}  # the narrowest range written


@dataclass(frozen=True)
class Case:
    suite: str
    text: str
    hpo_ids: tuple[str, ...]  # expected; none in the normal and other suites


@dataclass(frozen=True)
class Written:
    """A value as the grid writes it: a point, a bound (less, more, nearer) or a range."""

    scale: str
    kind: str  # point, less, more, nearer, range
    low: float
    high: float


def growth_findings(ontology: Ontology, rules_file: str | Path | None = None) -> dict[str, list[Finding]]:
    """The finding rows of ``rules/growth.tsv`` (or ``rules_file``) whose terms the ontology holds, by group."""
    rules = read_growth_rules(data_file("rules", "growth.tsv", rules_file), ontology.names, data_file("rules", "ordinals.tsv"), data_file("rules", "number_words.tsv"))
    return rules.findings


def expected(findings: list[Finding], written: Written) -> Finding | None:
    """The finding a written value gives: of the rows of its scale (or, for a group with
    none, of the other scale) whose interval holds it, the narrowest; of two half-lines,
    the one further out."""
    scales = {row.scale for row in findings}
    scale, low, high = written.scale, written.low, written.high
    if scale not in scales:
        other = next((s for s in sorted(scales) if (scale, s) in READ_AS), None)
        if other is None:
            return None
        converted = in_scale(Interval(low, high), scale, other)
        scale, low, high = other, converted.low, converted.high
    held = [row for row in findings if row.scale == scale and _holds(row.interval, written.kind, low, high)]
    return min(held, key=_narrowness, default=None)


def _narrowness(row: Finding) -> tuple[float, float]:
    """Width first; of two half-lines, the one whose end lies further out comes first."""
    ends = [abs(end) for end in (row.interval.low, row.interval.high) if math.isfinite(end)]
    return row.interval.high - row.interval.low, -max(ends, default=0)


def _holds(interval: Interval, kind: str, low: float, high: float) -> bool:
    if kind == "point":
        return interval.holds(low)
    return interval.low <= low and high <= interval.high


def grid(findings: dict[str, list[Finding]]) -> list[Written]:
    """Values around every threshold of the rows: each threshold itself and points on both
    sides, bounds at and beside each, the ranges between neighbouring points, and the
    nearer-to-the-mean bounds of SD scores."""
    written = []
    for scale in ("sd", "centile", "value"):
        thresholds = sorted({end for rows in findings.values() for row in rows if row.scale == scale for end in (row.interval.low, row.interval.high)} - {-math.inf, math.inf})
        if thresholds:
            written += _around(scale, thresholds)
    return written + [Written("sd", "nearer", -d, 0.0) for d in (1.5, 2, 2.5, 3)]


def _around(scale: str, thresholds: list[float]) -> list[Written]:
    shifted = {round(t + sign * d, 2) for t in thresholds for d in (0, *OFFSETS[scale]) for sign in (-1, 1)}
    points = [p for p in sorted(shifted | {CENTRES[scale]}) if scale != "centile" or 0 < p < 100]
    bounds = sorted({round(t + d, 2) for t in thresholds for d in (0, OFFSETS[scale][-1], -OFFSETS[scale][-1])})
    written = [Written(scale, "point", p, p) for p in points]
    written += [Written(scale, kind, *ends) for b in bounds if scale != "centile" or 0 < b < 100 for kind, ends in (("less", (-math.inf, b)), ("more", (b, math.inf)))]
    if scale != "value":
        written += [Written(scale, "range", a, b) for a, b in zip(points, points[1:]) if b - a >= RANGE_WIDTH[scale]]
    return written


def _num(value: float, sign: bool = False, minus: str = "-") -> str:
    text = f"{abs(value):g}"
    return (minus if value < 0 else "+" if sign and value > 0 else "") + text


def _ordinal(value: float) -> str:
    if value != int(value):
        return f"{value:g}th"
    number = int(value)
    return f"{number}{'th' if 10 <= number % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


def phrasings(written: Written) -> list[str]:
    """The ways a value is written (centile, SD and BMI forms, comparisons, ranges)."""
    low, high, kind = written.low, written.high, written.kind
    end = high if kind == "less" else low
    if written.scale == "centile":
        o, n = _ordinal(end), _num(end)
        if kind == "point":
            return [f"at the {o} centile", f"on the {o} percentile", f"({o} centile)", f"{o} %ile", f"the {o} percentile", f"(P{n})"]
        if kind == "less":
            return [f"below the {o} centile", f"<{o} percentile", f"< {o} %ile", f"less than the {o} centile", f"under the {o} percentile", f"(P<{n})", f"<P{n}"]
        if kind == "more":
            return [f"above the {o} centile", f">{o} percentile", f"over the {o} centile", f"greater than the {o} percentile", f"(P>{n})", f">P{n}"]
        return [f"between the {o} and {_ordinal(high)} centiles", f"{n}-{_ordinal(high)} percentile", f"{o}\u2013{_ordinal(high)} centile", f"(P{n}-{_num(high)})"]
    if written.scale == "value":
        v = _num(end)
        if kind == "point":
            return [f"{v}", f"{v} kg/m2", f"{v} kg/m\u00b2", f"of {v} kg/m2"]
        return [f"< {v}", f"below {v} kg/m2", f"less than {v} kg/m2"] if kind == "less" else [f"> {v} kg/m2", f"over {v}", f"above {v} kg/m2"]
    return _sd_phrasings(written)


def _sd_phrasings(written: Written) -> list[str]:
    low, high, kind = written.low, written.high, written.kind
    if kind == "point":
        z, m, u = _num(low, sign=True), _num(abs(low)), _num(low, sign=True, minus="\u2212")
        side = "below the mean" if low < 0 else "above the mean"
        forms = [f"{z} SD", f"{u} SDS", f"({z} SD)", f"{z}SD", f"SDS of {z}", f"z-score of {z}", f"z = {u}", f"{z} standard deviations", f"SD score: {z}"]
        return forms + ([f"{m} SD {side}", f"{m} standard deviations {side}"] if low else [])
    if kind == "nearer":
        m = _num(abs(low))
        return [f"less than {m} SD below the mean", f"within {m} SD of the mean", f"within {m} standard deviations"]
    if kind == "range":
        a, b = (high, low) if high <= 0 else (low, high)  # written from the mean outwards
        forms = [f"{_num(a, sign=True)} to {_num(b, sign=True)} SD", f"between {_num(a, sign=True)} and {_num(b, sign=True)} SD", f"{_num(a, sign=True)} SD to {_num(b, sign=True)} SD"]
        return forms + ([f"{_num(abs(a))} to {_num(abs(b))} SD below the mean"] if high < 0 else [])
    end = high if kind == "less" else low
    z, m = _num(end, sign=True), _num(abs(end))
    if kind == "less":
        return [f"< {z} SD", f"below {z} SD", f"less than {z} SDS"] + ([f"more than {m} SD below the mean", f"at least {m} standard deviations below the mean"] if end < 0 else [])
    return [f"> {z} SD", f"above {z} SD", f"greater than {z} SDS"] + ([f"more than {m} SD above the mean", f"at least {m} standard deviations above the mean"] if end > 0 else [])


def _sentences(group: str, written_forms: list[str], count: int, start: int) -> Iterable[str]:
    """``count`` sentences of a value of ``group``, templates, names and forms taken in
    turn from ``start``."""
    names = MEASURE_NAMES[group]
    raws = RAW.get(group)
    ages = PRENATAL_AGES if group in PRENATAL else AGES
    templates = _templates(bool(raws))
    for i in range(start, start + count):
        m, value = names[i % len(names)], written_forms[i % len(written_forms)]
        bracketed = value if value.startswith("(") else f"({value})"
        template = templates[i % len(templates)]
        fields = {"m": m, "M": m[:1].upper() + m[1:], "V": value, "B": bracketed, "R": raws[i % len(raws)] if raws else "", "A": ages[i % len(ages)]}
        fields["P"] = POSSESSIVES[i % len(POSSESSIVES)]
        fields["p"] = fields["P"].lower()
        yield template.format(**fields)


def _templates(with_raw: bool) -> list[str]:
    plain = [
        "{P} {m} was {V}.", "{M} {V}.", "At {A}, {p} {m} was {V}.", "She had a {m} {V}, and the rest of the examination was unremarkable.",
        "{P} {m} remained {V} despite treatment.", "{M}: {V}.", "Since then {p} {m} has been {V} for age and sex.",
    ]  # fmt: skip
    if not with_raw:
        return plain
    return plain + [
        "{M} {R} {B}.", "On examination at {A}, {m} was {R} {B} and the rest of the examination was unremarkable.",
        "{M}: {R}, {V}.", "She had a {m} of {R} {B}.", "At {A}, {p} {m} measured {R}, {V}.",
        "Growth parameters: arm span 80 cm, {m} {R} {B}, and the rest was normal.", "{M} = {R} [{V}].",
        "{P} {m} was {R}, which is {V}.", "At {A} the {m} of {R} was plotted {V} on the WHO charts.",
    ]  # fmt: skip


def _value_first(written: Written) -> list[str]:
    """Forms read before their measure ("at the 98th percentile for height")."""
    forms = [form for form in phrasings(written) if not form.startswith(("(", "<", ">", "SD", "z", "of", "the"))]
    return forms[:3]


def suite_cases(ontology: Ontology, findings: dict[str, list[Finding]] | None = None, per_value: int = 3) -> dict[str, list[Case]]:
    """Suite -> cases: every grid value of every group in ``per_value`` sentences and one
    written before its measure, the coordinated measures, and the other measures."""
    findings = findings if findings is not None else growth_findings(ontology)
    cases: dict[str, list[Case]] = {suite: [] for suite in SUITES}
    turn = 0
    for written in grid(findings):
        forms = phrasings(written)
        for group in MEASURE_NAMES:
            rows = findings.get(group, [])
            if not rows or (written.scale == "value" and all(row.scale != "value" for row in rows)):
                continue
            found = expected(rows, written)
            suite, ids = ("abnormal", (found.hpo_id,)) if found else ("normal", ())
            for text in _sentences(group, forms, per_value, turn):
                cases[suite].append(Case(suite, text, ids))
            turn += per_value
            first = _value_first(written)
            if first and group not in ("bmi", "fetal weight"):
                name = MEASURE_NAMES[group][turn % len(MEASURE_NAMES[group])]
                template = VALUE_FIRST[turn % len(VALUE_FIRST)]
                cases[suite].append(Case(suite, template.format(V=first[turn % len(first)], m=name), ids))
        cases["abnormal"] += _coordinated(findings, written, forms)
    cases["other"] = _other_cases(findings)
    return cases


def _coordinated(findings: dict[str, list[Finding]], written: Written, forms: list[str]) -> list[Case]:
    """Two or three measures sharing one value, when each gives a finding."""
    if written.scale == "value" or written.kind == "nearer":
        return []
    cases = []
    for i, groups in enumerate(COORDINATED):
        found = [expected(findings.get(group, []), written) for group in groups]
        if not all(found):
            continue
        names = [MEASURE_NAMES[group][i % len(MEASURE_NAMES[group])] for group in groups]
        listed = f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]}, {names[1]} and {names[2]}"
        form = forms[i % len(forms)]
        every = "both" if len(names) == 2 else "all"
        cases.append(Case("abnormal", f"{POSSESSIVES[i % len(POSSESSIVES)]} {listed} were {every} {form}.", tuple(f.hpo_id for f in found)))
    return cases


def _other_cases(findings: dict[str, list[Finding]]) -> list[Case]:
    cases = []
    groups = list(MEASURE_NAMES)
    for i, template in enumerate(islice(cycle(NO_VALUE), 0, 5 * len(NO_VALUE))):
        group = groups[i % len(groups)]
        m = MEASURE_NAMES[group][i % len(MEASURE_NAMES[group])]
        cases.append(Case("other", template.format(m=m, M=m[:1].upper() + m[1:], P=POSSESSIVES[i % len(POSSESSIVES)]), ()))
    abnormal = [w for w in grid(findings) if w.kind in ("point", "less", "more") and w.scale != "value" and expected(findings.get("height", []), w)]
    for i, written in enumerate(abnormal):
        forms = phrasings(written)
        for j in range(3):
            other = OTHER_MEASURES[(3 * i + j) % len(OTHER_MEASURES)]
            form = forms[(i + j) % len(forms)]
            cases.append(Case("other", f"{other[:1].upper() + other[1:]} was {form}." if j % 2 else f"On examination, {other} was {form}.", ()))
        group = groups[i % len(groups)]
        m = MEASURE_NAMES[group][i % len(MEASURE_NAMES[group])]
        template = NOT_THE_VALUE[i % len(NOT_THE_VALUE)]
        cases.append(Case("other", template.format(m=m, M=m[:1].upper() + m[1:], P=POSSESSIVES[i % len(POSSESSIVES)], V=forms[i % len(forms)]), ()))
    return cases


def growth_ids(ontology: Ontology, findings: dict[str, list[Finding]]) -> set[str]:
    """The rows' terms and their ancestors but Phenotypic abnormality and the root: a case
    reporting one it does not expect is wrong."""
    import networkx as nx

    ids = {row.hpo_id for rows in findings.values() for row in rows}
    roots = {"HP:0000118", "HP:0000001"}
    return {a for hpo_id in ids for a in nx.descendants(ontology.graph, hpo_id) | {hpo_id}} - roots


@dataclass(frozen=True)
class Result:
    cases: int
    found: int  # abnormal: the expected ids found; normal, other: no growth id found
    wrong: int  # abnormal: cases with a growth id not expected

    @property
    def share(self) -> float:
        return self.found / self.cases if self.cases else 0.0


def run(nlp, cases: list[Case], growth: set[str]) -> tuple[Result, list[tuple[Case, set[str]]]]:
    """The result of the pipeline on ``cases`` and the cases it fails, with the ids it gave."""
    failed, found, wrong = [], 0, 0
    for case, doc in zip(cases, nlp.pipe((case.text for case in cases), batch_size=256)):
        group = doc.spans["phenotype_terms"] if "phenotype_terms" in doc.spans else doc.spans["phenotypes"]
        ids = {span.kb_id_ for span in group} & growth
        ok = set(case.hpo_ids) <= ids if case.hpo_ids else not ids
        found += ok
        wrong += bool(case.hpo_ids) and bool(ids - set(case.hpo_ids))
        if not ok:
            failed.append((case, ids))
    return Result(len(cases), found, wrong), failed


def term_texts(obo_path: str | Path, ids: Iterable[str]) -> dict[str, dict[str, list[str]]]:
    """Id -> {"name": [...], "def": [...], "synonym": [...]} of ``ids`` in an OBO file."""
    wanted, texts = set(ids), {}
    for stanza in Path(obo_path).read_text(encoding="utf-8").split("\n[Term]\n")[1:]:
        fields: dict[str, list[str]] = {}
        for name, value in _STANZA_FIELD.findall(stanza.split("\n[", 1)[0]):
            fields.setdefault(name, []).append(value.replace('\\"', '"'))
        if fields.get("id", [""])[0] in wanted:
            texts[fields["id"][0]] = fields
    return texts


def source_problems(obo_path: str | Path, rules_file: str | Path | None = None) -> list[str]:
    """The finding rows whose source quotes a definition, name or synonym the ontology file
    does not hold, or that cite nothing and name no convention."""
    from ..kb.lexicon.tsv import read_rules

    path = data_file("rules", "growth.tsv", rules_file)
    rows = [(row, ref) for row, ref in read_rules(path, 2) if row[0] == "finding"]
    quotes = [(ref, _SOURCE.findall(row[5])) for row, ref in rows]
    texts = term_texts(obo_path, {hpo_id for _, found in quotes for hpo_id, _, _ in found})
    problems = []
    for ref, found in quotes:
        for hpo_id, field, quote in found:
            if not any(quote in text for text in texts.get(hpo_id, {}).get(field, [])):
                problems.append(f"{ref}: {hpo_id} {field} does not hold {quote!r}")
    return problems


def uncovered_terms(ontology: Ontology, obo_path: str | Path, findings: dict[str, list[Finding]]) -> set[str]:
    """Terms under :data:`GROWTH_ROOTS` whose definition, name or synonym states a
    threshold, that no finding row gives."""
    import networkx as nx

    under = {hpo_id for root in GROWTH_ROOTS if root in ontology.names for hpo_id in nx.ancestors(ontology.graph, root) | {root}}
    texts = term_texts(obo_path, under)
    stated = {hpo_id for hpo_id, fields in texts.items() if any(THRESHOLD_WORDS.search(t) for name in ("def", "name", "synonym") for t in fields.get(name, []))}
    return stated - {row.hpo_id for rows in findings.values() for row in rows}
