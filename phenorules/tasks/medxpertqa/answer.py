"""Answering a MedXpertQA prompt as evalscope sends it, in the response form it parses.

evalscope's MedXpertQA adapter (modelscope/evalscope, benchmarks/medxpertqa) cuts the
"Answer Choices:" list off the question and fills its multiple-choice template::

    Answer the following multiple choice question. The last line of your response should
    be of the following format: 'ANSWER: [LETTER]' (without quotes) where [LETTER] is one
    of A,B,C,D,E,F,G,H,I,J. Think step by step before answering.

    <question>

    A) <option>
    ...
    J) <option>

Its parser takes the letter after the last ``ANSWER:``; the response here ends with that
line. :func:`answer_prompt` returns None for any other prompt.
"""

from __future__ import annotations

import re

from .io import Question
from .knowledge import Knowledge, load_knowledge
from .profile import QuestionProfile, question_profile
from .score import DEFAULT_SIMILARITY, Answer, answer

_HEADER = re.compile(
    r"^\s*Answer the following multiple choice question\. The (?:last line|entire content) of your response should be of the following format: "
    r"'ANSWER: \[LETTER\]' \(without quotes\) where \[LETTER\] is one of ([A-Z](?:,[A-Z])*)\.[^\n]*\n\n"
)


def parse_prompt(prompt: str) -> Question | None:
    """The question and options of an evalscope single-answer prompt, else None."""
    header = _HEADER.match(prompt)
    if header is None:
        return None
    letters = header.group(1).split(",")
    if len(letters) < 2 or letters != [chr(ord("A") + i) for i in range(len(letters))]:
        return None
    body = prompt[header.end() :]
    choices = "".join(rf"\n{letter}\) (?P<{letter}>.*?)" for letter in letters[1:])
    pattern = re.compile(rf"\nA\) (?P<A>.*?){choices}\s*\Z", re.DOTALL)
    # The options block is the last one that holds every letter in order.
    for start in reversed([m.start() for m in re.finditer(r"\n\nA\) ", "\n" + body)]):
        match = pattern.match("\n" + body, start + 1)
        if match:
            stem = ("\n" + body)[:start].strip()
            if not stem:
                return None
            options = tuple((letter, match.group(letter).strip()) for letter in letters)
            return Question("prompt", stem, options)
    return None


def pipeline_ontology(nlp):
    """The ontology of the pipeline's knowledge base."""
    return nlp.get_pipe("match").kb.ontology


SCORE_NAMES = {"simgic": "simGIC", "phenomizer": "z against chance"}


def response_text(profile: QuestionProfile, result: Answer, knowledge: Knowledge, similarity: str = DEFAULT_SIMILARITY) -> str:
    """A short account of the evidence, then ``ANSWER: X`` on the last line."""
    names = knowledge.ontology.names
    lines = []
    findings = ", ".join(names[h] for h in sorted(profile.present)) or "none recognised"
    lines.append(f"Phenotypes in the question: {findings}.")
    if profile.excluded:
        lines.append("Excluded: " + ", ".join(names[h] for h in sorted(profile.excluded)) + ".")
    if result.speaks:
        ranked = sorted(result.scores.items(), key=lambda item: (-item[1], item[0]))
        scores = ", ".join(f"{letter} {score:.3f}" for letter, score in ranked)
        lines.append(f"Similarity to each option's phenotypes ({SCORE_NAMES[similarity]}): {scores}.")
    else:
        lines.append("The phenotype knowledge does not tell the options apart; the first option is given.")
    lines.append(f"ANSWER: {result.letter}")
    return "\n".join(lines)


def answer_prompt(prompt: str, nlp) -> str | None:
    """The response to an evalscope MedXpertQA-style multiple-choice prompt, ending with
    the line ``ANSWER: X``; None when ``prompt`` is not one."""
    question = parse_prompt(prompt)
    if question is None:
        return None
    knowledge = load_knowledge(pipeline_ontology(nlp))
    profile = question_profile(nlp, knowledge, question)
    return response_text(profile, answer(profile, knowledge), knowledge)
