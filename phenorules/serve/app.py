"""The Starlette application: the curation page, /annotate, the exports and the OpenAI API.

Every error is a JSON object ``{"error": {"message", "type", "code"}}`` (OpenAI's error
shape) with a 4xx status for bad requests; an unexpected failure is logged on the server
and answered 500 with no detail. Request bodies are capped (413 past the cap). Requests
never name files: documents come in the body, and the page reads an uploaded file in the
browser and sends its content.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..formats.bioc import parse_bioc
from ..errors import InputError, PhenorulesError
from ..inputs import FORMATS, article_id, detect_format, parse_input
from ..article import Article, text_article
from ..tasks.patientphex.articles import to_article
from ..tasks.patientphex.io import parse_articles
from ..view import page_config, render_template
from . import MAX_REQUEST_BYTES
from .chat import ANSWERERS, completion, last_user_text, models
from .curation import EXPORTS, curated_records
from .engine import Answerer, Engine

STATIC_DIR = Path(__file__).with_name("static")
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'", "X-Content-Type-Options": "nosniff"}
MAX_SUGGESTIONS = 50
LOG = logging.getLogger("uvicorn.error")  # uvicorn prints this logger


class RequestError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def error_response(status: int, message: str) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


class BodyLimit:
    """ASGI middleware: reads the request body up to ``max_bytes`` (413 past it) and hands
    it on in one piece."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            status, message = (413, self._too_large()) if declared.isdigit() else (400, "Content-Length: not a number")
            return await error_response(status, message)(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                return await error_response(413, self._too_large())(scope, receive, send)
            if not message.get("more_body"):
                break
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        return await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"request body: larger than the limit of {self.max_bytes} bytes"


async def read_json(request: Request) -> Any:
    body = await request.body()
    try:
        return json.loads(body)
    except UnicodeDecodeError:
        raise RequestError(400, "request body: not UTF-8") from None
    except json.JSONDecodeError as error:
        raise RequestError(400, f"request body: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None


async def request_articles(request: Request) -> list[Article]:
    """The articles an /annotate request holds (see docs/serve.md for the four forms)."""
    media_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if media_type == "text/plain":
        body = await request.body()
        try:
            return [text_article("text", body.decode("utf-8-sig"))]
        except UnicodeDecodeError:
            raise RequestError(400, "request body: not UTF-8") from None
    if media_type not in ("application/json", ""):
        raise RequestError(415, f"Content-Type {media_type}: send application/json or text/plain")
    value = await read_json(request)
    if isinstance(value, dict) and "full_text" in value:
        return [to_article(record) for record in parse_articles("article", json.dumps(value).encode())]
    if isinstance(value, list) or (isinstance(value, dict) and "documents" in value):
        return parse_bioc("BioC", json.dumps(value))
    if isinstance(value, dict) and "text" in value:
        text, text_id = value["text"], value.get("id", "text")
        if not isinstance(text, str) or not isinstance(text_id, str) or not text_id:
            raise InputError("text and id: expected strings (id not empty)")
        return [text_article(text_id, text)]
    if isinstance(value, dict) and "document" in value:
        document, name, chosen = value["document"], value.get("name", "document"), value.get("format", "auto")
        if not isinstance(document, str) or not isinstance(name, str):
            raise InputError("document and name: expected strings (a file's content and, for messages only, its name)")
        if chosen not in ("auto",) + FORMATS:
            raise InputError(f"format: {chosen!r} is none of auto, {', '.join(FORMATS)}")
        data = document.encode("utf-8")
        if chosen == "auto":  # by the content alone: the name is for messages only
            chosen = detect_format(data)
        return parse_input(name, data, chosen, article_id(name) or "text")
    raise InputError('expected {"text": ...}, {"document": ..., "name": ...}, a PatientPheX article or a BioC collection')


def create_app(engine: Engine, max_request_bytes: int = MAX_REQUEST_BYTES, answerers: Sequence[Answerer] = ANSWERERS) -> Starlette:
    async def page(request: Request) -> Response:
        return HTMLResponse(render_template("curation.html.j2", config=page_config()), headers=PAGE_HEADERS)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def info(request: Request) -> Response:
        return JSONResponse({**engine.info(), "exports": sorted(EXPORTS), "max_request_bytes": max_request_bytes})

    async def annotate(request: Request) -> Response:
        articles = await request_articles(request)
        results = await run_in_threadpool(engine.annotate, articles)
        return JSONResponse({"hpo_release": engine.hpo_release, "articles": results})

    def terms(request: Request) -> Response:
        try:
            limit = min(int(request.query_params.get("limit", 10)), MAX_SUGGESTIONS)
        except ValueError:
            raise RequestError(400, "limit: not an integer") from None
        return JSONResponse({"terms": engine.terms.search(request.query_params.get("q", ""), max(limit, 0))})

    async def export(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in EXPORTS:
            raise RequestError(404, f"export {name!r}: known exports are {', '.join(sorted(EXPORTS))}")
        records = curated_records(await read_json(request), engine.ontology)
        objects = await run_in_threadpool(EXPORTS[name], records, engine)
        body = "".join(json.dumps(value, ensure_ascii=False) + "\n" for value in objects)
        headers = {"Content-Disposition": f'attachment; filename="curated-{name}.jsonl"'}
        return Response(body, media_type="application/x-ndjson", headers=headers)

    async def chat_completions(request: Request) -> Response:
        payload = await read_json(request)
        try:
            prompt = last_user_text(payload)
        except InputError as error:  # OpenAI answers an invalid request 400
            raise RequestError(400, str(error)) from None
        reply = await run_in_threadpool(engine.answer, prompt, answerers)
        return JSONResponse(completion(payload, reply, prompt))

    async def list_models(request: Request) -> Response:
        return JSONResponse(models())

    async def request_failed(request: Request, error: Exception) -> Response:
        if isinstance(error, RequestError):
            return error_response(error.status, str(error))
        if isinstance(error, PhenorulesError):
            return error_response(422, str(error))
        if isinstance(error, HTTPException):
            return error_response(error.status_code, error.detail if isinstance(error.detail, str) else "request failed")
        # Starlette re-raises the error after this response, and uvicorn logs its traceback.
        return error_response(500, "internal error (logged by the server)")

    routes = [
        Route("/", page),
        Route("/health", health),
        Route("/info", info),
        Route("/annotate", annotate, methods=["POST"]),
        Route("/terms", terms),
        Route("/export/{name}", export, methods=["POST"]),
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/models", list_models),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    handlers = {RequestError: request_failed, PhenorulesError: request_failed, HTTPException: request_failed, Exception: request_failed}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.add_middleware(BodyLimit, max_bytes=max_request_bytes)
    return app


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound before the pipeline loads so a taken port fails at once."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        raise PhenorulesError(f"{host}:{port}: cannot listen ({error.strerror or error})") from None
    return sock


def serve(engine_factory, host: str, port: int, max_request_bytes: int, quiet: bool) -> None:
    """Listen on ``host:port``, build the engine, and serve until interrupted."""
    import uvicorn

    sock = listen(host, port)
    engine = engine_factory()
    app = create_app(engine, max_request_bytes)
    bound_port = sock.getsockname()[1]
    if host not in LOCAL_HOSTS:
        LOG.warning("phenorules serve: listening on %s, reachable from other machines; there is no authentication", host)
    if not quiet:
        print(f"phenorules: serving http://{host}:{bound_port}/ (HPO {engine.hpo_release}; stages {', '.join(engine.nlp.pipe_names)})", flush=True)
    config = uvicorn.Config(app, log_level="warning" if quiet else "info", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
