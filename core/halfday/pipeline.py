"""The seven stages as one event stream (half_day_planner.md §3.3): ``status`` when a stage starts, ``intent`` with
the parsed goal (or the question to ask), ``skill_call`` before each tool, ``observation`` after it (results,
warnings, relaxed filters), and one ``done`` (plans, a clarification, or an error with the trace id). Every event
carries the trace id; the consumer (the page, the SSE endpoint, the CLI) holds no planning state.

Degradation (§4.1): level 1 is the registry's retries, then a search with relaxed filters; level 2 is the map
breaker (core/halfday/travel.py), announced as ``observation`` of type ``warning``, then a warning that asks the
person whether to go on with local data (``choice``; the request's ``on_degraded``, the answer through ``decide``,
else ``halfday_degraded_default``) and an ``observation`` of type ``choice`` with what was decided; level 3 (a
tool that broke its schema twice, an unreachable database) ends with ``done`` of type ``error`` that offers a
conversation with the agent and carries the support contact.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy.exc

from core.clock import Clock
from core.config import HalfDayToolName as Tool
from core.config import Settings
from core.errors import DatabaseUnreachable, OmniError
from core.geo.composite import MapServices
from core.geo.scope import ProviderBudget
from core.halfday.explain import explain_plans
from core.halfday.score import FEASIBILITY_FLOOR
from core.halfday.tools import EmptyResult, SoFar, ToolInvalid, ToolRegistry, Trace
from core.models.halfday.events import (
    Clarification,
    Done,
    DoneClarify,
    DoneError,
    DoneEvent,
    DonePlans,
    EmptyObservation,
    ErrorFacts,
    HalfDayEvent,
    HalfDayResult,
    IntentData,
    IntentEvent,
    Observation,
    ObservationEvent,
    PlanObservation,
    RelaxedObservation,
    ReservableObservation,
    ResultObservation,
    SkillCallData,
    SkillCallEvent,
    StageCode,
    StatusData,
    StatusEvent,
    WarningObservation,
)
from core.models.halfday.facts import (
    ChoiceAsk,
    ChosenObservation,
    DegradedChoice,
    EmptyFacts,
    RelaxCode,
    RelaxedFacts,
    WarningFacts,
)
from core.models.halfday.goal import DecomposedGoal
from core.models.halfday.plans import (
    Candidates,
    ComposeInput,
    HalfDayRequest,
    Memory,
    MemoryQuery,
    OriginPoint,
    OriginQuery,
    Plan,
    PlanSet,
    Profile,
    ProfileInput,
    ScoreInput,
    SearchFilters,
    SlotsInput,
    TimeSlots,
)
from core.models.halfday.weather import WeatherQuery

log = logging.getLogger("omni.halfday")

STAGES: dict[int, StageCode] = {
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
#: stage 6 on a service paid by the destination (core/halfday/screen.py): some legs kept their estimate (the plan's
#: asks ran out: not a failure, so nobody is asked), a plan composed on estimates that its measured legs broke
LEGS_LEFT_ESTIMATED = "LEGS_LEFT_ESTIMATED"
PLAN_DROPPED = "PLAN_DROPPED_ON_MEASURED_LEGS"
#: what a provider logs when its answer (or a call never made for want of time) came from the local estimate
FALLBACK_CODES = frozenset({"PROVIDER_FALLBACK", "PROVIDER_NOT_REQUESTED"})
#: §4.1 level 3: planning cannot go on; the face falls back to a conversation and shows the support contact
LEVEL3_CODES = frozenset({"TOOL_OUTPUT_INVALID", "TOOL_INPUT_INVALID", "DATABASE_UNREACHABLE", "INTERNAL_ERROR"})
#: the level-2 warning that asks the person; the stop it may end with
DEGRADED_ASK = "DEGRADED_DATA"
DEGRADED_DECLINED = "DEGRADED_DECLINED"
#: the person's answer to a level-2 question: (trace id, how long to wait) → the choice, or None (no answer)
Decide = Callable[[str, float], DegradedChoice | None]


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
    clock: Clock
    seq: int = 0
    warnings: list[str] = field(default_factory=list)
    provider: MapServices | None = None  # the request's view the tools call (None: a stream that calls none)
    budget_s: float | None = None  # the plan's time for providers' answers, from its first provider call
    contact: str | None = None  # level 3's support contact (settings)
    choice: DegradedChoice | None = None  # level 2, once decided
    dropped_said: set[tuple[str, ...]] = field(default_factory=set)  # plans said to be left out (their stops)
    _budget: ProviderBudget | None = None

    def providers(self) -> AbstractContextManager[None]:
        """The provider budget for a tool's calls: started by the first such tool, the same deadline after it."""
        if self.budget_s is None or self.provider is None:
            return nullcontext()
        if self._budget is None:
            self._budget = ProviderBudget.starting_now(self.budget_s)
        return self.provider.within(self._budget)

    def _head(self) -> dict[str, Any]:
        head = {"trace_id": self.trace.trace_id, "seq": self.seq, "at": self.clock()}
        self.seq += 1
        return head

    def status(self, stage: int, relaxed: list[RelaxCode] | None = None) -> StatusEvent:
        name = STAGES.get(stage, "started")
        return StatusEvent(**self._head(), data=StatusData(stage=stage, name=name, relaxed=list(relaxed or [])))

    def intent(self, goal: DecomposedGoal) -> IntentEvent:
        asked = Clarification(missing=list(goal.missing)) if goal.missing else None
        return IntentEvent(**self._head(), data=IntentData(goal=goal, clarification=asked))

    def skill_call(self, tool: str, stage: int, *, mocked: bool) -> SkillCallEvent:
        return SkillCallEvent(**self._head(), data=SkillCallData(tool=tool, stage=stage, mocked=mocked))

    def observation(self, data: Observation) -> ObservationEvent:
        return ObservationEvent(**self._head(), data=data)

    def warning(self, code: str, facts: WarningFacts | None = None) -> ObservationEvent:
        return self.observation(WarningObservation(code=code, facts=facts or WarningFacts()))

    def done(self, data: Done) -> DoneEvent:
        return DoneEvent(**self._head(), data=data)


