"""The seven stages as one event stream (half_day_planner.md §3.3): ``status`` when a stage starts, ``intent`` with
the parsed goal (or the question to ask), ``skill_call`` before each tool, ``observation`` after it (results,
warnings, relaxed filters), and one ``done`` (plans, a clarification, or an error with the trace id). Every event
carries the trace id; the consumer (the page, the SSE endpoint, the CLI) holds no planning state.

Degradation (§4.1): level 1 is the registry's retries, then a search with relaxed filters; level 2 is the travel
breaker (core/halfday/travel.py), announced as ``observation`` of type ``warning``; level 3 (a tool that broke its
schema twice, an unreachable database) ends with ``done`` of type ``error``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy.exc

from core.config import Settings
from core.errors import OmniError
from core.geo.composite import MapServices
from core.halfday.goal_models import DecomposedGoal
from core.halfday.models import (
    Candidates,
    ComposeInput,
    HalfDayEvent,
    HalfDayRequest,
    HalfDayResult,
    Memory,
    MemoryQuery,
    OriginPoint,
    OriginQuery,
    PlanSet,
    Profile,
    ProfileInput,
    RelaxCode,
    ScoreInput,
    SearchFilters,
    SlotsInput,
    TimeSlots,
)
from core.halfday.score import FEASIBILITY_FLOOR
from core.halfday.tools import EmptyResult, ToolInvalid, ToolRegistry, Trace

log = logging.getLogger("omni.halfday")

STAGES = {
    1: "decompose_goal",
    2: "get_memory",
    3: "analyze_user_profile",
    4: "plan_time_slots",
    5: "search_places",
    6: "rank_places_for_plan",
    7: "present_and_reserve",
}
#: travel notes that mean part of the plan rests on local data, not the live service (§4.1 level 2)
DEGRADED_NOTES = {"TRAVEL_BREAKER_OPEN", "TRAVEL_SERVICE_FAILED", "TRAVEL_FROM_LOCAL_ESTIMATE"}


def relax_order(profile: Profile) -> list[RelaxCode]:
    """The soft filters that apply to this profile, loosest first (crowds before tastes before money)."""
    out: list[RelaxCode] = []
    if profile.crowd_tolerance == "low":
        out.append("crowd")
    if any(w > 0 and not p.startswith("tag:") for p, w in profile.preferences.items()):
        out.append("preferences")
    if profile.constraints.budget_per_person is not None or profile.constraints.budget_total is not None:
        out.append("budget")
    if profile.indoor_only:
        out.append("indoor")
    return out


@dataclass
class _Stream:
    trace: Trace
    seq: int = 0
    warnings: list[str] = field(default_factory=list)

    def event(self, type_: str, **data: Any) -> HalfDayEvent:
        ev = HalfDayEvent(type=type_, trace_id=self.trace.trace_id, seq=self.seq, at=datetime.now(UTC), data=data)
        self.seq += 1
        return ev


def _call(stream: _Stream, registry: ToolRegistry, name: str, payload: Any) -> Iterator[HalfDayEvent | Any]:
    """skill_call, the call, observation: yields the two events, then the tool's output as the last item."""
    spec = registry.spec(name)
    yield stream.event("skill_call", tool=name, stage=spec.stage, mocked=name in registry.mocked)
    out = registry.call(name, payload, trace=stream.trace)
    last = stream.trace.calls[-1]
    yield stream.event(
        "observation",
        type="result",
        tool=name,
        output=last["output"],
        duration_ms=last["duration_ms"],
        attempts=last["attempts"],
    )
    yield out


def _run(stream: _Stream, registry: ToolRegistry, name: str, payload: Any, sink: list[Any]) -> Iterator[HalfDayEvent]:
    for item in _call(stream, registry, name, payload):
        if isinstance(item, HalfDayEvent):
            yield item
        else:
            sink.append(item)


def plan_events(
    request: HalfDayRequest, *, registry: ToolRegistry, provider: MapServices, settings: Settings
) -> Iterator[HalfDayEvent]:
    stream = _Stream(trace=Trace())
    yield stream.event("status", stage=0, name="started")
    try:
        yield from _stages(stream, request, registry=registry, provider=provider, settings=settings)
    except ToolInvalid as exc:
        yield _error(stream, exc.code, tool=_last_tool(stream))
    except sqlalchemy.exc.OperationalError:
        log.exception("halfday database unreachable", extra={"trace_id": stream.trace.trace_id})
        yield _error(stream, "DATABASE_UNREACHABLE", tool=_last_tool(stream))
    except OmniError as exc:
        yield _error(stream, exc.code, tool=_last_tool(stream), field=exc.field)
    except Exception:  # the last guard: the stream always ends with done, never a traceback
        log.exception("halfday planner failed", extra={"trace_id": stream.trace.trace_id})
        yield _error(stream, "INTERNAL_ERROR", tool=_last_tool(stream))


def _last_tool(stream: _Stream) -> str | None:
    return stream.trace.calls[-1]["tool"] if stream.trace.calls else None


def _error(stream: _Stream, code: str, **facts: Any) -> HalfDayEvent:
    return stream.event("done", type="error", error={"code": code, "trace_id": stream.trace.trace_id, **facts})


