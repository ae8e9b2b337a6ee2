"""The half-day planner's entry points: the tools (core/halfday/toolbox) bound to a region's services, the event
stream, a plan collected from it, the memory's feedback, and stage 7's reservation through the reservation service's
gates."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from core.agent.llm import LLMClient
from core.clock import Clock
from core.config import HalfDayToolName, Settings
from core.errors import InputError
from core.geo.composite import MapServices
from core.halfday.breaker import HalfDayBreakers
from core.halfday.memory import MemoryStore
from core.halfday.pipeline import Decide, plan_events
from core.halfday.toolbox import builtin_tools
from core.halfday.tools import ToolBuilder, ToolRegistry
from core.memory.store import UserMemory
from core.models.halfday.events import DoneEvent, DonePlans, HalfDayEvent, HalfDayResult
from core.models.halfday.plans import HalfDayRequest, MemoryEvent, ReserveInput
from core.models.reservations import DryRun
from core.reservations.provider import ReservationProvider

#: the planner's tools, one module each (core/halfday/toolbox), in the registry's order (core.config.HalfDayToolName)
BUILTIN_TOOLS: tuple[ToolBuilder, ...] = builtin_tools()


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
        tools: Sequence[ToolBuilder] = BUILTIN_TOOLS,
    ) -> None:
        """``open_reservations``: the region's reservation service, opened by the first stage-7 call, so that an
        unreachable database ends the event stream with ``DATABASE_UNREACHABLE`` instead of failing before it.
        ``breakers``: the process's breakers of the outside services (the root's, shared by its requests). ``llm``:
        stage 1's model client, opened by the reading that needs it (a mocked or rules-only stage 1 opens none).
        ``tools``: every tool of the planner, as its module declares it (core/halfday/toolbox; a test may add one)."""
        self.provider = provider
        self.settings = settings
        self.clock = clock  # the request's (core.app passes the context's)
        self.breakers = breakers
        self.open_llm = llm
        self.memory = memory
        self._open_reservations = open_reservations
        self._reservations: ReservationProvider | None = None
        self.tools = tuple(tools)
        self.registry = self._registry()

    @property
    def reservations(self) -> ReservationProvider:
        if self._reservations is None:
            self._reservations = self._open_reservations()
        return self._reservations

    # ---- the tools ----------------------------------------------------------------------------------
    def _registry(self) -> ToolRegistry:
        return ToolRegistry([tool(self) for tool in self.tools], mocked=self.settings.halfday_mock_tools)

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
        out = self.registry.call(HalfDayToolName.MOCK_RESERVE, inp, trace=trace)
        assert isinstance(out, DryRun), "the registry validates mock_reserve's output as its output model, DryRun"
        return out
