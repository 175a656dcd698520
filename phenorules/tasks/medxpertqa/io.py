"""Reading MedXpertQA questions in the authors' layout and in evalscope's.

The authors' files give ``options`` as a list of ``{"letter", "content"}`` and ``label`` as
a one-letter list; evalscope's (the Hugging Face copy) gives ``options`` as a
``{"A": text}`` dict and ``label`` as a letter. Both become a :class:`Question`. The
question text of either ends in "\\nAnswer Choices: (A) ..."; the stem is what precedes it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from phenorules.core.errors import InputError
from phenorules.core.files import json_value, read_bytes

ANSWER_CHOICES_MARKER = "\nAnswer Choices:"
GROUP_FIELDS = ("medical_task", "body_system", "question_type")


@dataclass(frozen=True)
class Question:
    id: str
    stem: str
    options: tuple[tuple[str, str], ...]  # (letter, text) in letter order
    label: str | None = None
    groups: dict[str, str] = field(default_factory=dict)  # medical_task, body_system, question_type

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(letter for letter, _ in self.options)


def read_questions(path: str) -> list[Question]:
    """Every question of a JSONL file; a bad line is an InputError naming file and line."""
    questions = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(io.BytesIO(read_bytes(path)).readlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}, line {number}"
        record = json_value(raw, where)
        question = parse_question(record, where)
        if question.id in seen:
            raise InputError(f"{where}: id {question.id!r} repeats line {seen[question.id]}")
        seen[question.id] = number
        questions.append(question)
    return questions


def parse_question(record: Any, where: str) -> Question:
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    question_id = record.get("id")
    text = record.get("question")
    if not isinstance(question_id, (str, int)) or isinstance(question_id, bool):
        raise InputError(f"{where}: id: expected a string")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where}: question: expected a non-empty string")
    options = _options(record.get("options"), where)
    letters = {letter for letter, _ in options}
    label = _label(record.get("label"), where)
    if label is not None and label not in letters:
        raise InputError(f"{where}: label: {label!r} is not one of the options {sorted(letters)}")
    groups = {name: str(record[name]) for name in GROUP_FIELDS if record.get(name) is not None}
    return Question(str(question_id), stem_of(text), options, label, groups)


def stem_of(text: str) -> str:
    """The question without its "Answer Choices:" list (evalscope cuts it the same way)."""
    return text.partition(ANSWER_CHOICES_MARKER)[0].strip()


def _options(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = []
        for index, item in enumerate(value):
            if not isinstance(item, dict) or not isinstance(item.get("letter"), str) or not isinstance(item.get("content"), str):
                raise InputError(f"{where}: options[{index}]: expected {{\"letter\": ..., \"content\": ...}}")
            pairs.append((item["letter"], item["content"]))
    else:
        raise InputError(f"{where}: options: expected a list of {{letter, content}} or a {{letter: text}} object")
    if len(pairs) < 2:
        raise InputError(f"{where}: options: expected at least two")
    for letter, text in pairs:
        if not isinstance(letter, str) or len(letter) != 1 or not letter.isupper() or not isinstance(text, str):
            raise InputError(f"{where}: options: {letter!r} is not an upper-case letter with a text")
    if len({letter for letter, _ in pairs}) != len(pairs):
        raise InputError(f"{where}: options: a letter repeats")
    return tuple(sorted((letter, text.strip()) for letter, text in pairs))


def _label(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        if len(value) != 1:
            raise InputError(f"{where}: label: expected one letter, got {len(value)}")
        value = value[0]
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: label: expected a letter")
    return value.strip()
