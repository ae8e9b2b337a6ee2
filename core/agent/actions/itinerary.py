"""Itinerary actions, wired to the real optimiser in core/itinerary (problem, clustering, routing):
itinerary.prepare_problem, itinerary.cluster_days_balanced, itinerary.optimize_day_vrptw,
itinerary.repair_cross_day, itinerary.rebalance_days. Heavy objects (problem, clusters, plans) live in ``state.compute``;
the outputs here are small, validated summaries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionSpec
from core.agent.state import AgentContext
from core.models.agent import AgentState

if TYPE_CHECKING:
    from core.config import Settings


class PrepareIn(BaseModel):
    request: dict[str, Any]


class PrepareOut(BaseModel):
    points: int
    stops: int
    days: int
    notes: list[str] = Field(default_factory=list)


class ClusterIn(BaseModel):
    pass


class ClusterOut(BaseModel):
    days: dict[int, list[str]]
    unassignable: list[str]


class OptimizeIn(BaseModel):
    day_indices: list[int] | None = Field(default=None, description="Default: every clustered day")


class OptimizeOut(BaseModel):
    orders: dict[int, list[str]]
    dropped: dict[int, list[str]]
    solver_status: dict[int, str]


class RepairIn(BaseModel):
    pass


class RepairOut(BaseModel):
    moves: list[dict[str, Any]]
    dropped: list[str]


class RebalanceIn(BaseModel):
    pass


class RebalanceOut(BaseModel):
    moves: list[dict[str, Any]]
    visits: dict[int, int]


def solver_settings(ctx: AgentContext, *, days: int) -> Settings:
    """Settings whose solver time limit fits the remaining budget (never above the configured one)."""
    s = ctx.settings
    limit = getattr(s, "itinerary_solver_time_limit_s", None)
    if limit is None:
        return s
    share = max(0.05, ctx.remaining_s() / max(2 * days + 2, 1))
    return s.model_copy(update={"itinerary_solver_time_limit_s": min(limit, share)})


def _prepare(inp: PrepareIn, state: AgentState, ctx: AgentContext) -> PrepareOut:
    from core.itinerary.problem import prepare_problem
    from core.models.itinerary import TripRequest

    request = TripRequest.model_validate(inp.request)
    problem = prepare_problem(request, provider=ctx.provider, settings=ctx.settings)
    state.compute.trip_request = request
    state.compute.problem = problem
    return PrepareOut(points=len(problem.points), stops=len(problem.stops), days=len(problem.days), notes=problem.notes)


def _cluster(inp: ClusterIn, state: AgentState, ctx: AgentContext) -> ClusterOut:
    from core.itinerary.clustering import cluster_days_balanced

    problem = state.compute.problem
    if state.compute.time_matrix_robust is not None:  # the robust matrix this loop built is the one used
        problem = problem.model_copy(update={"matrix": state.compute.time_matrix_robust})
        state.compute.problem = problem
    clusters = cluster_days_balanced(problem, settings=ctx.settings)
    state.compute.clusters = clusters
    return ClusterOut(days={a.day_index: a.keys for a in clusters.days}, unassignable=clusters.unassignable)


def _optimize(inp: OptimizeIn, state: AgentState, ctx: AgentContext) -> OptimizeOut:
    from core.itinerary.routing import optimize_day_vrptw

    problem, clusters = state.compute.problem, state.compute.clusters
    wanted = set(inp.day_indices) if inp.day_indices is not None else None
    settings = solver_settings(ctx, days=len(problem.days))
    plans = {p.day_index: p for p in state.compute.day_plans}
    for a in clusters.days:
        if wanted is not None and a.day_index not in wanted:
            continue
        plans[a.day_index] = optimize_day_vrptw(problem, day_index=a.day_index, keys=a.keys, settings=settings)
    ordered = [plans[d] for d in sorted(plans)]
    if clusters.unassignable and ordered:
        first = ordered[0]
        first.dropped = list(dict.fromkeys([*first.dropped, *clusters.unassignable]))
    state.compute.day_plans = ordered
    state.compute.optimization_results = [p.model_dump() for p in ordered]
    return OptimizeOut(
        orders={p.day_index: p.order for p in ordered},
        dropped={p.day_index: p.dropped for p in ordered},
        solver_status={p.day_index: p.solver_status for p in ordered},
    )


def _repair(inp: RepairIn, state: AgentState, ctx: AgentContext) -> RepairOut:
    from core.itinerary.clustering import repair_cross_day

    problem = state.compute.problem
    settings = solver_settings(ctx, days=len(problem.days))
    plans, moves = repair_cross_day(problem, state.compute.day_plans, settings=settings)
    state.compute.day_plans = plans
    state.compute.optimization_results = [p.model_dump() for p in plans]
    return RepairOut(moves=moves, dropped=[k for p in plans for k in p.dropped])


def _rebalance(inp: RebalanceIn, state: AgentState, ctx: AgentContext) -> RebalanceOut:
    from core.itinerary.balance import rebalance_days

    problem = state.compute.problem
    settings = solver_settings(ctx, days=len(problem.days))
    plans, moves = rebalance_days(problem, state.compute.day_plans, settings=settings)  # the page's rule
    state.compute.day_plans = plans
    state.compute.optimization_results = [p.model_dump() for p in plans]
    return RebalanceOut(moves=moves, visits={p.day_index: len(p.order) for p in plans})


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.ITINERARY_PREPARE_PROBLEM,
            description="Resolve the trip onto one time scale (points, windows, days)",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("memory.semantic_facts.pois",),
            idempotent=True,
            cacheable=False,
            input_model=PrepareIn,
            output_model=PrepareOut,
            fn=_prepare,
        ),
        ActionSpec(
            name=ActionName.ITINERARY_CLUSTER_DAYS_BALANCED,
            description="Balanced split of the stops into days",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("compute.problem", "compute.time_matrix_robust"),
            idempotent=True,
            cacheable=False,
            input_model=ClusterIn,
            output_model=ClusterOut,
            fn=_cluster,
        ),
        ActionSpec(
            name=ActionName.ITINERARY_OPTIMIZE_DAY_VRPTW,
            description="Each day as a VRPTW (windows, lunch, must-visits hard)",
            kind="internal",
            cost="high",
            side_effect="none",
            preconditions=("compute.clusters",),
            idempotent=True,
            cacheable=False,
            input_model=OptimizeIn,
            output_model=OptimizeOut,
            fn=_optimize,
        ),
        ActionSpec(
            name=ActionName.ITINERARY_REPAIR_CROSS_DAY,
            description="Move dropped stops to days with room",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("compute.day_plans",),
            idempotent=True,
            cacheable=False,
            input_model=RepairIn,
            output_model=RepairOut,
            fn=_repair,
        ),
        ActionSpec(
            name=ActionName.ITINERARY_REBALANCE_DAYS,
            description="Move places from a full day to a thin one when every place still fits",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("compute.day_plans",),
            idempotent=True,
            cacheable=False,
            input_model=RebalanceIn,
            output_model=RebalanceOut,
            fn=_rebalance,
        ),
    ]
