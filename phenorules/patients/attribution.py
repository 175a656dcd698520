"""Giving each phenotype mention to the patient the text is talking about there.

A walk through the article in text order keeps a discourse model: the *focus*, the
patients being talked about, with the mention and the rule rows that set it. Named
patients set the focus; pronouns and anaphors ("she", "the boy") stand for the focus
patient of their sex, else the one listed patient of that sex; plurals ("both siblings",
"all three patients", "our patients") stand for several of the article's own patients;
"they"/"their" continue a plural focus; a comparison ("similar to P1", "like her
brother") neither moves the focus nor takes the phenotype away from it, but shares it.

A phenotype goes to a patient mention in its sentence (one that binds it from after,
"vitiligo in the mother", else the nearest before, else the nearest after); without one,
to the focus, as far as the section's mode lets the focus carry (``rules/patient_policy.tsv``):
across a section's paragraphs (case reports, results), within a paragraph (abstract,
captions), or not at all (introduction, discussion: only a sentence that names a patient
counts). A table row that names a patient gives it the row's phenotypes; under a header
naming patients, a row naming none gives each column's phenotypes to its patient, and its
first cell's phenotype to the patients whose cells say present. A mention of an unlisted relative or another person takes the phenotype away from
every patient. Negated phenotypes are attributed the same way (the patient stated not to
have it); the patient stage keeps them out of the associations. Every attribution carries
the chain of rule rows that made it.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import replace

from ..core.intervals import Extents
from .discourse import CONTINUES_FOCUS, Attribution, Focus, Found, PhenotypeExtent, SectionedPassage, Unit, Walk, as_named, cite, within
from .mentions import ANAPHOR, NAMED, OTHER, PLURAL, PLURAL_GENERIC, PLURAL_PRONOUN, PRONOUN, RELATIVE, People, PatientMention
from .rules import Cues, Policy

_SIBLING_KIN = frozenset({"brother", "sister", "son", "daughter", "twin"})
# characters; a postposed cue binds a phenotype to the mention a few words after it ("in
# the mother"): a longer text between is not read (each phenotype before a far mention
# would copy all the text up to it)
_POSTPOSED_REACH = 200
class Attributor:
    """One article's walk; ``run`` returns the attributions in phenotype order."""

    def __init__(self, policy: Policy, patient_ids: list[str], passages: list[SectionedPassage], people: People | None = None, cues: Cues | None = None, text: str = ""):
        self.policy = policy
        self.text = text
        self.cues = cues
        self.patient_ids = tuple(patient_ids)
        self.single = patient_ids[0] if len(patient_ids) == 1 else None
        self.has_body = any(p.section in policy.body_sections for p in passages)
        has_case = any(p.section in policy.case_sections for p in passages)
        self.shape = ("single" if self.single else "multi", "case" if has_case else "nocase")
        self.passages = passages
        self.people = people or People([], {}, frozenset())
        self.sexes = self.people.sexes
        self.own = self._own_patients()

    def _own_patients(self) -> tuple[str, ...]:
        """The article's own patients, whom "our patients" and "both siblings" mean: not the
        ones named only in background sections (reported cases), not listed parents."""
        background = self.policy.background_sections
        named_in: dict[str, set[bool]] = {}
        passages = Extents((p.start, p.end) for p in self.passages)
        for mention in self.people.mentions:
            if mention.role != NAMED:
                continue
            holding = passages.overlapping(mention.start, mention.start + 1)
            passage = self.passages[holding[0]] if holding else None
            for patient_id in mention.patients:
                named_in.setdefault(patient_id, set()).add(passage is not None and passage.section in background)
        own = tuple(p for p in self.patient_ids if False in named_in.get(p, {False}) and p not in self.people.ascendants)
        return own or tuple(p for p in self.patient_ids if p not in self.people.ascendants) or self.patient_ids

    def start_focus(self, mode: str, setting: str) -> Focus | None:
        if self.single is not None and mode == "carry" and self.policy.single_patient_carry_start:
            return Focus((self.single,), None, "single_patient", (self.policy.cite(setting), self.policy.cite("single_patient_carry_start")))
        return None

    def unfocused(self, mode: str) -> Focus | None:
        if mode in ("carry", "paragraph") and self.single is None and self.policy.unfocused_multi == "all":
            return Focus(self.own, None, "all_patients", (self.policy.cite("unfocused_multi"),))
        return None

    # --- who a mention stands for -----------------------------------------------------

    def resolve(self, mention: PatientMention, focus: Focus | None, mode: str, recent: list[str]) -> tuple[PatientMention, tuple[str, ...]] | None:
        """The mention with the patients it stands for here, and the chain that says why;
        None when it stands for no one known (a pronoun with nobody in focus)."""
        chain = (cite(mention),)
        if mention.role in (ANAPHOR, PRONOUN):
            return self._singular(mention, focus, chain)
        if mention.role == RELATIVE and mention.kin in _SIBLING_KIN and mention.sex:
            held = focus.patients if focus else ()
            same_sex = [p for p in self.own if self.sexes.get(p) == mention.sex and p not in held]
            if len(same_sex) == 1:  # "her brother" is the one listed male sibling
                return as_named(mention, (same_sex[0],), "sex", chain + (f"relative by sex: the one {mention.sex} patient other than the focus",))
            return mention, chain
        if mention.role in (PLURAL, PLURAL_GENERIC, PLURAL_PRONOUN):
            return self._plural(mention, focus, mode, recent, chain)
        return mention, chain

    def _singular(self, mention: PatientMention, focus: Focus | None, chain: tuple[str, ...]):
        sex = mention.sex
        if focus is not None and focus.patients:
            fitting = tuple(p for p in focus.patients if sex is None or self.sexes.get(p) in (None, sex))
            known = tuple(p for p in fitting if sex is not None and self.sexes.get(p) == sex)
            if len(focus.patients) > 1 and len(known) == 1:
                return as_named(mention, known, "focus_sex", chain + focus.named_chain + (f"the focus patient who is {sex}",))
            if fitting:
                return as_named(mention, fitting, CONTINUES_FOCUS, chain + focus.named_chain)
        if sex is not None:
            same_sex = [p for p in self.patient_ids if self.sexes.get(p) == sex]
            if len(same_sex) == 1:
                return as_named(mention, (same_sex[0],), "sex", chain + (f"the one {sex} listed patient",))
        if self.single is not None and (focus is None or not focus.patients):
            return as_named(mention, (self.single,), "single_patient", chain + ("the article's only patient",))
        return None

    def _plural(self, mention: PatientMention, focus: Focus | None, mode: str, recent: list[str], chain: tuple[str, ...]):
        count = mention.count
        if self.single is not None:
            if self.policy.single_plurals_are_others:
                return replace(mention, role=OTHER), chain + ("one patient: a plural speaks of other people",)
            return None  # one patient: "the affected individuals" are others
        if mode not in ("carry", "paragraph") and not self._plural_in_sentence_mode(mention):
            return None
        if focus is not None and len(focus.patients) > 1 and count in (None, len(focus.patients)):
            return as_named(mention, focus.patients, CONTINUES_FOCUS, chain + focus.named_chain)
        if mention.role in (PLURAL_PRONOUN, PLURAL_GENERIC):
            return replace(mention, role=OTHER), chain + ("several people, not the patients in focus",)
        if count is None or count == len(self.own):
            return as_named(mention, self.own, "own_patients", chain + ("the article's own patients",))
        latest = list(dict.fromkeys(reversed(recent)))[:count]
        if count < len(self.own) and len(latest) == count:
            return as_named(mention, tuple(p for p in self.patient_ids if p in latest), "recent", chain + (f"the {count} patients named last",))
        return None

    def _pronoun_of_others(self, mention: PatientMention, in_sentence: list) -> tuple[PatientMention, tuple[str, ...]] | None:
        """A plural pronoun after a mention of other people in its sentence stands for those
        people ("controls were excluded if they had X"): the phenotype goes to nobody."""
        if mention.role != PLURAL_PRONOUN or not in_sentence:
            return None
        previous, chain = in_sentence[-1]
        if previous.role != OTHER or previous.kinship:
            return None
        return replace(mention, role=OTHER), (cite(mention),) + chain + ("a plural pronoun after a plural of other people in its sentence",)

    def _plural_in_sentence_mode(self, mention: PatientMention) -> bool:
        allowed = self.policy.sentence_mode_plurals
        return allowed == "all" or (allowed == "counted" and mention.count is not None)

    # --- the walk ---------------------------------------------------------------------

    def run(self, sentences: list[tuple[int, int]], mentions: list[PatientMention], phenotypes: list[PhenotypeExtent]) -> list[Attribution]:
        found = Found(sentences, mentions, phenotypes)
        walk = Walk()
        attributions: list[Attribution] = []
        for passage in self.passages:
            mode, setting = self._enter(walk, passage)
            named_in_passage = self._read_passage(passage, found, walk, mode, setting, attributions)
            if passage.is_heading and not named_in_passage and self.policy.heading_resets_focus:
                walk.focus = self.start_focus(mode, setting)
        return sorted(attributions, key=lambda a: a.index)

    def _read_passage(self, passage: SectionedPassage, found: Found, walk: Walk, mode: str, setting: str, attributions: list[Attribution]) -> bool:
        """Attribute the phenotypes of one passage, unit by unit (``attributions`` gets
        them); whether a unit of it names a patient."""
        named_in_passage = False
        header: dict[int, tuple[str, ...]] = {}
        for unit_index, (start, end) in enumerate(self._units(passage, found)):
            if found.empty(start, end):
                continue  # no patient mention to move the focus, no phenotype to give
            unit, in_unit = self._read_unit(walk, found, start, end, mode)
            if passage.is_table_body and unit_index == 0:
                header = self._header(start, end, unit.mentions)
            named_in_passage = named_in_passage or unit.named
            if not in_unit:
                continue
            cells = self._cells(start, end) if passage.is_table_body and header and unit_index > 0 and not unit.named else None
            general = None if passage.is_table_body or self.cues is None else self.cues.first("general", self.text[start:end])
            for index in in_unit:
                attribution = self.attribute(index, found.phenotypes[index], unit, walk.focus, mode, setting, passage.section, general)
                if cells is not None:
                    attribution = self._by_column(index, found.phenotypes[index], cells, header, passage.section) or attribution
                if attribution is not None:
                    attributions.append(attribution)
        return named_in_passage

    def _enter(self, walk: Walk, passage: SectionedPassage) -> tuple[str, str]:
        """The section's mode (and the policy row that sets it) at the start of a passage,
        and the focus it starts with: carried on, taken back from before a float (a figure
        or table interrupting the text), or started afresh."""
        mode, setting = self.policy.mode(passage.section, self.has_body, self.shape)
        floating = passage.section in self.policy.float_sections
        if not floating:
            walk.case_part = self._case_part(passage, walk.case_part)
            if walk.case_part is not None and passage.section not in self.policy.case_sections:
                mode, setting = self.policy.case_heading_mode, "case_heading_mode"
        if floating and walk.previous_section not in self.policy.float_sections:
            walk.body_focus = walk.focus
        if mode == "carry" and not floating and walk.previous_section in self.policy.float_sections and passage.section == walk.body_section:
            walk.focus = walk.body_focus  # the text goes on where the caption interrupted it
        elif mode != "carry" or passage.section != walk.previous_section:
            walk.focus = self.start_focus(mode, setting)
        if not floating:
            walk.body_section = passage.section
        walk.previous_section = passage.section
        return mode, setting

    def _units(self, passage: SectionedPassage, found: Found) -> list[tuple[int, int]]:
        """The stretches a passage is read in: a table's rows, else its sentences."""
        if passage.is_table_body:
            return self._rows(passage)
        return [(start, min(end, passage.end)) for start, end in within(found.sentences, passage.start, passage.end, found.sentence_starts)]

    def _read_unit(self, walk: Walk, found: Found, start: int, end: int, mode: str) -> tuple[Unit, list[int]]:
        """The patient mentions of a stretch, each resolved and moving the focus as it is
        read, and the positions of the stretch's phenotypes."""
        in_sentence: list[tuple[PatientMention, tuple[str, ...]]] = []
        for mention in within(found.mentions, start, end, found.mention_starts):
            resolved = self._pronoun_of_others(mention, in_sentence) or self.resolve(mention, walk.focus, mode, walk.recent)
            if resolved is None:
                continue
            in_sentence.append(resolved)
            if resolved[0].cue is None:
                walk.focus = self.next_focus(walk.focus, *resolved)
                if resolved[0].role == NAMED:
                    walk.recent.extend(resolved[0].patients)
        in_unit = within(found.order, start, end, found.phenotype_starts)
        return Unit(in_sentence, [found.phenotypes[i] for i in in_unit]), in_unit

    def _case_part(self, passage: SectionedPassage, case_part: SectionedPassage | None) -> SectionedPassage | None:
        """The case heading a passage is under: a heading that says a case is told below
        it ("Case presentation"), from there to the next heading of its level or above or
        the end of its section."""
        if case_part is not None and (passage.section != case_part.section or (passage.is_heading and passage.heading_level <= case_part.heading_level)):
            case_part = None
        if passage.is_heading and self.cues is not None and self.cues.first("case_heading", self.text[passage.start : passage.end].strip(), "fullmatch"):
            return passage
        return case_part

    def next_focus(self, focus: Focus | None, mention: PatientMention, chain: tuple[str, ...]) -> Focus | None:
        """Named patients become the focus; relatives ("his mother", listed or not) only by policy."""
        if mention.role not in (NAMED, RELATIVE, OTHER):
            return focus
        is_relative = mention.role in (RELATIVE, OTHER) or mention.kinship
        if is_relative and not self.policy.relative_sets_focus:
            subject = self._listed_kin_subject(mention)
            if subject is None:
                return focus
            chain = chain + (f"a listed relative of the patients' generation as the subject: {subject.name} ({subject.source})",)
        continued = focus is not None and mention.rule.rpartition(">")[2] == CONTINUES_FOCUS
        return Focus(mention.patients, mention, mention.rule, chain, focus.named_chain if continued else None)

    def _listed_kin_subject(self, mention: PatientMention):
        """The cue that makes a listed brother or sister the subject of its sentence ("her
        younger sister was born ..."): the next sentences speak of her. Not a parent."""
        if mention.role != NAMED or not mention.patients or self.cues is None:
            return None
        if any(p in self.people.ascendants for p in mention.patients):
            return None
        return self.cues.first("subject", self.text[mention.end : mention.end + 40])

    def attribute(self, index: int, phenotype: PhenotypeExtent, unit: Unit, focus: Focus | None, mode: str, setting: str, section: str, general=None) -> Attribution | None:
        if mode == "none":
            return None
        if self._held_by_a_parent(phenotype):
            return None
        chosen = self._bound(phenotype, unit)
        if chosen is None and mode in ("carry", "paragraph") and general is None:
            base = focus if focus is not None else self.unfocused(mode)
            if base is not None:
                chosen = Focus(base.patients, base.mention, f"focus:{base.rule}", base.chain + (f"focus carried: {self.policy.cite(setting)}",))
        if chosen is None:
            return None
        patients, chain = chosen.patients, chosen.chain
        for mention, mention_chain in unit.comparisons:
            if chosen.patients and self._compared(phenotype, mention, unit):
                patients = tuple(dict.fromkeys(patients + mention.patients))
                chain = chain + mention_chain + (f"comparison shares it: {mention.cue[1]} ({mention.cue[2]})",)
        if not patients:
            return None
        return Attribution(index, patients, chosen.rule, chosen.mention, section, chain)

    def _compared(self, phenotype: PhenotypeExtent, comparison: PatientMention, unit: Unit) -> bool:
        """Whether a comparison's clause holds the phenotype: "He had, like his sister, thick
        eyebrows, he presented micrognathia" shares the eyebrows only. Before the comparison,
        its clause goes back to the mention before it; after, it ends at the first patient
        mention that follows a phenotype of the clause ("Similar to P1, she had X" holds X)."""
        if not self.policy.comparison_clause:
            return True
        others = unit.plain_starts
        if phenotype.end <= comparison.start:  # no other mention between them
            first = bisect.bisect_left(others, phenotype.end)
            return not (first < len(others) and others[first] < comparison.start)
        # after it: no other mention between them that follows a phenotype of the clause
        last = bisect.bisect_left(others, phenotype.start) - 1  # the last other mention before the phenotype
        if last < 0 or others[last] < comparison.end:
            return True
        first = bisect.bisect_left(unit.phenotype_starts, comparison.end)
        return not (first < len(unit.phenotype_starts) and unit.phenotype_starts[first] < others[last])

    def _held_by_a_parent(self, phenotype: PhenotypeExtent) -> bool:
        """'maternal diabetes', "the mother's hypothyroidism": the words right before the
        phenotype give it to a parent, not to the patient talked about."""
        return self.cues is not None and self.cues.first("parent_of", self.text[max(0, phenotype.start - 40) : phenotype.start]) is not None

    def _bound(self, phenotype: PhenotypeExtent, unit: Unit) -> Focus | None:
        """The mention in the sentence the phenotype belongs to: one right after it that a
        postposed cue binds ("in the mother"), else the nearest before, else the nearest after."""
        before = bisect.bisect_right(unit.plain_ends, phenotype.start)  # unit.plain[:before] end before it
        after = bisect.bisect_left(unit.plain_starts, phenotype.end)  # unit.plain[after:] start after it
        if after < len(unit.plain) and before and self.cues is not None:
            mention, chain = unit.plain[after]
            cue = None if mention.start - phenotype.end > _POSTPOSED_REACH else self.cues.first("postposed", self.text[phenotype.end : mention.start])
            if cue is not None:
                return Focus(mention.patients, mention, f"postposed:{mention.rule}", chain + (f"bound from after: {cue.name} ({cue.source})",))
        if before:
            mention, chain = unit.plain[before - 1]
            return Focus(mention.patients, mention, mention.rule, chain + ("nearest patient mention before it in the sentence",))
        if after < len(unit.plain):
            mention, chain = unit.plain[after]
            return Focus(mention.patients, mention, mention.rule, chain + ("nearest patient mention after it in the sentence",))
        return None

    # --- tables -----------------------------------------------------------------------

    def _rows(self, passage: SectionedPassage) -> list[tuple[int, int]]:
        """A table body's rows: its lines."""
        rows, start = [], passage.start
        for match in re.finditer(r"\n", self.text[passage.start : passage.end]):
            end = passage.start + match.start()
            if end > start:
                rows.append((start, end))
            start = end + 1
        if passage.end > start:
            rows.append((start, passage.end))
        return rows

    def _cells(self, start: int, end: int) -> list[tuple[int, int]]:
        cells, cell_start = [], start
        for match in re.finditer(r"\t|\|", self.text[start:end]):
            cells.append((cell_start, start + match.start()))
            cell_start = start + match.end()
        cells.append((cell_start, end))
        return cells

    def _header(self, start: int, end: int, in_row: list) -> dict[int, tuple[str, ...]]:
        """Column -> patients, for a header row whose cells name one patient each (two or more)."""
        columns = {}
        named_in_row = [m for m, _ in in_row if m.role == NAMED]
        starts = [m.start for m in named_in_row]
        for column, (cell_start, cell_end) in enumerate(self._cells(start, end)):
            named = within(named_in_row, cell_start, cell_end, starts)
            if len(named) == 1:
                columns[column] = named[0].patients
        return columns if len(columns) >= 2 else {}

    def _by_column(self, index: int, phenotype: PhenotypeExtent, cells: list[tuple[int, int]], header: dict, section: str) -> Attribution | None:
        """A row under a header of patients (``cells``: the row's): a phenotype in a
        patient's column is that patient's; one in the row's first cell goes to the columns
        whose cell says present."""
        if phenotype.negated or self.cues is None:
            return None
        column = bisect.bisect_right(cells, (phenotype.start, math.inf)) - 1  # the last cell starting at or before it
        if column < 0 or phenotype.start >= cells[column][1]:
            column = None
        if column in header:
            return Attribution(index, header[column], "table_column", None, section, (f"table column {column} is {', '.join(header[column])}'s (header row)",))
        if column != 0:
            return None
        present, sources = [], []
        for other, patients in sorted(header.items()):
            if other < len(cells):
                cue = self.cues.first("cell_present", self.text[cells[other][0] : cells[other][1]].strip(), "fullmatch")
                if cue is not None:
                    present.extend(patients)
                    sources.append(f"{cue.name} ({cue.source})")
        if not present:
            return None
        return Attribution(index, tuple(present), "table_present", None, section, (f"table row: cells marked present under the patients' columns: {sorted(set(sources))}",))
