"""The phenorules pipeline: a blank English spaCy pipeline and a readable list of stages.

Each stage is a registered spaCy component with its own rule or lexicon files, and a pipe
of its own in ``nlp.pipe_names``; a stage is switched off by a setting (``disable``),
never by editing code, so that ablations are configuration. Stage settings override the
component's default config; the knowledge base the stages share is config of each
(:mod:`phenorules.stages.knowledge`).
"""

from __future__ import annotations

import inspect
import json
import typing
from typing import Iterable

import spacy
from spacy.language import Language

from ..core import tokenizer  # noqa: F401  (registers the tokenizer)
from ..core.errors import SettingError
from ..core.lexeme_attributes import faster_getters
from . import STAGE_ROWS, stage_factory
from .profiles import GENERAL, KB_TARGET, apply_profile
from .profiles import profile as profile_named
from ..core.article import MAX_ARTICLE_CHARS
from ..core.document import SPANS_PIPE
from .knowledge import KB_FUNCTION, knowledge_base

# (stage name, spaCy factory) in the order they run (rules/stages.tsv).
STAGES: tuple[tuple[str, str], ...] = tuple((name, stage_factory(name)) for name, _ in STAGE_ROWS)
REQUIRED_STAGES = frozenset(name for name, switch in STAGE_ROWS if switch == "required")
# The stage settings the plan sets itself (stage_plan), never a user.
PLAN_SETTINGS = frozenset({"kb", "spans"})
# Stages that run only when enabled (by an option or a profile's row).
OPTIONAL_STAGES = frozenset(name for name, switch in STAGE_ROWS if switch == "optional")


def blank_english() -> Language:
    """spaCy's blank English with the word tokenizer (token boundaries = match boundaries),
    taking articles up to MAX_ARTICLE_CHARS (no stage is a parser or NER model), its
    lexemes' attributes read by :func:`~phenorules.core.lexeme_attributes.faster_getters`."""
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "phenorules.WordTokenizer.v1"}}})
    nlp.max_length = MAX_ARTICLE_CHARS
    nlp.vocab.lex_attr_getters = faster_getters(nlp.vocab.lex_attr_getters)
    return nlp


def stage_plan(
    disable: Iterable[str] = (),
    stage_config: dict[str, dict] | None = None,
    hpo: str | None = None,
    enable: Iterable[str] = (),
    kb: dict | None = None,
    profile: str = GENERAL,
) -> list[tuple[str, str, dict]]:
    """(stage, factory, config) for every stage of :data:`STAGES` that runs, in order: all
    but the disabled ones and the :data:`OPTIONAL_STAGES` not enabled, with the switches
    and settings of ``profile`` (``rules/profiles.tsv``) under the given ones.

    Every stage whose factory has a ``kb`` setting gets the same knowledge base config:
    ``kb`` (settings of ``phenorules.KnowledgeBase.v1``, or another registered function
    named by ``"@misc"``) over the profile's ``kb.`` rows, with ``hpo`` as its ontology, so
    that a stage added to STAGES shares it without a change here. A stage with a ``spans``
    setting leaves its mentions as records (:class:`~phenorules.core.document.MentionStage`):
    the ``phenorules`` pipe after the stages makes them spans.
    """
    names = stage_names()
    given = set(disable) | set(enable) | set(stage_config or {})
    if given - set(names):
        raise SettingError(f"unknown stage(s) {sorted(given - set(names))}; stages are {names}")
    check_settings(stage_config or {})
    check_profile(profile)
    disabled, enabled, stage_config = apply_profile(profile, disable, enable, stage_config)
    disabled |= OPTIONAL_STAGES - enabled
    if disabled & REQUIRED_STAGES:
        raise SettingError(f"stage(s) {sorted(disabled & REQUIRED_STAGES)} cannot be switched off")
    profile_kb = stage_config.pop(KB_TARGET, {})
    if kb and kb.get("@misc", KB_FUNCTION) != KB_FUNCTION:  # another function's settings are its own
        profile_kb = {}
    kb_config = {"@misc": KB_FUNCTION, **profile_kb, **(kb or {}), **({"hpo": hpo} if hpo else {})}
    plan = []
    for name, factory in STAGES:
        if name in disabled:
            continue
        config = dict(stage_config.get(name, {}))
        defaults = Language.get_factory_meta(factory).default_config
        if "kb" in defaults:
            config["kb"] = dict(kb_config)
        if "spans" in defaults:
            config["spans"] = False  # the phenorules pipe after the stages makes the spans
        plan.append((name, factory, config))
    return plan


def add_stages(nlp: Language, plan: list[tuple[str, str, dict]]) -> Language:
    """Add the stages of a :func:`stage_plan` to ``nlp``, each a pipe of its own."""
    for name, factory, config in plan:
        nlp.add_pipe(factory, name=name, config=config)
    return nlp


