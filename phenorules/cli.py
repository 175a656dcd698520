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
from .core.files import json_value, remove_temporaries_on_signals
from .options import DISABLE_OPTION, ENABLE_OPTION, HPO_OPTION, PROFILE_OPTION, SET_OPTION
from .core.outputs import OutputFiles, silence_stdout


# The formats of registry.BUILT_IN that read and that write, for --help, which must not
# import them (they import spaCy); tests/test_cli.py holds them equal to the registry's.
BUILT_IN_READERS = ("bioc", "bioc-xml", "jsonl", "text")
BUILT_IN_WRITERS = ("bioc", "bioc-xml", "docbin", "jsonl", "pubtator")


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
        """``value`` if it names a format that reads (writes); a plugin that fails to load
        is one line naming it, not click's usage message."""
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
        if format_ is None or (format_.write is None and format_.line is None if self.writes else format_.read is None):
            self.fail(f"{value!r} is not one of {', '.join(map(repr, self.names()))}.", param, ctx)
        return value


FORMAT_OPTION = click.option(
    "--format",
    "--from",
    "input_format",
    type=FormatName(auto=True),
    default="auto",
    show_default=True,
    help="Input format: plain text, PatientPheX JSONL, or BioC JSON or XML as the PMC BioC API serves it; auto tells them by content.",
)
STREAMED_FORMAT = "jsonl"  # written a line per article as the corpus goes (--jobs, --resume, --scheduler)
PHENOPACKETS = "Phenopackets"  # what the files of a --phenopackets directory are called in messages
ON_ERROR_OPTION = click.option(
    "--on-error",
    type=click.Choice(("fail", "skip")),
    default="fail",
    show_default=True,
    help="A bad article (a broken line, a wrong field, over 10,000,000 characters): stop with exit code 2, or leave it out with a warning and go on.",
)


