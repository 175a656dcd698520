"""Finding the places where an article refers to a person, and which listed patient that is.

Each listed patient gets a profile from its label and its given mentions: label keys
(label ``II-1`` and "individual II.1" share the key ('pedigree', 'II', 1); label ``1``,
"Patient 1", "P1" and "patient I" share ('number', 1)), kinship words ("her father"), ages ("a
12-year-old boy") and whether it is the proband. Pattern matches from
``rules/patient_mentions.tsv`` are then resolved against the profiles: a mention names
listed patients, a relative or another person who is not listed, or it is an anaphor
("the patient", "she") that the attribution resolves to whoever is being talked about.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..core.article import Patient
from ..kb.matcher import non_overlapping
from .rules import MentionPattern, PatientRules

NAMED, RELATIVE, OTHER, ANAPHOR, PRONOUN = "named", "relative", "other", "anaphor", "pronoun"
PLURAL, PLURAL_GENERIC, PLURAL_PRONOUN = "plural", "plural_generic", "plural_pronoun"
PLURAL_ROLES = (PLURAL, PLURAL_GENERIC, PLURAL_PRONOUN)
LABEL_KINDS = ("pedigree", "numbered", "number_list")
_ROMAN = {"I": 1, "V": 5, "X": 10}
_DETERMINERS = re.compile(r"^(?:a|an|the|our|his|her|their|this)\s+", re.IGNORECASE)
_COORDINATION = re.compile(r"^\s*(?:,|and|&|or|as well as|,\s*and)\s*$", re.IGNORECASE)
# "V:5 (15 years old) and V:7", "individuals 6 [IV-6] and 7 [IV-7]": a list whose items carry
# a bracketed aside or alias is still one list.
_BRACKETED_COORDINATION = re.compile(r"^\s*[)\]]?\s*(?:[(\[][^()\[\].;]{0,40}[)\]])?\s*(?:,|and|&|,\s*and)\s*(?:\w{1,3}\s*)?[(\[]?\s*$", re.IGNORECASE)
_OF_LINK = re.compile(r"^\s+of\s+(?:the\s+)?(?:(?:patients?|cases?|individuals?|probands?)\s+)?$", re.IGNORECASE)  # "the father of (cases) 1P1 and 1P2"
_OPEN_PAREN = re.compile(r"^\s*[(\[]\s*$")
# "II.2, a 5-year-old boy", "Case 1P1: 7 year-old female", "Patient 3 is a healthy 2-year-old child"
_APPOSITION = re.compile(r"^[^.;]{0,40}$")
_COMMA = re.compile(r"^\s*,\s*$")
_LINK_REACH = 60  # characters; the longest link above ("II.2, a 5-year-old boy") needs 40
_POSSESSIVE = re.compile(r"^(?:his|her|their)\s+", re.IGNORECASE)  # "her brother" is male
_PROBAND = re.compile(r"\b(?:proband|index|propositus|proposita)\b", re.IGNORECASE)
_OF_PROBAND = re.compile(r"\b(?:of\s+the\s+(?:proband|index)|(?:proband|index\s+case)(?:'s|\u2019s))", re.IGNORECASE)
_RANGE = re.compile(r"(\d+)\s*(?:-|\u2013|to)\s*(\d+)")


@dataclass(frozen=True)
class PatientMention:
    """A place that refers to a person; ``patients`` are the listed patients it names."""

    start: int
    end: int
    text: str
    rule: str
    role: str  # named, relative (unlisted relative), other (unlisted person), anaphor, pronoun, plural...
    patients: tuple[str, ...] = ()
    kinship: bool = False  # refers to someone by kinship ("her father"), listed or not
    source: str = ""  # the rule row (file:line) that found it
    sex: str | None = None  # the sex its words say ("she", "the boy", "her brother")
    count: int | None = None  # how many a plural says ("both" 2, "all three" 3)
    kin: str | None = None  # the kinship word of an unlisted relative ("brother")
    cue: tuple[str, str, str] | None = None  # (kind, name, file:line) of a comparison, contrast or joining ("together") before it


@dataclass
class PatientProfile:
    """What identifies one listed patient in the text."""

    patient_id: str
    given: list[tuple[int, int, str]]
    keys: set = field(default_factory=set)
    kin: set = field(default_factory=set)
    ages: set = field(default_factory=set)
    proband: bool = False
    sex: str | None = None
    ascendant: bool = False  # given only as a parent, aunt...: not one of "our patients"


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    priority: int  # 0 given span, 1 literal label, 2 given text, 3 pattern
    rank: int
    rule: str
    kind: str
    source: str = ""
    match: re.Match | None = None
    patients: tuple[str, ...] = ()
    kinship: bool = False


def roman_value(text: str) -> int | None:
    """Value of a roman numeral up to XXXIX ('IV' is 4), None for anything else."""
    if not text or any(ch not in _ROMAN for ch in text):
        return None
    total = 0
    for i, ch in enumerate(text):
        value = _ROMAN[ch]
        total += -value if i + 1 < len(text) and _ROMAN[text[i + 1]] > value else value
    return total


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() else roman_value(text.upper())


def label_keys(kind: str, match: re.Match) -> set[tuple]:
    """The patient keys a label match stands for: one, or several for 'patients 1-3'."""
    if kind == "pedigree":
        return {("pedigree", match["gen"], int(match["num"]))}
    if kind == "numbered":
        number = _number(match["num"])
        return {("number", number)} if number else set()
    numbers: set[int] = set()
    text = match["nums"]
    for low, high in _RANGE.findall(text):
        if int(low) < int(high) <= int(low) + 20:
            numbers.update(range(int(low), int(high) + 1))
    numbers.update(int(n) for n in re.findall(r"\d+", text))
    return {("number", n) for n in numbers}


def age_key(match: re.Match, number_words: dict[str, int]) -> tuple | None:
    """(age, unit) of an age match: 'nine-year-old' and '9 year old' are (9.0, 'year')."""
    age = match["age"].lower()
    value = number_words.get(age)
    if value is None:
        try:
            value = float(age)
        except ValueError:
            return None
    return (float(value), match["unit"].lower())


def _patterns(rules: PatientRules, *kinds: str) -> list[MentionPattern]:
    return [pattern for pattern in rules.patterns if pattern.kind in kinds]


def _label_keys(label: str | None, rules: PatientRules) -> set[tuple]:
    """Keys of the label a patient is listed with: 'II-1' -> pedigree II 1, '1' and 'P1' -> number 1."""
    if label is None:
        return set()
    number = _number(label)
    if number:
        return {("number", number)}
    for pattern in _patterns(rules, *LABEL_KINDS):
        match = pattern.regex.fullmatch(label)
        if match:
            return label_keys(pattern.kind, match)
    return {("literal", label.lower())}


def build_profiles(patients: Iterable[Patient], rules: PatientRules) -> list[PatientProfile]:
    """Profiles from labels and given mentions; a label key two patients claim is dropped."""
    patients = list(patients)
    profiles = [PatientProfile(p.id, [(m.start, m.end, m.text) for m in p.mentions]) for p in patients]
    id_keys = {patient.id: _label_keys(patient.label, rules) for patient in patients}
    claimed = {key for keys in id_keys.values() for key in keys}
    mention_claims: dict[tuple, set[str]] = {}
    for profile in profiles:
        profile.keys = set(id_keys[profile.patient_id])
        for _, _, text in profile.given:
            for key in _mention_label_keys(text, rules) - claimed:
                mention_claims.setdefault(key, set()).add(profile.patient_id)
            _read_given_mention(profile, text, rules)
        texts = [text for _, _, text in profile.given]
        sexes = {rules.cues.sex(_POSSESSIVE.sub("", text.strip())) for text in texts} - {None}
        profile.sex = next(iter(sexes)) if len(sexes) == 1 else None
        profile.ascendant = bool(texts) and all(rules.cues.first("ascendant", text) for text in texts)
    for key, owners in mention_claims.items():
        if len(owners) == 1:
            next(p for p in profiles if p.patient_id in owners).keys.add(key)
    return profiles


def _mention_label_keys(text: str, rules: PatientRules) -> set[tuple]:
    """The label keys a given mention's text holds ("patient 2", "II-1")."""
    return {key for pattern in _patterns(rules, *LABEL_KINDS) for match in pattern.regex.finditer(text) for key in label_keys(pattern.kind, match)}


