"""The Starlette application: the curation page, /annotate, the exports and the OpenAI API.

Every error is a JSON object ``{"error": {"message", "type", "param", "code"}}`` (OpenAI's
error shape; ``code`` a short name such as ``invalid_json`` or ``model_not_found``) with a
4xx status for bad requests; an unexpected failure is logged on the server and answered
500 with no detail. :mod:`.guard` refuses requests from other sites and hosts, non-JSON
POSTs and bodies too large or too slow; :mod:`.body` parses the JSON. Pipeline work runs
within a time budget (:class:`.engine.Budget`) that also ends when the client leaves.
Requests never name files: documents come in the body, and the page reads an uploaded
file in the browser and sends its content.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..formats.bioc import parse_bioc
from ..core.errors import InputError, PhenorulesError
from ..formats import registry
from ..formats.inputs import article_id, detect_format, parse_input
from ..core.article import Article, text_article
from ..formats.view import page_config, render_template
from .body import parse_json
from .chat import ANSWERERS, check_model, completion, last_user_text, models
from .curation import EXPORTS, curated_records
from . import REQUEST_SECONDS
from .engine import Answerer, Budget, Engine
from .guard import Guard, Policy, RequestError, error_response
from .loading import ARRIVAL

STATIC_DIR = Path(__file__).with_name("static")
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'", "X-Content-Type-Options": "nosniff"}
MAX_SUGGESTIONS = 50
ARTICLE_FORMAT = "patientphex"  # a request body {"pmc_id": ..., "full_text": ...} is one PatientPheX article
LOG = logging.getLogger("uvicorn.error")  # uvicorn prints this logger
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
T = TypeVar("T")


async def read_json(request: Request) -> Any:
    return parse_json(await request.body())


async def request_articles(request: Request) -> list[Article]:
    """The articles an /annotate request holds (see docs/serve.md for the four forms)."""
    value = await read_json(request)
    if isinstance(value, dict) and "full_text" in value:
        return parse_input("article", json.dumps(value).encode(), ARTICLE_FORMAT)
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
        readers = registry.readers()
        if chosen not in ["auto", *readers]:
            raise InputError(f"format: {chosen!r} is none of auto, {', '.join(readers)}")
        data = document.encode("utf-8")
        if chosen == "auto":  # by the content alone: the name is for messages only
            chosen = detect_format(data)
        return parse_input(name, data, chosen, article_id(name) or "text")
    raise InputError('expected {"text": ...}, {"document": ..., "name": ...}, a PatientPheX article or a BioC collection')


async def within_budget(request: Request, seconds: float, work: Callable[[Budget], T]) -> T:
    """``work(budget)`` in a worker thread; the budget counts from the request's arrival
    when it waited for the app to load, and ends early if the client disconnects (a task
    waits for that message meanwhile)."""
    budget = Budget(seconds, since=getattr(request.state, ARRIVAL, None))

    async def watch() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        budget.client_left()

    result, failure = None, None
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            result = await run_in_threadpool(work, budget)
        except Exception as error:  # raised below: from inside the group anyio would wrap it in an ExceptionGroup
            failure = error
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return result


def create_app(engine: Engine, policy: Policy, request_seconds: float = REQUEST_SECONDS, answerers: Sequence[Answerer] = ANSWERERS) -> Starlette:
    async def page(request: Request) -> Response:
        return HTMLResponse(render_template("curation.html.j2", config=page_config()), headers=PAGE_HEADERS)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ready"})

    async def info(request: Request) -> Response:
        limits = {"max_request_bytes": policy.max_request_bytes, "request_seconds": request_seconds, "body_seconds": policy.body_seconds}
        return JSONResponse({**engine.info(), "exports": sorted(EXPORTS), **limits})

    async def annotate(request: Request) -> Response:
        articles = await request_articles(request)
        results = await within_budget(request, request_seconds, lambda budget: engine.annotate(articles, budget))
        return JSONResponse({"hpo_release": engine.hpo_release, "articles": results})

    def terms(request: Request) -> Response:
        try:
            limit = min(int(request.query_params.get("limit", 10)), MAX_SUGGESTIONS)
        except ValueError:
            raise RequestError(400, "invalid_request", "limit: not an integer") from None
        return JSONResponse({"terms": engine.terms.search(request.query_params.get("q", ""), max(limit, 0))})

    async def export(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in EXPORTS:
            raise RequestError(404, "not_found", f"export {name!r}: known exports are {', '.join(sorted(EXPORTS))}")
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
            raise RequestError(400, "invalid_request", str(error)) from None
        check_model(payload)
        reply = await within_budget(request, request_seconds, lambda budget: engine.answer(prompt, answerers, budget))
        return JSONResponse(completion(payload, reply, prompt))

    async def list_models(request: Request) -> Response:
        return JSONResponse(models())

    async def request_failed(request: Request, error: Exception) -> Response:
        if isinstance(error, RequestError):
            return error_response(error.status, error.code, str(error))
        if isinstance(error, InputError):
            return error_response(422, "invalid_content", str(error))
        if isinstance(error, HTTPException):
            return error_response(error.status_code, HTTP_CODES.get(error.status_code, "http_error"), error.detail if isinstance(error.detail, str) else "request failed")
        if isinstance(error, PhenorulesError):  # the server's own setup (a data file), not the request: no detail
            LOG.error("phenorules serve: %s", error)
        # Starlette re-raises any other error after this response, and uvicorn logs its traceback.
        return error_response(500, "internal_error", "internal error (logged by the server)")

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
    app.add_middleware(Guard, policy=policy)
    return app
