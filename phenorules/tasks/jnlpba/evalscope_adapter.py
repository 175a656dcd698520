"""Let evalscope score phenorules as a local model on its ``jnlpba`` benchmark (optional extra).

``pip install 'phenorules[evalscope]'``, then::

    from phenorules.tasks.jnlpba.evalscope_adapter import run_jnlpba
    run_jnlpba("/path/to/standoff/train", limit=100)

evalscope is imported only inside the functions that need it. What this relies on, read in
the source of evalscope 1.14.1 (not run here: evalscope is not installed in this project's
environment): ``evalscope.api.model.ModelAPI`` with the abstract method
``generate(input, tools, tool_choice, config) -> ModelOutput``;
``ModelOutput.from_content(model=..., content=...)``; ``ChatMessage.text``;
``TaskConfig(model=<ModelAPI instance>, eval_type='custom', datasets=['jnlpba'],
dataset_args={'jnlpba': {'few_shot_num': 0}}, limit=...)`` and ``run_task`` (a ModelAPI
instance is wrapped as is by ``get_model``; ``eval_type='custom'`` keeps the local-checkpoint
defaults away); the NER prompt (``evalscope/utils/ner.py``) ends with
``Text to process:\\n{text}\\n`` where ``text`` is the sentence's tokens joined by spaces.
The answer is :func:`~phenorules.tasks.jnlpba.response.to_response`, which evalscope's
``xml_to_bio_tags`` reads back to exactly our tags (checked on all 3,856 test sentences
against that file of evalscope 1.14.1).
"""

from __future__ import annotations

from pathlib import Path

from .predict import predict_sentence
from .response import to_response
from .tag import Tagger

PROMPT_MARKER = "Text to process:\n"


def sentence_tokens(prompt: str) -> list[str]:
    """The whitespace tokens of the last 'Text to process:' block of evalscope's NER prompt."""
    _, marker, text = prompt.rpartition(PROMPT_MARKER)
    return (text if marker else prompt).split()


def respond(tagger: Tagger, prompt: str) -> str:
    """The tagged ``<response>`` for the sentence a prompt asks about."""
    tokens = sentence_tokens(prompt)
    return to_response(tokens, predict_sentence(tagger, tokens).tags)


def model_api(train_dir: str | Path, model_name: str = "phenorules-jnlpba"):
    """An evalscope ``ModelAPI`` whose answers are phenorules' tags."""
    from evalscope.api.model import ModelAPI, ModelOutput

    from .model import load_model, make_tagger

    tagger = make_tagger(load_model(train_dir))

    class PhenorulesNER(ModelAPI):
        def generate(self, input, tools, tool_choice, config):
            return ModelOutput.from_content(model=self.model_name, content=respond(tagger, input[-1].text))

    return PhenorulesNER(model_name)


def run_jnlpba(train_dir: str | Path, limit: int | None = None, work_dir: str = "outputs"):
    """Run evalscope's jnlpba benchmark (zero-shot: the prompt's examples are of no use to rules)."""
    from evalscope import TaskConfig, run_task

    config = TaskConfig(
        model=model_api(train_dir),
        eval_type="custom",
        datasets=["jnlpba"],
        dataset_args={"jnlpba": {"few_shot_num": 0}},
        limit=limit,
        work_dir=work_dir,
    )
    return run_task(config)
