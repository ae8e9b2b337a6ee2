"""Stage 6: the plans composed from the candidates (compose.py greedy, cpsat.py when greedy misses what the goal
requires) on the travel table (travel.py, through the map breaker); on a map service paid by the destination (AMap)
screened on the pack's estimate and shown on measured legs (screen.py). The mock: greedy on the pack's local
estimate."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator

from core.config import HalfDayToolName
from core.geo.base import LonLat
from core.geo.offline import OfflineProvider
from core.halfday.plan_set import compose_plan_set, iter_plan_set
from core.halfday.screen import compose_screened
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
        budget = effective_budget(inp.profile, inp.candidates.relaxed)
        if provider.pays_per_destination:  # AMap: screen on the estimate, measure the legs shown (issue 33)
            return compose_screened(
                inp,
                provider=provider,
                breaker=map_breaker(deps.breakers, provider, settings=settings),
                timezone=provider.region.timezone,
                solver=settings.halfday_solver,
                budget=budget,
                max_asks=measure_asks(provider.pacing_qps(), settings.halfday_measure_pacing_s),
            )

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
            budget=budget,
        )
        return PlanSet(plans=plans, travel_source=table.source, notes=table.warnings + notes)

    return compose


def measure_asks(qps: float | None, pacing_s: float) -> int | None:
    """How many destinations one plan may ask a paced service for: its pacing allowance at the service's rate (at
    least one); None when the service is not paced or the allowance is off (0)."""
    if not qps or pacing_s <= 0:
        return None
    return max(1, math.floor(pacing_s * qps))


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
        legs=_legs(plans),
        legs_measured=plans.legs_measured,
        dropped=len(plans.dropped),
    )


def _legs(plans: PlanSet) -> int:
    return sum(1 for p in plans.plans for s in p.steps if s.travel is not None and s.travel.mode != "none")