#: what the stream says of a part of a tool's answer made while the rest is still to come
ShowPart = Callable[[Any], Iterator[HalfDayEvent]]


def _run(
    stream: _Stream, registry: ToolRegistry, name: str, payload: Any, sink: list[Any], *, shown: ShowPart | None = None
) -> Iterator[HalfDayEvent]:
    """skill_call, the call, observation: yields the two events, then puts the tool's output in ``sink``; a tool
    that shows its work has each part said by ``shown`` in between."""
    spec = registry.spec(name)
    yield stream.skill_call(name, spec.stage, mocked=registry.runs_mock(name))
    with stream.providers() if spec.calls_providers else nullcontext():  # map services: within the plan's budget
        made = registry.call_parts(name, payload, trace=stream.trace)
        while True:
            try:
                part = next(made)
            except StopIteration as end:
                out = end.value
                break
            if shown is not None:
                yield from shown(part)
    last = stream.trace.calls[-1]
    yield stream.observation(
        ResultObservation(tool=name, duration_ms=last["duration_ms"], attempts=last["attempts"], facts=spec.facts(out))
    )
    sink.append(out)


def _added(stream: _Stream, registry: ToolRegistry, stage: int, known: SoFar) -> Generator[HalfDayEvent, None, SoFar]:
    """The tools added at the end of ``stage`` (core/halfday/toolbox: those that read what the plan knows), in the
    registry's order, each called like any tool; what one folds back is what the next one and the stages go on with."""
    for spec in registry.added(stage):
        assert spec.reads is not None  # what makes it an added tool
        got: list[Any] = []
        yield from _run(stream, registry, spec.name, spec.reads(known), got)
        if spec.folds is not None:
            known = spec.folds(known, got.pop())
    return known


