"""The loaded pipeline behind every endpoint, run by one request at a time, within its budget.

The stages are Python under the GIL: threads would not run two Docs faster than one after
the other, and neither spaCy nor the stages promise that one ``nlp`` may process two Docs
at once. So one lock serialises every use of the pipeline (and of the JNLPBA tagger), and
the endpoints run it in a worker thread: requests queue instead of corrupting each other,
and cheap endpoints (health, info, term search) answer while a long article is processed.

Each request has a :class:`Budget`: a deadline, and a flag the endpoint sets when its
client disconnects. A thread cannot be killed, so the work stops itself: the pipeline is
run a stage at a time (:class:`StagedPipeline`) and the budget is checked before every
stage of every Doc and while waiting for the lock; a spent budget raises, which frees the
lock for the next request within one stage's time.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from spacy.language import Language
from spacy.tokens import Doc

from .. import __version__
from . import REQUEST_SECONDS
from ..core.article import Article
from ..core.annotated import AnnotatedArticle, annotated_articles
from ..formats.patientphex.records import full_record
from ..formats.view import article_view
from .guard import RequestError
from .terms import TermIndex

_LOCK_POLL = 0.1  # seconds between budget checks while the lock is taken

# A chat answerer: (prompt, engine) -> the reply, or None to let the next one answer.
Answerer = Callable[[str, "Engine"], "str | None"]


class Budget:
    """A request's time budget (None: unlimited), counted from ``since`` (a
    ``time.monotonic()``; default now), and whether its client is still there."""

    def __init__(self, seconds: float | None = REQUEST_SECONDS, since: float | None = None):
        self.seconds = seconds
        self.deadline = None if seconds is None else (time.monotonic() if since is None else since) + seconds
        self._left = threading.Event()

    def client_left(self) -> None:
        self._left.set()

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def check(self) -> None:
        """RequestError 503 once the client has left or the deadline has passed."""
        if self._left.is_set():
            raise RequestError(503, "client_left", "the client disconnected; the request was stopped")
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise RequestError(
                503, "over_time_budget",
                f"the request took longer than its time budget of {self.seconds:g} s and was stopped (send less text at once, or start the server with a larger --request-timeout)",
            )


class StagedPipeline:
    """``nlp`` run one stage at a time with the budget checked before each (spaCy's
    ``Language.__call__`` has no hook between stages); anything else is ``nlp``'s."""

    def __init__(self, nlp: Language, budget: Budget):
        self.nlp = nlp
        self.budget = budget

    def __call__(self, doc: Doc | str, disable: Iterable[str] = ()) -> Doc:
        if isinstance(doc, str):
            doc = self.nlp.make_doc(doc)
        for name, stage in self.nlp.pipeline:
            if name not in disable:
                self.budget.check()
                doc = stage(doc)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int | None = None, disable: Iterable[str] = ()) -> Iterator[Doc]:
        return (self(doc, disable) for doc in docs)

    def __getattr__(self, name: str):
        return getattr(self.nlp, name)


class Engine:
    """The pipeline, its ontology and the optional JNLPBA tagger, behind one lock."""

    def __init__(self, nlp: Language, jnlpba_tagger=None):
        self.nlp = nlp
        self.jnlpba_tagger = jnlpba_tagger
        self.ontology = nlp.get_pipe("match").kb.ontology
        self.hpo_release = self.ontology.data_version
        self._lock = threading.RLock()  # reentrant: an answerer may call annotate()
        self._budget: Budget | None = None  # the lock holder's, set and read under the lock

    @cached_property
    def terms(self) -> TermIndex:
        """Built at the first term search, not at start-up (about 0.1 s)."""
        return TermIndex(self.ontology)

    @contextmanager
    def holding(self, budget: Budget | None) -> Iterator[StagedPipeline]:
        """The pipeline, locked for one request; a nested use (``budget`` None) runs
        within the holder's budget."""
        if budget is None:
            self._lock.acquire()
            budget = self._budget or Budget(None)  # the holder's, or none for a library caller
        else:
            while not self._lock.acquire(timeout=_LOCK_POLL):
                budget.check()
        outer, self._budget = self._budget, budget
        try:
            budget.check()
            yield StagedPipeline(self.nlp, budget)
        finally:
            self._budget = outer
            self._lock.release()

    @property
    def pipeline(self) -> StagedPipeline:
        """For answerers, which run under the lock: the pipeline within the holder's budget."""
        return StagedPipeline(self.nlp, self._budget or Budget(None))

    def annotate(self, articles: Iterable[Article], budget: Budget | None = None) -> list[dict]:
        """One result per article: text, passages, patients, mentions and the task record."""
        with self.holding(budget) as nlp:
            return [article_result(result) for result in annotated_articles(nlp, articles)]

    def answer(self, prompt: str, answerers: Sequence[Answerer], budget: Budget | None = None) -> str:
        """The reply of the first answerer that takes the prompt."""
        with self.holding(budget):
            for answerer in answerers:
                reply = answerer(prompt, self)
                if reply is not None:
                    return reply
        raise LookupError("no answerer took the prompt")

    def info(self) -> dict:
        return {
            "phenorules": __version__,
            "hpo_release": self.hpo_release,
            "ontology": Path(self.ontology.path).name,  # the file's name: no directory is shown
            "terms": len(self.ontology.names),
            "stages": list(self.nlp.pipe_names),
            "jnlpba": self.jnlpba_tagger is not None,
        }


def article_result(result: AnnotatedArticle) -> dict:
    """What /annotate returns for one article: what the pages show (mentions as
    ``phenorules annotate --json`` with their flags) and the PatientPheX record with
    labels, patients and provenance (``full_record``)."""
    return {**article_view(result), "record": full_record(result)}
