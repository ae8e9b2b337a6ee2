"""Stage 6: the plans composed from the candidates (compose.py greedy, cpsat.py when greedy misses what the goal
requires) on the travel table (travel.py, through the map breaker). The mock: greedy on the pack's local estimate."""

from __future__ import annotations

from collections.abc import Callable, Generator

from core.config import HalfDayToolName
from core.geo.base import LonLat
from core.geo.offline import OfflineProvider
from core.halfday.plan_set import compose_plan_set, iter_plan_set
from core.halfday.search import effective_budget
from core.halfday.tools import MOCK, ToolDeps, ToolSpec, drained
from core.halfday.travel import TravelTable, build_travel_table, map_breaker
from core.models.halfday.facts import PlanSetFacts, ToolFacts
from core.models.halfday.plans import ComposeInput, Plan, PlanSet
from core.models.region import RegionPack

NAME = HalfDayToolName.RANK_PLACES_FOR_PLAN


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=6,
        input_model=ComposeInput,
        output_model=PlanSet,
        fn=drained(_compose(deps)),
        mock=mock_compose(deps.provider.region),
        facts=plan_set_facts,
        calls_providers=True,
        parts=_compose(deps),
        part_model=Plan,
    )


def _compose(deps: ToolDeps) -> Callable[[ComposeInput], Generator[Plan, None, PlanSet]]:
    """The plans, each yielded as soon as it is made (the page draws its card while the next is composed)."""

    def compose(inp: ComposeInput) -> Generator[Plan, None, PlanSet]:
        provider, settings = deps.provider, deps.settings

        def travel(points: list[LonLat]) -> TravelTable:
            return build_travel_table(
                points,
                provider=provider,
                breaker=map_breaker(deps.breakers, provider, settings=settings),
                walk_limit_min=inp.profile.walk_limit_min,
                factor=inp.slots.travel_factor,
                buffer_min=inp.slots.travel_buffer_min,
            )

        plans, notes, table = yield from iter_plan_set(
            inp,
            travel=travel,
            timezone=provider.region.timezone,
            solver=settings.halfday_solver,
            budget=effective_budget(inp.profile, inp.candidates.relaxed),
        )
        return PlanSet(plans=plans, travel_source=table.source, notes=table.warnings + notes)

    return compose


def mock_compose(pack: RegionPack) -> Callable[[ComposeInput], PlanSet]:
    """The plans on the pack's local travel estimate (no routing service, no breaker), greedy only."""
    local = OfflineProvider(pack)

    def compose(inp: ComposeInput) -> PlanSet:
        def travel(points: list[LonLat]) -> TravelTable:
            return TravelTable(
                walk=local.matrix(points, mode="walking"),
                drive=local.matrix(points, mode="driving"),
                walk_limit_min=inp.profile.walk_limit_min,
                factor=inp.slots.travel_factor,
                buffer_min=inp.slots.travel_buffer_min,
                router_name=local.name,
            )

        plans, notes, _ = compose_plan_set(inp, travel=travel, timezone=pack.timezone, solver="greedy", budget=None)
        return PlanSet(plans=plans, travel_source=MOCK, notes=notes)

    return compose


def plan_set_facts(plans: PlanSet) -> ToolFacts:
    return PlanSetFacts(
        plans=len(plans.plans),
        plan_ids=[p.plan_id for p in plans.plans],
        travel_source=plans.travel_source,
        notes=list(plans.notes),
    )