def plan_events(
    request: HalfDayRequest,
    *,
    registry: ToolRegistry,
    provider: MapServices,
    settings: Settings,
    clock: Clock,
    decide: Decide | None = None,
) -> Iterator[HalfDayEvent]:
    """``decide``: how the person answers a level-2 question (None: nobody can, the default applies at once);
    ``clock``: the request's (its moment when the request names none, and the events' stamps)."""
    contact = settings.halfday_support_contact.strip() or None
    stream = _Stream(
        trace=Trace(), clock=clock, provider=provider, budget_s=settings.halfday_provider_budget_s, contact=contact
    )
    yield stream.status(0)
    try:
        yield from _stages(stream, request, registry=registry, provider=provider, settings=settings, decide=decide)
    except ToolInvalid as exc:
        yield _error(stream, exc.code, tool=_last_tool(stream))
    except sqlalchemy.exc.OperationalError:
        log.exception("halfday database unreachable", extra={"trace_id": stream.trace.trace_id})
        yield _error(stream, "DATABASE_UNREACHABLE", tool=_last_tool(stream), retry_after_s=settings.db_breaker_reset_s)
    except DatabaseUnreachable as exc:  # the one answer of an outage: its code and when to ask again
        yield _error(stream, exc.code, tool=_last_tool(stream), retry_after_s=exc.retry_after_s)
    except OmniError as exc:
        yield _error(stream, exc.code, tool=_last_tool(stream), field=exc.field)
    except Exception:  # the last guard: the stream always ends with done, never a traceback
        log.exception("halfday planner failed", extra={"trace_id": stream.trace.trace_id})
        yield _error(stream, "INTERNAL_ERROR", tool=_last_tool(stream))


def _estimated_services(provider: MapServices) -> list[str]:
    """The services of this request's providers that answered from the local estimate (its own warning log)."""
    found = {str(e.params.get("service")) for e in provider.warnings.entries() if e.code in FALLBACK_CODES}
    return sorted(found - {"None"})


def _failure_causes(provider: MapServices) -> list[str]:
    """How this request's map services failed before they fell back (a call never made for want of time has none)."""
    found = {str(e.params["cause"]) for e in provider.warnings.entries() if "cause" in e.params}
    return sorted(found)


def _estimated_facts(composed: PlanSet, provider: MapServices) -> WarningFacts:
    """What a travel warning is about: the plans' legs, how many of them are the local estimate, which services
    answered from it and why."""
    legs = [s.travel for p in composed.plans for s in p.steps if s.travel is not None and s.travel.mode != "none"]
    estimated = sum(1 for leg in legs if leg.source == "offline_estimate")
    causes = _failure_causes(provider) or None
    return WarningFacts(legs=len(legs), estimated_legs=estimated, services=_estimated_services(provider), causes=causes)


def _last_tool(stream: _Stream) -> str | None:
    return stream.trace.calls[-1]["tool"] if stream.trace.calls else None


def _error(stream: _Stream, code: str, **facts: Any) -> DoneEvent:
    if code in LEVEL3_CODES:
        facts.update(fallback="conversation", contact=stream.contact)
    return stream.done(DoneError(error=ErrorFacts(code=code, trace_id=stream.trace.trace_id, **facts)))


def _ask_degraded(
    stream: _Stream, request: HalfDayRequest, facts: WarningFacts, *, decide: Decide | None, settings: Settings
) -> Generator[HalfDayEvent, None, DegradedChoice]:
    """Level 2's question: the request's answer, else ask (a warning with the choice) and wait for the person's
    answer through ``decide``; no answer in time (or nobody to answer) is the configured default."""
    if request.on_degraded != "ask":
        choice: DegradedChoice = request.on_degraded
        yield stream.observation(ChosenObservation(choice=choice, by="request"))
        return choice
    default = settings.halfday_degraded_default
    wait_s = settings.halfday_degraded_wait_s if decide is not None else 0.0
    ask = ChoiceAsk(default=default, wait_s=wait_s)
    yield stream.observation(WarningObservation(code=DEGRADED_ASK, facts=facts, choice=ask))
    answer = decide(stream.trace.trace_id, wait_s) if decide is not None else None
    yield stream.observation(ChosenObservation(choice=answer or default, by="person" if answer else "default"))
    return answer or default