def _read_given_mention(profile: PatientProfile, text: str, rules: PatientRules) -> None:
    """What a given mention's text says of its patient: kinship words, ages and sexes, and
    whether it names the proband (not "the proband's mother")."""
    for pattern in _patterns(rules, "kinship"):
        profile.kin.update(match["kin"].lower() for match in pattern.regex.finditer(text))
    for pattern in _patterns(rules, "age_sex"):
        profile.ages.update(filter(None, (age_key(m, rules.number_words) for m in pattern.regex.finditer(text))))
    profile.proband = profile.proband or bool(_PROBAND.search(text) and not _OF_PROBAND.search(text))


_GIVEN_BEFORE, _GIVEN_AFTER = re.compile(r"\w"), re.compile(r"(?!\w)")  # a given text: a whole word
_LABEL_BEFORE, _LABEL_AFTER = re.compile(r"[\w.]"), re.compile(r"(?![\w]|\.\d)")  # a label: not inside a number


def _find_caseless(not_before: re.Pattern, phrase: str, after: re.Pattern, text: str, lowered: str) -> Iterator[tuple[int, int]]:
    """(start, end) of ``phrase`` in any case, not right after a character ``not_before``
    matches, where ``after`` matches at its end, left to right and not overlapping, as
    ``re.finditer`` finds them. Searched for as a string in the lower-cased text when
    lower-casing kept every offset (a regex would be compiled for each phrase of each
    article); else case-insensitively."""
    literal = phrase.lower()
    if len(lowered) != len(text) or not literal:
        pattern = re.escape(phrase) + rf"(?<!{not_before.pattern}(?s:.){{{len(phrase)}}})" + after.pattern
        yield from (found.span() for found in re.finditer(pattern, text, re.IGNORECASE))
        return
    at = lowered.find(literal)
    while at >= 0:
        end = at + len(literal)
        if (not at or not not_before.match(lowered, at - 1)) and after.match(lowered, end):
            yield at, end
            at = lowered.find(literal, end)
        else:
            at = lowered.find(literal, at + 1)


