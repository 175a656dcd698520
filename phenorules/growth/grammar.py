"""How a growth measure and its value are written in running text, read in one scan.

One compiled pattern finds, in text order, the names of the measures ("head circumference",
"OFC", "height") and the values: a centile ("<3rd centile", "below the 2nd percentile",
"(P<5)", "between the 3rd and 10th centiles"), an SD score ("-2.8 SD", "2.5 SD below the
mean", "z = -2.4", "-1.5 to -2 SD") or, after a measure that takes one, a bare number ("BMI
31", "HAZ -2.8"). A value then belongs to the measure named right before it with only
filler words, a measurement or an age between ("OFC 42 cm (-2.8 SD)", "her height was
below the 3rd centile"), or to the one named right after it ("at the 98th percentile for
height"); measures joined by a conjunction share it ("height and weight below the 3rd
centile"). Python runs at the hits only, and each look before or after a hit is bounded,
so a text is read in time linear in its length. Every word the grammar reads is a row of
``rules/growth.tsv``; English ordinal endings and signs are the grammar's own.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import repeat

from ..core.patterns import by_first_character, first_class, literal_alternation
from .rules import GrowthRules, Interval, Measure, Value

# Characters read as another before the scan, one for one, so that offsets stay the text's.
SAME_LENGTH = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\u2010": "-", "\u2011": "-", "\u00b2": "2", "\u2019": "'", "\u2266": "≤", "\u2267": "≥"})
MAX_GAP = 80  # characters between a measure's name and its value, or between two names
LOOK_BACK = 120  # characters before a name read for a birth word in its clause
LOOK_AHEAD = 150  # characters after a value read for "respectively" in its clause
PREVIOUS_WORD = 40  # characters before a name read for the word before it
CUE_REACH = 5 * MAX_GAP  # characters around a value's cue its reading lies in, with names joined to one another
# A number: a decimal point, or a decimal comma before one or two digits ("-2,7 SD"; not
# the thousands of "2,300 g"), never the decimals of another number.
NUMBER = r"(?<!\d,)\d+(?:\.\d+|,\d{1,2}(?!\d))?"
MEASURED_NUMBER = rf"\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|{NUMBER}"  # a measurement's: "2,300 g"
SIGN = r"(?:\+\s?-|\+/-|±|[+-])"
PLUS_MINUS = ("+-", "+/-", "±")
ORDINAL_ENDING = r"(?:st|nd|rd|th|d)"  # "3d" is an older "3rd"
INF = math.inf
# Letters that re's IGNORECASE matches to an ASCII letter of another lower case: the long s,
# the dotless i and the Kelvin sign (sre_compile's case fixes).
_OTHER_FOLDS = re.compile("[\u017f\u0131\u212a]")


@dataclass(frozen=True)
class MeasureHit:
    start: int
    end: int
    measure: Measure
    group: str | None  # the finding rows it reads; None: another's measure, or another measure


@dataclass(frozen=True)
class Reading:
    """A value and the measures it belongs to; ``start``-``end`` covers them all."""

    start: int
    end: int
    measures: tuple[MeasureHit, ...]
    value: Value
    value_first: bool  # written before its measures ("at the 98th percentile for height")


def _float(written: str) -> float:
    return float(written.replace(",", "."))


class Labels:
    """How often a text writes each prefixed number ("P3"), counted in one scan when first
    asked."""

    def __init__(self, pattern: re.Pattern, text: str):
        self.pattern, self.text = pattern, text
        self.counts: Counter | None = None

    def once(self, number: str) -> bool:
        if self.counts is None:
            self.counts = Counter(_float(found["number"]) for found in self.pattern.finditer(self.text))
        return self.counts[_float(number)] <= 1


def _form(word: str, symbol_case: bool = False) -> str:
    """A row's word as a pattern: its parts with any white space between, a whole word;
    with ``symbol_case``, a name of three characters or fewer (or with a capital after
    its first letter) matches only as written."""
    pattern = r"\s+".join(re.escape(part) for part in word.split())
    if symbol_case and (len(word) <= 3 or any(c.isupper() for c in word[1:])):
        pattern = f"(?-i:{pattern})"
    if word[:1].isalnum():  # a name starts a word; another word may follow a number ("-2.8SD", "42cm")
        pattern = (r"(?<![\w-])" if symbol_case else r"(?<![^\W\d_])") + pattern
    if word[-1:].isalnum() or word.endswith("."):
        pattern += r"(?![\w-])" if symbol_case else r"(?!\w)"
    return pattern


def _any(words, symbol_case: bool = False) -> str:
    """One alternation of ``words``, the longest first (grouped by their first character:
    :func:`by_first_character`); one that never matches if none."""
    forms = sorted(set(words), key=lambda word: (-len(word), word))
    return by_first_character([(word[:1], _form(word, symbol_case)) for word in forms], re.IGNORECASE) or "(?!)"


class Grammar:
    """The compiled patterns of one rule set, and the reading of a text with them."""

    def __init__(self, rules: GrowthRules):
        self.rules = rules
        words = rules.words
        word = {kind: _any(values) for kind, values in words.items()}
        symbols = {kind: _any(w for w in words[kind] if not w[:1].isalpha()) for kind in ("less", "more")}
        below, above = (_any(w for w in words[kind] if w[:1].isalpha()) for kind in ("less", "more"))
        joins = _any(w for w in words["conjunction"] if w[:1].isalpha())
        ordinal = rf"(?:(?<![\w.]){NUMBER}(?:\s?{ORDINAL_ENDING}(?!\w))?|{_any(rules.ordinals)})"
        quantity = rf"(?:(?<![\w.])(?:{SIGN}\s?)?(?<![\w.]){NUMBER}|{_any(rules.numbers)})"
        prefix = rf"(?<!\w)(?-i:{'|'.join(map(re.escape, words['centile_prefix'])) or '(?!)'})"
        compare = {g: rf"(?:(?P<{g}_less>{word['less']})|(?P<{g}_more>{word['more']})|(?P<{g}_within>{word['within']}))\s*" for g in "csb"}
        centile = (
            rf"(?:{compare['c']})?(?:(?P<c_between>{word['between']})\s+)?(?:(?:{word['article']})\s+)?(?P<c1>{ordinal})(?:\s*(?:{word['centile']}))?"
            rf"(?:\s*(?:(?P<c_range>{word['range']})|(?P<c_join>{joins}))\s*(?:(?:{word['article']})\s+)?(?P<c2>{ordinal}))?\s*(?:{word['centile']})"
        )
        prefixed = (
            rf"(?:(?P<p_less>{symbols['less']})|(?P<p_more>{symbols['more']}))?\s?{prefix}\s?(?:(?P<p_less2>{symbols['less']})|(?P<p_more2>{symbols['more']}))?"
            rf"\s?(?P<p1>{NUMBER})(?:\s?(?:{word['range']})\s?(?:{prefix})?(?P<p2>{NUMBER}))?(?!\w|\.\d)"
        )
        score = (
            rf"(?:{compare['s']})?(?:(?P<s_between>{word['between']})\s+)?(?P<s1>{quantity})(?:\s*(?:{word['sd']}))?"
            rf"(?:\s*(?:(?P<s_range>{word['range']})|(?P<s_join>{joins}))\s*(?P<s2>{quantity}))?\s*(?:{word['sd']})"
            rf"(?:\s+(?:(?P<s_below>{below})|(?P<s_above>{above}))(?:\s+(?:(?:{word['article']})\s+)?(?:{word['mean']}))?)?"
        )
        filler = _any({*words["filler"], *words["unit"], *words["age"]})
        unit = _any(words["unit"])
        named_score = (
            rf"(?<!\w)(?:{word['sd']})(?:\s*(?:[:=,(]|{filler}))?\s*(?:(?P<f_less>{symbols['less']})|(?P<f_more>{symbols['more']}))?"
            rf"\s*(?P<f1>(?:{SIGN}\s?)?{NUMBER})(?!\.?\d|%|\s*(?:{unit}|{word['centile']}|{word['sd']}))"
        )
        names = _any(rules.names, symbol_case=True)
        # Tried only where a word or a mark starts (not inside a word), then each alternative
        # only at a character it can start with (:func:`first_class`).
        alternatives = {"measure": names, "prefixed": prefixed, "centile": centile, "score": score, "named": named_score}
        self.scan = re.compile(
            rf"(?<![^\W\d_])(?:{'|'.join(f'{first_class(body, re.IGNORECASE)}(?P<{name}>{body})' for name, body in alternatives.items())})", re.IGNORECASE
        )
        number_unit = rf"(?:{MEASURED_NUMBER})(?:\s*(?:{_any({*words['unit'], *words['age']})}))?(?!\w)"
        self.gap = re.compile(rf"(?>\s+|[()\[\]:,;=|~/-]|{filler}|{number_unit})*", re.IGNORECASE)
        self.joined = re.compile(rf"\s*(?:(?:{word['conjunction']})\s*)+(?:(?:{word['lead']}|{word['article']})\s+)?", re.IGNORECASE)
        self.alias = re.compile(r"\s*\(\s*")
        self.connector = re.compile(rf"\s*(?:{word['connector']})\s+(?:(?:{word['lead']}|{word['article']})\s+)?", re.IGNORECASE)
        self.bare = re.compile(
            rf"(?>\s*(?:[:=,(]|{filler}))*\s*(?:{compare['b']})?(?P<b1>(?:{SIGN}\s?)?{NUMBER})(?!\.?\d|\s*(?:{word['range']})\s*\d)"
            rf"(?:\s*(?:{unit}))?(?!\s*{ORDINAL_ENDING}(?![^\W\d_])|\s*(?:{word['centile']}|{word['sd']}|%))",
            re.IGNORECASE,
        )
        self.clause_break = re.compile(rf"[;\n]|\.(?=\s)|{NUMBER}\s*-?\s*(?:{word['later']})", re.IGNORECASE)
        self.birth = re.compile(word["birth"], re.IGNORECASE)
        self.shared_out = re.compile(rf"[^.;\n]*?(?:{word['respectively']})", re.IGNORECASE)
        self.prefixed = re.compile(rf"{prefix}\s?(?P<number>{NUMBER})(?!\w|\.\d)")
        self._compile_cues(rules, word, rf"{prefix}\s?(?:{symbols['less']}|{symbols['more']})?\s?\d")
        self.lead = {w.lower() for w in (*words["lead"], *words["filler"], *words["article"], *words["age"])}
        self.foreign = {w.lower() for w in words["foreign"]}

    def _compile_cues(self, rules: GrowthRules, word: dict[str, str], prefixed_number: str) -> None:
        """Every value names a centile or an SD score, or is a number after a name that
        takes one: the scan is run only around these cues (:meth:`windows`)."""
        words = rules.words
        bare = [name for name in rules.names if rules.measures[" ".join(name.lower().split())].bare is not None]
        self.cue = re.compile(rf"{word['centile']}|{word['sd']}|{prefixed_number}|{_any(bare, symbol_case=True)}", re.IGNORECASE)
        # Where a cue may start, found fast: the first word of each cue word and name in the
        # lower-cased text (literals, no look-behind: searched for in C), and the prefix.
        first_words = {cue.split()[0].lower() for cue in (*words["centile"], *words["sd"], *bare)}
        self.cue_words = re.compile(literal_alternation(sorted(first_words, key=lambda w: (-len(w), w))) or "(?!)")
        self.prefix = re.compile("|".join(map(re.escape, words["centile_prefix"])) or "(?!)")

    def readings(self, text: str) -> list[Reading]:
        """Every value of ``text`` (translated by :data:`SAME_LENGTH`) with its measures."""
        found: list[Reading] = []
        hits = [hit for start, end in self.windows(text) for hit in self.scan.finditer(text, start, end)]
        labels = Labels(self.prefixed, text)
        run: list[MeasureHit] = []  # the measures named last, joined by conjunctions
        index = 0
        while index < len(hits):
            match, index = hits[index], index + 1
            if match.lastgroup == "measure":
                hit = self._measure(text, match)
                run = [*run, hit] if run and self._joined(text, run[-1], hit) else [hit]
                bare = self._bare(text, hit, hits[index].start() if index < len(hits) else len(text))
                if bare is not None:
                    found.append(bare)
                    run = []
                continue
            after = self._after(text, hits, index)
            index += len(after)
            before, run = (run if run and self._attached(text, run[-1].end, match.start()) else []), []
            if after and before:  # "weight below the 3rd centile for height": weight-for-height
                continue
            if after:
                measures, start, end = after, match.start(), after[-1].end
            elif before:
                measures, start, end = before, before[0].start, match.end()
            else:
                continue
            value = self.value(text, match, labels)
            if value is not None and not (len(measures) > 1 and self.shared_out.match(text, match.end(), match.end() + LOOK_AHEAD)):
                found.append(Reading(start, end, tuple(measures), value, bool(after)))
        return found

    def windows(self, text: str) -> list[tuple[int, int]]:
        """The stretches of ``text`` within :data:`CUE_REACH` characters of a cue, merged:
        a value and the names it belongs to lie near its cue, and a text is scanned only
        there (most texts hold few)."""
        windows: list[tuple[int, int]] = []
        for cue in self.cues(text):
            start, end = max(0, cue.start() - CUE_REACH), min(len(text), cue.end() + CUE_REACH)
            if windows and start <= windows[-1][1]:
                windows[-1] = (windows[-1][0], end)
            else:
                windows.append((start, end))
        return windows

    def cues(self, text: str) -> list[re.Match]:
        """:attr:`cue` wherever it matches (overlaps included), tried only where a cue may start."""
        lowered = text.lower()
        if len(lowered) != len(text) or _OTHER_FOLDS.search(text):  # offsets the lower case moves; letters re folds otherwise
            return list(self.cue.finditer(text))
        starts = {found.start() for found in self.cue_words.finditer(lowered)} | {found.start() for found in self.prefix.finditer(text)}
        return [found for found in map(self.cue.match, repeat(text), sorted(starts)) if found is not None]

    def _measure(self, text: str, match: re.Match) -> MeasureHit:
        measure = self.rules.measures[" ".join(match.group().lower().split())]
        start, end = match.span()
        group = measure.group if self._own(text, start) else None
        if group is not None and measure.at_birth is not None and self._born(text, start):
            group = measure.at_birth
        return MeasureHit(start, end, measure, group)

    def _own(self, text: str, start: int) -> bool:
        """Whether the word before a name leaves the measure the patient's own: none, a
        mark, a lead or filler word, a possessive; not a foreign word, nor another word
        ("femur length", "mother's height")."""
        before = text[max(0, start - PREVIOUS_WORD) : start].split()
        if not before:
            return True
        token = before[-1].lower().lstrip("([{\"'")
        if not token or not (token[-1].isalnum() or token[-1] == "'"):
            return True
        if token in self.foreign:
            return False
        return token in self.lead or token.endswith(("'s", "s'"))

    def _born(self, text: str, start: int) -> bool:
        """Whether a birth word stands earlier in the name's clause (after the last clause
        break or later age)."""
        window = text[max(0, start - LOOK_BACK) : start]
        clause = 0
        for found in self.clause_break.finditer(window):
            clause = found.end()
        return self.birth.search(window, clause) is not None

    def _joined(self, text: str, previous: MeasureHit, hit: MeasureHit) -> bool:
        if hit.start - previous.end > MAX_GAP:
            return False
        between = text[previous.end : hit.start]
        return bool(self.joined.fullmatch(between) or (self.alias.fullmatch(between) and previous.measure.group == hit.measure.group))

    def _attached(self, text: str, end: int, start: int) -> bool:
        """Whether only filler stands between a name ending at ``end`` and a value at ``start``."""
        return start - end <= MAX_GAP and self.gap.fullmatch(text, end, start) is not None

    def _after(self, text: str, hits: list[re.Match], index: int) -> list[MeasureHit]:
        """The measures a value at ``hits[index - 1]`` is written before: a connector, then
        names joined by conjunctions ("for height and weight")."""
        after: list[MeasureHit] = []
        end = hits[index - 1].end()
        while index < len(hits) and hits[index].lastgroup == "measure":
            hit = self._measure(text, hits[index])
            if not (self._joined(text, after[-1], hit) if after else self.connector.fullmatch(text, end, hit.start)):
                break
            after.append(hit)
            index += 1
        return after

    def _bare(self, text: str, hit: MeasureHit, next_hit: int) -> Reading | None:
        """A number written right after a name that takes one ("BMI 31", "HAZ -2.8"),
        before the next hit of the scan (a value it writes is read as one)."""
        if hit.measure.bare is None or hit.group is None:
            return None
        match = self.bare.match(text, hit.end, min(next_hit, hit.end + MAX_GAP))
        if match is None or match.end() > next_hit:
            return None
        value = self._compared(hit.measure.bare, match, "b", [self._number(match["b1"])])
        return None if value is None else Reading(hit.start, match.end(), (hit,), value, False)

    def value(self, text: str, match: re.Match, labels: Labels | None = None) -> Value | None:
        """The value a scan hit writes, or None where it says none the rows can read. A
        prefixed number alone ("(P3)") is a centile only in brackets and where the text
        writes it nowhere else: "P3" is as often a patient's label."""
        kind = match.lastgroup
        if kind == "prefixed":
            compared = match["p_less"] or match["p_more"] or match["p_less2"] or match["p_more2"]
            alone = not compared and not match["p2"]
            if alone and (text[match.start() - 1 : match.start()] not in ("(", "[") or not (labels or Labels(self.prefixed, text)).once(match["p1"])):
                return None
            ends = [_float(match["p1"])] + ([_float(match["p2"])] if match["p2"] else [])
            less, more = match["p_less"] or match["p_less2"], match["p_more"] or match["p_more2"]
            return self._centiles(ends, less, more)
        if kind == "centile":
            if match["c_join"] and not match["c_between"] or match["c_within"]:
                return None
            ends = [self._ordinal(match["c1"])] + ([self._ordinal(match["c2"])] if match["c2"] else [])
            return self._centiles(ends, match["c_less"], match["c_more"])
        if kind == "named":
            return self._compared("sd", match, "f", [self._number(match["f1"])])
        return self._score(match)

    def _centiles(self, ends: list[float], less, more) -> Value | None:
        if not all(0 <= end <= 100 for end in ends):
            return None
        if len(ends) == 2:
            return Value("centile", Interval(min(ends), max(ends)), False)
        if less or more:
            return Value("centile", Interval(-INF, ends[0]) if less else Interval(ends[0], INF), False)
        return Value("centile", Interval(ends[0], ends[0]), True)

    def _score(self, match: re.Match) -> Value | None:
        """An SD score written number first; after "below/above the mean" the number is a
        distance, which "more than" puts further from the mean and "less than" nearer."""
        if match["s_join"] and not match["s_between"]:
            return None
        ends = [self._number(match["s1"])] + ([self._number(match["s2"])] if match["s2"] else [])
        if any(end is None for end in ends):  # ± a distance: either side of the mean
            return None
        if not (match["s_below"] or match["s_above"]):
            return self._compared("sd", match, "s", ends)
        sign = -1 if match["s_below"] else 1
        ends = [sign * abs(end) for end in ends]
        if len(ends) == 1 and match["s_more"]:
            return Value("sd", Interval(-INF, ends[0]) if sign < 0 else Interval(ends[0], INF), False)
        if len(ends) == 1 and (match["s_less"] or match["s_within"]):
            return Value("sd", Interval(min(ends[0], 0), max(ends[0], 0)), False)
        return self._compared("sd", match, "s", ends)

    @staticmethod
    def _compared(scale: str, match: re.Match, group: str, ends: list[float | None]) -> Value | None:
        """A range of two ends, a bound after a comparison, a distance within, or a point."""
        if any(end is None for end in ends):
            return None
        if len(ends) == 2:
            return Value(scale, Interval(min(ends), max(ends)), False)
        end = ends[0]
        if match.groupdict().get(f"{group}_less"):
            return Value(scale, Interval(-INF, end), False)
        if match.groupdict().get(f"{group}_more"):
            return Value(scale, Interval(end, INF), False)
        if match.groupdict().get(f"{group}_within"):
            return Value(scale, Interval(-abs(end), abs(end)), False)
        return Value(scale, Interval(end, end), True)

    def _number(self, written: str) -> float | None:
        """A signed number or a number word; None for a ± distance."""
        written = "".join(written.split()).lower()
        if written.startswith(PLUS_MINUS):
            return None
        return self.rules.numbers[written] if written in self.rules.numbers else _float(written)

    def _ordinal(self, written: str) -> float:
        written = "".join(written.split()).lower()
        return self.rules.ordinals.get(written) or _float(re.sub(ORDINAL_ENDING + "$", "", written))
