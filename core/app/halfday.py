"""Plan a half day (job 4): the seven stages as a stream of events, and stage 7, the booking path."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from functools import partial
from typing import Literal

from core.agent.llm import make_llm
from core.app.context import RequestContext
from core.app.scope import in_scope
from core.errors import InputError
from core.halfday.link import read_link_window
from core.halfday.memory import MemoryStore
from core.halfday.pipeline import Decide
from core.halfday.service import HalfDayPlanner
from core.halfday.stream_log import StreamRead
from core.halfday.waits import WaitAnswer
from core.i18n import Lang
from core.models.agent import AgentRequest, AgentResponse
from core.models.halfday.events import (
    HALF_DAY_EVENT,
    DoneError,
    DoneEvent,
    DonePlans,
    ErrorFacts,
    HalfDayEvent,
    HalfDayResult,
    ObservationEvent,
    WarningObservation,
)
from core.models.halfday.facts import (
    DegradedChoice,
    WarningFacts,
)
from core.models.halfday.goal import LinkReading, WindowChoice
from core.models.halfday.plans import (
    FamilyProfile,
    HalfDayRequest,
    Memory,
    ReserveInput,
)
from core.models.reservations import DryRun
from core.packs.coverage import Scope
from core.share import HalfDayLink

__all__ = [
    "answer_degraded",
    "converse_instead",
    "feedback",
    "forget",
    "keep_family",
    "offered_windows",
    "open_link",
    "plan_half_day",
    "plan_half_day_answerable",
    "remember_plan",
    "remembered",
    "reserve_step",
    "warm_up_planning",
    "worded",
]


def planner(ctx: RequestContext) -> HalfDayPlanner:
    """The region's half-day planner on the request's view of the providers, its memory on the context's database,
    the region's reservation service on the context's clock, opened by stage 7 (docs/ARCHITECTURE.md, "Half-day
    planner": an unreachable database then ends the event stream with ``DATABASE_UNREACHABLE``), and the process's
    breakers of the outside services (the root's: every request of the process meets the same ones); stage 1's model
    client is made from the context's settings when a reading asks for it (none without ``OMNI_LLM_BASE_URL``)."""
    return HalfDayPlanner(
        provider=ctx.providers,
        settings=ctx.settings,
        memory=memory_store(ctx),
        open_reservations=ctx.reservations,
        breakers=ctx.services.halfday_breakers,
        llm=partial(make_llm, ctx.settings),
        clock=ctx.clock,
    )


#: the goals a serving process plans once before its first visitor (warm_up_planning), one per language
WARM_UP_GOALS = (
    "明天下午两个大人，去博物馆再吃本地菜，每人预算200元",
    "tomorrow afternoon, two adults, a museum and local food, 200 yuan each",
)


def warm_up_planning(ctx: RequestContext) -> list[str]:
    """Plan ``WARM_UP_GOALS`` on ``ctx`` (the region's offline data) and drop the plans: the goal reader's
    patterns, the queue tables, the opening hours, both composers and the scorer are then ready, so a process's first
    half-day card costs what every later one does (issue 32). Stage 1 reads by its rules (no model is asked),
    nothing is stored (memory is only read); how each goal's stream ended (``plans``, ``clarify``, ``error``)."""
    made = HalfDayPlanner(
        provider=ctx.providers,
        settings=ctx.settings,
        memory=memory_store(ctx),
        open_reservations=ctx.reservations,
        breakers=ctx.services.halfday_breakers,
        llm=lambda: None,
        clock=ctx.clock,
    )
    ended = [list(made.events(HalfDayRequest(goal=goal, now=ctx.now())))[-1] for goal in WARM_UP_GOALS]
    return [event.data.type if isinstance(event, DoneEvent) else "error" for event in ended]


def plan_half_day(
    ctx: RequestContext, request: HalfDayRequest, *, decide: Decide | None = None
) -> Iterator[HalfDayEvent]:
    """The seven stages as events, the last one ``done``, on ``planner(ctx)`` (the one place a use case makes the
    planner; a test swapping a tool patches it). The request's ``now`` defaults to the context's clock in its zone,
    and its user to the context's (a face never lets a body name another user). ``decide``: how the person answers
    a level-2 question (the page keeps the stream and answers from its buttons); None: nobody can, the default
    applies."""
    ctx, scope = in_scope(ctx, request.goal, request.origin)
    if scope.verdict == "NOT_COVERED":  # never a plan of another city than the one the goal names
        return iter([_not_covered(ctx, scope)])
    update: dict[str, object] = {"region": scope.region} if request.region and scope.verdict == "SWITCH" else {}
    if request.now is None:
        update["now"] = ctx.now()
    if ctx.user is not None:
        update["user_id"] = ctx.user
    if request.lang is None and ctx.lang_given:
        update["lang"] = ctx.lang
    events = planner(ctx).events(request.model_copy(update=update) if update else request, decide=decide)
    return _switch_said(events, scope) if scope.verdict == "SWITCH" else events


def _not_covered(ctx: RequestContext, scope: Scope) -> HalfDayEvent:
    """The one ``done`` of a goal naming a place no installed region covers: an error with the place and the
    regions (its words: ``halfday.error.region_not_covered``)."""
    error = ErrorFacts(
        code="REGION_NOT_COVERED", trace_id=ctx.trace_id, field="goal", named=scope.named, regions=list(scope.regions)
    )
    return DoneEvent(trace_id=ctx.trace_id, seq=0, at=ctx.now(), data=DoneError(error=error))


def _switch_said(events: Iterator[HalfDayEvent], scope: Scope) -> Iterator[HalfDayEvent]:
    """``events`` with a warning after the first that the plans are made in the region that covers the place the
    goal names (REGION_SWITCHED), and the same code first among the result's warnings; the events after it move
    one place on."""
    first = next(events)
    yield first
    facts = WarningFacts(name=scope.named, region=scope.region)
    yield ObservationEvent(
        trace_id=first.trace_id,
        seq=first.seq + 1,
        at=first.at,
        data=WarningObservation(code="REGION_SWITCHED", facts=facts),
    )
    for event in events:
        if isinstance(event, DoneEvent) and isinstance(event.data, DonePlans):  # the result says it too (the page)
            result = event.data.result
            said = result.model_copy(update={"warnings": ["REGION_SWITCHED", *result.warnings]})
            event = event.model_copy(update={"data": event.data.model_copy(update={"result": said})})
        yield event.model_copy(update={"seq": event.seq + 1})


# ---- level 2: a stream that waits for the person's answer (half_day_planner.md §4.1) -------------------------
AnswerOutcome = Literal["accepted", "not_waiting"]


def plan_half_day_answerable(ctx: RequestContext, request: HalfDayRequest) -> Iterator[HalfDayEvent]:
    """``plan_half_day`` for a stream whose reader answers elsewhere (the HTTP API): at a level-2 question the
    stream waits up to ``halfday_degraded_wait_s`` for ``answer_degraded(ctx, trace_id, choice)``, then goes on
    with the answer or ``halfday_degraded_default``. The answer may come as soon as the first event is out; it goes
    through the root's store of waits (``AppServices.halfday_waits``), not through this stream."""
    waits = ctx.services.halfday_waits
    owner = ctx.user or "anonymous"

    def decide(trace_id: str, wait_s: float) -> DegradedChoice | None:
        answer = waits.take(trace_id, timeout_s=wait_s)
        return answer.choice if answer is not None else None

    events = plan_half_day(ctx, request, decide=decide)
    streams = ctx.services.halfday_streams
    trace_id: str | None = None
    try:
        for event in events:
            if trace_id is None:
                trace_id = event.trace_id
                waits.register(trace_id, owner=owner)
            # kept before it is sent: a client that reconnects (to any worker) reads on from it
            streams.append(
                event.trace_id, event.model_dump_json(), owner=owner, seq=event.seq, done=event.type == "done"
            )
            yield event
    finally:
        if trace_id is not None:
            waits.expire(trace_id)


StreamFollow = Literal["not_found"]


def follow_stream(
    ctx: RequestContext, trace_id: str, *, after: int, poll_s: float = 0.25
) -> Iterator[HalfDayEvent] | StreamFollow:
    """The events of the person's stream ``trace_id`` after ``after`` (its Last-Event-ID), then the rest as they come,
    whichever worker holds it; a stream with nothing new for ``halfday_stream_lost_after_s`` ends with ``done``
    error ``STREAM_LOST`` (its worker stopped: ask again). ``not_found``: no stream of theirs by that id."""
    streams, owner = ctx.services.halfday_streams, ctx.user or "anonymous"
    first = streams.read(trace_id, owner=owner, after=after)
    if first is None:
        return "not_found"
    lost_after = ctx.settings.halfday_stream_lost_after_s

    def follow(read: StreamRead) -> Iterator[HalfDayEvent]:
        seq = after
        while True:
            for raw in read.events:
                event = HALF_DAY_EVENT.validate_json(raw)
                seq = max(seq, event.seq)
                yield event
            if read.ended:
                return
            if read.quiet_s >= lost_after:
                error = ErrorFacts(code="STREAM_LOST", trace_id=trace_id, retry_after_s=0.0)
                yield DoneEvent(trace_id=trace_id, seq=seq + 1, at=ctx.clock(), data=DoneError(error=error))
                return
            time.sleep(poll_s)
            again = streams.read(trace_id, owner=owner, after=seq)
            if again is None:  # expired meanwhile
                return
            read = again

    return follow(first)


def answer_degraded(ctx: RequestContext, trace_id: str, choice: DegradedChoice) -> AnswerOutcome:
    """The person's answer to the level-2 question of their stream ``trace_id``: ``not_waiting`` when no stream
    of theirs by that id is open (ended, answered already, or another user's)."""
    answer = WaitAnswer(plan_id=trace_id, owner=ctx.user or "anonymous", choice=choice)
    return "accepted" if ctx.services.halfday_waits.deliver(answer) else "not_waiting"


# ---- level 3: a conversation instead of a plan ----------------------------------------------------------------
def converse_instead(ctx: RequestContext, message: str) -> AgentResponse:
    """Planning gave up (level 3): the goal (or the person's next words) goes to the travel agent with the same
    context, its user, language and clock."""
    from core.app import agent

    return agent.ask(ctx, AgentRequest(user_id=ctx.user or "anonymous", message=message))


def worded(event: HalfDayEvent, lang: Lang | None) -> HalfDayEvent:
    """``event`` as a face sends it: a ``done`` with plans gets their intros, step reasons and the weather they used in
    words (``lang``, else the goal's language), from the same catalogs the page reads; every other event is codes and
    facts only."""
    if not (isinstance(event, DoneEvent) and isinstance(event.data, DonePlans)):
        return event
    from core.words.halfday import result_words
    from core.words.halfday_weather import weather_sentence

    result = event.data.result
    lang = lang or result.goal.language
    weather = weather_sentence(result.profile.weather, result.profile.weather_from, lang)
    words = result_words(result, lang).model_copy(update={"weather": weather})
    return event.model_copy(update={"data": event.data.model_copy(update={"words": words})})


def reserve_step(ctx: RequestContext, inp: ReserveInput, *, trace_id: str | None = None) -> DryRun:
    """Stage 7 (``mock_reserve``): a plan's bookable step through the registered tool, schema-checked and logged
    with the plan's trace id (``trace_id``); consent and confirmation follow through the reservation service's
    gates (``core.app.reservations.confirm``)."""
    if ctx.user is not None and inp.user_id != ctx.user:
        inp = inp.model_copy(update={"user_id": ctx.user})
    return planner(ctx).reserve_dry_run(inp, trace_id=trace_id)


def memory_store(ctx: RequestContext) -> MemoryStore:
    """What the half-day planner learned, on the context's database (no map provider needed)."""
    return MemoryStore(database=ctx.database, clock=ctx.clock)


def remembered(ctx: RequestContext) -> Memory:
    return memory_store(ctx).get(_user(ctx))


def remember_plan(ctx: RequestContext, result: HalfDayResult, plan_id: str) -> None:
    """The person chose plan ``plan_id`` of ``result``: the user's memory learns its places' tags, and keeps an
    episode of it to recall (the planner of the context's region does both)."""
    planner(ctx).remember_plan(_user(ctx), result, plan_id)


def keep_family(ctx: RequestContext, family: FamilyProfile) -> None:
    """The user's family profile (the next plans' party when a goal names none)."""
    memory_store(ctx).set_family(_user(ctx), family)


def forget(ctx: RequestContext) -> int:
    """Forget everything learned of the context's user; how many events were forgotten."""
    return memory_store(ctx).reset(_user(ctx))


def feedback(ctx: RequestContext, place_id: str, *, liked: bool) -> Memory:
    """Explicit feedback on one of the context's region's places; the next plans' profile reads it."""
    place = ctx.region.place_by_id(place_id)
    if place is None:
        raise InputError("no such place in this region", field="place_id", code="PLACE_NOT_FOUND")
    store = memory_store(ctx)
    store.feedback(_user(ctx), place, liked=liked)
    return store.get(_user(ctx))


def _user(ctx: RequestContext) -> str:
    if not ctx.user:
        raise InputError("the half-day memory is a user's", field="user_id", code="USER_REQUIRED")
    return ctx.user


def offered_windows(now: datetime) -> list[WindowChoice]:
    """The quick answers to "when?" still worth offering at ``now`` (at 20:00, "this afternoon" is not one)."""
    from core.halfday.goal_window import offered_choices

    return offered_choices(now)


def open_link(ctx: RequestContext, link: HalfDayLink) -> LinkReading:
    """The window a shared link's goal is planned in when opened now (the same one on every day), or ``past``."""
    return read_link_window(link.goal, window=link.window, legacy_day=link.legacy_day, now=ctx.now())
