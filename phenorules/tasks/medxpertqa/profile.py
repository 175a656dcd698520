"""Phenotype profiles of a question: what the vignette says and what each option stands for.

The vignette's profile is the pipeline's phenotypes (the measurement stage included): the
present ones, and the negated ones as excluded findings. An option's profile is the
phenotypes its own text names plus the knowledge behind them: the annotations of a
disease it names, of the diseases of a gene it names, and for a disease-like HPO term it
names, the phenotypes shared by the diseases annotated with that term.
"""

from __future__ import annotations

from dataclasses import dataclass

from phenorules.core.annotated import annotated_articles
from phenorules.core.article import text_article

from .io import Question
from .knowledge import Knowledge

# An option's disease: terms annotated to at least this share of the diseases its name
# stands for (a name with subtypes stands for all of them; a gene, for the diseases it causes).
DISEASE_SHARE = 0.5
# A disease-like term: terms shared by at least this share of the diseases annotated with
# it, for terms that at most MAX_TERM_DISEASES diseases have.
TERM_SHARE = 0.3
MAX_TERM_DISEASES = 200


@dataclass(frozen=True)
class Mention:
    text: str
    hpo_id: str
    negated: bool
    provenance: tuple[str, ...]


@dataclass(frozen=True)
class OptionProfile:
    letter: str
    text: str
    phenotypes: tuple[str, ...]  # HPO ids the option names
    diseases: tuple[tuple[str, tuple[str, ...]], ...]  # (name key, disease ids) it names
    genes: tuple[tuple[str, tuple[str, ...]], ...]  # (gene symbol, disease ids) it names
    terms: frozenset[str]  # the profile the scorer compares

    @property
    def speaks(self) -> bool:
        return bool(self.terms)


@dataclass(frozen=True)
class QuestionProfile:
    question: Question
    mentions: tuple[Mention, ...]
    present: frozenset[str]
    excluded: frozenset[str]
    options: tuple[OptionProfile, ...]


def phenotype_mentions(nlp, text: str) -> list[Mention]:
    """The pipeline's phenotypes of ``text``, one Mention per HPO id (compounds split)."""
    (result,) = annotated_articles(nlp, [text_article(None, text)])
    return [Mention(phenotype.text, hpo_id, phenotype.negated, tuple(phenotype.provenance)) for phenotype in result.phenotypes for hpo_id in phenotype.hpo_ids]


def option_profile(nlp, knowledge: Knowledge, letter: str, text: str) -> OptionProfile:
    phenotypes = sorted({m.hpo_id for m in phenotype_mentions(nlp, text) if not m.negated and m.hpo_id in knowledge.lineage})
    diseases = knowledge.diseases_named_in(text)
    genes = knowledge.genes_named_in(text)
    terms: set[str] = set(phenotypes)
    for _, disease_ids in diseases + genes:
        terms |= knowledge.disease_profile(disease_ids, DISEASE_SHARE)
    for hpo_id in phenotypes:
        terms |= knowledge.term_profile(hpo_id, TERM_SHARE, MAX_TERM_DISEASES)
    return OptionProfile(letter, text, tuple(phenotypes), tuple(diseases), tuple(genes), frozenset(terms))


def question_profile(nlp, knowledge: Knowledge, question: Question) -> QuestionProfile:
    mentions = tuple(m for m in phenotype_mentions(nlp, question.stem) if m.hpo_id in knowledge.lineage)
    present = frozenset(m.hpo_id for m in mentions if not m.negated)
    excluded = frozenset(m.hpo_id for m in mentions if m.negated) - present
    options = tuple(option_profile(nlp, knowledge, letter, text) for letter, text in question.options)
    return QuestionProfile(question, mentions, present, excluded, options)


def profile_record(profile: QuestionProfile, knowledge: Knowledge) -> dict:
    """The JSONL record of ``phenorules medxpertqa profile``: findings with names and
    provenance, their ancestors, and each option's profile."""
    names = knowledge.ontology.names

    def ancestors(hpo_ids) -> list[str]:
        return sorted(set().union(*(knowledge.ancestors_of(h) for h in hpo_ids)) - set(hpo_ids)) if hpo_ids else []

    question = profile.question
    return {
        "id": question.id,
        **question.groups,
        "present": [{"hpo_id": h, "label": names.get(h, h)} for h in sorted(profile.present)],
        "excluded": [{"hpo_id": h, "label": names.get(h, h)} for h in sorted(profile.excluded)],
        "present_ancestors": ancestors(profile.present),
        "mentions": [
            {"text": m.text, "hpo_id": m.hpo_id, "negated": m.negated, "provenance": list(m.provenance)} for m in profile.mentions
        ],
        "options": [
            {
                "letter": option.letter,
                "text": option.text,
                "phenotypes": [{"hpo_id": h, "label": names.get(h, h)} for h in option.phenotypes],
                "diseases": [{"name": key, "ids": list(ids)} for key, ids in option.diseases],
                "genes": [{"symbol": symbol, "ids": list(ids)} for symbol, ids in option.genes],
                "profile": sorted(option.terms),
                "profile_ancestors": ancestors(option.terms),
            }
            for option in profile.options
        ],
    }
