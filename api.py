"""HTTP face of Omni-Travel Planner (FastAPI).

Serve:  .venv/bin/uvicorn api:app --host 127.0.0.1 --port 8000     (OpenAPI docs at /docs)

Every call but the action list carries an API key (``Authorization: Bearer KEY`` or ``X-API-Key: KEY``);
the caller is the key's owner (core/auth.py), never a ``user_id`` in the body.

POST /agent/route_and_run   the agent's single entry. The request model forbids
                            unknown fields, so no client flag can skip a gate: consent is only
                            options.allow_webbrowse, and a commit needs a server-issued dry-run id.
GET  /agent/actions         the Action Registry (names, metadata, input/output schemas)
GET  /agent/metrics         the agent's metrics from the event log
POST /route/plan            a multi-stop route (RoutePlanRequest → RoutePlanResult; own_order / keep_order:
                            the person's order beside the best, issue 32)
GET  /health                whether the process answers and shares the key's limits (Redis), no key needed

Any input gives a structured answer: 4xx with ``{"error": {"code", "message", "field"}}``; a database that is
down, frozen or refusing writes is 503 ``DATABASE_UNREACHABLE`` with ``Retry-After``; an unexpected failure is
logged with a trace id and answered 500 with that id.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from api_routes import halfday as halfday_routes
from api_routes import memory as memory_routes
from api_routes import reservations as reservations_routes
from api_routes.shared import (
    ACCEPT_LANGUAGE,
    AUTH_ERRORS,
    BODY_ERRORS,
    SERVICES,
    SafeJSONResponse,
    Unauthorized,
    accept_language,
    context_for,
    current_user,
    described_errors,
    error_response,
)
from core.app.health import Health, health
from core.app.request_limits import TooManyRequests
from core.config import get_settings
from core.errors import DatabaseUnreachable, InputError, OmniError, ResolutionError
from core.i18n import Lang, normalize_lang
from core.models.agent import AgentRequest, AgentResponse
from core.models.route import RoutePlanRequest

logger = logging.getLogger("omni.api")


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse a request body over ``api_max_body_bytes`` (413), counted as it arrives, declared or not."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = get_settings().api_max_body_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        too_large = error_response(413, "BODY_TOO_LARGE", f"the request body is over {limit} bytes", "body")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await too_large(scope, receive, send)
            return
        received = 0

        async def limited() -> dict[str, Any]:
            nonlocal received
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await too_large(scope, receive, send)


#: how long a start waits for the warm-up before serving anyway (a step that hangs must not keep the API down)
WARM_UP_LIMIT_S = 120.0


@asynccontextmanager
async def warm_start(_: FastAPI) -> AsyncIterator[None]:
    """Warm the process before it serves (core/app/warmup.py: the packs, the geocoder, the gazetteer, the catalogs,
    the database), so the first requests after a start do not pay 3-5 s each; off with ``OMNI_WARM_UP_ON_START=0``.
    uvicorn answers nothing, its health check included, until this is done."""
    if SERVICES.settings.warm_up_on_start:
        from core.app.warmup import start_warm_up

        state = start_warm_up(SERVICES)
        if not await anyio.to_thread.run_sync(state.wait, WARM_UP_LIMIT_S):
            logger.warning("warm-up still running after %.0f s: serving anyway", WARM_UP_LIMIT_S)
    yield


app = FastAPI(
    title="Omni-Travel Planner API",
    version="0.1.0",
    description="The travel agent: semantic router, fast path, budgeted ReAct loop, consent and commit gates.",
    default_response_class=SafeJSONResponse,
    lifespan=warm_start,
)
app.add_middleware(BodyLimit)


@app.exception_handler(RequestValidationError)
async def _invalid_request(request: Request, exc: RequestValidationError) -> SafeJSONResponse:
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "header")]
    message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
    cause = (first.get("ctx") or {}).get("error")  # a model's own rule names its field (InputError.field)
    field = cause.field if isinstance(cause, InputError) and cause.field else ".".join(loc) or None
    return error_response(422, "INVALID_INPUT", message, field)


#: Codes for the HTTP errors Starlette raises itself (bad JSON, unknown path, wrong method).
_HTTP_CODES = {400: "BAD_REQUEST", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}


def _routes(routes: list[Any]) -> Iterator[Any]:
    """Every route, those of the included routers (api_routes/, included without a prefix) too."""
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI keeps an included router as one entry
        yield from _routes(included.routes) if included is not None else (route,)


@app.exception_handler(StarletteHTTPException)
async def _http_error(request: Request, exc: StarletteHTTPException) -> SafeJSONResponse:
    message = "the body is not JSON in UTF-8" if exc.status_code == 400 else str(exc.detail)
    response = error_response(exc.status_code, _HTTP_CODES.get(exc.status_code, f"HTTP_{exc.status_code}"), message)
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:  # Starlette names only the first route's methods; a path may have several
        methods = {
            m
            for route in _routes(app.routes)
            if (regex := getattr(route, "path_regex", None)) is not None and regex.match(request.url.path)
            for m in getattr(route, "methods", None) or ()
        }
        if methods:
            response.headers["Allow"] = ", ".join(sorted(methods))
    return response


#: reservation refusals that are not "the request is malformed"
RESERVATION_STATUS = {
    "NOT_FOUND": 404,
    "NOT_BOOKABLE": 404,
    "NOT_A_SLOT": 409,
    "PARTY_TOO_LARGE": 409,
    "TOO_LATE": 409,
    "CONSENT_REQUIRED": 403,
    "TOKEN_INVALID": 409,
    "SLOT_FULL": 409,
    "STATE_CHANGED": 409,
    "NOT_CANCELLABLE": 409,
    "IDEMPOTENCY_KEY_REUSED": 409,
}


@app.exception_handler(OmniError)
async def _omni_error(request: Request, exc: OmniError) -> SafeJSONResponse:
    if isinstance(exc, (DatabaseUnreachable, TooManyRequests)):  # ask again after the pause it names
        response = error_response(
            503 if isinstance(exc, DatabaseUnreachable) else 429, exc.code, exc.message, exc.field
        )
        response.headers["Retry-After"] = str(math.ceil(exc.retry_after_s))
        return response
    status = 422 if isinstance(exc, (InputError, ResolutionError)) else 502
    status = RESERVATION_STATUS.get(exc.code, status)
    details = exc.details if isinstance(exc.details, dict) else {}
    extra = {"suggestions": details["suggestions"]} if "suggestions" in details else {}
    if exc.code == "REGION_NOT_COVERED":  # the facts beside the sentence: the place named, the regions installed
        extra["facts"] = {k: v for k, v in details.items() if isinstance(v, str)}
    message = exc.message
    if isinstance(exc, ResolutionError) and exc.candidates:  # AMBIGUOUS_PLACE: the choices, per input field
        extra["candidates"] = exc.candidates
    if isinstance(exc, ResolutionError) and (exc.candidates or exc.facts.get("not_found")):
        # in the caller's language (Accept-Language, else English), its places named as the region pack names them
        from core.app.route import choice_words

        settings = get_settings()
        asked = request.headers.get("accept-language") if request is not None else None
        lang = accept_language(asked) or "en"
        region = (request.query_params.get("region") if request is not None else None) or settings.region
        message = choice_words(exc, lang, region=region, data_dir=settings.data_dir)
    return error_response(status, exc.code, message, exc.field, **extra)


@app.exception_handler(Exception)
async def _unexpected(request: Request, exc: Exception) -> SafeJSONResponse:
    trace_id = uuid.uuid4().hex[:16]
    logger.exception("unexpected error (trace id %s) on %s %s", trace_id, request.method, request.url.path)
    return error_response(
        500, "INTERNAL_ERROR", f"an internal error occurred (trace id {trace_id})", None, trace_id=trace_id
    )


@app.exception_handler(Unauthorized)
async def _unauthorized(request: Request, exc: Unauthorized) -> SafeJSONResponse:
    return error_response(401, "UNAUTHORIZED", str(exc), "authorization")


@app.post(
    "/agent/route_and_run",
    response_model=AgentResponse,
    tags=["agent"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **described_errors(s403="user_id names another user than the API key's")},
)
def agent_route_and_run(
    request: AgentRequest, user: str = Depends(current_user), header_lang: Lang | None = ACCEPT_LANGUAGE
) -> Any:
    """Route the message (System 1 / System 2) and run it within the request's budget, as the key's user, in the
    language of ``conversation_context.locale`` (else Accept-Language; else the message's) and its ``timezone``
    (else the region pack's). ``result.next_steps`` are objects ``{"code", "args"}`` (core.models.agent.NextStep: a
    code such as ``missing``, ``confirm``, ``allow_webbrowse`` and its facts, e.g. ``{"field": "date"}``), never words:
    a client says them in its own language."""
    from core.app.agent import ask

    if "user_id" in request.model_fields_set and request.user_id != user:
        return error_response(403, "FORBIDDEN", "user_id names another user than the API key's", "user_id")
    if "message" not in request.model_fields_set:  # as published: an id-only confirmation is POST /agent/confirm
        return error_response(
            422, "INVALID_INPUT", "message is required (a confirmation by id: /agent/confirm)", "message"
        )
    given = request.conversation_context
    ctx = context_for(user, lang=normalize_lang(given.locale or header_lang), timezone=given.timezone)
    return ask(ctx, request)


class ConfirmDryRunBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dry_run_id: str = Field(min_length=1, max_length=80, description="the id of a dry run this server issued")
    trip_id: str | None = Field(default=None, max_length=120)
    locale: str | None = Field(default=None, max_length=35, description="the answer's language (zh-CN, en-GB)")


@app.post(
    "/agent/confirm",
    response_model=AgentResponse,
    tags=["agent"],
    responses={**BODY_ERRORS, **AUTH_ERRORS},
)
def agent_confirm(
    body: ConfirmDryRunBody, user: str = Depends(current_user), header_lang: Lang | None = ACCEPT_LANGUAGE
) -> Any:
    """Commit what the agent prepared, by its dry run's id (single use, the key's user only): the person's
    confirmation, with no words standing in for it."""
    from core.app.agent import confirm_dry_run

    ctx = context_for(user, lang=normalize_lang(body.locale or header_lang))
    return confirm_dry_run(ctx, body.dry_run_id, trip_id=body.trip_id)


@app.get("/health", response_model=Health, tags=["ops"])
def health_answer() -> Health:
    """Whether this process answers, and whether it shares the key's limits with the team (Redis): 200 always, a
    Redis that does not answer is ``degraded``, never an error."""
    return health(settings=get_settings())


@app.get("/agent/actions", tags=["agent"])
def agent_actions() -> list[dict[str, Any]]:
    from core.app.agent import actions

    return actions()


@app.get("/agent/metrics", tags=["agent"], responses=AUTH_ERRORS)
def agent_metrics(user: str = Depends(current_user)) -> dict[str, Any]:
    from core.app.agent import metrics

    return metrics(settings=get_settings())


app.include_router(reservations_routes.router)  # dry run, consent, confirmation, list


# ---- the route planner ---------------------------------------------------------------------------------------
@app.post(
    "/route/plan",
    tags=["route"],
    responses={
        **BODY_ERRORS,
        **AUTH_ERRORS,
        **described_errors(s404="no region pack of that name", s502="a map service"),
    },
)
def route_plan(
    request: RoutePlanRequest,
    user: str = Depends(current_user),
    header_lang: Lang | None = ACCEPT_LANGUAGE,
    region: str | None = Query(default=None, max_length=60, description="region pack (default: the server's)"),
) -> Any:
    """Plan a multi-stop route: the best order per strategy and its candidates, as the CLI's ``plan`` prints it;
    with Accept-Language, its ``warnings`` and ``summary`` are sentences in that language.
    With ``own_order`` (stop indices in visiting order) or ``keep_order`` (the stops as listed), the person's order
    is planned on the same figures beside the best: ``own_route`` and ``own_difference`` (own − best, metres and
    seconds, in total and per leg), and ``own_deep_links`` when links were asked for."""
    from core.app.regions import list_regions
    from core.app.route import in_words, plan_route, with_sentences

    if region is not None and region not in list_regions(data_dir=get_settings().data_dir):
        return error_response(404, "REGION_NOT_FOUND", f"no region pack named '{region}'", "region")
    ctx = context_for(user, lang=header_lang, region=region)
    result = plan_route(ctx, request)
    # with a locale, the sentences are the reader's (the codes and facts stay in notices); without, as the CLI prints:
    # the summary and the optimiser's note worded in English from the catalogs (the core words nothing)
    worded = in_words(ctx, result) if header_lang is not None else with_sentences(result, lang="en")
    return SafeJSONResponse(worded.model_dump(mode="json"))


app.include_router(halfday_routes.router)  # the seven stages as events, resume, stage 7, memory
app.include_router(memory_routes.router)  # rules, snippets and conversations of the key's user