def _stages(
    stream: _Stream,
    request: HalfDayRequest,
    *,
    registry: ToolRegistry,
    provider: MapServices,
    settings: Settings,
    decide: Decide | None,
) -> Iterator[HalfDayEvent]:
    pack = provider.region
    zone = ZoneInfo(pack.timezone)
    now = request.now or stream.clock()
    now = now.replace(tzinfo=zone) if now.tzinfo is None else now.astimezone(zone)  # a naive time is local
    got: list[Any] = []

    understood = yield from _understand(stream, registry, request, now, got)
    if understood is None:
        return  # the goal lacks something: the person was asked
    goal, profile, slots = understood
    origin = (yield from _origin(stream, registry, provider, request.origin, got)) if request.origin else None

    relaxed: list[RelaxCode] = []
    reported: set[str] = set()
    pending = relax_order(profile)
    while True:
        yield stream.status(5, relaxed)
        candidates = yield from _search(
            stream, registry, SearchFilters(region=pack.name, profile=profile, slots=slots, relaxed=relaxed), got
        )
        for code, facts in _named_issues(candidates, reported, stream.warnings):
            yield stream.warning(code, facts)
        known = SoFar(request=request, now=now, goal=goal, profile=profile, slots=slots, origin=origin,
                      candidates=candidates)  # fmt: skip
        known = yield from _added(stream, registry, 5, known)
        candidates = known.candidates
        plans: PlanSet | None = None
        if candidates.items:
            yield stream.status(6)
            compose = ComposeInput(
                origin=origin, profile=profile, slots=slots, candidates=candidates, now=now, max_plans=request.max_plans
            )
            shown = _plan_shown(stream, registry, compose, request, goal=goal, round_=len(relaxed))
            composed = yield from _compose(
                stream, registry, provider, compose, request, settings=settings, decide=decide, got=got, shown=shown
            )
            if composed is None:
                return  # the person declined to go on with estimates
            score_in = ScoreInput(
                plans=composed, candidates=candidates, profile=profile, slots=slots, weights=request.weights
            )
            yield from _run(stream, registry, Tool.SCORE_PLANS, score_in, got)
            plans = (yield from _added(stream, registry, 6, replace(known, plans=got.pop()))).plans
        good = plans is not None and len(plans.plans) >= 2 and plans.plans[0].feasibility >= FEASIBILITY_FLOOR
        if good or not pending:
            break
        code = pending.pop(0)
        relaxed = [*relaxed, code]
        best = plans.plans[0].feasibility if plans and plans.plans else None
        yield stream.observation(RelaxedObservation(code=code, facts=RelaxedFacts(best_feasibility=best)))

    yield stream.status(7)
    if plans is None or not plans.plans:
        yield _error(stream, "NO_FEASIBLE_PLAN", excluded=dict(candidates.excluded))
        return
    yield from _deliver(
        stream,
        plans,
        candidates,
        request,
        goal=goal,
        profile=profile,
        slots=slots,
        relaxed=relaxed,
        origin=origin,
        region=pack.name,
    )


