"""Profiles: the annotation conventions of a task or a corpus as named sets of stage settings.

What annotators mark differs (PatientPheX leaves out the later uses of a defined short form,
table captions and nested terms; a reader of any text wants them), so these choices are
rows of ``rules/profiles.tsv``, one profile each, not defaults of the stages. A row switches
a stage on or off (``scope  off``), sets a stage setting (``abbreviations.defined_uses
true``) or a setting of the knowledge base the stages share (``kb.learned_files``:
the lexicon learned from PatientPheX's annotations is its convention); :func:`apply_profile`
lays the options given with it (``--enable``, ``--disable``, ``--set``) over its rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from ..core.errors import InputError, SettingError
from ..kb.lexicon.tsv import RuleRef, read_rules
from ..kb.resources import data_file

GENERAL = "general"  # the profile of the spaCy component, plain text and BioC
KB_TARGET = "kb"  # rows "kb.SETTING" set the knowledge base's config (its lexicon files)
SWITCHES = {"on": True, "off": False}


@dataclass(frozen=True)
class Profile:
    """A profile's stage switches (stage -> on) and settings (stage -> setting -> value),
    each row's :class:`RuleRef` beside it."""

    name: str
    switches: dict[str, bool] = field(default_factory=dict)
    settings: dict[str, dict] = field(default_factory=dict)
    rows: tuple[RuleRef, ...] = ()


def read_profiles(path: Path) -> dict[str, Profile]:
    """Profile name -> :class:`Profile` of a (profile, switch, value) TSV."""
    switches: dict[str, dict[str, bool]] = {}
    settings: dict[str, dict[str, dict]] = {}
    rows: dict[str, list[RuleRef]] = {}
    for (name, target, value, *_), ref in read_rules(path, 3):
        rows.setdefault(name, []).append(ref)
        stage, dot, setting = target.partition(".")
        if not dot:
            if value not in SWITCHES:
                raise InputError(f"{path}:{ref.line}: stage {stage!r}: expected on or off, not {value!r}")
            switches.setdefault(name, {})[stage] = SWITCHES[value]
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        settings.setdefault(name, {}).setdefault(stage, {})[setting] = parsed
    return {name: Profile(name, switches.get(name, {}), settings.get(name, {}), tuple(refs)) for name, refs in rows.items()}


@lru_cache(maxsize=None)
def profiles(path: str | None = None) -> dict[str, Profile]:
    """The profiles of ``path`` (default ``rules/profiles.tsv``), read once."""
    return read_profiles(data_file("rules", "profiles.tsv", path))


def profile(name: str) -> Profile:
    """The profile ``name``; an unknown one is a :class:`SettingError` naming the others."""
    known = profiles()
    if name not in known:
        raise SettingError(f"unknown profile {name!r}; profiles are {sorted(known)}")
    return known[name]


def apply_profile(
    name: str, disable: Iterable[str], enable: Iterable[str], stage_config: dict[str, dict] | None
) -> tuple[set[str], set[str], dict[str, dict]]:
    """(disabled, enabled, stage settings): profile ``name``'s rows with the given options
    over them (an option wins over the row for the same stage or setting)."""
    chosen = profile(name)
    switches = dict(chosen.switches)
    switches.update({stage: True for stage in enable})
    switches.update({stage: False for stage in disable})
    settings = {stage: dict(values) for stage, values in chosen.settings.items()}
    for stage, values in (stage_config or {}).items():
        settings.setdefault(stage, {}).update(values)
    return {stage for stage, on in switches.items() if not on}, {stage for stage, on in switches.items() if on}, settings
