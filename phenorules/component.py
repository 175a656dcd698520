"""phenorules in anyone's English pipeline: its stages as pipes of their own, in one call.

``nlp.add_pipe("phenorules")`` (or :func:`add_pipes`) adds every stage of
:data:`phenorules.stages.pipeline.STAGES` that runs with these settings, each under its stage name
(``nlp.pipe_names``, ``nlp.select_pipes`` see them), and then the ``phenorules`` component
itself, which puts the phenotypes in ``doc.ents`` (the non-overlapping ones, label
PHENOTYPE) beside ``doc.spans["phenotypes"]`` (all of them, with their extensions), and
one span per HPO term in ``doc.spans["phenotype_terms"]`` (a coordination such as "atrial
and ventricular septal defects" is one mention of two terms: two spans there). The
ontology, stage switches, stage settings and knowledge base settings are config, so
``nlp.config``, ``nlp.to_disk`` and ``spacy.load`` keep them: a stage already in the
pipeline (as when ``spacy.load`` rebuilds it from its config) is not added again, nor the
sentences stage to a pipeline that already sets sentences (a parser, a sentencizer).
"""

from __future__ import annotations

from spacy.attrs import ENT_ID, ENT_IOB, ENT_KB_ID, ENT_TYPE
from spacy.language import Language
from spacy.tokens import Doc, Span

from .core.document import PHENOTYPE_LABEL, PHENOTYPES, longest_spans, off_marks, phenotype_spans
from .kb.ontology import Ontology
from .core.phenotype import ASSERTION_FLAGS
from .stages.pipeline import add_pipes, add_stages, stage_plan  # noqa: F401  (add_pipes: the API of docs/spacy.md)
from .stages.profiles import GENERAL
from .stages.knowledge import KB_FUNCTION

SENTENCE_ANNOTATIONS = frozenset({"token.is_sent_start", "doc.sents"})
PHENOTYPE_TERMS = "phenotype_terms"
# What a mention says of each of its terms, set on a term span at an extent of its own.
MENTION_EXTENSIONS = (*ASSERTION_FLAGS, "assertion_cues", "patient", "patient_evidence", "provenance")


@Language.factory(
    "phenorules",
    default_config={"hpo": None, "disable": [], "enable": [], "stages": {}, "kb": {}, "kb_function": KB_FUNCTION, "profile": GENERAL},
)
def make_phenorules(
    nlp: Language, name: str, hpo: str | None, disable: list[str], enable: list[str], stages: dict[str, dict], kb: dict, kb_function: str, profile: str
):
    """``kb`` holds the settings of the registered function ``kb_function`` (kept apart:
    spaCy would resolve a ``"@misc"`` reference here, and the stages need the config);
    ``profile`` names the annotation conventions of ``rules/profiles.tsv`` (``general``:
    every use of a defined short form, every passage)."""
    plan = stage_plan(disable, stages, hpo, enable, {**kb, "@misc": kb_function}, profile)
    present = set(nlp.component_names)
    if sets_sentences(nlp):
        present.add("sentences")
    add_stages(nlp, [step for step in plan if step[0] not in present])
    return PhenotypeEntities(nlp.get_pipe("match").kb.ontology)


def sets_sentences(nlp: Language) -> bool:
    """Whether a component of ``nlp`` already sets sentence starts."""
    return any(SENTENCE_ANNOTATIONS & set(nlp.get_pipe_meta(name).assigns) for name in nlp.component_names)


class PhenotypeEntities:
    """Phenotypes become ``doc.ents``; the Doc's other entities stay where none overlaps.

    Every phenotype's ``kb_id_`` is its first HPO id, where spaCy's ``EntityLinker`` puts
    the linked id and displaCy's ``kb_url_template`` reads it; ``NIL`` (the
    ``EntityLinker``'s id for no entry) when no HPO term fits. ``ontology`` labels the
    term spans of a coordination."""

    def __init__(self, ontology: Ontology):
        self.ontology = ontology

    def __call__(self, doc: Doc) -> Doc:
        phenotypes = longest_spans(phenotype_spans(doc))
        taken = {i for span in phenotypes for i in range(span.start, span.end)}
        others = [ent for ent in doc.ents if taken.isdisjoint(range(ent.start, ent.end))]
        set_entities(doc, sorted(phenotypes + others, key=lambda span: span.start))
        doc.spans[PHENOTYPE_TERMS] = phenotype_terms(doc, self.ontology)
        return doc


def set_entities(doc: Doc, entities: list[Span]) -> None:
    """``doc.ents = entities`` for spans that do not overlap: each token's entity IOB, type,
    KB id and id as that setter leaves them (a span's own tokens B, I... of its label, KB id
    and id, if it has one; every other token O of no type, its ids kept), written through
    ``Doc.from_array`` in one pass of C, where the setter looks each token of the Doc up in
    a set of the entities' tokens."""
    attributes = [ENT_IOB, ENT_TYPE, ENT_KB_ID, ENT_ID]
    values = doc.to_array(attributes).reshape(-1, len(attributes))
    values[:, :2] = (_OUTSIDE, 0)
    for span in entities:
        if span.label:  # the setter leaves out a span of no label
            values[span.start : span.end, :3] = (_INSIDE, span.label, span.kb_id)
            values[span.start, 0] = _BEGIN
            if span.id:
                values[span.start : span.end, 3] = span.id
    doc.from_array(attributes, values)


_INSIDE, _OUTSIDE, _BEGIN = 1, 2, 3  # Token.ent_iob: Token.iob_strings() = ("", "I", "O", "B")


def phenotype_terms(doc: Doc, ontology: Ontology) -> list[Span]:
    """One span per HPO term of each mention, its id in ``kb_id_``: a mention of one term
    as it is; each term of a coordination at its own extent (``span._.parts``: "cleft lip"
    and "cleft lip and palate" of "cleft lip and palate"), with ``span._.coordination``
    the whole mention. spaCy keys extension values by offsets, so the terms of one extent
    share their ``_`` values: a term at the mention's extent has the mention's (its own id
    is its ``kb_id_``); a term at an extent of its own gets its own ids and label, and the
    mention's assertion flags and cues, patients and provenance, which hold for each of its
    terms ("no atrial or ventricular septal defects": both negated)."""
    terms = []
    for span in doc.spans.get(PHENOTYPES, []):
        hpo_ids = span._.hpo_ids or ()
        if len(hpo_ids) < 2:
            terms.append(span)  # its kb_id_ is its id, or NIL
            continue
        parts = span._.parts or [(span.start_char, span.end_char, (hpo_id,)) for hpo_id in hpo_ids]
        for start, end, part_ids in parts:
            for hpo_id in part_ids:
                term = off_marks(doc.char_span(start, end, label=PHENOTYPE_LABEL, alignment_mode="expand"))
                if term is None:
                    continue
                term.kb_id_ = hpo_id
                if (term.start_char, term.end_char) != (span.start_char, span.end_char):
                    term._.hpo_ids, term._.hpo_label, term._.parts = part_ids, ontology.label(part_ids), None
                    for name in MENTION_EXTENSIONS:
                        term._.set(name, span._.get(name))
                term._.coordination = span
                terms.append(term)
    return terms
