"""spaCy's ``DocBin`` (a ``.spacy`` file): the results as Docs for other spaCy projects
(``DocBin().from_disk(path).get_docs(nlp.vocab)``, spaCy's training corpora).

Each article is one Doc of its text (passages at their global offsets, tokenised as the
pipeline tokenises, so every mention is whole tokens) whose span group ``phenotypes`` holds
one span per phenotype mention, labelled ``PHENOTYPE`` with the first HPO id as
``kb_id_`` (``NIL`` when no term fits), as the spaCy component gives them;
``doc.user_data["phenorules"]`` holds the rest: the article id and pmid, each mention's ids,
label, assertions, patients and provenance, and the associations. spaCy serialises the
strings sorted and the rest in order: the same results give the same bytes.
"""

from __future__ import annotations

import base64
import functools
from typing import Iterator

from spacy.language import Language
from spacy.tokens import DocBin

from ..core.annotated import AnnotatedArticle
from ..core.document import PHENOTYPE_LABEL, PHENOTYPES
from ..stages.pipeline import blank_english
from .registry import Format, Parts, Stream, register

NO_TERM = "NIL"  # spaCy's kb_id of an entity no knowledge-base entry fits
USER_DATA_KEY = "phenorules"


def article_docbin(result: AnnotatedArticle) -> DocBin:
    """A DocBin of the one Doc of a result."""
    doc = _english().make_doc(result.article.text)
    doc.spans[PHENOTYPES] = [
        doc.char_span(p.start, p.end, label=PHENOTYPE_LABEL, kb_id=p.hpo_ids[0] if p.hpo_ids else NO_TERM, alignment_mode="expand")
        for p in result.phenotypes
    ]
    doc.user_data[USER_DATA_KEY] = {
        "article": result.article.id,
        "pmid": result.article.pmid,
        "phenotypes": [
            {"start": p.start, "end": p.end, "hpo_ids": list(p.hpo_ids), "label": p.label, "assertions": list(p.assertions), "patients": list(p.patients), "provenance": list(p.provenance)}
            for p in result.phenotypes
        ],
        "associations": result.associations,
    }
    docs = DocBin(store_user_data=True)
    docs.add(doc)
    return docs


@functools.lru_cache(maxsize=1)
def _english() -> Language:
    """The tokenizer of the pipeline, made once: a token's strings are stored by their
    hashes, whatever the vocabulary holds already."""
    return blank_english()


def _part(result: AnnotatedArticle) -> str:
    """An article's part: its one-Doc DocBin's bytes, as base64 text."""
    return base64.b64encode(article_docbin(result).to_bytes()).decode("ascii")


def _merged(parts: Parts) -> Iterator[bytes]:
    """One DocBin of every article's, in order: spaCy writes the strings sorted and the
    rest in order, so merging gives the bytes of one DocBin the Docs were added to."""
    docs = DocBin(store_user_data=True)
    for part in parts():
        docs.merge(DocBin(store_user_data=True).from_bytes(base64.b64decode(part)))
    yield docs.to_bytes()


DOCBIN = register(Format("docbin", "spaCy DocBin (.spacy)", "DocBin", stream=Stream(_part, _merged)))