def _understand(
    stream: _Stream, registry: ToolRegistry, request: HalfDayRequest, now: datetime, got: list[Any]
) -> Generator[HalfDayEvent, None, tuple[DecomposedGoal, Profile, TimeSlots] | None]:
    """Stages 1-4: the goal, the person's memory, their profile and the time slots (None: the goal lacks something,
    and the stream has ended asking for it)."""
    yield stream.status(1)
    goal_in = {"text": request.goal, "now": now, "lang": request.lang, "window": request.window}
    yield from _run(stream, registry, Tool.DECOMPOSE_GOAL, goal_in, got)
    goal: DecomposedGoal = got.pop()
    yield stream.intent(goal)
    if goal.missing:
        yield stream.done(DoneClarify(goal=goal, missing=list(goal.missing)))
        return None
    assert goal.window is not None

    yield stream.status(2)
    yield from _run(stream, registry, Tool.GET_MEMORY, MemoryQuery(user_id=request.user_id), got)
    memory: Memory = got.pop()

    yield stream.status(3)  # the outing's weather first: a rainy forecast makes the profile keep indoors
    window = goal.window
    outing = WeatherQuery(date=window.date, start=window.start, end=window.end)
    yield from _run(stream, registry, Tool.CHECK_WEATHER, outing, got)
    profile_in = ProfileInput(goal=goal, memory=memory, today=now.date(), weather=got.pop())
    yield from _run(stream, registry, Tool.ANALYZE_USER_PROFILE, profile_in, got)
    profile: Profile = got.pop()

    yield stream.status(4)
    yield from _run(stream, registry, Tool.PLAN_TIME_SLOTS, SlotsInput(profile=profile, window=window, now=now), got)
    slots: TimeSlots = got.pop()
    return goal, profile, slots


def _deliver(
    stream: _Stream,
    plans: PlanSet,
    candidates: Candidates,
    request: HalfDayRequest,
    *,
    goal: DecomposedGoal,
    profile: Profile,
    slots: TimeSlots,
    relaxed: list[RelaxCode],
    origin: OriginPoint | None,
    region: str,
) -> Iterator[HalfDayEvent]:
    """Stage 7: which steps can be reserved, then the plans explained, with every warning said on the way."""
    for plan in plans.plans:
        bookable = [s.place_id for s in plan.steps if s.bookable]
        if bookable:
            yield stream.observation(ReservableObservation(plan_id=plan.plan_id, place_ids=bookable))
    result = HalfDayResult(
        trace_id=stream.trace.trace_id,
        region=region,
        goal=goal,
        profile=profile,
        slots=slots,
        plans=explain_plans(plans.plans, goal=goal, profile=profile, slots=slots, candidates=candidates),
        weights=request.weights,
        relaxed=relaxed,
        origin=origin,
        warnings=list(stream.warnings),
        travel_source=plans.travel_source,
        dropped_plans=list(plans.dropped),
        tool_log=list(stream.trace.calls),
    )
    yield stream.done(DonePlans(result=result))


def _origin(
    stream: _Stream, registry: ToolRegistry, provider: MapServices, text: str, got: list[Any]
) -> Generator[HalfDayEvent, None, OriginPoint | None]:
    """Stage 4's start point (optional: unresolved, the plan starts at its first stop), with what it cost said."""
    origin: OriginPoint | None
    try:
        yield from _run(stream, registry, Tool.RESOLVE_ORIGIN, OriginQuery(text=text), got)
        origin = got.pop().origin
    except (OmniError, TimeoutError, ConnectionError):  # the start is optional: plan from the first stop
        origin = None
    if origin is None:
        stream.warnings.append("ORIGIN_UNRESOLVED")
        yield stream.warning("ORIGIN_UNRESOLVED", WarningFacts(origin=text))
    elif "geocode" in _estimated_services(provider):
        stream.warnings.append("ORIGIN_FROM_LOCAL_GAZETTEER")
        yield stream.warning("ORIGIN_FROM_LOCAL_GAZETTEER", WarningFacts(origin=text, services=["geocode"]))
    return origin


def _search(
    stream: _Stream, registry: ToolRegistry, filters: SearchFilters, got: list[Any]
) -> Generator[HalfDayEvent, None, Candidates]:
    """Stage 5: the candidates that pass the filters; none, with why each place was excluded."""
    try:
        yield from _run(stream, registry, Tool.SEARCH_PLACES, filters, got)
        found: Candidates = got.pop()
        return found
    except EmptyResult as exc:  # nothing passed the filters: say why, then relax if anything can be
        empty = (
            Candidates.model_validate(exc.details)
            if isinstance(exc.details, dict)
            else Candidates(region=filters.region, date=filters.slots.date, items=[], relaxed=filters.relaxed)
        )
        yield stream.observation(
            EmptyObservation(tool=Tool.SEARCH_PLACES, facts=EmptyFacts(excluded=dict(empty.excluded)))
        )
        return empty


