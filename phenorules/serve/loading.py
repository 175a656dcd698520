"""The server's app while its pipeline loads, so that the socket answers from the start.

Loading takes seconds (spaCy, the stages and the answerers' modules, the lexicon from the
cache; on a first start the lexicon's build), and a load balancer, a benchmark or
evalscope's runner polling /health should learn at once that the server is up and not yet
ready, not wait on a silent socket. So ``phenorules serve`` runs uvicorn as soon as it
listens, with :class:`Loading` as its app, and builds the real app in a thread:

- ``GET /health`` answers 503 ``{"status": "starting"}`` with ``Retry-After`` while it
  loads (a readiness probe sends no traffic before a 2xx), then the app's 200
  ``{"status": "ready"}``;
- any other request waits for the app, the wait counted against its time budget (past
  it: 503 ``over_time_budget``), then goes to it;
- if the build fails, waiting requests are answered 503 ``not_ready`` and ``on_failure``
  stops the server, whose command then reports the error.

Requests pass the same :class:`.guard.Guard` checks as the app's own before they wait.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .guard import Guard, Policy, error_response

ARRIVAL = "phenorules_arrival"  # scope["state"] key: when a request began to wait (time.monotonic)
_POLL = 0.05  # seconds between looks at the build while a request waits
RETRY_SECONDS = "1"


class Loading:
    """An ASGI app that answers for the app ``build()`` returns until it has returned."""

    def __init__(self, build: Callable[[], ASGIApp], policy: Policy, request_seconds: float):
        self.build = build
        self.request_seconds = request_seconds
        self.app: ASGIApp | None = None
        self.failure: BaseException | None = None
        self.done = threading.Event()
        self.guarded = Guard(self.meanwhile, policy)

    def start(self, on_failure: Callable[[], None] = lambda: None) -> threading.Thread:
        """Build the app in a thread of its own; ``on_failure()`` there if the build raises."""
        thread = threading.Thread(target=self.load, args=(on_failure,), name="phenorules-load", daemon=True)
        thread.start()
        return thread

    def load(self, on_failure: Callable[[], None]) -> None:
        try:
            self.app = self.build()
        except BaseException as error:  # re-raised by the command once the server has stopped
            self.failure = error
            on_failure()
        finally:
            self.done.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is not None:
            return await self.app(scope, receive, send)
        await self.guarded(scope, receive, send)

    async def meanwhile(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request that came before the app: /health says so, any other waits for it."""
        if scope["path"] == "/health" and not self.done.is_set():
            return await JSONResponse({"status": "starting"}, status_code=503, headers={"Retry-After": RETRY_SECONDS})(scope, receive, send)
        arrival = time.monotonic()
        scope.setdefault("state", {})[ARRIVAL] = arrival
        while not self.done.is_set():
            if time.monotonic() - arrival >= self.request_seconds:
                message = f"the server is still loading its pipeline after the request's time budget of {self.request_seconds:g} s (GET /health answers 200 once it is ready)"
                return await error_response(503, "over_time_budget", message, {"Retry-After": RETRY_SECONDS})(scope, receive, send)
            await anyio.sleep(_POLL)
        if self.app is None:
            return await error_response(503, "not_ready", "the server could not load its pipeline and is stopping")(scope, receive, send)
        await self.app(scope, receive, send)
