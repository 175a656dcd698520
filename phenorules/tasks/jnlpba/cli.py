"""``phenorules jnlpba``: learn from the JNLPBA training set, tag and score the test set.

Registered on the main command (``phenorules.cli``), whose group turns a PhenorulesError
into one line and exit code 2. Imports are inside the commands so ``phenorules --help``
stays fast.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

TRAIN_OPTION = click.option(
    "--train",
    "train_dir",
    metavar="DIR",
    envvar="PHENORULES_JNLPBA_TRAIN",
    default=None,
    help="Training abstracts as brat .txt/.ann (default: ../standoff/train next to the test file's folder; env PHENORULES_JNLPBA_TRAIN).",
)
TEST_OPTION = click.option("--test", "test_path", metavar="FILE.iob2", required=True, help="Sentences in IOB2 (token<TAB>tag).")
CACHE_OPTION = click.option("--no-cache", is_flag=True, help="Learn afresh instead of loading the cached model.")


def _train_dir(train_dir: str | None, test_path: str | None) -> Path:
    from phenorules.errors import InputError

    if train_dir:
        return Path(train_dir)
    if test_path:
        guess = Path(test_path).resolve().parent.parent / "standoff" / "train"
        if guess.is_dir():
            return guess
    raise InputError("no training folder: give --train DIR (brat .txt/.ann files)")


@click.group()
def jnlpba() -> None:
    """JNLPBA bio-entity recognition (PROTEIN, DNA, RNA, CELL_LINE, CELL_TYPE)."""


@jnlpba.command()
@TEST_OPTION
@TRAIN_OPTION
@CACHE_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def evaluate(test_path: str, train_dir: str | None, no_cache: bool, as_json: bool) -> None:
    """Exact-span, exact-type P/R/F1 per type and overall, and token accuracy, as evalscope scores."""
    from .io import read_iob2
    from .model import load_model, make_tagger
    from .predict import predict_sentences
    from .score import format_table, score

    started = time.perf_counter()
    sentences = read_iob2(test_path)
    tagger = make_tagger(load_model(_train_dir(train_dir, test_path), use_cache=not no_cache))
    learned = time.perf_counter()
    predictions = predict_sentences(tagger, sentences)
    result = score([s.tags for s in sentences], [p.tags for p in predictions])
    done = time.perf_counter()
    result["seconds"] = {"learn_or_load": round(learned - started, 2), "tag_and_score": round(done - learned, 2)}
    if as_json:
        click.echo(json.dumps(result, indent=2, sort_keys=True))
        return
    click.echo(format_table(result))
    click.echo(f"time: learn/load {learned - started:.1f}s, tag+score {done - learned:.1f}s")


@jnlpba.command()
@TEST_OPTION
@TRAIN_OPTION
@CACHE_OPTION
@click.option("-o", "--output", "output_path", default="-", metavar="OUT.jsonl", help="Where to write (default: stdout).")
def predict(test_path: str, train_dir: str | None, no_cache: bool, output_path: str) -> None:
    """Tag every sentence; JSONL with tokens, tags, evalscope <response> and entity provenance."""
    from .io import read_iob2
    from .model import load_model, make_tagger
    from .predict import predict_sentences, write_predictions

    sentences = read_iob2(test_path)
    predictions = predict_sentences(make_tagger(load_model(_train_dir(train_dir, test_path), use_cache=not no_cache)), sentences)
    with click.open_file(output_path, "w", encoding="utf-8") as handle:
        write_predictions(handle, predictions)


@jnlpba.command()
@TRAIN_OPTION
@click.option("--every", default=10, show_default=True, help="Hold out every N-th abstract (in file-name order).")
def holdout(train_dir: str | None, every: int) -> None:
    """Learn on the training set minus every N-th abstract and score on those: for tuning without the test set."""
    from .io import read_standoff
    from .learn import LearnConfig, learn_lexicon, learn_modifiers
    from .model import Model, make_tagger, rules_dir
    from .predict import document_tags
    from .score import format_table, score
    from .variants import GreekLetters
    from phenorules.matcher import PhraseMatcher

    documents = read_standoff(_train_dir(train_dir, None))
    learn = [d for i, d in enumerate(documents) if i % every]
    held = [d for i, d in enumerate(documents) if not i % every]
    greek = GreekLetters.from_file(rules_dir() / "greek_letters.tsv")
    tagger = make_tagger(Model(PhraseMatcher(learn_lexicon(learn, greek, LearnConfig())), learn_modifiers(learn)))
    pairs = [document_tags(tagger, d) for d in held]
    click.echo(f"learned on {len(learn)} abstracts, scored on {len(held)} (rule tokens)")
    click.echo(format_table(score([g for g, _ in pairs], [p for _, p in pairs])))
