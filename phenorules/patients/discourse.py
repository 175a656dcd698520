"""The records of the patient attribution walk (:mod:`phenorules.patients.attribution`):
the passages and phenotypes it reads, the focus it keeps, the attributions it makes, and
the sentences and mentions it finds by bisection."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Sequence

from .mentions import NAMED, PatientMention

# The last step of the rule of an anaphor that stands for the focus patients, all of them.
CONTINUES_FOCUS = "focus"


@dataclass(frozen=True)
class SectionedPassage:
    """A passage as the walk reads it: its extent, section and kind (the article's own
    :class:`phenorules.core.article.Passage` holds the text)."""

    start: int
    end: int
    section: str
    kind: str  # paragraph, title_1, fig_caption, table, ...

    @property
    def is_heading(self) -> bool:
        return "title" in self.kind and "caption" not in self.kind

    @property
    def heading_level(self) -> int:
        """1 for ``title_1`` (and a plain ``title``), 2 for ``title_2``, ..."""
        digits = "".join(ch for ch in self.kind if ch.isdigit())
        return int(digits) if digits else 1

    @property
    def is_table_body(self) -> bool:
        return "table" in self.kind and not any(part in self.kind for part in ("caption", "title", "foot"))


@dataclass(frozen=True)
class PhenotypeExtent:
    """What attribution needs of a phenotype mention: where it is and whether it is negated."""

    start: int
    end: int
    negated: bool


@dataclass(frozen=True)
class Focus:
    """Who is being talked about, the mention that said so, and the rules behind it.

    ``origin`` is the chain of the mention that named the focused patients when an anaphor
    ("they", "she") continues the focus: the next anaphor cites it, not every anaphor in
    between, so a chain stays as long as one link (a section of a thousand "they" would
    otherwise give each phenotype a chain of a thousand links: quadratic memory)."""

    patients: tuple[str, ...]
    mention: PatientMention | None
    rule: str
    chain: tuple[str, ...] = ()
    origin: tuple[str, ...] | None = None

    @property
    def named_chain(self) -> tuple[str, ...]:
        """The chain of the mention that named the focused patients."""
        return self.chain if self.origin is None else self.origin


@dataclass(frozen=True)
class Attribution:
    """Phenotype ``index`` goes to ``patients`` by ``rule``, because of ``mention``;
    ``chain`` lists every rule row on the way, first to last."""

    index: int
    patients: tuple[str, ...]
    rule: str
    mention: PatientMention | None
    section: str
    chain: tuple[str, ...] = ()


class Unit:
    """A sentence (or table row) of the walk: the patient mentions resolved in it, in text
    order and never overlapping, and the starts of its phenotypes, so that each phenotype
    finds the mentions around it by bisection (a sentence of an article-sized list holds
    thousands of both)."""

    def __init__(self, mentions: list[tuple[PatientMention, tuple[str, ...]]], phenotypes: Sequence[PhenotypeExtent]):
        self.mentions = mentions
        self.plain = [(m, c) for m, c in mentions if m.cue is None]  # no comparison, contrast or joining before them
        self.plain_starts = [m.start for m, _ in self.plain]
        self.plain_ends = [m.end for m, _ in self.plain]
        self.comparisons = [(m, c) for m, c in mentions if m.cue is not None and m.cue[0] in ("comparison", "together") and m.role == NAMED]
        self.phenotype_starts = sorted(p.start for p in phenotypes)
        self.named = any(m.role == NAMED for m, _ in mentions)


def within(items: Sequence, start: int, end: int, starts: list[int]) -> list:
    """Items (sorted by .start) that start inside [start, end)."""
    return list(items[bisect.bisect_left(starts, start) : bisect.bisect_left(starts, end)])


def cite(mention: PatientMention) -> str:
    return f"mention {mention.text!r}@{mention.start}: {mention.rule} ({mention.source or '?'})"


def as_named(mention: PatientMention, patients: tuple[str, ...], via: str, chain: tuple[str, ...]) -> tuple[PatientMention, tuple[str, ...]]:
    return replace(mention, rule=f"{mention.rule}>{via}", role=NAMED, patients=patients), chain


@dataclass
class Walk:
    """What the walk through an article carries from one passage to the next."""

    focus: Focus | None = None
    recent: list[str] = field(default_factory=list)  # the patients named so far, in order
    previous_section: str | None = None
    body_section: str | None = None
    body_focus: Focus | None = None  # the focus of the text a float (figure, table) interrupts
    case_part: SectionedPassage | None = None  # the case heading ("Case presentation") the text is under


class Found:
    """The sentences, patient mentions and phenotypes of an article, sorted by start for
    finding those within a stretch (:func:`within`)."""

    def __init__(self, sentences: list[tuple[int, int]], mentions: list[PatientMention], phenotypes: list[PhenotypeExtent]):
        self.sentences, self.mentions, self.phenotypes = sentences, mentions, phenotypes
        self.sentence_starts = [s for s, _ in sentences]
        self.mention_starts = [m.start for m in mentions]
        self.order = sorted(range(len(phenotypes)), key=lambda i: phenotypes[i].start)
        self.phenotype_starts = [phenotypes[i].start for i in self.order]

    def empty(self, start: int, end: int) -> bool:
        """Whether no patient mention and no phenotype starts in [start, end)."""
        mentions, phenotypes = self.mention_starts, self.phenotype_starts
        return bisect.bisect_left(mentions, start) == bisect.bisect_left(mentions, end) and bisect.bisect_left(phenotypes, start) == bisect.bisect_left(phenotypes, end)
