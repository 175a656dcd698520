"""The connection layer under the app: a deadline for each request head, a cap on connections.

uvicorn (0.55) closes a connection only while it is idle between requests
(``timeout_keep_alive``, armed when a response ends), and its ``limit_concurrency`` answers
503 only to a request whose head is complete. A client that opens a connection and sends
part of a request line or of its headers, or nothing, holds a socket for as long as it
likes, and a thousand of them use up the file descriptors so that nothing, /health
included, is accepted. No ASGI middleware can see such a client (the app is called once a
head is complete), so the limits are kept here, in a subclass of uvicorn's h11 protocol:

- a request head must be complete within ``header_seconds`` of the connection's opening,
  or of the first byte of its next request after a response; else the connection is
  closed (the deadline is for the whole head, not a byte at a time);
- at most ``max_connections`` are open (by default 512, or half the process's open-file
  limit if that is lower, the rest left to the server's own files): one more closes the
  connection that has waited longest for a request head (idle or still sending one), or
  itself when every other connection has a request in progress, so a client with a
  complete request (/health) is served while the slow ones are cut.

A head is also at most :data:`MAX_HEAD_BYTES` (h11's limit of an incomplete event; more is
a 400).
"""

from __future__ import annotations

import asyncio
import itertools
import resource
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 5.0  # for a request line and its headers to arrive
MAX_CONNECTIONS = 512  # open at once, where the open-file limit allows
MAX_HEAD_BYTES = 16 * 1024


def open_file_limit() -> int | None:
    """The process's limit of open files (``ulimit -n``), None if unlimited."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def default_max_connections() -> int:
    limit = open_file_limit()
    return MAX_CONNECTIONS if limit is None else max(1, min(MAX_CONNECTIONS, limit // 2))


@dataclass(frozen=True)
class ConnectionLimits:
    header_seconds: float = HEADER_SECONDS
    max_connections: int = field(default_factory=default_max_connections)

    def protocol(self) -> Callable[..., H11Protocol]:
        """The protocol uvicorn makes each connection with (its ``http`` setting)."""
        return partial(LimitedH11Protocol, limits=self)


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with :class:`ConnectionLimits` kept."""

    turns = itertools.count()  # the order in which connections began to wait for a head

    def __init__(self, *args, limits: ConnectionLimits, **kwargs):
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.head_deadline: asyncio.TimerHandle | None = None
        self.waiting_since = next(self.turns)  # opened, or its last response sent

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.start_head_deadline()
        open_connections = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_connections) > self.limits.max_connections:
            # The one waiting longest for a head; this one (the newest) if all others are busy.
            waiting = [c for c in open_connections if isinstance(c, LimitedH11Protocol) and c.waits_for_head()]
            min(waiting, key=lambda c: c.waiting_since).transport.close()

    def data_received(self, data: bytes) -> None:
        if self.head_deadline is None and self.waits_for_head():  # the next request after a response
            self.start_head_deadline()
        super().data_received(data)
        if not self.waits_for_head():
            self.stop_head_deadline()

    def on_response_complete(self) -> None:
        self.waiting_since = next(self.turns)
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_head_deadline()
        super().connection_lost(exc)

    def waits_for_head(self) -> bool:
        """No request in progress: its head is still to come (idle, or arriving)."""
        return self.conn.their_state is h11.IDLE

    def start_head_deadline(self) -> None:
        self.head_deadline = self.loop.call_later(self.limits.header_seconds, self.head_timed_out)

    def stop_head_deadline(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def head_timed_out(self) -> None:
        self.head_deadline = None
        if self.waits_for_head() and not self.transport.is_closing():
            self.transport.close()
