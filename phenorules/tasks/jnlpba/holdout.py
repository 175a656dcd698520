"""Held-out evaluation inside the training set, for choosing thresholds and rules without the test set.

Two splits: every N-th training abstract (scored over rule tokens of the raw text), or the
abstracts of an IOB2 development file carved from the training set (MTL-Bioinformatics-2016
``devel.tsv``), which are found among the brat abstracts by their text and scored over the
file's own tokens, exactly as the test set is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .io import Document, Sentence

_QUOTES = str.maketrans({"`": "'", '"': "'"})


def text_signature(text: str) -> str:
    """The text without white space and full stops (the IOB2 files drop a title's final '.'), every
    quote as "'": equal for an abstract and its tokens."""
    return re.sub(r"[\s.]+", "", text).replace("``", "'").replace("''", "'").translate(_QUOTES)


@dataclass(frozen=True)
class DevSplit:
    learn: list[Document]
    sentences: list[Sentence]
    matched: int
    unmatched: int


def split_by_dev_file(documents: Sequence[Document], dev_documents: Sequence[Sequence[Sentence]]) -> DevSplit:
    """Hold out the training abstracts that the IOB2 documents are; unmatched IOB2 documents are not scored."""
    by_signature = {text_signature(d.text): d.doc_id for d in documents}
    held: set[str] = set()
    sentences: list[Sentence] = []
    unmatched = 0
    for dev in dev_documents:
        doc_id = by_signature.get(text_signature(" ".join(" ".join(s.tokens) for s in dev)))
        if doc_id is None:
            unmatched += 1
            continue
        held.add(doc_id)
        sentences.extend(dev)
    return DevSplit([d for d in documents if d.doc_id not in held], sentences, len(dev_documents) - unmatched, unmatched)


def split_every(documents: Sequence[Document], every: int) -> tuple[list[Document], list[Document]]:
    """(learn, held out): every ``every``-th abstract in file-name order is held out."""
    return [d for i, d in enumerate(documents) if i % every], [d for i, d in enumerate(documents) if not i % every]
