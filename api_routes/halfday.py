"""The half-day planner over HTTP (``core.app.halfday``): the seven stages as server-sent events, a stream followed
again after a dropped connection, the answer to a level-2 question, stage 7's dry run, and what the planner
learned of the key's user."""

from __future__ import annotations

import datetime as dt
from collections import deque
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from api_routes.shared import (
    ACCEPT_LANGUAGE,
    AUTH_ERRORS,
    BODY_ERRORS,
    RESERVATION_ERRORS,
    SERVICES,
    SafeJSONResponse,
    context_for,
    current_user,
    described_errors,
    error_response,
)
from core.app import halfday as halfday_app
from core.config import get_settings
from core.i18n import Lang
from core.models.halfday.facts import DegradedChoice
from core.models.halfday.plans import HalfDayRequest, Memory, ReserveInput
from core.models.reservations import DryRun

router = APIRouter()


@router.post(
    "/halfday/plan",
    tags=["halfday"],
    responses={
        **BODY_ERRORS,
        **AUTH_ERRORS,
        **described_errors(s403="user_id names another user than the API key's", s404="no region pack of that name"),
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


@router.get(
    "/halfday/plan/{trace_id}/events",
    tags=["halfday"],
    responses={**AUTH_ERRORS, **described_errors(s404="no stream of yours by that trace id")},
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


@router.post(
    "/halfday/plan/{trace_id}/resume",
    tags=["halfday"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **described_errors(s404="no stream of yours by that trace id is waiting")},
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


@router.post(
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


@router.get("/halfday/memory", response_model=Memory, tags=["halfday"], responses=AUTH_ERRORS)
def halfday_memory(user: str = Depends(current_user)) -> Any:
    """What the half-day planner learned of the key's user: tag affinities, places visited and disliked, family."""
    return halfday_app.remembered(context_for(user))


@router.delete("/halfday/memory", tags=["halfday"], responses=AUTH_ERRORS)
def halfday_memory_reset(user: str = Depends(current_user)) -> dict[str, int]:
    """Forget everything the half-day planner learned of the key's user."""
    return {"forgotten_events": halfday_app.forget(context_for(user))}


@router.post(
    "/halfday/feedback",
    response_model=Memory,
    tags=["halfday"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **described_errors(s404="no such place or region")},
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
