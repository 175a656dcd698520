"""The patient stage: which of the article's listed patients has which phenotype.

Finds every place that refers to a patient (``rules/patient_mentions.tsv``), gives each
phenotype mention to the patient talked about there (``rules/patient_policy.tsv``)
and sets ``span._.patient``, ``span._.patient_evidence`` and ``doc._.associations``
(patient id -> sorted ids of its non-negated mentions; a ``-1`` phenotype contributes its
text, as the gold does), and ``doc._.subjects`` (patient id -> the sex and age the text says
of it, ``rules/patient_subjects.tsv``). A negated mention keeps its patients (who is stated
not to have it: a Phenopacket's excluded feature) but gives no association. A mention with
one of the ``unattributed`` assertion flags (``is_family``: a relative's finding) goes to no
patient, unless the relative is a listed patient (the words that set the flag name it, "her
brother, Patient 2, had X", or the finding went to it by a mention that names it as a
relative, "dyslexia in the proband's mother") or the clause gives the finding to the patient
and the relative together ("she and her mother had X"). A text that lists no patient (plain text, BioC without patients) is about one:
``proband``, to whom its phenotypes go unless they are a relative's (flagged or attributed
to the relative) or another person's.
"""

from __future__ import annotations

from bisect import bisect_left

from spacy.language import Language
from spacy.tokens import Doc

from ..core.article import Patient
from ..assertion.rules import FLAGS
from ..core.document import ARTICLE, MentionStage, placed, working
from ..core.errors import SettingError
from ..core.phenotype import ASSERTION_FLAGS, Phenotype, association_values
from ..patients.attribution import Attributor
from ..patients.discourse import Attribution, PhenotypeExtent, SectionedPassage
from ..patients.mentions import NAMED, find_people
from ..patients.rules import PatientRules, load_patient_rules
from ..patients.subjects import SUBJECTS_FILE, SubjectRule, find_subjects, read_subject_rules
from ..kb.resources import data_file

PROBAND = Patient("proband")  # the text's one subject when the input lists no patient
_APPOSITION_GAP = 3  # characters between a kinship cue and the patient label it stands beside (", " or " (")


@Language.factory(
    "phenorules_patients",
    default_config={"mentions_file": None, "number_words_file": None, "policy_file": None, "cues_file": None, "subjects_file": None, "unattributed": ["is_family"], "text_subject": True, "spans": True},
)
def make_patient_attributor(
    nlp: Language,
    name: str,
    mentions_file: str | None,
    number_words_file: str | None,
    policy_file: str | None,
    cues_file: str | None,
    subjects_file: str | None,
    unattributed: list[str],
    text_subject: bool,
    spans: bool,
):
    """``text_subject``: a text that lists no patient is about one, ``proband``; off where a
    task scores the given patients only (the patientphex profile)."""
    unknown = sorted(set(unattributed) - set(ASSERTION_FLAGS))
    if unknown:
        raise SettingError(f"patients.unattributed: unknown flag(s) {unknown}; the flags are {list(ASSERTION_FLAGS)}")
    rules = load_patient_rules(
        data_file("rules", "patient_mentions.tsv", mentions_file),
        data_file("rules", "number_words.tsv", number_words_file),
        data_file("rules", "patient_policy.tsv", policy_file),
        data_file("rules", "patient_cues.tsv", cues_file),
    )
    return placed(PatientAttributor(rules, tuple(unattributed), read_subject_rules(data_file("rules", SUBJECTS_FILE, subjects_file)), text_subject), spans)


