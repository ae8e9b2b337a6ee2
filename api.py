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

import datetime as dt
import json
import logging
import math
import uuid
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.exceptions import HTTPException as StarletteHTTPException

from core.app import AppServices, RequestContext
from core.app import halfday as halfday_app
from core.app import reservations as reservations_app
from core.app.health import Health, health
from core.app.request_limits import TooManyRequests
from core.auth import bearer_key, user_for_key
from core.config import get_settings
from core.errors import DatabaseUnreachable, InputError, OmniError, ResolutionError
from core.i18n import Lang, normalize_lang
from core.models.agent import AgentRequest, AgentResponse
from core.models.common import clean_text
from core.models.halfday.facts import DegradedChoice
from core.models.halfday.plans import HalfDayRequest, Memory, ReserveInput
from core.models.reservations import DryRun, Outcome, Reservation, ReservationRequest
from core.models.route import RoutePlanRequest
from core.models.rules import RuleCode

logger = logging.getLogger("omni.api")


class SafeJSONResponse(JSONResponse):
    """JSON that always encodes: any lone surrogate left in a value becomes U+FFFD instead of a 500."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=str)
        return str(clean_text(text)).encode("utf-8")


def error_response(status: int, code: str, message: str, field: str | None = None, **extra: Any) -> SafeJSONResponse:
    return SafeJSONResponse(
        status_code=status, content={"error": {"code": code, "message": message, "field": field, **extra}}
    )


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")  # e.g. trace_id on a 500; facts on REGION_NOT_COVERED

    code: str
    message: str
    field: str | None


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer: ``{"error": {"code", "message", "field"}}``."""

    error: ErrorDetail


def _errors(**described: str) -> dict[int | str, dict[str, Any]]:
    return {
        int(status.removeprefix("s")): {"model": ErrorBody, "description": text} for status, text in described.items()
    }


#: What any operation taking a body may answer besides its own statuses.
BODY_ERRORS = _errors(
    s400="the body is not JSON in UTF-8",
    s413="the body is over api_max_body_bytes",
    s422="the request breaks the request model (field names the first problem)",
)
AUTH_ERRORS = _errors(s401="no or an invalid API key")


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


@app.exception_handler(StarletteHTTPException)
async def _http_error(request: Request, exc: StarletteHTTPException) -> SafeJSONResponse:
    message = "the body is not JSON in UTF-8" if exc.status_code == 400 else str(exc.detail)
    response = error_response(exc.status_code, _HTTP_CODES.get(exc.status_code, f"HTTP_{exc.status_code}"), message)
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:  # Starlette names only the first route's methods; a path may have several
        methods = {
            m
            for route in app.routes
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
    if isinstance(exc, ResolutionError) and exc.candidates:  # AMBIGUOUS_PLACE: the choices, per input field
        extra["candidates"] = exc.candidates
    return error_response(status, exc.code, exc.message, exc.field, **extra)


@app.exception_handler(Exception)
async def _unexpected(request: Request, exc: Exception) -> SafeJSONResponse:
    trace_id = uuid.uuid4().hex[:16]
    logger.exception("unexpected error (trace id %s) on %s %s", trace_id, request.method, request.url.path)
    return error_response(
        500, "INTERNAL_ERROR", f"an internal error occurred (trace id {trace_id})", None, trace_id=trace_id
    )


class Unauthorized(Exception):
    pass


@app.exception_handler(Unauthorized)
async def _unauthorized(request: Request, exc: Unauthorized) -> SafeJSONResponse:
    return error_response(401, "UNAUTHORIZED", str(exc), "authorization")


#: what every request shares (providers, caches, breakers, reservation services); nothing of one request
SERVICES = AppServices()


def accept_language(accept_language: str | None = Header(default=None)) -> Lang | None:
    """The caller's language from ``Accept-Language``: the first tag naming a language we speak (``fr, zh;q=0.9``
    is Chinese), or None when it names none (the message's language then decides)."""
    for part in (accept_language or "").split(","):
        lang = normalize_lang(part.split(";", 1)[0].strip())
        if lang is not None:
            return lang
    return None


#: the caller's language from its ``Accept-Language`` header, read once here into a ``Lang`` (a dependency)
ACCEPT_LANGUAGE = Depends(accept_language)


def context_for(
    user: str, *, lang: Lang | None = None, timezone: str | None = None, region: str | None = None
) -> RequestContext:
    """One request's context: the key's user, the language and zone the caller gave (else the region's zone)."""
    return SERVICES.context(user=user, lang=lang, timezone=timezone, region=region)


def current_user(
    authorization: str | None = Header(default=None),
    x_api_key: str | None = Header(default=None),
) -> str:
    """The caller, from its API key."""
    settings = get_settings()
    if not settings.api_keys:
        raise Unauthorized("no API keys are configured on this server (OMNI_API_KEYS); no call is accepted")
    user = user_for_key(bearer_key(authorization, x_api_key), settings)
    if user is None:
        raise Unauthorized("a valid API key is required (Authorization: Bearer KEY or X-API-Key)")
    SERVICES.request_limits().check(user)  # past the key's limit: 429 with Retry-After
    return user


@app.post(
    "/agent/route_and_run",
    response_model=AgentResponse,
    tags=["agent"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s403="user_id names another user than the API key's")},
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


# ---- reservations: dry run, consent, confirmation with the dry run's token; user-bound -----------------------
RESERVATION_ERRORS = _errors(
    s403="consent was not given",
    s404="no such reservation for this user, or nothing of that id can be reserved",
    s409="the venue's terms refuse it (slot, party, lead time, full) or the token is spent, expired or not this "
    "user's, or the state changed",
)


class ConfirmBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200, description="the dry run's token")
    idempotency_key: str = Field(min_length=1, max_length=100, description="the same key for every retry")
    consent: StrictBool = Field(description="the person agreed to exactly what the dry run showed")


