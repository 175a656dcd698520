"""What a request must be before any endpoint sees it: for this server, from this machine.

A server on 127.0.0.1 is still reachable by every web page the user's browser opens: a
page may POST to it (a ``text/plain`` or type-less body needs no CORS preflight), and a
name the attacker controls may be re-pointed at 127.0.0.1 (DNS rebinding), after which the
browser treats the server as that page's own origin. So, as the Fetch standard's
same-origin rules suggest (and as Jupyter and Vite do), every request is checked here:

- ``Host`` must be an address the server is served at (localhost, 127.0.0.1, [::1] or the
  bound address, with the port), or one ``--allow-host`` adds; a rebound name fails this;
- ``Origin``, where a browser sends one, must be the server's own (``http://`` + an allowed
  host) or one ``--allow-origin`` adds (those also get CORS headers, Starlette's
  ``CORSMiddleware``);
- a POST must say ``Content-Type: application/json``, which no cross-origin page can send
  without a preflight this server does not grant;
- the body is read within ``body_seconds`` (408 after) and up to ``max_request_bytes``
  (413 past it), counted as it arrives, chunked or not.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Iterable

import anyio
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse

from . import MAX_REQUEST_BYTES

BODY_SECONDS = 30.0  # for the whole body to arrive
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
ANY = "*"


class RequestError(Exception):
    """A request refused: the HTTP status, a short code and the message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code = status, code


def error_response(status: int, code: str, message: str, headers: dict | None = None) -> JSONResponse:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse({"error": {"message": message, "type": kind, "param": None, "code": code}}, status_code=status, headers=headers)


def host_name(host: str) -> str:
    """``host`` as a Host header writes it (an IPv6 address in brackets)."""
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host.lower()


@dataclass(frozen=True)
class Policy:
    """Who may call the server and how much they may send."""

    hosts: frozenset[str]  # Host header values accepted ("name:port", lower case), or {"*"}
    origins: frozenset[str]  # Origin values accepted besides http:// + a host, or {"*"}
    max_request_bytes: int = MAX_REQUEST_BYTES
    body_seconds: float = BODY_SECONDS

    def host_allowed(self, host: str) -> bool:
        return ANY in self.hosts or host.lower() in self.hosts

    def origin_allowed(self, origin: str) -> bool:
        origin = origin.lower()
        if ANY in self.origins or origin in self.origins:
            return True
        scheme, _, host = origin.partition("://")
        return scheme == "http" and host in self.hosts


def served_policy(
    host: str, port: int, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = (),
    max_request_bytes: int = MAX_REQUEST_BYTES, body_seconds: float = BODY_SECONDS,
) -> Policy:
    """The policy of a server bound to ``host:port``: the loopback names and the bound
    address (not a wildcard, which names no host), each with the port, and what the
    options add (a name without a port takes the server's)."""
    names = list(LOOPBACK_NAMES) + ([] if host in WILDCARDS else [host_name(host)])
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:  # a browser leaves the default port out
        hosts.update(names)
    hosts.update(_with_port(extra.strip().lower(), port) for extra in allow_hosts)
    origins = frozenset(origin.strip().lower().rstrip("/") for origin in allow_origins)
    return Policy(frozenset(hosts), origins, max_request_bytes, body_seconds)


def _with_port(host: str, port: int) -> str:
    """A Host value for ``--allow-host``'s ``host``: as given if it has a port, else with ``port``."""
    if host == ANY or (host.startswith("[") and "]:" in host):
        return host
    if not host.startswith("["):
        name, _, given = host.rpartition(":")
        if name and given.isdigit() and ":" not in name:
            return host
    return f"{host_name(host.strip('[]'))}:{port}"


class Guard:
    """ASGI middleware: the checks above, then the body handed on in one piece."""

    def __init__(self, app, policy: Policy):
        self.app = app
        self.policy = policy
        if policy.origins:  # origins allowed besides our own get CORS headers
            self.app = CORSMiddleware(app, allow_origins=sorted(policy.origins), allow_methods=["GET", "POST"], allow_headers=["Content-Type"])

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = self.refusal(scope)
        if refusal is not None:
            return await refusal(scope, receive, send)
        try:
            with anyio.fail_after(self.policy.body_seconds):
                body = await self.read_body(receive)
        except TimeoutError:
            message = f"request body: not received within {self.policy.body_seconds:g} s"
            return await error_response(408, "request_timeout", message, {"Connection": "close"})(scope, receive, send)
        except BodyTooLarge:
            return await error_response(413, "request_too_large", self._too_large())(scope, receive, send)
        if body is None:  # the client left
            return
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    def refusal(self, scope) -> JSONResponse | None:
        """The response refusing the request before its body is read, or None."""
        headers = {}
        for key, value in scope["headers"]:
            headers.setdefault(key, value.decode("latin-1"))
        host = headers.get(b"host", "")
        if not self.policy.host_allowed(host):
            return error_response(403, "host_not_allowed", f"Host {host!r}: not an address this server is served at (phenorules serve --allow-host adds one)")
        origin = headers.get(b"origin")
        if origin is not None and not self.policy.origin_allowed(origin):
            return error_response(403, "origin_not_allowed", f"Origin {origin!r}: another site's page may not call this server (phenorules serve --allow-origin adds one)")
        if scope["method"] == "POST":
            media_type = headers.get(b"content-type", "").split(";")[0].strip().lower()
            if media_type != "application/json":
                return error_response(415, "unsupported_media_type", f"Content-Type {media_type or '(none)'}: send application/json")
        declared = headers.get(b"content-length")
        if declared is not None and not declared.isdigit():
            return error_response(400, "invalid_request", "Content-Length: not a number")
        if declared is not None and int(declared) > self.policy.max_request_bytes:
            return error_response(413, "request_too_large", self._too_large())
        return None

    async def read_body(self, receive) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.policy.max_request_bytes:
                raise BodyTooLarge
            if not message.get("more_body"):
                return b"".join(chunks)

    def _too_large(self) -> str:
        return f"request body: larger than the limit of {self.policy.max_request_bytes} bytes"


class BodyTooLarge(Exception):
    pass