class PatientAttributor(MentionStage):
    pieces = ARTICLE

    def __init__(self, rules: PatientRules, unattributed: tuple[str, ...] = (), subject_rules: tuple[SubjectRule, ...] = (), text_subject: bool = True):
        self.rules = rules
        self.unattributed = unattributed
        self.subject_rules = subject_rules
        self.text_subject = text_subject

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        patients = doc._.patients or ()
        mentions = state.mentions
        for mention in mentions:  # a Doc run again starts unattributed
            mention.patients, mention.evidence = [], []
        if not patients and self.text_subject:  # plain text, BioC without patients: the text's subject is one patient
            patients = doc._.patients = (PROBAND,)
        passages = [SectionedPassage(*passage) for passage in state.passages(doc)]
        text = state.text
        people = find_people(text, patients, self.rules)
        phenotypes = [PhenotypeExtent(m.start, m.end, m.negated) for m in mentions]
        patient_ids = [p.id for p in patients]
        subjects = find_subjects(text, people, patient_ids, self.subject_rules, self.rules.cues, self.rules.number_words)
        doc._.subjects = {patient_id: subject.data() for patient_id, subject in subjects.items()}
        named, joined = _Placed.named(people.mentions), _Placed.together(people.mentions)
        attributor = Attributor(self.rules.policy, patient_ids, passages, people, self.rules.cues, text)
        attributions = [a for a in attributor.run(state.sentences(doc), people.mentions, phenotypes) if self.keeps(mentions[a.index], a, named, joined)]
        doc._.associations = associations(mentions, attributions, patient_ids)
        for attribution in attributions:
            mention = mentions[attribution.index]
            mention.patients = list(attribution.patients)
            mention.evidence = [evidence(attribution)]
            mention.provenance = [*mention.provenance, f"patient:{attribution.rule}"]

    def keeps(self, mention: Phenotype, attribution: Attribution, named: "_Placed", joined: "_Placed") -> bool:
        """Whether a mention flagged ``unattributed`` still goes to its patients: when the
        words that set the flag are, or stand in apposition to, a mention of those listed
        patients ("her brother, Patient 2,", "her brother (P2)"); when it went to them by a
        mention that names them as relatives ("in the proband's mother", P2's given
        mention); or when those words are a relative joined to the patient ("she and her
        mother", "the patient as well as his father": ``together`` cues)."""
        flags = [flag for flag in self.unattributed if mention.flagged(flag)]
        if not flags:
            return True
        cues = [cue for cue in mention.cues if FLAGS[cue["category"]] in flags]
        patients = {patient for cue in cues for found in named.at(cue["start"], cue["end"] + _APPOSITION_GAP) for patient in found.patients}
        if (patients and set(attribution.patients) <= patients) or names_relatives(attribution):
            return True
        together = next((found for cue in cues for found in joined.at(cue["start"], cue["end"])), None)
        if together is not None:
            mention.provenance = [*mention.provenance, f"patient:together:{together.cue[2]}"]
            return True
        mention.provenance = [*mention.provenance, f"patient:unattributed:{','.join(flags)}"]
        return False


def names_relatives(attribution: Attribution) -> bool:
    """Whether the attribution went to listed patients by a mention that names them as
    relatives ("the proband's mother" given as P2)."""
    found = attribution.mention
    return found is not None and found.role == NAMED and found.kinship and set(attribution.patients) <= set(found.patients)


class _Placed:
    """Patient mentions by position (bisection over their starts): the listed patients'
    (``named``) or the relatives joined to a patient (``together``)."""

    def __init__(self, mentions):
        self.mentions = [(m.start, m.end, m) for m in sorted(mentions, key=lambda m: (m.start, m.end))]
        self.starts = [start for start, _, _ in self.mentions]
        self.longest = max((end - start for start, end, _ in self.mentions), default=0)

    @classmethod
    def named(cls, mentions) -> "_Placed":
        return cls(m for m in mentions if m.role == NAMED and m.patients)

    @classmethod
    def together(cls, mentions) -> "_Placed":
        return cls(m for m in mentions if m.cue is not None and m.cue[0] == "together")

    def at(self, start: int, end: int) -> list:
        """The mentions that overlap characters [start, end)."""
        found = []
        for index in range(bisect_left(self.starts, start - self.longest), bisect_left(self.starts, end)):
            mention_start, mention_end, mention = self.mentions[index]
            if mention_start < end and start < mention_end:
                found.append(mention)
        return found


def associations(mentions: list[Phenotype], attributions: list[Attribution], patient_ids: list[str]) -> dict[str, list[str]]:
    found: dict[str, set[str]] = {patient_id: set() for patient_id in patient_ids}
    for attribution in attributions:
        mention = mentions[attribution.index]
        if mention.negated:
            continue
        values = association_values(mention.hpo_ids, mention.text)
        for patient_id in attribution.patients:
            found[patient_id].update(values)
    return {patient_id: sorted(values) for patient_id, values in found.items()}


def evidence(attribution: Attribution) -> dict:
    """Why a phenotype went to its patients: the rule and the patient mention behind it."""
    mention = attribution.mention
    return {
        "patients": list(attribution.patients),
        "rule": attribution.rule,
        "section": attribution.section,
        "patient_mention": None if mention is None else {"text": mention.text, "offset": mention.start, "rule": mention.rule, "source": mention.source},
        "chain": list(attribution.chain),
    }