def _given_candidates(profiles: list[PatientProfile], text: str, lowered: str, rules: PatientRules) -> list[_Candidate]:
    """The given mention spans themselves, and other occurrences of distinctive given texts."""
    candidates = []
    owners: dict[str, set[str]] = {}
    kinship = _patterns(rules, "kinship")
    for profile in profiles:
        for start, end, given in profile.given:
            is_kin = any(pattern.regex.search(given) for pattern in kinship)
            candidates.append(_Candidate(start, end, 0, 0, "given_mention", "given", "input:patient.mention", patients=(profile.patient_id,), kinship=is_kin))
            phrase = _DETERMINERS.sub("", given.strip()).lower()
            if len(phrase.split()) >= 2:
                owners.setdefault(phrase, set()).add(profile.patient_id)
    for phrase, patient_ids in sorted(owners.items()):
        if len(patient_ids) != 1:
            continue
        for start, end in _find_caseless(_GIVEN_BEFORE, phrase, _GIVEN_AFTER, text, lowered):
            candidates.append(_Candidate(start, end, 2, 0, "given_text", "given", "input:patient.mention.text", patients=tuple(patient_ids)))
    return candidates


def _literal_candidates(profiles: list[PatientProfile], text: str, lowered: str) -> list[_Candidate]:
    """Labels no pattern knows ('CSA108.01', 'Case 1P1'), found letter for letter."""
    candidates = []
    for profile in profiles:
        for key in sorted(k for k in profile.keys if k[0] == "literal"):
            for start, end in _find_caseless(_LABEL_BEFORE, key[1], _LABEL_AFTER, text, lowered):
                candidates.append(_Candidate(start, end, 1, 0, "literal_label", "given", "input:patient.patient_id", patients=(profile.patient_id,)))
    return candidates