class CancelBody(BaseModel):
    """Without a token: the cancellation's dry run (policy, fee, token). With one: the cancellation."""

    model_config = ConfigDict(extra="forbid")

    token: str | None = Field(default=None, min_length=1, max_length=200)
    idempotency_key: str | None = Field(
        default=None, min_length=1, max_length=100, description="default: one key per token (retries replay)"
    )
    consent: StrictBool = False


@app.post(
    "/reservations",
    response_model=DryRun,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_dry_run(request: ReservationRequest, user: str = Depends(current_user)) -> Any:
    """The quote: what would be reserved (status ``quoted``), its price and source, the cancellation policy and a
    single-use token. Nothing is held and nothing is listed; POST /reservations/{id}/confirm makes the reservation
    ``pending`` and submits it (``confirmed``, or ``failed`` with its reason when the slot filled up meanwhile)."""
    return reservations_app.dry_run(context_for(user), request)


@app.post(
    "/reservations/{reservation_id}/confirm",
    response_model=Outcome,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_confirm(
    reservation_id: Annotated[str, Path(max_length=40)], body: ConfirmBody, user: str = Depends(current_user)
) -> Any:
    """Confirm a quote with its token and the person's consent: only now is the reservation made ``pending`` (under
    the quote's id) and submitted; the answer is its outcome, its history reading pending then the venue's answer."""
    return reservations_app.confirm(
        context_for(user), reservation_id, token=body.token, idempotency_key=body.idempotency_key, consent=body.consent
    )


@app.post(
    "/reservations/{reservation_id}/cancel",
    response_model=DryRun | Outcome,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_cancel(
    reservation_id: Annotated[str, Path(max_length=40)], body: CancelBody, user: str = Depends(current_user)
) -> Any:
    return reservations_app.cancel(
        context_for(user),
        reservation_id,
        token=body.token,
        idempotency_key=body.idempotency_key,
        consent=body.consent,
    )


@app.get("/reservations", response_model=list[Reservation], tags=["reservations"], responses=AUTH_ERRORS)
def reservation_list(user: str = Depends(current_user)) -> Any:
    return reservations_app.reservations_of(context_for(user))


# ---- the route planner ---------------------------------------------------------------------------------------
@app.post(
    "/route/plan",
    tags=["route"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s404="no region pack of that name", s502="a map service")},
)
def route_plan(
    request: RoutePlanRequest,
    user: str = Depends(current_user),
    header_lang: Lang | None = ACCEPT_LANGUAGE,
    region: str | None = Query(default=None, max_length=60, description="region pack (default: the server's)"),
) -> Any:
    """Plan a multi-stop route: the best order per strategy and its candidates, as the CLI's ``plan`` prints it.
    With ``own_order`` (stop indices in visiting order) or ``keep_order`` (the stops as listed), the person's order
    is planned on the same figures beside the best: ``own_route`` and ``own_difference`` (own − best, metres and
    seconds, in total and per leg)."""
    from core.app.regions import list_regions
    from core.app.route import plan_route

    if region is not None and region not in list_regions(data_dir=get_settings().data_dir):
        return error_response(404, "REGION_NOT_FOUND", f"no region pack named '{region}'", "region")
    return SafeJSONResponse(
        plan_route(context_for(user, lang=header_lang, region=region), request).model_dump(mode="json")
    )


# ---- the half-day planner: the seven stages as server-sent events ---------------------------------------------
@app.post(
    "/halfday/plan",
    tags=["halfday"],
    responses={
        **BODY_ERRORS,
        **AUTH_ERRORS,
        **_errors(s403="user_id names another user than the API key's", s404="no region pack of that name"),
        200: {"content": {"text/event-stream": {}}, "description": "status, intent, skill_call, observation, done"},
    },
)
def halfday_plan(
    request: HalfDayRequest,
    user: str = Depends(current_user),
    header_lang: Lang | None = ACCEPT_LANGUAGE,
    accept: str | None = Header(default=None),
) -> Any:
    """Plan a half day from a goal sentence, streamed as server-sent events (event: TYPE, id: SEQ, data: JSON of
    the typed event, ``core.models.halfday.events.HalfDayEvent``: type, trace_id, seq, at and its data; a client reads it
    back with ``HALF_DAY_EVENT``). The stream always ends with one ``done`` event: plans, a clarification, or an
    error with the trace id. The answer to "when?" goes in ``window`` (a named choice or date, start and end), not
    in the goal's words. A plan's bookable step is reserved through POST /halfday/reserve (stage 7, the dry run)
    and POST /reservations/{id}/confirm. The ``done`` event's plans carry their intro and step reasons as codes
    and facts and, in ``words``, as sentences in the request's ``lang`` (else Accept-Language, else the goal's).
    With ``Accept: application/json`` (and not text/event-stream) the answer is the ``done`` event alone, as JSON
    (nobody can answer a level-2 question there: ``halfday_degraded_default`` applies).

    Level 2 (a map service down, part of the plan on local data): with ``on_degraded`` ``ask`` (the default) the
    stream sends an ``observation`` of type ``warning`` with a ``choice`` and waits for POST
    /halfday/plan/{trace_id}/resume (up to ``choice.wait_s``; then ``choice.default``), then an ``observation`` of
    type ``choice`` says what was decided; ``stop`` ends with ``done`` error ``DEGRADED_DECLINED``. A client that
    decided beforehand sends ``on_degraded`` ``continue`` or ``stop``. Level 3 ends with ``done`` error whose
    facts carry ``fallback: conversation`` (POST /agent with the goal) and the support ``contact``."""
    from sse_starlette import EventSourceResponse, ServerSentEvent

    if "user_id" in request.model_fields_set and request.user_id != user:
        return error_response(403, "FORBIDDEN", "user_id names another user than the API key's", "user_id")
    if request.region is not None:
        from core.app.regions import list_regions

        if request.region not in list_regions(data_dir=get_settings().data_dir):  # refused before the stream starts
            return error_response(404, "REGION_NOT_FOUND", f"no region pack named '{request.region}'", "region")
    lang = request.lang or header_lang
    ctx = context_for(user, lang=lang, region=request.region)
    if _wants_json(accept):  # no stream to answer a level-2 question on: the default applies at once
        plan = halfday_app.plan_half_day(ctx, request)
        done = deque((halfday_app.worded(e, lang) for e in plan), maxlen=1)  # the stream always ends with done
        return SafeJSONResponse(done[0].model_dump(mode="json") if done else None)
    events = (halfday_app.worded(e, lang) for e in halfday_app.plan_half_day_answerable(ctx, request))
    return EventSourceResponse(
        (ServerSentEvent(data=e.model_dump_json(), event=e.type, id=str(e.seq)) for e in events),
        ping=get_settings().sse_ping_s,  # keep-alive comments while a stage waits (a slow provider)
    )


def _wants_json(accept: str | None) -> bool:
    """The caller asked for JSON and not for the event stream."""
    kinds = {part.split(";")[0].strip().lower() for part in (accept or "").split(",")}
    return "application/json" in kinds and "text/event-stream" not in kinds


class HalfDayResumeBody(BaseModel):
    """The person's answer to a level-2 question: go on with local data, or stop."""

    model_config = ConfigDict(extra="forbid")

    choice: DegradedChoice


@app.get(
    "/halfday/plan/{trace_id}/events",
    tags=["halfday"],
    responses={**AUTH_ERRORS, **_errors(s404="no stream of yours by that trace id")},
)
def halfday_events(
    trace_id: Annotated[str, Path(max_length=64)],
    user: str = Depends(current_user),
    last_event_id: Annotated[
        str | None, Header(max_length=40, description="the id of the last event received (ours are numbers)")
    ] = None,
    after: Annotated[int | None, Query(ge=-1, description="the last event seen (as Last-Event-ID)")] = None,
    header_lang: Lang | None = ACCEPT_LANGUAGE,
) -> Any:
    """A half-day stream again, from after ``Last-Event-ID`` (or ``after``; none: from its start), then the rest as
    it comes, whichever worker holds it (with the team's Redis): a client whose connection dropped reconnects here.
    A stream whose worker stopped ends with ``done`` error ``STREAM_LOST``."""
    from sse_starlette import EventSourceResponse, ServerSentEvent

    ctx = context_for(user, lang=header_lang)
    # an id we never sent (not a number) is no position: the stream from its start, or from ``after``
    seen = int(last_event_id) if last_event_id and last_event_id.strip().isdigit() else after
    events = halfday_app.follow_stream(ctx, trace_id, after=-1 if seen is None else seen)
    if events == "not_found":
        return error_response(404, "NOT_FOUND", "no half-day stream of yours has this trace id", "trace_id")
    return EventSourceResponse(
        (
            ServerSentEvent(data=e.model_dump_json(), event=e.type, id=str(e.seq))
            for e in (halfday_app.worded(e, header_lang) for e in events)
        ),
        ping=get_settings().sse_ping_s,
    )


@app.post(
    "/halfday/plan/{trace_id}/resume",
    tags=["halfday"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s404="no stream of yours by that trace id is waiting")},
)
def halfday_resume(trace_id: str, body: HalfDayResumeBody, user: str = Depends(current_user)) -> Any:
    """Answer the level-2 question of a stream that is still open (its warning's ``choice``); the stream goes on
    (or stops) at once. 404 when the stream ended, was answered already, or is another user's."""
    if halfday_app.answer_degraded(context_for(user), trace_id, body.choice) == "not_waiting":
        return error_response(404, "NOT_WAITING", "no stream of yours by that trace id is waiting", "trace_id")
    return {"trace_id": trace_id, "choice": body.choice}


class HalfDayReserveBody(BaseModel):
    """A plan's bookable step (stage 7): the place, its slot and party, and the plan's trace id for the log."""

    model_config = ConfigDict(extra="forbid")

    place_id: str = Field(min_length=1, max_length=80)
    date: dt.date
    time: dt.time
    party_size: int = Field(ge=1, le=20)
    contact: str = Field(default="", max_length=200)
    region: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")
    trace_id: str | None = Field(default=None, max_length=64, description="the plan's trace id (done event)")


@app.post(
    "/halfday/reserve",
    response_model=DryRun,
    tags=["halfday"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def halfday_reserve(body: HalfDayReserveBody, user: str = Depends(current_user)) -> Any:
    """Stage 7 (mock_reserve): the dry run of a plan's bookable step through the registered tool, logged under the
    plan's trace id. Nothing is held until POST /reservations/{id}/confirm with the token and consent."""
    if body.region is not None and body.region not in SERVICES.regions():
        return error_response(404, "REGION_NOT_FOUND", f"no region pack named '{body.region}'", "region")
    ctx = context_for(user, region=body.region)
    inp = ReserveInput.model_validate(
        {**body.model_dump(exclude={"trace_id"}), "user_id": user, "region": ctx.region.name}
    )
    return halfday_app.reserve_step(ctx, inp, trace_id=body.trace_id)


class FeedbackBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    place_id: str = Field(min_length=1, max_length=80, description="a place of the region pack")
    liked: StrictBool = Field(description="true: more like this; false: not again")
    region: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")


@app.get("/halfday/memory", response_model=Memory, tags=["halfday"], responses=AUTH_ERRORS)
def halfday_memory(user: str = Depends(current_user)) -> Any:
    """What the half-day planner learned of the key's user: tag affinities, places visited and disliked, family."""
    return halfday_app.remembered(context_for(user))


@app.delete("/halfday/memory", tags=["halfday"], responses=AUTH_ERRORS)
def halfday_memory_reset(user: str = Depends(current_user)) -> dict[str, int]:
    """Forget everything the half-day planner learned of the key's user."""
    return {"forgotten_events": halfday_app.forget(context_for(user))}


@app.post(
    "/halfday/feedback",
    response_model=Memory,
    tags=["halfday"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s404="no such place or region")},
)
def halfday_feedback(body: FeedbackBody, user: str = Depends(current_user)) -> Any:
    """Explicit feedback on a place (liked or not); the next plans' profile takes it into account."""
    from core.app.regions import list_regions

    if body.region is not None and body.region not in list_regions(data_dir=get_settings().data_dir):
        return error_response(404, "REGION_NOT_FOUND", f"no region pack named '{body.region}'", "region")
    ctx = context_for(user, region=body.region)
    if ctx.region.place_by_id(body.place_id) is None:
        return error_response(404, "PLACE_NOT_FOUND", "no such place in this region", "place_id")
    return halfday_app.feedback(ctx, body.place_id, liked=body.liked)


@app.get("/memory", tags=["memory"], responses=AUTH_ERRORS)
def memory_view(user: str = Depends(current_user)) -> Any:
    """What is remembered of the key's user: standing rules (codes and facts) and the newest snippets."""
    from core.app import memory as memory_app

    return memory_app.view(context_for(user)).model_dump(mode="json")


@app.get("/memory/recall", tags=["memory"], responses={**BODY_ERRORS, **AUTH_ERRORS})
def memory_recall(q: Annotated[str, Query(min_length=1, max_length=1000)], user: str = Depends(current_user)) -> Any:
    """The key's user's snippets most like ``q`` (hashed n-gram TF-IDF cosine, best first)."""
    from core.app import memory as memory_app

    return [e.model_dump(mode="json") for e in memory_app.recall(context_for(user), q)]


@app.delete(
    "/memory/rules/{code}",
    tags=["memory"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s404="no such rule remembered")},
)
def memory_forget_rule(code: RuleCode, user: str = Depends(current_user)) -> Any:
    """Forget one standing rule of the key's user (``no_spicy``, ``no_queues``, …)."""
    from core.app import memory as memory_app

    if not memory_app.forget(context_for(user), code):
        return error_response(404, "RULE_NOT_REMEMBERED", f"no rule {code!r} is remembered", "code")
    return {"forgotten": code}


@app.delete("/memory", tags=["memory"], responses=AUTH_ERRORS)
def memory_forget_everything(user: str = Depends(current_user)) -> dict[str, int]:
    """Forget every rule, snippet and agent conversation of the key's user."""
    from core.app import memory as memory_app

    return memory_app.forget_everything(context_for(user))


@app.get(
    "/agent/conversations/{conversation_id}",
    tags=["agent"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **_errors(s404="no such conversation of this user")},
)
def agent_conversation(conversation_id: Annotated[str, Path(max_length=40)], user: str = Depends(current_user)) -> Any:
    """One of the key's user's agent conversations (another user's reads as not found)."""
    from core.app import memory as memory_app

    found = memory_app.open_conversation(context_for(user), conversation_id)
    if found is None:
        return error_response(404, "CONVERSATION_NOT_FOUND", "no conversation of this id is yours", "conversation_id")
    return found.model_dump(mode="json")
