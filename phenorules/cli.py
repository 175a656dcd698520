"""The ``phenorules`` command line: predict, phenopackets, evaluate, annotate, info, learn, cv, ablate.

Every user-facing failure (bad input, missing file, unreadable ontology, an output that
cannot be written) is one line on stderr and exit code 2; never a traceback.
"""

from __future__ import annotations

import errno
import json
import logging
import signal

import click

from . import __version__
from .core.errors import InputError, PhenorulesError, one_line
from .core.files import remove_temporaries_on_signals
from .options import HPO_OPTION, QUIET_OPTION, PipelineSettings, pipeline_options
from .core.outputs import OutputFiles, silence_stdout
from .formats.patientphex import FORMAT as PATIENTPHEX


# The formats of registry.BUILT_IN that read and that write, for --help, which must not
# import them (they import spaCy); tests/test_cli.py holds them equal to the registry's.
BUILT_IN_READERS = ("bioc", "bioc-xml", "patientphex", "text")
BUILT_IN_WRITERS = ("bioc", "bioc-xml", "docbin", "evidence", "patientphex", "pubtator")


class FormatName(click.ParamType):
    """A format of the registry (``phenorules.formats.registry``) that reads (or writes); the
    registry is loaded when an option is given, not when the command line is imported
    nor for --help, which lists the built-in formats."""

    name = "format"

    def __init__(self, writes: bool = False, auto: bool = False):
        self.writes, self.auto = writes, auto

    def names(self) -> list[str]:
        from .formats import registry

        return self._choices(registry.writers() if self.writes else registry.readers())

    def get_metavar(self, param, *args, **kwargs) -> str:
        return "[" + "|".join(self._choices(BUILT_IN_WRITERS if self.writes else BUILT_IN_READERS)) + "]"

    def _choices(self, formats) -> list[str]:
        return (["auto"] if self.auto else []) + list(formats)

    def convert(self, value, param, ctx):
        """The name of the format ``value`` names (an alias gives the format's own name) if
        it reads (writes); a plugin that fails to load is one line naming it, not click's
        usage message."""
        from .formats import registry
        from .core.errors import SettingError

        if self.auto and value == "auto":
            return value
        try:
            format_ = registry.get(value)
        except registry.BrokenPlugin as error:
            raise SettingError(f"{param.opts[-1]} {value}: {error}") from None
        except SettingError:
            format_ = None
        if format_ is None or (not format_.writes if self.writes else format_.read is None):
            self.fail(f"{value!r} is not one of {', '.join(map(repr, self.names()))}.", param, ctx)
        return format_.name


FORMAT_OPTION = click.option(
    "--format",
    "--from",
    "input_format",
    type=FormatName(auto=True),
    default="auto",
    show_default=True,
    help="Input format: plain text, PatientPheX JSONL, or BioC JSON or XML as the PMC BioC API serves it; auto tells them by content.",
)
EVIDENCE_FORMAT = "evidence"  # what --explain writes
PHENOPACKETS = "Phenopackets"  # what the files of a --phenopackets directory are called in messages
ON_ERROR_OPTION = click.option(
    "--on-error",
    type=click.Choice(("fail", "skip")),
    default="fail",
    show_default=True,
    help="A bad article (a broken line, a wrong field, over 10,000,000 characters): stop with exit code 2, or leave it out with a warning and go on.",
)


class IsoTime(click.ParamType):
    """An ISO 8601 date or time ('2026-03-01', '2026-03-01T12:00:00+02:00'), in UTC (a
    time without an offset is UTC)."""

    name = "ISO-8601"

    def convert(self, value, param, ctx):
        from datetime import datetime, timezone

        if isinstance(value, datetime):
            return value
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is no ISO 8601 date or time (2026-03-01, 2026-03-01T12:00:00Z)", param, ctx)
        return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


CREATED_OPTION = click.option(
    "--created",
    type=IsoTime(),
    default=None,
    metavar="ISO-8601",
    help="The Phenopackets' metaData.created (default: the HPO release's date; SOURCE_DATE_EPOCH, when set, comes first).",
)