def _pattern_candidates(rules: PatientRules, text: str, lowered: str) -> list[_Candidate]:
    found = rules.word_scan(text, lowered)
    return [
        _Candidate(match.start(), match.end(), 3, pattern.rank, pattern.name, pattern.kind, pattern.source, match)
        for pattern, occurrences in zip(rules.patterns, found)
        for match in pattern.scan(text, lowered, occurrences)
        if match.end() > match.start()
    ]


def _non_overlapping(candidates: Iterable[_Candidate]) -> list[_Candidate]:
    """Greedy choice: given spans first, then literal labels, given texts, longest patterns."""
    return non_overlapping(candidates, lambda c: (c.priority, c.start - c.end, c.rank, c.start))


def _nearest_given(profiles: list[PatientProfile], position: int) -> PatientProfile:
    return min(profiles, key=lambda p: (min((abs(s - position) for s, _, _ in p.given), default=10**9), p.patient_id))


def _kin_word(word: str, rules: PatientRules) -> str | None:
    """The kinship word of ``word`` by the kinship patterns ('mother'), or None ('boy')."""
    for pattern in _patterns(rules, "kinship"):
        match = pattern.regex.fullmatch(word)
        if match:
            return match["kin"].lower()
    return None


def _kin_mention(span: tuple, kin: str, profiles: list[PatientProfile], position: int, source: str, rules: PatientRules) -> PatientMention:
    """'Her father' is the listed patient called father nearest in the text, else a relative
    (whom the attribution may still find among the listed siblings by sex: "her brother")."""
    holders = [p for p in profiles if kin in p.kin]
    sex = rules.cues.sex(kin)
    if not holders:
        return PatientMention(*span, RELATIVE, kinship=True, source=source, sex=sex, kin=kin)
    return PatientMention(*span, NAMED, (_nearest_given(holders, position).patient_id,), kinship=True, source=source, sex=sex)


def resolve(cand: _Candidate, profiles: list[PatientProfile], text: str, rules: PatientRules) -> PatientMention:
    """What a matched place refers to, given the article's patient profiles."""
    span = (cand.start, cand.end, text[cand.start : cand.end], cand.rule)
    source = cand.source
    if cand.kind == "given":
        return PatientMention(*span, NAMED, cand.patients, cand.kinship, source)
    if cand.kind in LABEL_KINDS:
        return _label_mention(span, cand, profiles)
    if cand.kind == "kinship":
        return _kin_mention(span, cand.match["kin"].lower(), profiles, cand.start, source, rules)
    kin = _kin_word(cand.match["sex"], rules) if cand.kind == "age_sex" else None
    if kin:  # "a 24 years old mother"
        return _kin_mention(span, kin, profiles, cand.start, source, rules)
    sex = rules.cues.sex(span[2])
    if cand.kind == "age_sex":
        return _age_mention(span, cand, profiles, rules, sex)
    if cand.kind == "proband":
        probands = tuple(p.patient_id for p in profiles if p.proband)
        return PatientMention(*span, NAMED, probands, source=source) if len(probands) == 1 else PatientMention(*span, ANAPHOR, source=source, sex=sex)
    if cand.kind == "others":
        return PatientMention(*span, OTHER, source=source)
    if cand.kind in PLURAL_ROLES:
        return PatientMention(*span, cand.kind, source=source, count=_count(cand.match, rules))
    return PatientMention(*span, PRONOUN if cand.kind == "pronoun" else ANAPHOR, source=source, sex=sex)


def _label_mention(span: tuple, cand: _Candidate, profiles: list[PatientProfile]) -> PatientMention:
    """A label ("patient 2", "II-1"): the patients whose profile has its key, else a person
    the input does not list."""
    keys = label_keys(cand.kind, cand.match)
    named = tuple(p.patient_id for p in profiles if p.keys & keys)
    return PatientMention(*span, NAMED, named, source=cand.source) if named else PatientMention(*span, OTHER, source=cand.source)


