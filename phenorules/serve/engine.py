"""The loaded pipeline behind every endpoint, run by one request at a time.

The stages are Python under the GIL: threads would not run two Docs faster than one after
the other, and neither spaCy nor the stages promise that one ``nlp`` may process two Docs
at once. So one lock serialises every use of the pipeline (and of the JNLPBA tagger), and
the endpoints run it in a worker thread: requests queue instead of corrupting each other,
and cheap endpoints (health, info, term search) answer while a long article is processed.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Callable, Iterable, Sequence

from spacy.language import Language
from spacy.tokens import Doc

from .. import __version__
from ..article import Article
from ..document import annotate_articles
from ..tasks.patientphex.predict import full_record
from ..view import article_view
from .terms import TermIndex

# A chat answerer: (prompt, engine) -> the reply, or None to let the next one answer.
Answerer = Callable[[str, "Engine"], "str | None"]


class Engine:
    """The pipeline, its ontology and the optional JNLPBA tagger, behind one lock."""

    def __init__(self, nlp: Language, jnlpba_tagger=None):
        self.nlp = nlp
        self.jnlpba_tagger = jnlpba_tagger
        self.ontology = nlp.get_pipe("match").kb.ontology
        self.hpo_release = self.ontology.data_version
        self._lock = threading.RLock()  # reentrant: an answerer may call annotate()

    @cached_property
    def terms(self) -> TermIndex:
        """Built at the first term search, not at start-up (about 0.1 s)."""
        return TermIndex(self.ontology)

    def annotate(self, articles: Iterable[Article]) -> list[dict]:
        """One result per article: text, passages, patients, mentions and the task record."""
        with self._lock:
            return [article_result(article, doc) for article, doc in annotate_articles(self.nlp, articles)]

    def answer(self, prompt: str, answerers: Sequence[Answerer]) -> str:
        """The reply of the first answerer that takes the prompt."""
        with self._lock:
            for answerer in answerers:
                reply = answerer(prompt, self)
                if reply is not None:
                    return reply
        raise LookupError("no answerer took the prompt")

    def info(self) -> dict:
        return {
            "phenorules": __version__,
            "hpo_release": self.hpo_release,
            "ontology": self.ontology.path,
            "terms": len(self.ontology.names),
            "stages": list(self.nlp.pipe_names),
            "jnlpba": self.jnlpba_tagger is not None,
        }


def article_result(article: Article, doc: Doc) -> dict:
    """What /annotate returns for one article: what the pages show (mentions as
    ``phenorules annotate --json`` with their flags) and the task record."""
    return {**article_view(article, doc), "record": full_record(article, doc)}
