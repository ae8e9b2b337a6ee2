"""Policy/critic actions, wired to core/policy.py and core/critic.py:
policy.validate_feasibility, policy.score_robustness, policy.check_itinerary (the critic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.agent.actions.registry import ActionSpec
from core.agent.state import AgentContext
from core.models.agent import AgentState


class ValidateIn(BaseModel):
    pass


class ValidateOut(BaseModel):
    dropped: list[dict[str, Any]]
    infeasible_hard: list[str]


class ScoreIn(BaseModel):
    pass


class ScoreOut(BaseModel):
    score: float
    min_slack_min: int | None = None
    legs: int


class CriticIn(BaseModel):
    pass


class CriticOut(BaseModel):
    passed: bool
    violations: list[str] = Field(default_factory=list)
    min_slack: int | None = None
    total_wait: int | None = None


def _validate(inp: ValidateIn, state: AgentState, ctx: AgentContext) -> ValidateOut:
    from core.itinerary import drop_reasons as policy

    report = policy.validate_feasibility(state.compute.problem, state.compute.day_plans, settings=ctx.settings)
    state.compute.feasibility = report
    return ValidateOut(dropped=[d.model_dump(mode="json") for d in report.dropped_items],
                       infeasible_hard=list(report.infeasible_hard))


def assemble_days(state: AgentState, ctx: AgentContext) -> list[Any]:
    """Day timelines of the current plans (the optimiser's own layout)."""
    from core.itinerary import planner as itinerary

    problem = state.compute.problem
    days = []
    for p in sorted(state.compute.day_plans, key=lambda p: p.day_index):
        sched = itinerary.layout_day(problem, p.day_index, p.order, settings=ctx.settings)
        days.append(itinerary.build_day_timeline(problem, sched, problem.days[p.day_index]))
    return days


def _score(inp: ScoreIn, state: AgentState, ctx: AgentContext) -> ScoreOut:
    from core.itinerary import drop_reasons as policy

    days = assemble_days(state, ctx)
    score = policy.score_robustness(days, tolerance=ctx.settings.robustness_tolerance)
    state.compute.robustness = score
    return ScoreOut(score=score.score, min_slack_min=score.min_slack_min, legs=score.legs)


def _critic(inp: CriticIn, state: AgentState, ctx: AgentContext) -> CriticOut:
    from core.itinerary import planner as itinerary
    from core.itinerary.critic import check_itinerary
    from core.models.itinerary import ItineraryResult

    problem = state.compute.problem
    request = state.compute.trip_request
    days = assemble_days(state, ctx)
    feas = state.compute.feasibility
    dropped = feas.dropped_items if feas is not None else []
    infeasible = [d for d in dropped if d.priority == "must" or (request.place(d.key) and request.place(d.key).is_hard)]
    infeasible = [d for d in infeasible if d.reason_code != "REMOVED_BY_USER"]
    result = ItineraryResult(
        status="infeasible" if infeasible else "ready",
        error_code="PLANNER_INFEASIBLE_HARD_NODES" if infeasible else None,
        trip_name=request.trip_name, timezone=problem.timezone, mode=request.mode, pacing=request.pacing,
        policy=problem.policy, lunch=request.lunch, days=days, dropped_items=dropped,
        totals=itinerary.trip_totals(days, request, dropped),
        robustness=state.compute.robustness, decision_log=[], variants=[], variant="per_day",
        matrix_source=problem.matrix.source, warnings=[*problem.matrix.notes, *problem.notes], request=request,
    )
    critic = check_itinerary(result, request=request, settings=ctx.settings)
    result.critic = critic
    if not critic.passed and result.status == "ready":
        result.status = "needs_review"
    state.compute.itinerary = result
    state.compute.critic = critic
    rob = state.compute.robustness
    return CriticOut(passed=critic.passed, violations=sorted(critic.codes()),
                     min_slack=getattr(rob, "min_slack_min", None), total_wait=result.totals.wait_min)


def actions() -> list[ActionSpec]:
    return [
        ActionSpec("policy.validate_feasibility", "A reason and the smallest fix for every dropped stop", "internal",
                   "med", "none", ("compute.day_plans",), True, False, ValidateIn, ValidateOut, _validate),
        ActionSpec("policy.score_robustness", "Slack relative to robust travel time", "internal", "low", "none",
                   ("compute.day_plans",), True, False, ScoreIn, ScoreOut, _score),
        ActionSpec("policy.check_itinerary", "The critic: windows, day bounds, lunch, robust travel, explicit waits",
                   "internal", "low", "none", ("compute.day_plans", "compute.feasibility"), True, False, CriticIn,
                   CriticOut, _critic),
    ]