def _age_mention(span: tuple, cand: _Candidate, profiles: list[PatientProfile], rules: PatientRules, sex: str | None) -> PatientMention:
    """"A 7-year-old boy": the one patient of that age; a person the input does not list
    when every patient's age is known and none is this one; else an anaphor of its sex."""
    age = age_key(cand.match, rules.number_words)
    same_age = tuple(p.patient_id for p in profiles if age in p.ages)
    if len(same_age) == 1:
        return PatientMention(*span, NAMED, same_age, source=cand.source, sex=sex)
    if not same_age and all(p.ages for p in profiles):
        return PatientMention(*span, OTHER, source=cand.source)
    return PatientMention(*span, ANAPHOR, source=cand.source, sex=sex)


def _count(match: re.Match, rules: PatientRules) -> int | None:
    """How many patients a plural says: 'both' 2, 'all three' 3, 'the 4' 4; None: unsaid."""
    said = (match.groupdict().get("count") or "").lower().split()
    for word in said:
        if word == "both":
            return 2
        if word.isdigit():
            return int(word)
        if word in rules.number_words:
            return rules.number_words[word]
    return None


def _merge_links(mentions: list[PatientMention], text: str) -> list[PatientMention]:
    """Join what the text joins: 'the father of patient 1' is the father, 'her son (III:6)'
    is III:6, 'II.2, a 5-year-old boy' is II.2, and 'II-1 and II-2' is one mention of both."""
    merged: list[PatientMention] = []
    of_linked = -1  # end of the last "the father of patient 1", whose list goes on in "and 2"
    for mention in mentions:
        previous = merged[-1] if merged else None
        if previous is not None and mention.start - previous.end <= _LINK_REACH:  # no link spans more than a short aside
            between = text[previous.end : mention.start]
            if previous.kinship and mention.role == NAMED and (_OF_LINK.match(between) or (previous.end == of_linked and _COORDINATION.match(between))):
                merged[-1] = PatientMention(previous.start, mention.end, text[previous.start : mention.end], previous.rule, previous.role, previous.patients, True, previous.source, previous.sex, kin=previous.kin)
                of_linked = mention.end
                continue
            joined = _joined(previous, mention, between, text)
            if joined is not None:
                merged[-1] = joined
                continue
        merged.append(mention)
    return merged


def _joined(previous: PatientMention, mention: PatientMention, between: str, text: str) -> PatientMention | None:
    """The one mention two neighbours make, by what stands ``between`` them, or None."""
    whole = (previous.start, mention.end, text[previous.start : mention.end])
    if (previous.role in (RELATIVE, ANAPHOR, OTHER, PLURAL, PLURAL_GENERIC) or previous.kinship) and mention.role == NAMED and _OPEN_PAREN.match(between):
        # "the proband (III-2)", "both patients (P1, P2)"
        return PatientMention(*whole, mention.rule, NAMED, mention.patients, source=mention.source, sex=previous.sex)
    if mention.role == OTHER and _OPEN_PAREN.match(between):  # "the twin brother (II-2)"
        return dataclasses.replace(previous, end=mention.end, text=whole[2])
    if previous.role != NAMED:
        return None
    if mention.role != NAMED and ((mention.rule == "age_sex" and _APPOSITION.match(between)) or (mention.rule == "kinship" and _COMMA.match(between))):
        # "II.2, a 5-year-old boy", "Patient 2, his sister,"
        return PatientMention(*whole, previous.rule, NAMED, previous.patients, source=previous.source)
    if mention.role == NAMED and (_COORDINATION.match(between) or _BRACKETED_COORDINATION.match(between)):
        patients = tuple(dict.fromkeys(previous.patients + mention.patients))
        return PatientMention(*whole, "coordination", NAMED, patients, source=mention.source)
    return None


@dataclass(frozen=True)
class People:
    """An article's patient mentions in text order, and what is known of each listed patient."""

    mentions: list[PatientMention]
    sexes: dict[str, str | None]
    ascendants: frozenset[str]  # listed only as parents, aunts...: not among "our patients"