def _stages(
    stream: _Stream, request: HalfDayRequest, *, registry: ToolRegistry, provider: MapServices, settings: Settings
) -> Iterator[HalfDayEvent]:
    pack = provider.region
    zone = ZoneInfo(pack.timezone)
    now = request.now or datetime.now(zone)
    now = now.replace(tzinfo=zone) if now.tzinfo is None else now.astimezone(zone)  # a naive time is local
    got: list[Any] = []

    yield stream.event("status", stage=1, name=STAGES[1])
    yield from _run(stream, registry, "decompose_goal", {"text": request.goal, "now": now, "lang": request.lang}, got)
    goal: DecomposedGoal = got.pop()
    if goal.missing:
        yield stream.event("intent", goal=goal.model_dump(mode="json"), clarification={"missing": goal.missing})
        yield stream.event("done", type="clarify", goal=goal.model_dump(mode="json"), missing=goal.missing)
        return
    yield stream.event("intent", goal=goal.model_dump(mode="json"), clarification=None)
    assert goal.window is not None

    yield stream.event("status", stage=2, name=STAGES[2])
    yield from _run(stream, registry, "get_memory", MemoryQuery(user_id=request.user_id), got)
    memory: Memory = got.pop()

    yield stream.event("status", stage=3, name=STAGES[3])
    yield from _run(
        stream, registry, "analyze_user_profile", ProfileInput(goal=goal, memory=memory, today=now.date()), got
    )
    profile: Profile = got.pop()

    yield stream.event("status", stage=4, name=STAGES[4])
    yield from _run(stream, registry, "plan_time_slots", SlotsInput(profile=profile, window=goal.window, now=now), got)
    slots: TimeSlots = got.pop()
    origin: OriginPoint | None = None
    if request.origin:
        try:
            yield from _run(stream, registry, "resolve_origin", OriginQuery(text=request.origin), got)
            origin = got.pop().origin
        except (OmniError, TimeoutError, ConnectionError):  # the start is optional: plan from the first stop
            origin = None
        if origin is None:
            stream.warnings.append("ORIGIN_UNRESOLVED")
            yield stream.event(
                "observation", type="warning", code="ORIGIN_UNRESOLVED", facts={"origin": request.origin}
            )

    relaxed: list[RelaxCode] = []
    reported: set[str] = set()
    pending = relax_order(profile)
    while True:
        yield stream.event("status", stage=5, name=STAGES[5], relaxed=list(relaxed))
        filters = SearchFilters(region=pack.name, profile=profile, slots=slots, relaxed=relaxed)
        try:
            yield from _run(stream, registry, "search_places", filters, got)
            candidates: Candidates = got.pop()
        except EmptyResult as exc:  # nothing passed the filters: say why, then relax if anything can be
            candidates = (
                Candidates.model_validate(exc.details)
                if isinstance(exc.details, dict)
                else Candidates(region=pack.name, date=slots.date, items=[], relaxed=relaxed)
            )
            yield stream.event(
                "observation", type="empty", tool="search_places", facts={"excluded": candidates.excluded}
            )
        for issue in candidates.named_issues:
            if f"NAMED_PLACE:{issue.name}" not in reported:
                reported.add(f"NAMED_PLACE:{issue.name}")
                code = "NAMED_PLACE_NOT_FOUND" if issue.reason == "not_in_pack" else "NAMED_PLACE_UNAVAILABLE"
                if code not in stream.warnings:
                    stream.warnings.append(code)
                yield stream.event("observation", type="warning", code=code, facts=issue.model_dump(mode="json"))
        plans: PlanSet | None = None
        if candidates.items:
            yield stream.event("status", stage=6, name=STAGES[6])
            compose = ComposeInput(
                origin=origin,
                profile=profile,
                slots=slots,
                candidates=candidates,
                now=now,
                max_plans=request.max_plans,
            )
            yield from _run(stream, registry, "rank_places_for_plan", compose, got)
            composed: PlanSet = got.pop()
            for note in composed.notes:
                if note in DEGRADED_NOTES and note not in stream.warnings:
                    stream.warnings.append(note)
                    yield stream.event("observation", type="warning", code=note, facts={})
            score_in = ScoreInput(
                plans=composed, candidates=candidates, profile=profile, slots=slots, weights=request.weights
            )
            yield from _run(stream, registry, "score_plans", score_in, got)
            plans = got.pop()
        good = plans is not None and len(plans.plans) >= 2 and plans.plans[0].feasibility >= FEASIBILITY_FLOOR
        if good or not pending:
            break
        code = pending.pop(0)
        relaxed = [*relaxed, code]
        best = plans.plans[0].feasibility if plans and plans.plans else None
        yield stream.event("observation", type="relaxed", code=code, facts={"best_feasibility": best})

    yield stream.event("status", stage=7, name=STAGES[7])
    if plans is None or not plans.plans:
        yield stream.event(
            "done",
            type="error",
            error={"code": "NO_FEASIBLE_PLAN", "trace_id": stream.trace.trace_id, "excluded": candidates.excluded},
        )
        return
    for plan in plans.plans:
        bookable = [s.place_id for s in plan.steps if s.bookable]
        if bookable:
            yield stream.event("observation", type="reservable", plan_id=plan.plan_id, place_ids=bookable)
    result = HalfDayResult(
        trace_id=stream.trace.trace_id,
        region=pack.name,
        goal=goal,
        profile=profile,
        slots=slots,
        plans=plans.plans,
        weights=request.weights,
        relaxed=relaxed,
        origin=origin,
        warnings=list(stream.warnings),
        travel_source=plans.travel_source,
        tool_log=list(stream.trace.calls),
    )
    yield stream.event("done", type="plans", result=result.model_dump(mode="json"))
