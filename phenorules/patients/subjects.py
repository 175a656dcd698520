"""A patient's sex and age, as the text says them where it speaks of that patient.

The rows of ``rules/patient_subjects.tsv`` ("a 7-year-old boy", "aged 3 years", "at age 5")
are read in the words of each mention that names the patient alone and in the words right
after it, up to the next patient mention or the end of the clause ("Patient 2, his
4-year-old sister, had ...", "P1 was a 25-year-old woman"); in a single-patient text (one
given patient, or the proband of a text that lists none) also in its generic mentions ("A
7-year-old boy presented with ..."), never in a relative's. What the rows find must agree:
two ages, or two sexes, give none. Phenopackets write it as the subject's ``sex`` and
``timeAtLastEncounter``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..core.article import Article, layout_passages
from ..kb.lexicon.tsv import read_rules
from ..kb.resources import data_dir
from .mentions import ANAPHOR, NAMED, People, PatientMention, find_people
from .rules import Cues, PatientRules, load_patient_rules, pattern_row

SUBJECTS_FILE = "patient_subjects.tsv"
KINDS = ("age", "age_at", "sex")
_CLAUSE_END = re.compile(r"[;:]|\.(?!\d)|\n")
_REACH = 60  # characters after a mention: "P1 was a 25-year-old woman" needs 24


@dataclass(frozen=True)
class SubjectRule:
    """One row of ``patient_subjects.tsv``."""

    kind: str
    regex: re.Pattern
    source: str  # file:line


@dataclass(frozen=True)
class Subject:
    """What the text says of one patient: 'male' or 'female', and (value, unit) of its age."""

    sex: str | None = None
    age: tuple[float, str] | None = None
    sources: tuple[str, ...] = ()  # the rows that found them

    def data(self) -> dict:
        """As JSON and msgpack keep it (a record's patient ``subject``, ``doc._.subjects``)."""
        return {"sex": self.sex, "age": list(self.age) if self.age else None, "sources": list(self.sources)}


def read_subject_rules(path: Path) -> tuple[SubjectRule, ...]:
    return tuple(SubjectRule(row[1], pattern_row(path, ref.line, row[0], row[1], row[2], KINDS, "subject kind"), str(ref)) for row, ref in read_rules(path, 3))


def read_subject(texts: Iterable[str], rules: tuple[SubjectRule, ...], cues: Cues, number_words: dict[str, int]) -> Subject:
    """The sex and age the rows find in ``texts``, where they agree."""
    ages: dict[str, set[tuple[float, str]]] = {"age": set(), "age_at": set()}
    sexes: set[str] = set()
    sources: set[str] = set()
    for text in texts:
        taken: list[tuple[int, int]] = []  # an earlier row's match: "4-year-old sister" is not also "4-year-old"
        for rule in rules:
            for match in rule.regex.finditer(text):
                if any(start < match.end() and match.start() < end for start, end in taken):
                    continue
                taken.append(match.span())
                found = match.groupdict()
                value = _number(found.get("age") or "", number_words)
                if value is not None:
                    ages[rule.kind].add((value, (found.get("unit") or "year").lower()))
                    sources.add(rule.source)
                sex = cues.sex(found["noun"]) if found.get("noun") else None
                if sex:
                    sexes.add(sex)
                    sources.add(rule.source)
    said = ages["age"] or ages["age_at"]
    return Subject(
        next(iter(sexes)) if len(sexes) == 1 else None,
        next(iter(said)) if len(said) == 1 else None,
        tuple(sorted(sources)),
    )


def _number(said: str, number_words: dict[str, int]) -> float | None:
    """'7', '1.5' or a word of ``number_words.tsv`` ('seven'); None for anything else."""
    if said.replace(".", "", 1).isdigit():
        return float(said)
    value = number_words.get(said.lower())
    return None if value is None else float(value)


def find_subjects(text: str, people: People, patient_ids: list[str], rules: tuple[SubjectRule, ...], cues: Cues, number_words: dict[str, int]) -> dict[str, Subject]:
    """Patient id -> what the text says of it around its mentions (see the module)."""
    windows: dict[str, list[str]] = {patient_id: [] for patient_id in patient_ids}
    mentions = people.mentions
    single = patient_ids[0] if len(patient_ids) == 1 else None
    for i, mention in enumerate(mentions):
        holder = _holder(mention, single)
        if holder not in windows:
            continue
        end = min(mention.end + _REACH, mentions[i + 1].start if i + 1 < len(mentions) else len(text))
        after = text[mention.end : end]
        clause = _CLAUSE_END.search(after)
        windows[holder].append(mention.text + (after[: clause.start()] if clause else after))
    return {patient_id: read_subject(texts, rules, cues, number_words) for patient_id, texts in windows.items()}


def _holder(mention: PatientMention, single: str | None) -> str | None:
    """Whose words a mention's are: the one patient it names, or in a single-patient text
    the patient a generic mention stands for ("the patient", "a 7-year-old boy")."""
    if mention.cue is not None:  # "similar to P1": a comparison, not a description
        return None
    if mention.role == NAMED and len(mention.patients) == 1:
        return mention.patients[0]
    if mention.role == ANAPHOR and not mention.kinship and single is not None:
        return single
    return None


@functools.lru_cache(maxsize=1)
def _shipped_rules() -> tuple[PatientRules, tuple[SubjectRule, ...]]:
    """The rule files the patient stage reads by default, for what reads subjects without a
    pipeline: the Phenopackets of a prediction file."""
    rules_dir = data_dir("rules")
    patient_rules = load_patient_rules(
        rules_dir / "patient_mentions.tsv", rules_dir / "number_words.tsv", rules_dir / "patient_policy.tsv", rules_dir / "patient_cues.tsv"
    )
    return patient_rules, read_subject_rules(rules_dir / SUBJECTS_FILE)


def text_subjects(article: Article) -> dict[str, dict]:
    """Patient id -> :meth:`Subject.data` of an article, read in its text as the patient
    stage reads it, with the shipped rules."""
    text = layout_passages(article.passages)
    patient_rules, rules = _shipped_rules()
    people = find_people(text, article.patients, patient_rules)
    found = find_subjects(text, people, [p.id for p in article.patients], rules, patient_rules.cues, patient_rules.number_words)
    return {patient_id: subject.data() for patient_id, subject in found.items()}


def mentions_subject(texts: Iterable[str]) -> dict:
    """:meth:`Subject.data` of what a patient's given mentions say ("a 4-year-old girl"),
    with the shipped rules: the subject of a patient whose text was not read."""
    patient_rules, rules = _shipped_rules()
    return read_subject(texts, rules, patient_rules.cues, patient_rules.number_words).data()