def find_people(text: str, patients: Iterable[Patient], rules: PatientRules) -> People:
    profiles = build_profiles(patients, rules)
    mentions = _find_mentions(text, profiles, rules)
    return People(mentions, profile_sexes(profiles, mentions, rules), frozenset(p.patient_id for p in profiles if p.ascendant))


def _find_mentions(text: str, profiles: list[PatientProfile], rules: PatientRules) -> list[PatientMention]:
    lowered = text.lower()
    candidates = (
        _given_candidates(profiles, text, lowered, rules)
        + _literal_candidates(profiles, text, lowered)
        + _pattern_candidates(rules, text, lowered)
    )
    resolved = [_as_anchor(resolve(cand, profiles, text, rules), text, rules) for cand in _non_overlapping(candidates)]
    merged = _merge_links(resolved, text)
    return _joined_relatives([_with_cue(mention, text, rules) for mention in merged], text, rules)


def _joined_relatives(mentions: list[PatientMention], text: str, rules: PatientRules) -> list[PatientMention]:
    """A relative joined to the mention of a patient before it ("she and her mother", "the
    patient as well as his father": ``together`` cues) shares the patient's phenotypes as a
    comparison does: it binds none of them away from the patient, nor does a "both" right
    after it ("she and her mother both had X")."""
    joined = list(mentions)
    for index in range(1, len(joined)):
        previous, mention = joined[index - 1], joined[index]
        is_relative = mention.role == RELATIVE or (mention.role == NAMED and mention.kinship)
        is_patient = previous.role in (NAMED, ANAPHOR, PRONOUN) and not previous.kinship
        open_cue = mention.cue is None or mention.cue[0] == "comparison"  # "as well as" is a comparison's words too
        cue = rules.cues.first("together", text[previous.end : mention.start], "fullmatch") if is_relative and is_patient and open_cue else None
        if cue is None:
            continue
        joined[index] = dataclasses.replace(mention, cue=("together", cue.name, cue.source))
        following = joined[index + 1] if index + 1 < len(joined) else None
        if following is not None and following.role == PLURAL and following.text.lower() == "both" and not text[mention.end : following.start].strip():
            joined[index + 1] = dataclasses.replace(following, cue=("together", cue.name, cue.source))
    return joined


def _as_anchor(mention: PatientMention, text: str, rules: PatientRules) -> PatientMention:
    """'P1's older sibling', "II-1's mother": a label in the possessive before a kinship word
    names whom the relative is related to, not the person talked about (another person,
    not an item of a list)."""
    if mention.role != NAMED or mention.kinship:
        return mention
    cue = rules.cues.first("anchor", text[mention.end : mention.end + 40], "match")
    if cue is None:
        return mention
    return dataclasses.replace(mention, role=OTHER, patients=(), rule=f"{mention.rule}>anchor", source=f"{mention.source}; {cue.name} ({cue.source})")


def _with_cue(mention: PatientMention, text: str, rules: PatientRules) -> PatientMention:
    """A mention right after 'similar to', 'like', 'unlike' is a comparison, not a new topic."""
    before = text[max(0, mention.start - 40) : mention.start]
    for kind in ("contrast", "comparison"):
        cue = rules.cues.first(kind, before)
        if cue is not None:
            return dataclasses.replace(mention, cue=(kind, cue.name, cue.source))
    return mention


def profile_sexes(profiles: list[PatientProfile], mentions: list[PatientMention], rules: PatientRules) -> dict[str, str | None]:
    """Each patient's sex: from its given mentions, else from the words of mentions naming
    it alone ("Patient 2, a 5-year-old boy"), when these agree."""
    said: dict[str, set[str]] = {}
    for mention in mentions:
        if mention.role == NAMED and len(mention.patients) == 1 and not mention.kinship:
            sex = rules.cues.sex(mention.text)
            if sex:
                said.setdefault(mention.patients[0], set()).add(sex)
    sexes = {}
    for profile in profiles:
        found = said.get(profile.patient_id, set())
        sexes[profile.patient_id] = profile.sex or (next(iter(found)) if len(found) == 1 else None)
    return sexes
