"""Policy/critic actions, wired to core/itinerary (drop_reasons, timeline, assembly + critic):
policy.validate_feasibility, policy.score_robustness, policy.check_itinerary (the critic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionSpec
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
    from core.itinerary.drop_reasons import validate_feasibility

    report = validate_feasibility(state.compute.problem, state.compute.day_plans, settings=ctx.settings)
    state.compute.feasibility = report
    return ValidateOut(
        dropped=[d.model_dump(mode="json") for d in report.dropped_items], infeasible_hard=list(report.infeasible_hard)
    )


def _score(inp: ScoreIn, state: AgentState, ctx: AgentContext) -> ScoreOut:
    from core.itinerary.assembly import day_timelines
    from core.itinerary.timeline import score_robustness

    days = day_timelines(state.compute.problem, state.compute.day_plans, settings=ctx.settings)
    score = score_robustness(days, tolerance=ctx.settings.robustness_tolerance)
    state.compute.robustness = score
    return ScoreOut(score=score.score, min_slack_min=score.min_slack_min, legs=score.legs)


def _critic(inp: CriticIn, state: AgentState, ctx: AgentContext) -> CriticOut:
    """The same assembly and critic as the itinerary page (core/itinerary/assembly.py), with the reasons and
    robustness this loop already computed."""
    from core.itinerary.assembly import assemble_result

    result = assemble_result(
        state.compute.problem,
        state.compute.day_plans,
        provider=ctx.provider,
        settings=ctx.settings,
        feasibility=state.compute.feasibility,
        robustness=state.compute.robustness,
    )
    result.decision_log = []  # the agent keeps its own decision log (state.decision_log)
    state.compute.itinerary = result
    state.compute.critic = result.critic
    rob = result.robustness
    assert result.critic is not None, "assemble_result always runs the critic"
    return CriticOut(
        passed=result.critic.passed,
        violations=sorted(result.critic.codes()),
        min_slack=rob.min_slack_min,
        total_wait=result.totals.wait_min,
    )


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.POLICY_VALIDATE_FEASIBILITY,
            description="A reason and the smallest fix for every dropped stop",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("compute.day_plans",),
            idempotent=True,
            cacheable=False,
            input_model=ValidateIn,
            output_model=ValidateOut,
            fn=_validate,
        ),
        ActionSpec(
            name=ActionName.POLICY_SCORE_ROBUSTNESS,
            description="Slack relative to robust travel time",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=("compute.day_plans",),
            idempotent=True,
            cacheable=False,
            input_model=ScoreIn,
            output_model=ScoreOut,
            fn=_score,
        ),
        ActionSpec(
            name=ActionName.POLICY_CHECK_ITINERARY,
            description="The critic: windows, day bounds, lunch, robust travel, explicit waits",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=("compute.day_plans", "compute.feasibility"),
            idempotent=True,
            cacheable=False,
            input_model=CriticIn,
            output_model=CriticOut,
            fn=_critic,
        ),
    ]
