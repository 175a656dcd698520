"""Growth measures given as a centile, an SD score or a BMI value become HPO findings.

Case reports give growth as numbers: "OFC 42 cm (-2.8 SD)", "her height was below the 3rd
centile", "weight and length <P3", "BMI 36 kg/m2". HPO defines its growth terms by the same
numbers: Microcephaly is a head circumference below -2 SD, Mild microcephaly from -3 to
-2 SD, Short stature below -2 SD or the 3rd percentile with its mild, moderate and severe
grades, Class II obesity a BMI of 35 to 39.9. Each value the grammar reads
(:mod:`phenorules.growth.grammar`) becomes a mention over its measures and itself with the
most specific finding of ``rules/growth.tsv`` it satisfies, its provenance the measure's
row and the finding's (``rules/growth.tsv:LINE:height``, ``rules/growth.tsv:LINE:sd
[-3,-2)``); measures sharing one value make one compound mention. As in the
``measurements`` stage, a value over a mention another stage found is left to it, and a
finding the text already names (it, a broader or a narrower term, or a finding its grade
refines) adds nothing. A stage of its own, not rows of ``measurements``: its values are
read with comparisons and ranges, before or after their measure, which the laboratory
values' grammar refuses, and its profiles differ (docs/context.md, "Growth measurements").
"""

from __future__ import annotations

from itertools import chain

from spacy.language import Language
from spacy.tokens import Doc

from ..core.document import GATHERS, DocState, MentionStage, placed, working
from ..core.intervals import Extents
from ..core.phenotype import Phenotype
from ..growth.grammar import SAME_LENGTH, Grammar, Reading
from ..growth.rules import Finding, GrowthRules, read_growth_rules
from ..kb.knowledge_base import KnowledgeBase
from ..kb.resources import data_file
from .knowledge import KB_CONFIG


@Language.factory(
    "phenorules_growth",
    default_config={"kb": KB_CONFIG, "rules_file": None, "ordinals_file": None, "number_words_file": None, "spans": True},
)
def make_growth(nlp: Language, name: str, kb: KnowledgeBase, rules_file: str | None, ordinals_file: str | None, number_words_file: str | None, spans: bool):
    path = data_file("rules", "growth.tsv", rules_file)
    ordinals, numbers = data_file("rules", "ordinals.tsv", ordinals_file), data_file("rules", "number_words.tsv", number_words_file)
    return placed(Growth(read_growth_rules(path, kb.ontology.names, ordinals, numbers), kb), spans)


class Growth(MentionStage):
    pieces = GATHERS  # the ids the whole article names

    def __init__(self, rules: GrowthRules, kb: KnowledgeBase):
        self.rules = rules
        self.grammar = Grammar(rules)
        self.kb = kb

    def gather(self, doc: Doc) -> set[str]:
        """The ids a piece's mentions name."""
        return {hpo_id for m in working(doc).mentions for hpo_id in m.hpo_ids}

    def merged(self, gathered: list[tuple[int, set[str]]], text: str) -> set[str]:
        return {hpo_id for _, named in gathered for hpo_id in named}

    def apply(self, doc: Doc) -> None:
        state = working(doc)
        readings = self.grammar.readings(state.text.translate(SAME_LENGTH))
        if not readings:
            return
        before = Extents((m.start, m.end) for m in state.mentions)
        named = self.gather(doc) if state.carried is None else state.carried
        related: dict[str, bool] = {}  # finding id -> whether the text names it, a broader or a narrower term
        added: list[Phenotype] = []
        for reading in readings:
            extent = state.expanded(doc, reading.start, reading.end)
            if extent is None or before.overlaps_any(*extent) or (added and added[-1].end > extent[0]):
                continue
            findings = [(hit, finding) for hit, finding in self._findings(reading) if not self._named(finding, named, related)]
            if findings:
                added.append(self._mention(doc, state, reading, extent, findings))
        if added:
            state.mentions = sorted([*state.mentions, *added], key=lambda m: (m.start, m.end))

    def _findings(self, reading: Reading):
        """(measure, finding) for each measure of the reading whose value gives a finding,
        each finding once."""
        seen = set()
        for hit in reading.measures:
            finding = self.rules.finding(hit.group, reading.value) if hit.group else None
            if finding is not None and finding.hpo_id not in seen:
                seen.add(finding.hpo_id)
                yield hit, finding

    def _named(self, finding: Finding, named: set[str], related: dict[str, bool]) -> bool:
        if finding.hpo_id not in related:
            related[finding.hpo_id] = not named.isdisjoint(self._lineage(self.rules.related_ids(finding)))
        return related[finding.hpo_id]

    def _lineage(self, ids: tuple[str, ...]) -> frozenset[str]:
        """The ids, their ancestors and their descendants (what names one of them, a
        broader or a narrower term), read from the hierarchy once per set of ids."""
        known = self.__dict__.setdefault("_lineages", {})
        if ids not in known:
            import networkx as nx  # slow to import, and most texts give no growth value

            graph = self.kb.ontology.graph
            known[ids] = frozenset(chain(ids, *(nx.descendants(graph, hpo_id) | nx.ancestors(graph, hpo_id) for hpo_id in ids)))
        return known[ids]

    def _mention(self, doc: Doc, state: DocState, reading: Reading, extent: tuple[int, int], findings: list) -> Phenotype:
        start, end = extent
        hpo_ids = tuple(finding.hpo_id for _, finding in findings)
        provenance = [step for hit, finding in findings for step in (f"rules/{hit.measure.ref}:{hit.group}", finding.provenance)]
        parts = ()
        if len(findings) > 1:  # each term over its measure and the value
            spans = ((reading.start, hit.end) if reading.value_first else (hit.start, reading.end) for hit, _ in findings)
            parts = tuple((*(state.expanded(doc, *span) or extent), (finding.hpo_id,)) for span, (_, finding) in zip(spans, findings))
        return Phenotype(start, end, state.text[start:end], hpo_ids, self.kb.ontology.label(hpo_ids), provenance, parts)
