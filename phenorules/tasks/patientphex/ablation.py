"""Ablation: the cross-validated Score with the full pipeline and with each part switched off.

The parts are read from the pipeline itself: every stage of ``pipeline.STAGES`` that is not
required, plus the lexicon parts that are knowledge base settings (generated variants,
derivations, substitutions) and the learned lexicon. A part's contribution is the full Score minus the Score
without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from ...core.errors import InputError
from ...kb.lexicon import SUBSTITUTION_SOURCES
from ...kb.learn import LearnSettings
from ...stages.pipeline import OPTIONAL_STAGES, REQUIRED_STAGES, STAGES
from ...stages.profiles import profile
from ...formats.patientphex import PROFILE
from .barchart import bar_chart
from .crossval import Setting, cross_validate
from ...core.outputs import OutputFiles

FULL = "full pipeline"
WITH = "with "  # a setting that switches on a part the default pipeline leaves off
LEVELS = ("mention", "document", "micro", "macro")


def ablation_settings() -> list[Setting]:
    """The full pipeline, then one setting per part switched off (and per part that is
    off by default or in the PatientPheX profile, one switching it on)."""
    off = OPTIONAL_STAGES | {stage for stage, on in profile(PROFILE).switches.items() if not on}
    return [
        Setting(FULL),
        Setting("variants", kb={"variant_rules": []}),
        Setting("derivations", kb={"morphology": []}),
        Setting("skipped words", stage_config={"word_order": {"skip_one_word": False}}),
        Setting(WITH + "substitutions", kb={"substitutions": list(SUBSTITUTION_SOURCES)}),
        *(Setting(name, disable=(name,)) for name, _ in STAGES if name not in REQUIRED_STAGES | off),
        *(Setting(WITH + name, enable=(name,)) for name, _ in STAGES if name in off),
        Setting("learned lexicon", learn=False),
    ]


def run_ablation(
    articles: list[dict],
    folds: int = 5,
    seed: int = 0,
    hpo: str | None = None,
    learn_settings: LearnSettings = LearnSettings(),
    progress: Callable[[str], None] = lambda message: None,
) -> dict:
    """Settings and their pooled out-of-fold scores, ready for JSON."""
    settings = ablation_settings()
    scores = cross_validate(articles, settings, folds, seed, hpo, learn_settings, progress)
    return {
        "articles": len(articles),
        "folds": folds,
        "seed": seed,
        "settings": [{**setting.describe(), "score": scores[setting.name]} for setting in settings],
    }


def contributions(result: dict) -> list[tuple[str, float]]:
    """(part, full Score - Score without the part) for every part the full pipeline has."""
    full = result["settings"][0]["score"]["score"]
    return [(row["name"], full - row["score"]["score"]) for row in result["settings"][1:] if not row["name"].startswith(WITH)]


def markdown_table(result: dict) -> str:
    full = result["settings"][0]["score"]["score"]
    lines = [
        f"Pooled out-of-fold scores, {result['folds']}-fold cross-validation over {result['articles']} articles (seed {result['seed']}).",
        "",
        "| setting | Score | Δ Score | mention F1 | document F1 | micro F1 | macro F1 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in result["settings"]:
        name = row["name"] if row["name"] == FULL or row["name"].startswith(WITH) else f"without {row['name']}"
        score = row["score"]
        figures = " | ".join(f"{score[level]['f1']:.4f}" for level in LEVELS)
        lines.append(f"| {name} | {score['score']:.4f} | {score['score'] - full:+.4f} | {figures} |")
    return "\n".join(lines) + "\n"


ABLATION_FILES = (("ablation.md", "ablation table"), ("ablation.json", "ablation results"), ("ablation.svg", "ablation chart"))


def claim_ablation_files(directory: str | Path, outputs: OutputFiles) -> list[Path]:
    """The ablation files' paths in ``directory`` (made if missing), claimed on ``outputs``:
    a run that could not write them fails before its folds."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{directory}: cannot write the ablation results: {error.strerror}") from None
    paths = [directory / name for name, _ in ABLATION_FILES]
    for path, (_, what) in zip(paths, ABLATION_FILES):
        outputs.claim(str(path), what)
    return paths


def write_ablation(result: dict, directory: str | Path, outputs: OutputFiles | None = None) -> list[Path]:
    """ablation.md, ablation.json and ablation.svg (each part's contribution) in ``directory``,
    through the command's ``outputs``."""
    outputs = outputs or OutputFiles()
    paths = claim_ablation_files(directory, outputs)
    texts = (
        markdown_table(result),
        json.dumps(result, indent=2, sort_keys=True) + "\n",
        bar_chart("Score lost without each part (cross-validated)", contributions(result)),
    )
    for path, (_, what), text in zip(paths, ABLATION_FILES, texts):
        outputs.write(str(path), [text], what)
    return paths
