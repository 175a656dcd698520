"""Giving each phenotype mention to the patient the text is talking about there.

A walk through the article in text order keeps a *focus*: the patients named last. A
phenotype goes to the patient mention nearest before it in its sentence (else the
nearest after it); without one, to the focus, if the section's mode lets the focus carry
that far (``rules/patient_policy.tsv``): across a section's paragraphs (case reports,
results), within a paragraph (abstract, captions), or not at all (introduction,
discussion: only a sentence that names a patient counts). A mention of an unlisted
relative or another person ("his mother had ...", "a 5-year-old girl reported by ...")
takes the phenotype away from every patient. This is the nearest-mention heuristic of
rule-based patient attribution. Negated phenotypes are attributed the same way (the
patient stated not to have it); the patient stage keeps them out of the associations.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

from .mentions import ANAPHOR, NAMED, OTHER, PRONOUN, RELATIVE, PatientMention
from .rules import Policy


@dataclass(frozen=True)
class Passage:
    start: int
    end: int
    section: str
    kind: str  # paragraph, title_1, fig_caption, ...

    @property
    def is_heading(self) -> bool:
        return "title" in self.kind and "caption" not in self.kind


@dataclass(frozen=True)
class Phenotype:
    start: int
    end: int
    negated: bool


@dataclass(frozen=True)
class Focus:
    patients: tuple[str, ...]
    mention: PatientMention | None
    rule: str


@dataclass(frozen=True)
class Attribution:
    """Phenotype ``index`` goes to ``patients`` by ``rule``, because of ``mention``."""

    index: int
    patients: tuple[str, ...]
    rule: str
    mention: PatientMention | None
    section: str


def _within(items: Sequence, start: int, end: int, starts: list[int]) -> list:
    """Items (sorted by .start) that start inside [start, end)."""
    return list(items[bisect.bisect_left(starts, start) : bisect.bisect_left(starts, end)])


def _resolved(mention: PatientMention, focus: Focus | None, single: str | None) -> PatientMention | None:
    """An anaphor or pronoun stands for the focus, or the only patient; else it is dropped."""
    if mention.role not in (ANAPHOR, PRONOUN):
        return mention
    if focus is not None and focus.patients:
        patients, via = focus.patients, "focus"
    elif single is not None:
        patients, via = (single,), "single_patient"
    else:
        return None
    return PatientMention(mention.start, mention.end, mention.text, f"{mention.rule}>{via}", NAMED, patients)


def _nearest(mentions: list[PatientMention], phenotype: Phenotype) -> PatientMention | None:
    """The mention nearest before the phenotype in its sentence, else the nearest after it."""
    before = [m for m in mentions if m.end <= phenotype.start]
    if before:
        return before[-1]
    after = [m for m in mentions if m.start >= phenotype.end]
    return after[0] if after else None


class Attributor:
    """One article's walk; ``run`` returns the attributions in phenotype order."""

    def __init__(self, policy: Policy, patient_ids: list[str], passages: list[Passage]):
        self.policy = policy
        self.patient_ids = tuple(patient_ids)
        self.single = patient_ids[0] if len(patient_ids) == 1 else None
        self.has_body = any(p.section in policy.body_sections for p in passages)
        self.passages = passages

    def start_focus(self, mode: str) -> Focus | None:
        if self.single is not None and mode == "carry" and self.policy.single_patient_carry_start:
            return Focus((self.single,), None, "single_patient")
        return None

    def unfocused(self, mode: str) -> Focus | None:
        if mode in ("carry", "paragraph") and self.single is None and self.policy.unfocused_multi == "all":
            return Focus(self.patient_ids, None, "all_patients")
        return None

    def run(self, sentences: list[tuple[int, int]], mentions: list[PatientMention], phenotypes: list[Phenotype]) -> list[Attribution]:
        mention_starts = [m.start for m in mentions]
        order = sorted(range(len(phenotypes)), key=lambda i: phenotypes[i].start)
        phenotype_starts = [phenotypes[i].start for i in order]
        sentence_starts = [s for s, _ in sentences]
        attributions: list[Attribution] = []
        focus: Focus | None = None
        previous_section = None
        for passage in self.passages:
            mode = self.policy.mode(passage.section, self.has_body)
            if mode != "carry" or passage.section != previous_section:
                focus = self.start_focus(mode)
            previous_section = passage.section
            named_in_passage = False
            for start, end in _within(sentences, passage.start, passage.end, sentence_starts):
                end = min(end, passage.end)
                raw = _within(mentions, start, end, mention_starts)
                in_sentence = []
                for mention in raw:
                    resolved = _resolved(mention, focus, self.single)
                    if resolved is not None:
                        in_sentence.append(resolved)
                        focus = self.next_focus(focus, resolved)
                for index in _within(order, start, end, phenotype_starts):
                    attribution = self.attribute(index, phenotypes[index], in_sentence, focus, mode, passage.section)
                    if attribution is not None:
                        attributions.append(attribution)
                named_in_passage = named_in_passage or any(m.role == NAMED for m in in_sentence)
            if passage.is_heading and not named_in_passage and self.policy.heading_resets_focus:
                focus = self.start_focus(mode)
        return sorted(attributions, key=lambda a: a.index)

    def next_focus(self, focus: Focus | None, mention: PatientMention) -> Focus | None:
        """Named patients become the focus; relatives ("his mother", listed or not) only by policy."""
        is_relative = mention.role in (RELATIVE, OTHER) or mention.kinship
        if is_relative and not self.policy.relative_sets_focus:
            return focus
        return Focus(mention.patients, mention, mention.rule)

    def attribute(self, index: int, phenotype: Phenotype, in_sentence: list[PatientMention], focus: Focus | None, mode: str, section: str) -> Attribution | None:
        if mode == "none":
            return None
        outside = [m for m in in_sentence if m.end <= phenotype.start or m.start >= phenotype.end]
        nearest = _nearest(outside, phenotype)
        if nearest is not None:
            chosen = Focus(nearest.patients, nearest, nearest.rule)
        elif mode in ("carry", "paragraph"):
            chosen = focus if focus is not None else self.unfocused(mode)
            if chosen is not None:
                chosen = Focus(chosen.patients, chosen.mention, f"focus:{chosen.rule}")
        else:
            chosen = None
        if chosen is None or not chosen.patients:
            return None
        return Attribution(index, chosen.patients, chosen.rule, chosen.mention, section)
