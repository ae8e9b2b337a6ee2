"""Plan a half day (job 4): the seven stages as a stream of events, and stage 7, the booking path."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from core.app.context import RequestContext
from core.errors import InputError
from core.halfday.facts import (
    CandidateFacts,
    MemoryFacts,
    PlanSetFacts,
    ProfileFacts,
    SlotsFacts,
    ToolFacts,
)
from core.halfday.goal_models import (
    DIET_CODES,
    MOBILITY_CODES,
    DecomposedGoal,
    ExactWindow,
    NamedWindow,
    WindowChoice,
)
from core.halfday.link import LinkReading, read_link_window
from core.halfday.memory import MemoryStore
from core.halfday.models import (
    DEFAULT_WEIGHTS,
    DIMENSIONS,
    Done,
    DoneError,
    DoneEvent,
    DonePlans,
    ErrorFacts,
    FamilyProfile,
    HalfDayEvent,
    HalfDayRequest,
    HalfDayResult,
    IntentEvent,
    Memory,
    Observation,
    ObservationEvent,
    OriginPoint,
    Plan,
    PlanStep,
    RelaxedObservation,
    ReservableObservation,
    ReserveInput,
    ResultObservation,
    Risk,
    ScoreWeights,
    SkillCallEvent,
    StatusEvent,
    WarningObservation,
)
from core.halfday.service import HalfDayPlanner
from core.reservations.models import DryRun
from core.share import HalfDayLink

__all__ = [
    # the contracts the half-day use cases take and return (core.halfday's models: request, events, plans,
    # memory, the goal's window), and the planner ``planner(ctx)`` gives a face for memory and feedback
    "CandidateFacts",
    "DEFAULT_WEIGHTS",
    "DIET_CODES",
    "DIMENSIONS",
    "DecomposedGoal",
    "Done",
    "DoneError",
    "DoneEvent",
    "DonePlans",
    "ErrorFacts",
    "ExactWindow",
    "FamilyProfile",
    "HalfDayEvent",
    "HalfDayPlanner",
    "HalfDayRequest",
    "HalfDayResult",
    "IntentEvent",
    "LinkReading",
    "MOBILITY_CODES",
    "Memory",
    "MemoryFacts",
    "NamedWindow",
    "Observation",
    "ObservationEvent",
    "OriginPoint",
    "Plan",
    "PlanSetFacts",
    "PlanStep",
    "ProfileFacts",
    "RelaxedObservation",
    "ReservableObservation",
    "ReserveInput",
    "ResultObservation",
    "Risk",
    "ScoreWeights",
    "SkillCallEvent",
    "SlotsFacts",
    "StatusEvent",
    "ToolFacts",
    "WarningObservation",
    "WindowChoice",
    # entry points
    "offered_windows",
    "open_link",
    "plan_half_day",
    "planner",
    "rank_plans",
    "reserve_step",
    "worded",
]


class _RequestReservations:
    """The context's reservation service, opened on first use: an unreachable database then ends the event
    stream with ``DATABASE_UNREACHABLE`` (docs/ARCHITECTURE.md, "Half-day planner") instead of failing before it."""

    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx.reservations(), name)


def planner(ctx: RequestContext) -> HalfDayPlanner:
    """The region's half-day planner on the request's view of the providers (its tools, memory, reservations)."""
    return HalfDayPlanner(provider=ctx.providers, settings=ctx.settings, reservations=_RequestReservations(ctx))


def plan_half_day(
    ctx: RequestContext, request: HalfDayRequest, *, planner_: HalfDayPlanner | None = None
) -> Iterator[HalfDayEvent]:
    """The seven stages as events, the last one ``done``. The request's ``now`` defaults to the context's clock in
    its zone, and its user to the context's (a face never lets a body name another user). ``planner_``: one made
    by ``planner(ctx)`` and adjusted (a test swapping a tool)."""
    update: dict[str, object] = {}
    if request.now is None:
        update["now"] = ctx.now()
    if ctx.user is not None:
        update["user_id"] = ctx.user
    if request.lang is None and ctx.lang_given:
        update["lang"] = ctx.lang
    return (planner_ or planner(ctx)).events(request.model_copy(update=update) if update else request)


def worded(event: HalfDayEvent, lang: str | None) -> HalfDayEvent:
    """``event`` as a face sends it: a ``done`` with plans gets their intros and step reasons in words (``lang``, else
    the goal's language), from the same catalogs the page reads; every other event is codes and facts only."""
    if not (isinstance(event, DoneEvent) and isinstance(event.data, DonePlans)):
        return event
    from core.app.halfday_words import result_words

    result = event.data.result
    words = result_words(result, lang or result.goal.language)
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
    return MemoryStore.from_url(ctx.settings.db_url)


def remembered(ctx: RequestContext) -> Memory:
    return memory_store(ctx).get(_user(ctx))


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


def rank_plans(plans: list[Plan], weights: ScoreWeights) -> list[Plan]:
    """The plans with their totals for ``weights``, best first (the page's sliders re-rank without re-planning)."""
    from core.halfday.score import rank_by_weights

    return rank_by_weights(plans, weights)
