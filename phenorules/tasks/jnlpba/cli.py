"""``phenorules jnlpba``: learn from the JNLPBA training set, tag and score the test set.

Registered on the main command (``phenorules.cli``), whose group turns a PhenorulesError
into one line and exit code 2. Imports are inside the commands so ``phenorules --help``
stays fast.
"""

from __future__ import annotations

import io
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
    from phenorules.core.errors import InputError

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
    from ...core.outputs import OutputFiles
    from .predict import predict_sentences, write_predictions

    training = _train_dir(train_dir, test_path)
    outputs = OutputFiles([test_path, *(str(path) for path in training.glob("*") if path.is_file())])
    outputs.claim(output_path, "predictions")
    sentences = read_iob2(test_path)
    predictions = predict_sentences(make_tagger(load_model(training, use_cache=not no_cache)), sentences)
    lines = io.StringIO()
    write_predictions(lines, predictions)
    outputs.write(output_path, [lines.getvalue()], "predictions")


@jnlpba.command()
@TRAIN_OPTION
@click.option("--every", default=10, show_default=True, help="Hold out every N-th abstract (file-name order); scored over raw-text tokens.")
@click.option("--dev", "dev_path", metavar="FILE.iob2", default=None, help="Instead, hold out the training abstracts this IOB2 file holds and score over its tokens.")
def holdout(train_dir: str | None, every: int, dev_path: str | None) -> None:
    """Learn on the training set minus held-out abstracts and score on those: tuning without the test set."""
    from phenorules.core.errors import InputError

    from .holdout import split_by_dev_file, split_every
    from .io import read_iob2_documents, read_standoff
    from .model import learn_model_from, make_tagger
    from .predict import document_tags, predict_sentences
    from .score import format_table, score

    if train_dir is None:
        raise InputError("holdout needs --train DIR (brat .txt/.ann files)")
    if every < 2:
        raise InputError("--every must be at least 2")
    documents = read_standoff(train_dir)
    if dev_path:
        split = split_by_dev_file(documents, read_iob2_documents(dev_path))
        tagger = make_tagger(learn_model_from(split.learn))
        predictions = predict_sentences(tagger, split.sentences)
        click.echo(f"learned on {len(split.learn)} abstracts; scored {split.matched} held-out abstracts ({split.unmatched} not found in training, skipped)")
        click.echo(format_table(score([s.tags for s in split.sentences], [p.tags for p in predictions])))
        return
    learn, held = split_every(documents, every)
    tagger = make_tagger(learn_model_from(learn))
    pairs = [document_tags(tagger, d) for d in held]
    click.echo(f"learned on {len(learn)} abstracts, scored on {len(held)} (rule tokens of the raw text)")
    click.echo(format_table(score([g for g, _ in pairs], [p for _, p in pairs])))
