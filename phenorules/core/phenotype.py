"""What the core says a phenotype mention is: one record, from the stage that finds it to
every writer.

A mention names a tuple of HPO ids: one term, or several for a compound mention ("cleft
lip/palate" is Cleft lip and Cleft palate); an empty tuple when no HPO term fits the
phenotype (``unknown``). The stages hand :class:`Phenotype` records to each other (the
Doc's :class:`~phenorules.core.document.DocState`) and change them in place; an
:class:`~phenorules.core.annotated.AnnotatedArticle` holds them for the writers, and the
spaCy component makes one Span of each, once, after the last stage
(:func:`phenorules.core.document.phenotype_spans`). How a task or a data file writes ids
(PatientPheX joins them with ';' and writes '-1' for no term) is its adapter's business:
:mod:`phenorules.formats.patientphex.identifiers`, :mod:`phenorules.kb.lexicon.tsv`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..kb.lexicon.tsv import format_ids

HpoIds = tuple[str, ...]
# The assertion flags on a mention (medspaCy's names), as the assertion stage sets them.
ASSERTION_FLAGS = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")
# A mention with one of these flags states neither that the patient has the finding nor that
# it has not ("hypothyroidism is suspected but not confirmed", "return if fever occurs").
UNSTATED_FLAGS = frozenset({"is_uncertain", "is_hypothetical"})
# A term of a compound mention at its own extent: (start, end, its ids).
Part = tuple[int, int, HpoIds]


def association_values(hpo_ids: HpoIds | None, text: str) -> list[str]:
    """What a mention gives the patients it is attributed to: its ids, or its text when no
    HPO term fits (a span without ids gives nothing)."""
    if hpo_ids is None:
        return []
    return list(hpo_ids) if hpo_ids else [text]


@dataclass
class Phenotype:
    """One phenotype mention: where it is, what it names, what the stages said of it and
    which rule rows made every decision."""

    start: int  # character offsets in the Doc (the article's global offsets)
    end: int
    text: str
    hpo_ids: HpoIds  # empty: no HPO term fits
    label: str
    provenance: list[str] = field(default_factory=list)  # the lexicon entry and every rule that made or changed it
    parts: tuple[Part, ...] = ()  # of a compound: each term's own extent (coordination, predicative)
    assertions: tuple[str, ...] = ()  # the flags the assertion stage set, in ASSERTION_FLAGS order
    cues: list[dict] = field(default_factory=list)  # the cues that set them: {"category", "text", "start", "end", "rule"}
    patients: list[str] = field(default_factory=list)  # patient ids it is attributed to
    evidence: list[dict] = field(default_factory=list)  # why it went to each patient

    @property
    def negated(self) -> bool:
        return "is_negated" in self.assertions

    @property
    def unknown(self) -> bool:
        return not self.hpo_ids

    def flagged(self, flag: str) -> bool:
        return flag in self.assertions

    def flag(self, flag: str) -> None:
        """Set one of :data:`ASSERTION_FLAGS`."""
        if flag not in self.assertions:
            self.assertions = tuple(name for name in ASSERTION_FLAGS if name == flag or name in self.assertions)


@dataclass(frozen=True)
class PatientFeatures:
    """What a patient is stated to have (``observed``) and not to have (``excluded``): the
    features of its Phenopacket, each sorted."""

    observed: tuple[str, ...]
    excluded: tuple[str, ...]


def patient_features(patient_id: str, association: Iterable[str], mentions: Iterable[Phenotype]) -> PatientFeatures:
    """The one rule of what a patient's association and the mentions attributed to it state.

    Observed: the association's values less the ids whose every non-negated mention
    attributed to the patient is uncertain or hypothetical (:data:`UNSTATED_FLAGS`); an
    id no mention attributed to it gives (an association written without its mentions)
    stays. Excluded: the ids of the negated mentions attributed to the patient that are
    neither uncertain nor hypothetical, unless observed. Attribution alone says whose a
    finding is: ``is_family`` takes nothing from the patient a mention is attributed to
    (the patient stage gives a relative's finding to that relative when it is a listed
    patient, and to nobody else)."""
    stated: set[str] = set()
    unstated: set[str] = set()
    absent: set[str] = set()
    for mention in mentions:
        if patient_id not in mention.patients:
            continue
        certain = UNSTATED_FLAGS.isdisjoint(mention.assertions)
        if mention.negated:
            absent.update(mention.hpo_ids if certain else ())
        else:
            (stated if certain else unstated).update(mention.hpo_ids)
    observed = set(association) - (unstated - stated)
    return PatientFeatures(tuple(sorted(observed)), tuple(sorted(absent - observed)))


def patient_ids(value: object) -> list[str]:
    """``span._.patient`` as a list of ids, whether a stage stored one id or a list."""
    if not value:
        return []
    return [value] if isinstance(value, str) else [str(item) for item in value]


def mention_rows(article_id: str | None, phenotypes: list[Phenotype]) -> list[dict]:
    """The mentions as ``phenorules annotate --json`` and ``/annotate`` list them."""
    return [
        {
            "article": article_id,
            "start": phenotype.start,
            "end": phenotype.end,
            "text": phenotype.text,
            "hpo_id": format_ids(phenotype.hpo_ids),
            "label": phenotype.label,
            "negated": phenotype.negated,
            **{flag.removeprefix("is_"): flag in phenotype.assertions for flag in ASSERTION_FLAGS[1:]},
            "assertion_cues": [dict(cue) for cue in phenotype.cues],
            "patients": list(phenotype.patients),
            "provenance": list(phenotype.provenance),
        }
        for phenotype in phenotypes
    ]
