"""Tagging IOB2 sentences and held-out training abstracts, and writing evalscope-style output.

A test sentence is tagged as evalscope shows it to a model: its tokens joined by single
spaces. Entity character spans are mapped back to the tokens they overlap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence, TextIO

from .io import Document, Sentence, spans_to_tags, token_offsets
from .learn import rule_tokens
from .response import to_response
from .tag import Tagged, Tagger


@dataclass(frozen=True)
class Prediction:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    entities: tuple[Tagged, ...]
    text: str


def predict_sentence(tagger: Tagger, tokens: Sequence[str]) -> Prediction:
    text = " ".join(tokens)
    entities = tuple(tagger(text))
    tags = spans_to_tags([(e.start, e.end, e.label) for e in entities], token_offsets(tokens))
    return Prediction(tuple(tokens), tuple(tags), entities, text)


def predict_sentences(tagger: Tagger, sentences: Sequence[Sentence]) -> list[Prediction]:
    return [predict_sentence(tagger, sentence.tokens) for sentence in sentences]


def document_tags(tagger: Tagger, document: Document) -> tuple[list[str], list[str]]:
    """(gold, predicted) tags of a held-out abstract over its rule tokens."""
    tokens = rule_tokens(document.text)
    gold = spans_to_tags([(e.start, e.end, e.label) for e in document.entities], tokens)
    pred = spans_to_tags([(e.start, e.end, e.label) for e in tagger(document.text)], tokens)
    return gold, pred


def write_predictions(handle: TextIO, predictions: Sequence[Prediction]) -> None:
    """One JSON object a sentence: tokens, tags, evalscope response, entities with provenance."""
    for p in predictions:
        record = {
            "tokens": list(p.tokens),
            "tags": list(p.tags),
            "response": to_response(p.tokens, p.tags),
            "entities": [
                {"start": e.start, "end": e.end, "type": e.label, "text": p.text[e.start : e.end], "provenance": list(e.provenance)}
                for e in p.entities
            ],
        }
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
