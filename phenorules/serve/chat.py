"""The OpenAI-compatible chat endpoint's answers: an ordered list of prompt answerers.

evalscope (and any OpenAI client) sends a conversation; the last user message is the
prompt. Each answerer of :data:`ANSWERERS` either recognises the prompt and answers it or
returns None for the next one: JNLPBA's NER prompt gets the tagged ``<response>`` form,
MedXpertQA's multiple-choice prompt a response ending ``ANSWER: X``, another NER prompt a
reply saying what is served, and any other prompt the phenotypes found in it (or, when
there are none, what the server answers). Answerers run under the engine's lock.
"""

from __future__ import annotations

import hashlib
import json
import re
import time

from ..core.errors import InputError
from ..core.article import text_article
from ..tasks.jnlpba.evalscope_adapter import PROMPT_MARKER, respond
from ..tasks.jnlpba.response import TAG_OF
from ..tasks.medxpertqa.answer import answer_prompt
from ..kb.lexicon.tsv import NO_TERM_CELL
from .engine import Answerer, Engine
from .guard import RequestError

MODEL_ID = "phenorules"
SERVED = (
    "phenorules is a phenotype recogniser, not a chat model: it answers evalscope's JNLPBA named-entity prompt "
    "(when started with --jnlpba-train), evalscope's MedXpertQA multiple-choice prompt, and lists the HPO "
    "phenotypes named in any other text."
)
_AVAILABLE_TAGS = re.compile(r"^Available entity tags:(.*)$", re.MULTILINE)
_TAG = re.compile(r"<(\w+)>")
_JNLPBA_TAGS = sorted(TAG_OF.values())


def _asked_tags(prompt: str) -> list[str] | None:
    """The tags an evalscope NER prompt asks for, or None for another prompt."""
    listed = _AVAILABLE_TAGS.findall(prompt)
    if PROMPT_MARKER not in prompt or not listed:
        return None
    return sorted(set(_TAG.findall(listed[-1])))


def jnlpba_ner(prompt: str, engine: Engine) -> str | None:
    """evalscope's JNLPBA prompt (its tag list is the five JNLPBA types) -> ``<response>``."""
    if engine.jnlpba_tagger is None or _asked_tags(prompt) != _JNLPBA_TAGS:
        return None
    return respond(engine.jnlpba_tagger, prompt)


def unserved_ner(prompt: str, engine: Engine) -> str | None:
    """Any other NER prompt -> what is served instead (no phenotype list for it)."""
    tags = _asked_tags(prompt)
    if tags is None:
        return None
    jnlpba = ", ".join(f"<{tag}>" for tag in _JNLPBA_TAGS)
    if tags == _JNLPBA_TAGS:
        return f"This server has no JNLPBA tagger: start phenorules serve with --jnlpba-train DIR to tag {jnlpba}."
    asked = ", ".join(f"<{tag}>" for tag in tags) or "none"
    return f"Entity tags asked for: {asked}. phenorules tags only JNLPBA's {jnlpba}. {SERVED}"


def phenotype_list(prompt: str, engine: Engine) -> str:
    """Any prompt: one line per phenotype mention found in it (id, label, text, negation)."""
    (result,) = engine.annotate([text_article("prompt", prompt)])
    lines = [
        f"- {m['hpo_id']} {m['label'] if m['hpo_id'] != NO_TERM_CELL else '(no HPO term)'}: \"{m['text']}\" at {m['start']}-{m['end']}"
        + (" (negated)" if m["negated"] else "")
        for m in result["mentions"]
    ]
    if not lines:
        return f"No phenotypes found in this text (HPO {engine.hpo_release}). {SERVED}"
    return f"Phenotypes found (HPO {engine.hpo_release}):\n" + "\n".join(lines)


ANSWERERS: tuple[Answerer, ...] = (
    jnlpba_ner,
    lambda prompt, engine: answer_prompt(prompt, engine.pipeline),  # MedXpertQA -> 'ANSWER: X'
    unserved_ner,
    phenotype_list,
)


def check_model(request: object) -> None:
    """The request names a served model: 400 without one, 404 ``model_not_found`` (as
    OpenAI's API answers) for another."""
    model = request.get("model") if isinstance(request, dict) else None
    if not isinstance(model, str):
        raise RequestError(400, "invalid_request", f"model: expected a string naming a served model ({MODEL_ID}; GET /v1/models)")
    if model != MODEL_ID:
        raise RequestError(404, "model_not_found", f"The model `{model}` does not exist: this server serves only `{MODEL_ID}` (GET /v1/models)")


def last_user_text(request: object) -> str:
    """The text of the last user message of an OpenAI chat request; InputError if none."""
    if not isinstance(request, dict):
        raise InputError("request: expected a JSON object")
    if request.get("stream"):
        raise InputError("stream: streaming is not supported; send stream=false")
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InputError("messages: expected a non-empty array of messages")
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if not isinstance(message, dict):
            raise InputError(f"messages[{i}]: expected an object")
        if message.get("role") == "user":
            return _content_text(message.get("content"), f"messages[{i}].content")
    raise InputError("messages: no message with role 'user'")


def _content_text(content: object, place: str) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        texts = [part.get("text") for part in content if part.get("type") == "text"]
        if texts and all(isinstance(text, str) for text in texts):
            return "\n".join(texts)
    raise InputError(f"{place}: expected a string or an array of text parts")


def completion(request: dict, reply: str, prompt: str) -> dict:
    """An OpenAI ``chat.completion`` object for ``reply`` (usage counted in words)."""
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()[:24]
    prompt_words, reply_words = len(prompt.split()), len(reply.split())
    return {
        "id": f"chatcmpl-{digest}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": reply_words, "total_tokens": prompt_words + reply_words},
    }


def models() -> dict:
    return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "phenorules"}]}