def _quieten(ctx: click.Context, param: click.Parameter, quiet: bool) -> bool:
    if quiet:
        logging.getLogger("phenorules").setLevel(logging.WARNING)
    return quiet


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
QUIET_OPTION = click.option(
    "-q", "--quiet", is_flag=True, callback=_quieten, help="No progress bar (it shows only on a terminal anyway) and no messages."
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


def _pipeline(hpo: str | None, disable: tuple[str, ...], enable: tuple[str, ...], stage_config: dict[str, dict], profile: str):
    from .stages.pipeline import build_pipeline

    return build_pipeline(disable=disable, stage_config=stage_config, hpo=hpo, enable=enable, profile=profile)


def _check_plan(disable: tuple[str, ...], enable: tuple[str, ...], stage_config: dict[str, dict], profile: str) -> None:
    """An unknown stage, setting or profile fails here, before any input is read."""
    from .formats.inputs import AUTO
    from .stages.pipeline import stage_plan

    stage_plan(disable, stage_config, enable=enable, **({} if profile == AUTO else {"profile": profile}))


@main.command()
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--output", "output_path", default="-", metavar="OUT", help="Where to write predictions (default: stdout); OUT.jsonl.gz is written gzipped.")
@click.option(
    "--output-format",
    "--to",
    "output_format",
    type=FormatName(writes=True),
    default="jsonl",
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
@HPO_OPTION
@DISABLE_OPTION
@ENABLE_OPTION
@SET_OPTION
@PROFILE_OPTION
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
    hpo: str | None,
    disable: tuple[str, ...],
    enable: tuple[str, ...],
    stage_settings: tuple[str, ...],
    profile: str,
    quiet: bool,
) -> None:
    """Predict phenotype mentions and patient associations (the submission JSONL) for
    PatientPheX JSONL, BioC JSON or XML, or plain text: a file, - (stdin), a directory or a
    glob, plain or gzipped. JSONL output streams, in input order, the same bytes for any
    --jobs; BioC, PubTator and Phenopackets are written from the whole input at once."""
    from .run.parallel import predict_corpus
    from .stages.pipeline import parse_settings
    from .formats.streaming import input_paths

    if phenopackets_dir is not None:
        from .core.source_date import source_date

        source_date()  # a bad SOURCE_DATE_EPOCH is refused before any work
    elif created is not None:
        raise InputError("--created: the Phenopackets' metaData.created, for --phenopackets only")
    outputs = OutputFiles([*input_paths(input_path), hpo])
    stage_config = parse_settings(stage_settings)
    _check_plan(disable, enable, stage_config, profile)  # here, not on a cluster's workers
    if output_format == STREAMED_FORMAT and phenopackets_dir is None:
        predict_corpus(
            input_path,
            output_path,
            explain_path,
            input_format,
            build=lambda chosen: _pipeline(hpo, disable, enable, stage_config, chosen),
            jobs=jobs,
            scheduler=scheduler,
            resume=resume,
            quiet=quiet,
            pipeline_settings={"hpo": hpo, "disable": list(disable), "enable": list(enable), "stage_config": stage_config},
            on_error=on_error,
            outputs=outputs,
            profile=profile,
        )
        return
    streaming_only = [option for option, used in (("--jobs", jobs != 1), ("--resume", resume), ("--scheduler", scheduler)) if used]
    if streaming_only:
        raise InputError(f"{', '.join(streaming_only)}: for JSONL predictions only, not with --output-format {output_format} or --phenopackets")
    _predict_whole(outputs, input_path, output_path, output_format, explain_path, phenopackets_dir, created, input_format, on_error, hpo, disable, enable, stage_config, profile, quiet)


def _predict_whole(outputs, input_path, output_path, output_format, explain_path, phenopackets_dir, created, input_format, on_error, hpo, disable, enable, stage_config, profile, quiet) -> None:
    """predict for the outputs written from the whole input: BioC, PubTator, Phenopackets."""
    from .formats import registry
    from .core.annotated import annotate
    from .formats.inputs import format_profile, read_input_format
    from .run.progress import progress

    written = registry.get(output_format)
    outputs.claim(output_path, written.what)
    if explain_path is not None:
        outputs.claim(explain_path, "evidence")
    if phenopackets_dir is not None:
        from .formats import require

        require("phenopackets")
        outputs.claim_directory(phenopackets_dir, PHENOPACKETS)
    articles, chosen = read_input_format(input_path, input_format, on_error)
    written.check_articles(articles)  # before the work
    nlp = _pipeline(hpo, disable, enable, stage_config, format_profile(chosen, profile))
    results = progress(annotate(nlp, articles), len(articles), quiet)
    if phenopackets_dir is not None:
        results = _writing_phenopackets(results, phenopackets_dir, created, hpo, quiet, outputs)
    results = list(results)
    output = written.write_results(results)
    outputs.write(output_path, [output], written.what, binary=isinstance(output, bytes))
    if explain_path is not None:
        explained = registry.get(STREAMED_FORMAT).explain
        outputs.write(explain_path, [explained(result) for result in results], "evidence")


def _writing_phenopackets(results, directory: str, created, hpo: str | None, quiet: bool, outputs: OutputFiles):
    """The results, passed on after their Phenopackets are written into ``directory``."""
    from .formats.phenopackets import write_phenopackets
    from .kb.resources import load_resources
    from .formats.patientphex.records import full_record

    ontology = load_resources(hpo).ontology
    count = 0
    for result in results:
        count += write_phenopackets(directory, [full_record(result)], ontology, outputs, created)
        yield result
    if not quiet:
        click.echo(f"wrote {count} Phenopackets into {directory}", err=True)


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
    from .formats import require
    from .formats.phenopackets import text_subjects, with_patients, write_phenopackets
    from .core.source_date import source_date
    from .formats.inputs import read_input
    from .kb.resources import load_resources
    from .formats.patientphex.io import read_predictions
    from .formats.patientphex.records import patient_entries

    source_date()  # a bad SOURCE_DATE_EPOCH is refused before any work
    require("phenopackets")
    outputs = OutputFiles([pred_path, articles_path, evidence_path, hpo])
    outputs.claim_directory(output_dir, PHENOPACKETS)
    records = read_predictions(pred_path)
    articles = read_input(articles_path, "jsonl") if articles_path else []
    patients = {article.id: patient_entries(article.patients, text_subjects(article)) for article in articles}
    evidence = _read_evidence(evidence_path) if evidence_path else None
    count = write_phenopackets(output_dir, with_patients(records, patients, evidence), load_resources(hpo).ontology, outputs, created)
    if not quiet:
        click.echo(f"wrote {count} Phenopackets into {output_dir}", err=True)


def _read_evidence(path: str) -> list[dict]:
    from .core.files import read_text

    lines = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        record = json_value(line, f"{path}, line {number}")
        try:
            if not isinstance(record, dict) or not isinstance(record.get("pmc_id"), str) or not isinstance(record.get("evidence"), list):
                raise ValueError("expected an object with pmc_id and evidence")
            for reason in record["evidence"]:
                if not all(isinstance(reason.get(key), kind) for key, kind in (("offset", int), ("length", int), ("identifier", str), ("patients", list))):
                    raise ValueError("an evidence entry lacks offset, length, identifier or patients")
                if not isinstance(reason.get("assertions", []), list) or not all(isinstance(flag, str) for flag in reason.get("assertions", [])):
                    raise ValueError("an evidence entry's assertions are not a list of flags")
        except (ValueError, AttributeError) as error:
            raise InputError(f"{path}, line {number}: not an evidence record of predict --explain ({error})") from None
        lines.append(record)
    return lines


@main.command()
@click.argument("gold_path", metavar="GOLD.jsonl")
@click.argument("pred_path", metavar="PRED.jsonl")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def evaluate(gold_path: str, pred_path: str, as_json: bool) -> None:
    """Score predictions against an annotated file, as the task defines it."""
    from .formats.patientphex.io import read_articles, read_predictions
    from .core.errors import warn
    from .tasks.patientphex.score import coverage_warnings, format_table, score, span_text_warnings

    gold, predictions = read_articles(gold_path, annotated=True), read_predictions(pred_path)
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
@HPO_OPTION
@DISABLE_OPTION
@ENABLE_OPTION
@SET_OPTION
@PROFILE_OPTION
@QUIET_OPTION
def annotate(
    input_path: str, input_format: str, on_error: str, as_json: bool, html_path: str | None, hpo: str | None, disable: tuple[str, ...], enable: tuple[str, ...],
    stage_settings: tuple[str, ...], profile: str, quiet: bool,
) -> None:
    """Find phenotypes in plain text, PatientPheX JSONL, or BioC JSON or XML (a file, or -
    for stdin) and show them."""
    from .formats.inputs import format_profile, read_input_format
    from .run.progress import progress
    from .core.annotated import annotate
    from .stages.pipeline import parse_settings
    from .core.phenotype import mention_rows
    from .formats.view import article_view, render_page

    outputs = OutputFiles([input_path, hpo])
    outputs.claim(html_path or "-", "HTML view" if html_path else "listing")
    stage_config = parse_settings(stage_settings)
    _check_plan(disable, enable, stage_config, profile)
    articles, chosen = read_input_format(input_path, input_format, on_error)
    nlp = _pipeline(hpo, disable, enable, stage_config, format_profile(chosen, profile))
    results = progress(annotate(nlp, articles), len(articles), quiet)
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
    from .kb.resources import data_dir, load_resources

    resources = load_resources(hpo)
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
        does = [word for word, present in (("read", format_.read), ("written", format_.write or format_.line)) if present]
        click.echo(f"  {name}: {format_.title}, {' and '.join(does)}" + (f", {' '.join(format_.extensions)}" if format_.extensions else ""))


def _cache_line() -> str:
    """Where the cache is, what it holds of its budget, and how to clear it."""
    import shlex

    from .kb.resources import CACHE_BUDGET_VARIABLE, MEGABYTE, cache_budget, cache_dir, cache_usage

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
    from .kb.resources import data_dir, load_resources
    from .formats.patientphex.io import read_articles

    settings = _learn_settings(options)
    lexicon_path, default_blocklist = default_paths(data_dir("lexicons"))
    lexicon_path = Path(output_path) if output_path else lexicon_path
    blocklist_path = Path(blocklist_path) if blocklist_path else (lexicon_path.parent / LEARNED_BLOCKLIST if output_path else default_blocklist)
    outputs = OutputFiles([train_path, hpo])
    for path, what in ((lexicon_path, "learned lexicon"), (blocklist_path, "learned blocklist"), (substitutions_path(lexicon_path), "learned substitutions")):
        outputs.claim(str(path), what)
    config = without_learned_files(LexiconConfig())
    articles = read_articles(train_path, annotated=True)
    base = load_resources(hpo, config=config)
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
@HPO_OPTION
@DISABLE_OPTION
@ENABLE_OPTION
@SET_OPTION
@PROFILE_OPTION
@_learn_options
def cv(
    train_path: str, folds: int, seed: int, no_learn: bool, as_json: bool, predictions_path: str | None, hpo: str | None, disable: tuple[str, ...],
    enable: tuple[str, ...], stage_settings: tuple[str, ...], profile: str, **options,
) -> None:
    """Cross-validate: learn on k-1 folds, predict the held-out one, score the pooled predictions."""
    from .tasks.patientphex.crossval import Setting, out_of_fold_predictions
    from .formats.inputs import format_profile
    from .stages.pipeline import parse_settings
    from .formats.patientphex.io import read_articles, write_predictions
    from .tasks.patientphex.score import format_table, score

    settings = _learn_settings(options)
    outputs = OutputFiles([train_path, hpo])
    if predictions_path:
        outputs.claim(predictions_path, "predictions")
    articles = read_articles(train_path, annotated=True)
    stage_config = parse_settings(stage_settings)
    _check_plan(disable, enable, stage_config, profile)  # fails before the folds are learned
    setting = Setting("cv", disable=disable, enable=enable, stage_config=stage_config, learn=not no_learn, profile=format_profile("jsonl", profile))
    records = out_of_fold_predictions(articles, [setting], folds, seed, hpo, settings, lambda m: click.echo(m, err=True))["cv"]
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
    articles = read_articles(train_path, annotated=True)
    result = run_ablation(articles, folds, seed, hpo, settings, lambda m: click.echo(m, err=True))
    paths = write_ablation(result, output_dir, outputs)
    click.echo(markdown_table(result))
    click.echo("wrote " + ", ".join(str(p) for p in paths))


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (anything but localhost is reachable from other machines; there is no authentication).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free one).")
@click.option("--jnlpba-train", "jnlpba_train", metavar="DIR", envvar="PHENORULES_JNLPBA_TRAIN", default=None, help="JNLPBA brat training folder: the chat API then answers evalscope's JNLPBA prompt (env PHENORULES_JNLPBA_TRAIN).")
@click.option("--max-request-bytes", type=click.IntRange(min=1), default=None, metavar="N", help="Largest request body accepted (default 10 MiB).")
@click.option("--request-timeout", "request_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time budget of a request, waiting for the pipeline included; past it the work stops and the answer is 503 (default 60).")
@click.option("--body-timeout", "body_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time for a request body to arrive; past it the answer is 408 (default 30).")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST[:PORT]", help="Also answer requests addressed to this Host (repeatable; '*' any). By default only localhost, 127.0.0.1, [::1] and --host, with the port.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="URL", help="Also answer browser requests from pages of this origin, e.g. http://localhost:3000 (repeatable; '*' any). By default only the server's own pages.")
@click.option("--header-timeout", "header_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time for a request's line and headers to arrive on a connection; past it the connection is closed (default 5).")
@click.option("--max-connections", type=click.IntRange(min=1), default=None, metavar="N", help="Connections open at once; one more closes the one idle or waiting longest for its headers (default 512, or half of ulimit -n if that is lower).")
@HPO_OPTION
@DISABLE_OPTION
@ENABLE_OPTION
@SET_OPTION
@PROFILE_OPTION
@QUIET_OPTION
def serve(
    host: str, port: int, jnlpba_train: str | None, max_request_bytes: int | None, request_seconds: float | None, body_seconds: float | None,
    allow_hosts: tuple[str, ...], allow_origins: tuple[str, ...], header_seconds: float | None, max_connections: int | None, hpo: str | None,
    disable: tuple[str, ...], enable: tuple[str, ...], stage_settings: tuple[str, ...], profile: str, quiet: bool,
) -> None:
    """Serve the curation page, /annotate and an OpenAI-compatible chat API (docs/serve.md).
    The server answers /health as soon as it listens and loads the pipeline meanwhile."""
    try:
        from .serve import MAX_REQUEST_BYTES, REQUEST_SECONDS
        from .serve.connections import HEADER_SECONDS, ConnectionLimits, default_max_connections, open_file_limit
        from .serve.guard import BODY_SECONDS, served_policy
        from .serve.server import serve as run
    except ImportError as error:
        raise PhenorulesError(f"phenorules serve needs the serve extra ({error.name} is missing): pip install 'phenorules[serve]'") from None
    from .core.source_date import source_date

    source_date()  # the Phenopackets export's metaData.created: a bad SOURCE_DATE_EPOCH is refused at start

    def engine():
        """The engine, built by the server's loading thread: a bad setting fails there too."""
        from .formats.inputs import format_profile
        from .stages.pipeline import parse_settings
        from .serve.engine import Engine

        stage_config = parse_settings(stage_settings)
        _check_plan(disable, enable, stage_config, profile)
        nlp = _pipeline(hpo, disable, enable, stage_config, format_profile("text", profile))
        tagger = None
        if jnlpba_train:
            from .tasks.jnlpba.model import load_model, make_tagger

            tagger = make_tagger(load_model(jnlpba_train))
        return Engine(nlp, tagger)

    def policy(bound_port: int):
        limits = {"max_request_bytes": max_request_bytes or MAX_REQUEST_BYTES, "body_seconds": body_seconds or BODY_SECONDS}
        return served_policy(host, bound_port, allow_hosts, allow_origins, **limits)

    files = open_file_limit()
    if max_connections is not None and files is not None and max_connections >= files:
        raise InputError(f"--max-connections {max_connections}: not below the limit of open files, {files} (ulimit -n)")
    limits = ConnectionLimits(header_seconds or HEADER_SECONDS, max_connections or default_max_connections())
    run(engine, host, port, policy, request_seconds or REQUEST_SECONDS, limits, quiet)


from .tasks.jnlpba.cli import jnlpba  # noqa: E402  (a group whose commands import lazily)

main.add_command(jnlpba)

from .tasks.medxpertqa.cli import medxpertqa  # noqa: E402  (a group whose commands import lazily)

main.add_command(medxpertqa)
