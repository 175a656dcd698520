"""The OpenAI-compatible chat endpoint's answers: an ordered list of prompt answerers.

evalscope (and any OpenAI client) sends a conversation; the last user message is the
prompt. Each answerer of :data:`ANSWERERS` either recognises the prompt and answers it or
returns None for the next one: JNLPBA's NER prompt gets the tagged ``<response>`` form,
MedXpertQA's multiple-choice prompt a response ending ``ANSWER: X``, and any other prompt
the phenotypes found in it. Answerers run under the engine's lock.
"""

from __future__ import annotations

import hashlib
import json
import re
import time

from ..errors import InputError
from ..article import text_article
from ..tasks.jnlpba.evalscope_adapter import PROMPT_MARKER, respond
from ..tasks.jnlpba.response import TAG_OF
from ..tasks.medxpertqa.answer import answer_prompt
from ..tasks.patientphex.identifiers import NO_ID
from .engine import Answerer, Engine

MODEL_ID = "phenorules"
_AVAILABLE_TAGS = re.compile(r"^Available entity tags:(.*)$", re.MULTILINE)
_TAG = re.compile(r"<(\w+)>")


def jnlpba_ner(prompt: str, engine: Engine) -> str | None:
    """evalscope's JNLPBA prompt (its tag list is the five JNLPBA types) -> ``<response>``."""
    if engine.jnlpba_tagger is None or PROMPT_MARKER not in prompt:
        return None
    listed = _AVAILABLE_TAGS.findall(prompt)
    if not listed or set(_TAG.findall(listed[-1])) != set(TAG_OF.values()):
        return None
    return respond(engine.jnlpba_tagger, prompt)


def phenotype_list(prompt: str, engine: Engine) -> str:
    """Any prompt: one line per phenotype mention found in it (id, label, text, negation)."""
    (result,) = engine.annotate([text_article("prompt", prompt)])
    lines = [
        f"- {m['hpo_id']} {m['label'] if m['hpo_id'] != NO_ID else '(no HPO term)'}: \"{m['text']}\" at {m['start']}-{m['end']}"
        + (" (negated)" if m["negated"] else "")
        for m in result["mentions"]
    ]
    if not lines:
        return f"No phenotypes found (HPO {engine.hpo_release})."
    return f"Phenotypes found (HPO {engine.hpo_release}):\n" + "\n".join(lines)


ANSWERERS: tuple[Answerer, ...] = (
    jnlpba_ner,
    lambda prompt, engine: answer_prompt(prompt, engine.nlp),  # MedXpertQA -> 'ANSWER: X'
    phenotype_list,
)


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
    model = request.get("model") if isinstance(request.get("model"), str) else MODEL_ID
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()[:24]
    prompt_words, reply_words = len(prompt.split()), len(reply.split())
    return {
        "id": f"chatcmpl-{digest}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": reply_words, "total_tokens": prompt_words + reply_words},
    }


def models() -> dict:
    return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "phenorules"}]}