def _say_on_stderr() -> None:
    """phenorules' log messages (such as the lexicon being built on a first start) as
    'phenorules: ...' lines on stderr, whether or not it is a terminal."""
    logger = logging.getLogger("phenorules")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("phenorules: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


class PhenorulesGroup(click.Group):
    """Turns PhenorulesError into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except PhenorulesError as error:
            click.echo(f"phenorules: error: {one_line(str(error))}", err=True)
            ctx.exit(2)
        except OSError as error:  # e.g. standard output full; a closed pipe (| head) exits quietly
            if error.errno == errno.EPIPE:
                raise
            silence_stdout()
            click.echo(one_line(f"phenorules: error: {error.filename or '<stdout>'}: {error.strerror or error}"), err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("phenorules: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=PhenorulesGroup)
@click.version_option(__version__, prog_name="phenorules")
def main() -> None:
    """Rule-based HPO phenotype recognition and patient attribution."""
    try:  # Ctrl-C from here on is the KeyboardInterrupt the group reports (start-up: phenorules.__main__)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread (phenorules called from a worker thread)
        pass
    remove_temporaries_on_signals()
    _say_on_stderr()


@main.command()
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--output", "output_path", default="-", metavar="OUT", help="Where to write the output (default: stdout); OUT.gz is written gzipped.")
@click.option(
    "--output-format",
    "--to",
    "output_format",
    type=FormatName(writes=True),
    default=PATIENTPHEX,
    show_default=True,
    help="The submission JSONL; BioC JSON or XML (the input's passages, one annotation per phenotype); PubTator (title-and-abstract articles only); or spaCy's DocBin (a span per mention). phenorules info lists the formats.",
)
@click.option("--explain", "explain_path", default=None, metavar="EVIDENCE.jsonl", help="Also write, per article, why each phenotype went to its patients.")
@click.option("--phenopackets", "phenopackets_dir", default=None, metavar="DIR", help="Also write one GA4GH Phenopacket (JSON) per given patient into DIR.")
@CREATED_OPTION
@click.option("-j", "--jobs", type=int, default=1, show_default=True, help="Worker processes sharing the pipeline built once (0: all cores).")
@click.option("--resume", is_flag=True, help="Keep the articles an interrupted run wrote (OUT.partial) and annotate the rest.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="Annotate on the workers of this Dask scheduler (pip install 'phenorules[dask]').")
@FORMAT_OPTION
@ON_ERROR_OPTION
@pipeline_options
@QUIET_OPTION
def predict(
    input_path: str,
    output_path: str,
    output_format: str,
    explain_path: str | None,
    phenopackets_dir: str | None,
    created,
    jobs: int,
    resume: bool,
    scheduler: str | None,
    input_format: str,
    on_error: str,
    settings: PipelineSettings,
    quiet: bool,
) -> None:
    """Predict phenotype mentions and patient associations (by default the submission
    JSONL) for PatientPheX JSONL, BioC JSON or XML, or plain text: a file, - (stdin), a
    directory or a glob, plain or gzipped. Every format is written in input order as the
    articles are annotated, the same bytes for any --jobs or --scheduler, and a stopped
    run is taken up by --resume."""
    from .formats.streaming import input_paths
    from .run.outputs import FormatFile
    from .run.predict import predict_corpus

    if phenopackets_dir is not None:
        from .core.source_date import source_date

        source_date()  # a bad SOURCE_DATE_EPOCH is refused before any work
    elif created is not None:
        raise InputError("--created: the Phenopackets' metaData.created, for --phenopackets only")
    paths = input_paths(input_path)
    files = OutputFiles([*paths, settings.hpo])
    outputs = [FormatFile(files, output_path, output_format)]
    if explain_path is not None:
        outputs.append(FormatFile(files, explain_path, EVIDENCE_FORMAT))
    if phenopackets_dir is not None:
        outputs.append(_phenopacket_files(files, phenopackets_dir, settings.hpo, created, quiet))
    predict_corpus(paths, outputs, settings, input_format, on_error, jobs, scheduler, resume, quiet)


def _phenopacket_files(files: OutputFiles, directory: str, hpo: str | None, created, quiet: bool):
    """The Phenopackets output of ``--phenopackets DIR``, its directory claimed."""
    from .formats import require
    from .kb.resources import load_knowledge_base
    from .run.outputs import PhenopacketFiles

    require("phenopackets")
    files.claim_directory(directory, PHENOPACKETS)
    return PhenopacketFiles(files, directory, load_knowledge_base(hpo).ontology, created, None if quiet else lambda message: click.echo(message, err=True))


@main.command()
@click.argument("pred_path", metavar="PRED.jsonl")
@click.option("-o", "--output-dir", "output_dir", required=True, metavar="DIR", help="Where the Phenopackets go, one <article>_<patient>.json per patient.")
@click.option("--articles", "articles_path", default=None, metavar="IN.jsonl", help="The input articles: their patients' given mentions give sex and age.")
@click.option("--evidence", "evidence_path", default=None, metavar="EVIDENCE.jsonl", help="predict's --explain output: whom each mention is attributed to, and its assertion flags (excluded features, findings stated uncertain or hypothetical).")
@CREATED_OPTION
@HPO_OPTION
@QUIET_OPTION
def phenopackets(pred_path: str, output_dir: str, articles_path: str | None, evidence_path: str | None, created, hpo: str | None, quiet: bool) -> None:
    """Write one GA4GH Phenopacket per patient of a prediction file."""
    from .core.source_date import source_date
    from .formats import require
    from .formats.inputs import read_input
    from .formats.patientphex.evidence import read_evidence
    from .formats.patientphex.io import read_predictions
    from .formats.patientphex.records import patient_entries, record_result, with_patients
    from .formats.phenopackets import write_phenopackets
    from .kb.resources import load_knowledge_base
    from .patients.subjects import text_subjects

    source_date()  # a bad SOURCE_DATE_EPOCH is refused before any work
    require("phenopackets")
    outputs = OutputFiles([pred_path, articles_path, evidence_path, hpo])
    outputs.claim_directory(output_dir, PHENOPACKETS)
    records = read_predictions(pred_path)
    articles = read_input(articles_path, PATIENTPHEX) if articles_path else []
    patients = {article.id: patient_entries(article.patients, text_subjects(article)) for article in articles}
    evidence = read_evidence(evidence_path) if evidence_path else None
    results = [record_result(record) for record in with_patients(records, patients, evidence)]
    count = write_phenopackets(output_dir, results, load_knowledge_base(hpo).ontology, outputs, created)
    if not quiet:
        click.echo(f"wrote {count} Phenopackets into {output_dir}", err=True)


@main.command()
@click.argument("gold_path", metavar="GOLD.jsonl")
@click.argument("pred_path", metavar="PRED.jsonl")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def evaluate(gold_path: str, pred_path: str, as_json: bool) -> None:
    """Score predictions against an annotated file, as the task defines it."""
    from .formats.patientphex.io import read_articles, read_predictions
    from .core.errors import warn
    from .tasks.patientphex.score import coverage_warnings, format_table, score, span_text_warnings

    gold, predictions = read_articles(gold_path, gold=True), read_predictions(pred_path)
    for message in coverage_warnings(gold, predictions, pred_path) + span_text_warnings(gold, predictions, pred_path):
        warn(message)
    result = score(gold, predictions)
    click.echo(json.dumps(result, indent=2, sort_keys=True) if as_json else format_table(result))


@main.command()
@click.argument("input_path", metavar="INPUT", default="-")
@FORMAT_OPTION
@ON_ERROR_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the mentions as JSON.")
@click.option("--html", "html_path", metavar="OUT.html", default=None, help="Write an HTML view of the articles (a table of contents; phenotypes coloured by patient, with their term, ids and flags) instead of the listing.")
@pipeline_options
@QUIET_OPTION
def annotate(input_path: str, input_format: str, on_error: str, as_json: bool, html_path: str | None, settings: PipelineSettings, quiet: bool) -> None:
    """Find phenotypes in plain text, PatientPheX JSONL, or BioC JSON or XML (a file, or -
    for stdin) and show them."""
    from .formats.inputs import format_profile, read_input_format
    from .run.progress import progress
    from .core.annotated import annotated_articles
    from .core.phenotype import mention_rows
    from .formats.view import article_view, render_page

    outputs = OutputFiles([input_path, settings.hpo])
    outputs.claim(html_path or "-", "HTML view" if html_path else "listing")
    articles, chosen = read_input_format(input_path, input_format, on_error)
    nlp = settings.build(format_profile(chosen, settings.profile))
    results = progress(annotated_articles(nlp, articles), len(articles), quiet)
    if html_path:
        views = (article_view(result) for result in results)
        outputs.write(html_path, [render_page(views, f"phenorules: {input_path}")], "HTML view")
        if not quiet:
            click.echo(f"wrote {html_path}", err=True)
        return
    rows = [row for result in results for row in mention_rows(result.article.id, list(result.phenotypes))]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    article = None
    for row in rows:
        if len(articles) > 1 and row["article"] != article:
            article = row["article"]
            click.echo(one_line(f"# {article}"))
        flag = "NEG" if row["negated"] else "   "
        patients = ",".join(row["patients"]) or "-"
        click.echo(one_line(f"{row['start']:>6}-{row['end']:<6} {flag} {row['hpo_id']:<12} {row['text']!r:<32} {row['label']}  patient {patients}  [{'; '.join(row['provenance'])}]"))


@main.command()
@HPO_OPTION
def info(hpo: str | None) -> None:
    """Show the ontology release, lexicon size, pipeline stages, profiles and formats."""
    from .formats import registry
    from .stages.pipeline import OPTIONAL_STAGES, stage_names
    from .stages.profiles import profiles
    from .kb.resources import data_dir, load_knowledge_base

    resources = load_knowledge_base(hpo)
    click.echo(f"phenorules {__version__}")
    click.echo(f"ontology:  {resources.ontology.path}")
    click.echo(f"release:   {resources.ontology.data_version}")
    click.echo(f"terms:     {len(resources.ontology.names)} under HP:0000118 (Phenotypic abnormality)")
    click.echo(f"lexicon:   {len(resources.matcher.rows)} keys from {data_dir('lexicons')}")
    click.echo(f"word sets: {len(resources.word_sets.rows)} (any word order, for the word_order stage)")
    click.echo(f"cache:     {_cache_line()}")
    click.echo("stages:    " + " -> ".join(f"{name} (off unless --enable {name})" if name in OPTIONAL_STAGES else name for name in stage_names()))
    click.echo(f"profiles:  (--profile; {data_dir('rules') / 'profiles.tsv'})")
    for profile in profiles().values():
        rows = [f"{stage} {'on' if on else 'off'}" for stage, on in profile.switches.items()]
        rows += [f"{stage}.{setting}={json.dumps(value)}" for stage, values in profile.settings.items() for setting, value in values.items()]
        click.echo(f"  {profile.name}: {', '.join(rows)}")
    click.echo("formats:   (--from, --to; phenorules.formats.registry)")
    for name, format_ in registry.formats().items():
        does = [word for word, present in (("read", format_.read), ("written", format_.writes)) if present]
        aliases = [alias for alias, named in registry.ALIASES.items() if named == name]
        click.echo(f"  {name}: {format_.title}, {' and '.join(does)}" + (f", {' '.join(format_.extensions)}" if format_.extensions else "") + (f" (also --to/--from {', '.join(aliases)})" if aliases else ""))


def _cache_line() -> str:
    """Where the cache is, what it holds of its budget, and how to clear it."""
    import shlex

    from .kb.cache_file import CACHE_BUDGET_VARIABLE, MEGABYTE, cache_budget, cache_dir, cache_usage

    directory = cache_dir()
    entries, used = cache_usage(directory)
    held = f"{used / MEGABYTE:.1f} MB in {entries} {'entry' if entries == 1 else 'entries'}, at most {cache_budget() / MEGABYTE:g} MB ({CACHE_BUDGET_VARIABLE})"
    return f"{directory}: {held}; clear: rm -r {shlex.quote(str(directory))}"


def _learn_options(command):
    """The reliability thresholds of :class:`phenorules.kb.learn.LearnSettings` as options."""
    from .kb.learn import LearnSettings

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
    from .kb.learn import LearnSettings

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

    from .kb.knowledge_base import without_learned_files
    from .kb.lexicon import LEARNED_BLOCKLIST, LexiconConfig
    from .kb.learn import default_paths, learn as run, substitutions_path, write_learned
    from .kb.resources import data_dir, load_knowledge_base
    from .formats.patientphex.io import read_articles

    settings = _learn_settings(options)
    lexicon_path, default_blocklist = default_paths(data_dir("lexicons"))
    lexicon_path = Path(output_path) if output_path else lexicon_path
    blocklist_path = Path(blocklist_path) if blocklist_path else (lexicon_path.parent / LEARNED_BLOCKLIST if output_path else default_blocklist)
    outputs = OutputFiles([train_path, hpo])
    for path, what in ((lexicon_path, "learned lexicon"), (blocklist_path, "learned blocklist"), (substitutions_path(lexicon_path), "learned substitutions")):
        outputs.claim(str(path), what)
    config = without_learned_files(LexiconConfig())
    articles = read_articles(train_path, gold=True)
    base = load_knowledge_base(hpo, config=config)
    learned = run(articles, base.ontology, base.matcher, settings, config.min_key_length, base.word_sets)
    write_learned(learned, base.ontology, lexicon_path, blocklist_path, settings, outputs)
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
@click.option("--predictions", "predictions_path", default=None, metavar="OUT.jsonl", help="Also write the pooled out-of-fold predictions (in the input's article order).")
@pipeline_options
@_learn_options
def cv(train_path: str, folds: int, seed: int, no_learn: bool, as_json: bool, predictions_path: str | None, settings: PipelineSettings, **options) -> None:
    """Cross-validate: learn on k-1 folds, predict the held-out one, score the pooled predictions."""
    from .formats.inputs import format_profile
    from .formats.patientphex.io import read_articles, write_predictions
    from .tasks.patientphex.crossval import Setting, out_of_fold_predictions
    from .tasks.patientphex.score import format_table, score

    learning = _learn_settings(options)
    outputs = OutputFiles([train_path, settings.hpo])
    if predictions_path:
        outputs.claim(predictions_path, "predictions")
    articles = read_articles(train_path, gold=True)
    profile = format_profile(PATIENTPHEX, settings.profile)
    setting = Setting("cv", disable=settings.disable, enable=settings.enable, stage_config=settings.stage_config, learn=not no_learn, profile=profile)
    records = out_of_fold_predictions(articles, [setting], folds, seed, settings.hpo, learning, lambda m: click.echo(m, err=True))["cv"]
    if predictions_path:
        write_predictions(predictions_path, records, outputs)
    result = score(articles, records)
    click.echo(json.dumps(result, indent=2, sort_keys=True) if as_json else format_table(result))


@main.command()
@click.argument("train_path", metavar="TRAIN.jsonl")
@click.option("-o", "--output-dir", default="out/ablation", show_default=True, metavar="DIR", help="Where ablation.md, ablation.json and ablation.svg go.")
@click.option("--folds", type=int, default=5, show_default=True, help="Number of article folds.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the fold assignment.")
@HPO_OPTION
@_learn_options
def ablate(train_path: str, output_dir: str, folds: int, seed: int, hpo: str | None, **options) -> None:
    """Cross-validated Score of the full pipeline and with each part switched off."""
    from .tasks.patientphex.ablation import claim_ablation_files, markdown_table, run_ablation, write_ablation
    from .formats.patientphex.io import read_articles

    settings = _learn_settings(options)
    outputs = OutputFiles([train_path, hpo])
    claim_ablation_files(output_dir, outputs)
    articles = read_articles(train_path, gold=True)
    result = run_ablation(articles, folds, seed, hpo, settings, lambda m: click.echo(m, err=True))
    paths = write_ablation(result, output_dir, outputs)
    click.echo(markdown_table(result))
    click.echo("wrote " + ", ".join(str(p) for p in paths))


from .serve.command import serve  # noqa: E402  (a command that imports the server when it runs)

main.add_command(serve)

from .tasks.jnlpba.cli import jnlpba  # noqa: E402  (a group whose commands import lazily)

main.add_command(jnlpba)

from .tasks.medxpertqa.cli import medxpertqa  # noqa: E402  (a group whose commands import lazily)

main.add_command(medxpertqa)