def build_pipeline(
    disable: Iterable[str] = (),
    stage_config: dict[str, dict] | None = None,
    hpo: str | None = None,
    enable: Iterable[str] = (),
    kb: dict | None = None,
    profile: str = GENERAL,
) -> Language:
    """A ready nlp: the stages :func:`stage_plan` names and the ``phenorules`` pipe that
    makes their mentions spans (:func:`add_pipes`)."""
    nlp = blank_english()
    add_pipes(nlp, hpo, disable, enable, stage_config, kb, profile)
    return nlp


def add_pipes(
    nlp: Language,
    hpo: str | None = None,
    disable: Iterable[str] = (),
    enable: Iterable[str] = (),
    stages: dict[str, dict] | None = None,
    kb: dict | None = None,
    profile: str = GENERAL,
) -> list[str]:
    """Add phenorules' stages and the ``phenorules`` component (:mod:`phenorules.component`,
    found by its factory name) to ``nlp``; the names added.

    ``kb``: settings of ``phenorules.KnowledgeBase.v1``, or ``{"@misc": NAME, ...}`` for
    another function registered in ``spacy.registry.misc`` that returns a knowledge base.
    """
    before = list(nlp.component_names)
    settings = dict(kb or {})
    kb_function = settings.pop("@misc", KB_FUNCTION)
    config = {"hpo": hpo, "disable": list(disable), "enable": list(enable), "stages": stages or {}, "kb": settings, "kb_function": kb_function, "profile": profile}
    nlp.add_pipe(SPANS_PIPE, config=config)
    return [name for name in nlp.component_names if name not in before]


def parse_settings(assignments: Iterable[str]) -> dict[str, dict]:
    """Stage settings from ``STAGE.SETTING=VALUE`` strings (``abbreviations.bare_uses=unnamed``):
    VALUE is read as JSON (``true``, ``3``, ``["a"]``), or else taken as a string."""
    settings: dict[str, dict] = {}
    for assignment in assignments:
        target, equals, value = assignment.partition("=")
        stage, dot, setting = target.partition(".")
        if not (equals and dot and stage and setting):
            raise SettingError(f"--set {assignment!r}: expected STAGE.SETTING=VALUE, such as abbreviations.bare_uses=unnamed")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        except RecursionError:
            raise SettingError(f"--set {target}: VALUE is JSON nested too deeply") from None
        settings.setdefault(stage.strip(), {})[setting.strip()] = parsed
    return settings


def check_settings(stage_config: dict[str, dict]) -> None:
    """Each setting must be one the stage's factory has, of its default's type (a number
    for a number), or, where the default is null, of a type its parameter names ("int |
    None": a number or null); the factory checks the values themselves."""
    for name, factory in STAGES:
        defaults = Language.get_factory_meta(factory).default_config
        for setting, value in stage_config.get(name, {}).items():
            if setting not in defaults or setting in PLAN_SETTINGS:
                known = sorted(key for key in defaults if key not in PLAN_SETTINGS)
                raise SettingError(f"stage {name} has no setting {setting!r}; its settings are {known}")
            default = defaults[setting]
            if default is not None and not _of_type(value, type(default)):
                raise SettingError(f"{name}.{setting}: expected a {type(default).__name__} like {json.dumps(default)}, got {json.dumps(value)}")
            allowed = () if default is not None else _parameter_types(factory, setting)
            if allowed and value is not None and not any(_of_type(value, kind) for kind in allowed):
                raise SettingError(f"{name}.{setting}: expected a {' or '.join(kind.__name__ for kind in allowed)} or null, got {json.dumps(value)}")


def _of_type(value, kind: type) -> bool:
    """Whether a setting's value is of ``kind``, any number for a number (not a boolean)."""
    number = (int, float)
    return type(value) is kind or (kind in number and isinstance(value, number) and not isinstance(value, bool))


def _parameter_types(factory: str, setting: str) -> tuple[type, ...]:
    """The types other than None that a factory's parameter names (``int | None``: int);
    none where it names no such union."""
    hint = typing.get_type_hints(spacy.registry.factories.get(factory)).get(setting)
    return tuple(kind for kind in typing.get_args(hint) if isinstance(kind, type) and kind is not type(None))


def check_profile(name: str) -> None:
    """A profile's rows must name stages and settings there are, as options must."""
    chosen = profile_named(name)
    try:
        unknown = (set(chosen.switches) | set(chosen.settings) - {KB_TARGET}) - set(stage_names())
        if unknown:
            raise SettingError(f"unknown stage(s) {sorted(unknown)}; stages are {stage_names()}")
        check_settings(chosen.settings)
        check_kb_settings(chosen.settings.get(KB_TARGET, {}))
    except SettingError as error:
        raise SettingError(f"profile {name} ({', '.join(map(str, chosen.rows))}): {error}") from None


def check_kb_settings(settings: dict) -> None:
    """A profile's ``kb.`` rows must name settings of ``phenorules.KnowledgeBase.v1``."""
    known = [name for name in inspect.signature(knowledge_base).parameters if name not in ("hpo", "learned")]
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise SettingError(f"the knowledge base has no setting(s) {unknown}; its settings are {known}")


def stage_names() -> list[str]:
    return [name for name, _ in STAGES]