def _named_issues(
    candidates: Candidates, reported: set[str], warnings: list[str]
) -> Iterator[tuple[str, WarningFacts]]:
    """A place the goal named that is not in the pack or not available, once each (its code kept in
    ``warnings``)."""
    for issue in candidates.named_issues:
        if f"NAMED_PLACE:{issue.name}" in reported:
            continue
        reported.add(f"NAMED_PLACE:{issue.name}")
        code = "NAMED_PLACE_NOT_FOUND" if issue.reason == "not_in_pack" else "NAMED_PLACE_UNAVAILABLE"
        if code not in warnings:
            warnings.append(code)
        yield code, WarningFacts(name=issue.name, reason=issue.reason, place_id=issue.place_id)


def _compose(
    stream: _Stream,
    registry: ToolRegistry,
    provider: MapServices,
    compose: ComposeInput,
    request: HalfDayRequest,
    *,
    settings: Settings,
    decide: Decide | None,
    got: list[Any],
    shown: ShowPart | None = None,
) -> Generator[HalfDayEvent, None, PlanSet | None]:
    """Stage 6: the plans composed, each said as it is made (``shown``); their estimated figures said, and the
    person asked once whether to go on with them (None: they said stop, and the stream has ended with its error)."""
    yield from _run(stream, registry, Tool.RANK_PLACES_FOR_PLAN, compose, got, shown=shown)
    composed: PlanSet = got.pop()
    for note in composed.notes:
        if note in DEGRADED_NOTES | {LEGS_LEFT_ESTIMATED} and note not in stream.warnings:
            stream.warnings.append(note)
            yield stream.warning(note, _estimated_facts(composed, provider))
    for dropped in composed.dropped:  # a plan the measured legs broke: said once, with the leg that did
        if tuple(dropped.place_ids) in stream.dropped_said:
            continue  # a relaxed search composed it again
        stream.dropped_said.add(tuple(dropped.place_ids))
        if PLAN_DROPPED not in stream.warnings:
            stream.warnings.append(PLAN_DROPPED)
        yield stream.warning(PLAN_DROPPED, WarningFacts(dropped=dropped))
    if stream.choice is None and any(n in DEGRADED_NOTES for n in composed.notes):
        facts = _estimated_facts(composed, provider)
        stream.choice = yield from _ask_degraded(stream, request, facts, decide=decide, settings=settings)
        if stream.choice == "stop":
            # the map service is down: asking again helps once its breaker's cool-down is over
            retry = settings.halfday_breaker_map_reset_s
            yield _error(stream, DEGRADED_DECLINED, tool=Tool.RANK_PLACES_FOR_PLAN, retry_after_s=retry)
            return None
    return composed


def _plan_shown(
    stream: _Stream,
    registry: ToolRegistry,
    compose: ComposeInput,
    request: HalfDayRequest,
    *,
    goal: DecomposedGoal,
    round_: int,
) -> ShowPart:
    """How a plan made while the next ones are composed is said: scored on its own by the scoring tool's preview (a
    plan's score does not depend on the others) and explained as ``_deliver`` explains the set."""

    def shown(plan: Plan) -> Iterator[HalfDayEvent]:
        alone = PlanSet(plans=[plan], travel_source="")
        score_in = ScoreInput(
            plans=alone, candidates=compose.candidates, profile=compose.profile, slots=compose.slots,
            weights=request.weights,
        )  # fmt: skip
        scored = registry.preview(Tool.SCORE_PLANS, score_in)
        if isinstance(scored, PlanSet) and len(scored.plans) == 1:
            plan = scored.plans[0]
        said = explain_plans(
            [plan], goal=goal, profile=compose.profile, slots=compose.slots, candidates=compose.candidates
        )
        yield stream.observation(PlanObservation(plan=said[0], round=round_, asked=compose.max_plans))

    return shown
