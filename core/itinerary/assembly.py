"""One assembly of an ItineraryResult from day plans, shared by the itinerary page, the CLI and the agent.

Day plans -> laid-out timelines -> drop reasons with smallest fixes -> robustness -> totals -> status ->
the independent critic (with the region pack and the provider) -> the result (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.config import Settings
from core.geo.composite import MapServices
from core.itinerary.balance import measure_balance
from core.itinerary.critic import check_itinerary
from core.itinerary.drop_reasons import FeasibilityReport, validate_feasibility
from core.itinerary.layout import layout_day
from core.itinerary.problem import pack_of
from core.itinerary.timeline import build_day_timeline, score_robustness, trip_totals
from core.models.itinerary import PlanVariant, TripRequest
from core.models.itinerary_problem import DayPlan, ItineraryProblem
from core.models.itinerary_result import (
    DayBalance,
    DayTimeline,
    DecisionLogEntry,
    DroppedItem,
    ItineraryResult,
    RobustnessScore,
    VariantMeasure,
)


class DecisionLog:
    """Codes and facts of each pipeline step, in order (never prose)."""

    def __init__(self) -> None:
        self.entries: list[DecisionLogEntry] = []

    def add(self, action: str, reason_code: str, **facts: Any) -> None:
        self.entries.append(
            DecisionLogEntry(step=len(self.entries) + 1, action=action, reason_code=reason_code, facts=facts)
        )


def day_timelines(problem: ItineraryProblem, plans: Sequence[DayPlan], *, settings: Settings) -> list[DayTimeline]:
    """The laid-out timeline of every day plan, in day order."""
    days = []
    for plan in sorted(plans, key=lambda p: p.day_index):
        sched = layout_day(problem, plan.day_index, plan.order, settings=settings)
        days.append(build_day_timeline(problem, sched, problem.days[plan.day_index]))
    return days


def _log_feasibility(log: DecisionLog, feasibility: FeasibilityReport) -> None:
    for item in feasibility.dropped_items:
        log.add(
            "policy.validate_feasibility",
            item.reason_code,
            key=item.key,
            priority=item.priority,
            per_day=item.per_day_reasons,
            fix=item.smallest_fix.description if item.smallest_fix else None,
        )


def _log_robustness(log: DecisionLog, robustness: RobustnessScore) -> None:
    log.add(
        "policy.score_robustness",
        "ROBUSTNESS_SCORED",
        score=robustness.score,
        min_slack_min=robustness.min_slack_min,
        legs=robustness.legs,
    )


def _log_balance(log: DecisionLog, balance: DayBalance) -> None:
    log.add(
        "itinerary.measure_balance",
        "DAYS_BALANCED" if balance.balanced else "DAYS_UNEVEN",
        visits={d.day_index: d.visits for d in balance.days},
        busy_min={d.day_index: d.busy_min for d in balance.days},
        moves=balance.moves,
        reasons=[r.code for r in balance.reasons],
    )


def _apply_critic(
    result: ItineraryResult,
    infeasible: Sequence[DroppedItem],
    *,
    request: TripRequest,
    provider: MapServices,
    settings: Settings,
    log: DecisionLog,
) -> None:
    """The independent critic's verdict on ``result`` (with the region pack and the provider), logged: a ready
    plan it fails needs review; then the services' warnings while planning and the log as it stands."""
    critic = check_itinerary(
        result, request=request, pack=pack_of(provider, request, settings), settings=settings, provider=provider
    )
    log.add(
        "critic.check_itinerary",
        "CRITIC_PASSED" if critic.passed else "CRITIC_FAILED",
        violations=sorted(critic.codes()),
    )
    if infeasible:
        log.add("itinerary.plan_itinerary", "PLANNER_INFEASIBLE_HARD_NODES", keys=[d.key for d in infeasible])
    result.critic = critic
    if not critic.passed and result.status == "ready":
        result.status = "needs_review"
    # what the services said while planning (a provider that failed and the estimate used instead)
    result.warnings = list(dict.fromkeys([*result.warnings, *provider.drain_warnings()]))
    result.decision_log = log.entries


def assemble_result(
    problem: ItineraryProblem,
    plans: Sequence[DayPlan],
    *,
    provider: MapServices,
    settings: Settings,
    log: DecisionLog | None = None,
    feasibility: FeasibilityReport | None = None,
    robustness: RobustnessScore | None = None,
    variants: Sequence[VariantMeasure] = (),
    variant: PlanVariant = "per_day",
    balance_moves: Sequence[dict[str, Any]] = (),
) -> ItineraryResult:
    """The checked result of ``plans``. Reasons and robustness already computed by the caller (the agent's
    actions) are used as given; missing ones are computed here, so every caller runs the same stages."""
    request = problem.request
    log = log if log is not None else DecisionLog()
    days = day_timelines(problem, plans, settings=settings)
    if feasibility is None:
        feasibility = validate_feasibility(problem, plans, settings=settings)
        _log_feasibility(log, feasibility)
    if robustness is None:
        robustness = score_robustness(days, tolerance=settings.robustness_tolerance)
        _log_robustness(log, robustness)
    balance = measure_balance(problem, plans, settings=settings, moves=balance_moves)
    _log_balance(log, balance)
    dropped = feasibility.dropped_items
    infeasible = [
        d
        for d in dropped
        if d.reason_code != "REMOVED_BY_USER"
        and (d.priority == "must" or ((place := request.place(d.key)) is not None and place.is_hard))
    ]
    result = ItineraryResult(
        status="infeasible" if infeasible else "ready",
        error_code="PLANNER_INFEASIBLE_HARD_NODES" if infeasible else None,
        trip_name=request.trip_name,
        timezone=problem.timezone,
        mode=request.mode,
        pacing=request.pacing,
        policy=problem.policy,
        lunch=request.lunch,
        days=days,
        dropped_items=dropped,
        totals=trip_totals(days, request, dropped),
        robustness=robustness,
        balance=balance,
        decision_log=log.entries,
        variants=list(variants),
        variant=variant,
        matrix_source=problem.matrix.source,
        warnings=[*problem.matrix.notes, *problem.notes],
        request=request,
    )
    _apply_critic(result, infeasible, request=request, provider=provider, settings=settings, log=log)
    return result
