"""The half-day planner's entry points: the tool registry wired to a region's services, the event stream, a plan
collected from it, the memory's feedback, and stage 7's reservation through the reservation service's gates."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

import sqlalchemy.exc

from core.agent.llm import LLMClient
from core.clock import Clock
from core.config import Settings
from core.errors import InputError, ProviderUnavailable
from core.geo.base import LonLat
from core.geo.composite import MapServices
from core.halfday import mocks
from core.halfday.breaker import HalfDayBreakers
from core.halfday.events import DoneEvent, DonePlans, HalfDayEvent, HalfDayResult
from core.halfday.goal_models import DecomposedGoal
from core.halfday.goal_window import apply_window
from core.halfday.memory import MemoryStore
from core.halfday.models import (
    Candidates,
    ComposeInput,
    GoalInput,
    HalfDayRequest,
    Memory,
    MemoryEvent,
    MemoryQuery,
    OriginAnswer,
    OriginPoint,
    OriginQuery,
    PlanSet,
    Profile,
    ProfileInput,
    ReserveInput,
    ScoreInput,
    SearchFilters,
    SlotsInput,
    TimeSlots,
)
from core.halfday.pipeline import Decide, plan_events
from core.halfday.plan_set import compose_plan_set
from core.halfday.profile import analyze_user_profile, plan_time_slots
from core.halfday.score import score_plans
from core.halfday.search import effective_budget, search_places
from core.halfday.tools import EmptyResult, ToolRegistry, ToolSpec
from core.halfday.travel import TravelTable, build_travel_table, map_breaker
from core.memory.store import UserMemory
from core.reservations.models import DryRun, ReservationRequest
from core.reservations.provider import ReservationProvider

#: what counts against the reservation (payment) side: the service or its database not answering
PAYMENT_FAILURES: tuple[type[BaseException], ...] = (
    ProviderUnavailable,
    OSError,
    TimeoutError,
    sqlalchemy.exc.OperationalError,
)


class LLMOpener(Protocol):
    """The model client stage 1 reads the goal with, asked for at each reading (None: no model configured; the rules
    read it)."""

    def __call__(self) -> LLMClient | None: ...


class HalfDayPlanner:
    """One region's half-day planner: its tools, memory and reservation service, each handed in by the root."""

    def __init__(
        self,
        *,
        provider: MapServices,
        settings: Settings,
        memory: MemoryStore,
        open_reservations: Callable[[], ReservationProvider],
        breakers: HalfDayBreakers,
        llm: LLMOpener,
        clock: Clock,
    ) -> None:
        """``open_reservations``: the region's reservation service, opened by the first stage-7 call, so that an
        unreachable database ends the event stream with ``DATABASE_UNREACHABLE`` instead of failing before it.
        ``breakers``: the process's breakers of the outside services (the root's, shared by its requests). ``llm``:
        stage 1's model client, opened by the reading that needs it (a mocked or rules-only stage 1 opens none)."""
        self.provider = provider
        self.settings = settings
        self.clock = clock  # the request's (core.app passes the context's)
        self.breakers = breakers
        self._open_llm = llm
        self.memory = memory
        self._open_reservations = open_reservations
        self._reservations: ReservationProvider | None = None
        self.registry = self._registry()

    @property
    def reservations(self) -> ReservationProvider:
        if self._reservations is None:
            self._reservations = self._open_reservations()
        return self._reservations

    # ---- the tools ----------------------------------------------------------------------------------
    def _registry(self) -> ToolRegistry:
        s = self.settings
        pack = self.provider.region
        specs = [
            ToolSpec(name="decompose_goal", stage=1, input_model=GoalInput, output_model=DecomposedGoal,
                     fn=self._decompose, mock=mocks.mock_goal),
            ToolSpec(name="get_memory", stage=2, input_model=MemoryQuery, output_model=Memory,
                     fn=lambda q: self.memory.get(q.user_id), mock=mocks.mock_memory),
            ToolSpec(name="analyze_user_profile", stage=3, input_model=ProfileInput, output_model=Profile,
                     fn=analyze_user_profile, mock=mocks.mock_profile),
            ToolSpec(name="plan_time_slots", stage=4, input_model=SlotsInput, output_model=TimeSlots,
                     fn=lambda i: plan_time_slots(i, settings=s), mock=mocks.mock_slots),
            ToolSpec(name="resolve_origin", stage=4, input_model=OriginQuery, output_model=OriginAnswer,
                     fn=self._origin, mock=mocks.mock_origin(pack)),
            ToolSpec(name="search_places", stage=5, input_model=SearchFilters, output_model=Candidates,
                     fn=self._search, mock=mocks.mock_search(pack),
                     retry_on=(TimeoutError, ProviderUnavailable, ConnectionError)),
            ToolSpec(name="rank_places_for_plan", stage=6, input_model=ComposeInput, output_model=PlanSet,
                     fn=self._compose, mock=mocks.mock_compose(pack)),
            ToolSpec(name="score_plans", stage=6, input_model=ScoreInput, output_model=PlanSet, fn=self._score,
                     mock=mocks.mock_score),
            ToolSpec(name="mock_reserve", stage=7, input_model=ReserveInput, output_model=DryRun, fn=self._reserve,
                     mock=mocks.mock_reserve(pack, clock=self.clock)),
        ]  # fmt: skip
        return ToolRegistry(specs, mocked=s.halfday_mock_tools)

    def _decompose(self, inp: GoalInput) -> DecomposedGoal:
        """Stage 1: the LLM's reading when one is configured (validated; the rules' after two bad answers), else
        the rules'; a window given beside the goal takes the place of the time read from its text."""
        from core.halfday.goal import decompose_goal
        from core.halfday.goal_llm import decompose_goal_llm

        llm = self._open_llm()
        if llm is None:
            goal = decompose_goal(inp.text, now=inp.now, lang=inp.lang)
        else:
            goal = decompose_goal_llm(inp.text, now=inp.now, client=llm, lang=inp.lang)
        return apply_window(goal, inp.window, inp.now)

    def _origin(self, query: OriginQuery) -> OriginAnswer:
        places = self.provider.geocode(query.text, city=self.provider.region.city or None)
        if not places:
            return OriginAnswer(origin=None)
        p = places[0]
        return OriginAnswer(origin=OriginPoint(name=p.name or query.text, lon=p.lon, lat=p.lat, source=str(p.source)))

    def _search(self, filters: SearchFilters) -> Candidates:
        found = search_places(filters, pack=self.provider.region, settings=self.settings)
        if not found.items:
            raise EmptyResult("no place passes the filters", details=found.model_dump(mode="json"))
        return found

    def _compose(self, inp: ComposeInput) -> PlanSet:
        def travel(points: list[LonLat]) -> TravelTable:
            return build_travel_table(
                points,
                provider=self.provider,
                breaker=map_breaker(self.breakers, self.provider, settings=self.settings),
                walk_limit_min=inp.profile.walk_limit_min,
                factor=inp.slots.travel_factor,
                buffer_min=inp.slots.travel_buffer_min,
            )

        plans, notes, table = compose_plan_set(
            inp,
            travel=travel,
            timezone=self.provider.region.timezone,
            solver=self.settings.halfday_solver,
            budget=effective_budget(inp.profile, inp.candidates.relaxed),
        )
        return PlanSet(plans=plans, travel_source=table.source, notes=table.warnings + notes)

    def _score(self, inp: ScoreInput) -> PlanSet:
        by_id = {c.place_id: c for c in inp.candidates.items}
        return score_plans(inp, candidates=by_id, reference_cost=self.settings.halfday_reference_cost)

    def _reserve(self, inp: ReserveInput) -> DryRun:
        """Stage 7 through the payment side's breaker: a reservation service that keeps failing is refused at once
        (``BREAKER_OPEN``) for its cool-down; a refusal of the person's request (a full slot) is no failure."""
        region = self.provider.region.name
        breaker = self.breakers.breaker("payment", region, settings=self.settings, counts=PAYMENT_FAILURES)
        with breaker.calling():
            return self.reservations.dry_run(
                inp.user_id,
                ReservationRequest(
                    item_id=inp.place_id, date=inp.date, time=inp.time, party_size=inp.party_size, contact=inp.contact
                ),
            )

    # ---- planning -----------------------------------------------------------------------------------
    def events(self, request: HalfDayRequest, *, decide: Decide | None = None) -> Iterator[HalfDayEvent]:
        """The seven stages as events; the last one is ``done``. ``decide``: the person's answer to a level-2
        question (core/halfday/pipeline.py)."""
        return plan_events(
            request,
            registry=self.registry,
            provider=self.provider,
            settings=self.settings,
            clock=self.clock,
            decide=decide,
        )

    def plan(self, request: HalfDayRequest) -> tuple[HalfDayResult | None, list[HalfDayEvent]]:
        """Every event, and the result when the stream ended with plans."""
        events = list(self.events(request))
        done = events[-1]
        if isinstance(done, DoneEvent) and isinstance(done.data, DonePlans):
            return done.data.result, events
        return None, events

    # ---- memory -------------------------------------------------------------------------------------
    def remember_plan(self, user_id: str, result: HalfDayResult, plan_id: str) -> None:
        """A confirmed plan teaches the memory its places' tags; the party becomes the family profile."""
        plan = next((p for p in result.plans if p.plan_id == plan_id), None)
        if plan is None:
            raise InputError("no plan of that id in this result", field="plan_id", code="PLAN_NOT_FOUND")
        pack = self.provider.region
        tags: list[str] = []
        for step in plan.steps:
            place = pack.place_by_id(step.place_id)
            if place is not None:
                tags.extend([place.category, *place.tags])
        self.memory.record(
            user_id,
            MemoryEvent(kind="confirmed_plan", place_ids=[s.place_id for s in plan.steps], tags=tags, at=self.clock()),
        )
        # an episode to recall by similarity: the goal and the places in both languages (the pack's names)
        names = [f"{p.name_zh} {p.name_en}" for s in plan.steps if (p := pack.place_by_id(s.place_id)) is not None]
        UserMemory(self.memory.engine, clock=self.clock).write_episode(
            user_id,
            "plan",
            " · ".join([result.goal.text, *names]),
            facts={"place_ids": [s.place_id for s in plan.steps], "plan_id": plan_id, "region": pack.name},
        )

    def feedback(self, user_id: str, place_id: str, *, liked: bool) -> None:
        place = self.provider.region.place_by_id(place_id)
        if place is None:
            raise InputError("no such place in this region", field="place_id", code="PLACE_NOT_FOUND")
        self.memory.feedback(user_id, place, liked=liked)

    # ---- stage 7 ------------------------------------------------------------------------------------
    def reserve_dry_run(self, inp: ReserveInput, *, trace_id: str | None = None) -> DryRun:
        """Stage 7 through the registry: the reservation service's dry run, a quote that holds nothing; after the
        person's consent the confirmation makes the reservation ``pending`` and submits it. Logged under the plan's
        ``trace_id`` when given."""
        from core.halfday.tools import Trace

        trace = Trace(trace_id=trace_id) if trace_id else Trace()
        return self.registry.call("mock_reserve", inp, trace=trace)  # type: ignore[no-any-return]
