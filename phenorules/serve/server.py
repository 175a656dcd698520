"""``phenorules serve``'s process: the socket, uvicorn with its connection limits, and the
app, loaded behind /health (:mod:`.loading`).

Only what answers before the pipeline is loaded is imported here (uvicorn, Starlette's
responses, the guard); the app's modules, which import spaCy, the formats and the
answerers, are imported by the thread that builds it.
"""

from __future__ import annotations

import logging
import socket
from typing import TYPE_CHECKING, Callable

import uvicorn
from starlette.types import ASGIApp

from ..core.errors import PhenorulesError
from .connections import MAX_HEAD_BYTES, ConnectionLimits
from .guard import Policy, host_name
from .loading import Loading

if TYPE_CHECKING:  # imported by the loading thread (it imports spaCy)
    from .engine import Engine

LOG = logging.getLogger("uvicorn.error")  # uvicorn prints this logger
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
KEEP_ALIVE_SECONDS = 5  # an idle connection between requests is closed after this


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound before anything loads so a taken port fails at once."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        raise PhenorulesError(f"{host}:{port}: cannot listen ({error.strerror or error})") from None
    return sock


def server_config(app: ASGIApp, limits: ConnectionLimits = ConnectionLimits(), quiet: bool = True) -> uvicorn.Config:
    """uvicorn's settings: HTTP/1.1 by h11 with :class:`.connections.ConnectionLimits`, no
    WebSocket, no lifespan, no access log."""
    return uvicorn.Config(
        app,
        http=limits.protocol(),
        ws="none",
        lifespan="off",
        access_log=False,
        log_level="warning" if quiet else "info",
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )


def serve(build_engine: Callable[[], Engine], host: str, port: int, policy_for: Callable[[int], Policy], request_seconds: float, limits: ConnectionLimits, quiet: bool) -> None:
    """Listen on ``host:port`` and serve until interrupted: /health at once (503 while
    loading), the app over ``build_engine()`` once built; ``policy_for(port)`` is the
    policy for the port bound. A failed build stops the server and is raised here."""
    sock = listen(host, port)
    bound_port = sock.getsockname()[1]
    policy = policy_for(bound_port)

    def build() -> ASGIApp:
        from .app import create_app  # spaCy, the formats, the answerers: in the loading thread

        engine = build_engine()
        app = create_app(engine, policy, request_seconds)
        if not quiet:
            print(f"phenorules: ready (HPO {engine.hpo_release}; stages {', '.join(engine.nlp.pipe_names)})", flush=True)
        return app

    loading = Loading(build, policy, request_seconds)
    if host not in LOCAL_HOSTS:
        LOG.warning("phenorules serve: listening on %s, reachable from other machines; there is no authentication (--allow-host names the hosts it is reached by)", host)
    if not quiet:
        print(f"phenorules: serving http://{host_name(host)}:{bound_port}/ (loading the pipeline: GET /health answers 503 until it is ready)", flush=True)
    server = uvicorn.Server(server_config(loading, limits, quiet))
    loading.start(on_failure=lambda: setattr(server, "should_exit", True))
    server.run(sockets=[sock])
    if loading.failure is not None:
        raise loading.failure
