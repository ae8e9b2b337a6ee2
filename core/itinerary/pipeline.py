"""The itinerary pipeline: prepare the problem, solve it two ways (per day after clustering, and all days
at once), keep the better plan and assemble the checked result (docs/ARCHITECTURE.md, "Itinerary").

    prepare_problem              resolve points, opening hours -> windows, robust matrix, days
    cluster_days_balanced        balanced split into days (closed days, capacity, geography)
    optimize_day_vrptw           one day as a VRPTW (OR-Tools routing)
    repair_cross_day             move dropped stops to days with room; a must still dropped: an exact search
                                 over the musts' days (must_assignment.reassign_musts, small trips)
    optimize_all_days_vrptw      the alternative: all days at once, one vehicle per day
    rebalance_days               the chosen plan's days made even where the places allow it
    assemble_result              timelines, drop reasons + smallest fixes, robustness, totals, critic

The better variant has the fewest dropped musts, then the least dropped penalty, then the least robust
travel + wait.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Sequence

from core.config import Settings
from core.geo.composite import MapServices
from core.itinerary.assembly import DecisionLog, assemble_result
from core.itinerary.balance import rebalance_days
from core.itinerary.clustering import cluster_days_balanced, repair_cross_day
from core.itinerary.layout import best_insertion, layout_day, order_is_feasible
from core.itinerary.problem import effective_penalty, is_hard, prepare_problem
from core.itinerary.routing import optimize_all_days_vrptw, optimize_day_vrptw, plan_penalty
from core.models.itinerary import PlanVariant, TripRequest
from core.models.itinerary_problem import DayPlan, ItineraryProblem
from core.models.itinerary_result import ItineraryResult, VariantMeasure

ProgressCallback = Callable[[str, float], None]


def measure_variant(
    problem: ItineraryProblem, plans: Sequence[DayPlan], settings: Settings, variant: PlanVariant, seconds: float
) -> VariantMeasure:
    dropped = [k for p in plans for k in p.dropped]
    travel = wait = 0
    for p in plans:
        sched = layout_day(problem, p.day_index, p.order, settings=settings)
        if sched:
            travel += sum(s.end - s.start for s in sched.steps if s.kind == "travel")
            wait += sched.wait_total
    return VariantMeasure(
        variant=variant,
        seconds=round(seconds, 4),
        must_dropped=sum(1 for k in dropped if is_hard(problem.stop(k))),
        dropped_penalty=plan_penalty(problem, dropped, settings),
        visits=sum(len(p.order) for p in plans),
        travel_robust_min=travel,
        wait_min=wait,
    )


def seed_routes(problem: ItineraryProblem, warm: dict[int, list[str]], *, settings: Settings) -> dict[int, list[str]]:
    """The plan before an edit made into a starting point for this problem: stops gone or no longer allowed on
    their day leave it; stops that must be on the plan and are not (an added, moved or locked stop) are put where
    they fit best on a day they may go on (their fixed day first), optional stops leaving that day if need be.
    A day the layout rejects keeps its hard stops only. Whether the solver accepts the seed is the solver's call
    (it starts cold if not)."""
    known = {s.key for s in problem.stops}

    def penalty(k: str) -> tuple[int, str]:
        return effective_penalty(problem.stop(k), settings), k

    routes: dict[int, list[str]] = {}
    for d in range(len(problem.days)):
        order = [
            k
            for k in warm.get(d, [])
            if k in known and problem.stop(k).windows_by_day[d] and problem.stop(k).fixed_day in (None, d)
        ]
        routes[d] = list(dict.fromkeys(order))
    placed = {k for order in routes.values() for k in order}
    for stop in problem.stops:
        if stop.key in placed or not is_hard(stop):
            continue
        days = [d for d in range(len(problem.days)) if stop.windows_by_day[d]]
        days.sort(key=lambda d: (d != stop.fixed_day, d))
        for d in days:
            order = list(routes[d])
            sched = best_insertion(problem, d, order, stop.key, settings=settings)
            while sched is None and any(not is_hard(problem.stop(k)) for k in order):
                # make room: the least valuable optional stop leaves (the search may bring it back)
                order.remove(min((k for k in order if not is_hard(problem.stop(k))), key=penalty))
                sched = best_insertion(problem, d, order, stop.key, settings=settings)
            if sched is not None:
                routes[d] = list(sched.order)
                break
    for d, order in routes.items():
        if not order_is_feasible(problem, d, order, settings=settings):
            routes[d] = [k for k in order if is_hard(problem.stop(k))]
    return routes


def solve_per_day(
    problem: ItineraryProblem,
    *,
    settings: Settings,
    log: DecisionLog | None = None,
    preferred_days: dict[str, int] | None = None,
    warm_routes: dict[int, list[str]] | None = None,
) -> list[DayPlan]:
    """Clustering → one VRPTW per day (warm-started from ``warm_routes``' order of the day's stops) → cross-day
    repair."""
    log = log or DecisionLog()
    clusters = cluster_days_balanced(problem, settings=settings, preferred_days=preferred_days)
    log.add(
        "itinerary.cluster_days_balanced",
        "DAYS_CLUSTERED",
        days={a.day_index: a.keys for a in clusters.days},
        load_min={a.day_index: a.load_min for a in clusters.days},
        capacity_min={a.day_index: a.capacity_min for a in clusters.days},
        unassignable=clusters.unassignable,
    )
    plans = []
    for a in clusters.days:
        seed = [k for k in (warm_routes or {}).get(a.day_index, []) if k in a.keys]
        plan = optimize_day_vrptw(problem, day_index=a.day_index, keys=a.keys, settings=settings, initial_order=seed)
        log.add(
            "itinerary.optimize_day_vrptw",
            "DAY_OPTIMISED",
            day_index=a.day_index,
            order=plan.order,
            dropped=plan.dropped,
            solver_status=plan.solver_status,
        )
        plans.append(plan)
    if clusters.unassignable:
        first = plans[0]
        first.dropped = [*first.dropped, *clusters.unassignable]
    plans, moves = repair_cross_day(problem, plans, settings=settings)
    for m in moves:
        log.add("itinerary.repair_cross_day", "STOP_MOVED", **m)
    return plans


def solve_multi_vehicle(
    problem: ItineraryProblem,
    *,
    settings: Settings,
    log: DecisionLog | None = None,
    warm_routes: dict[int, list[str]] | None = None,
) -> list[DayPlan]:
    log = log or DecisionLog()
    plans = optimize_all_days_vrptw(problem, settings=settings, initial_routes=warm_routes)
    log.add(
        "itinerary.optimize_all_days_vrptw",
        "ALL_DAYS_OPTIMISED",
        days={p.day_index: p.order for p in plans},
        dropped=[k for p in plans for k in p.dropped],
        solver_status=plans[0].solver_status if plans else "",
    )
    plans, moves = repair_cross_day(problem, plans, settings=settings)
    for m in moves:
        log.add("itinerary.repair_cross_day", "STOP_MOVED", **m)
    return plans


_Variants = dict[PlanVariant, tuple[list[DayPlan], VariantMeasure]]


def _log_problem(log: DecisionLog, problem: ItineraryProblem, request: TripRequest) -> None:
    """The prepared problem in the decision log: the matrix, the robustness policy, the opening hours not read and
    the days with no room for lunch."""
    log.add(
        "transport.build_time_matrix",
        "MATRIX_BUILT",
        points=len(problem.points),
        source=problem.matrix.source,
        mode=problem.matrix.mode,
    )
    log.add(
        "transport.apply_robustness_policy",
        "ROBUST_POLICY_APPLIED",
        factor=problem.policy.factor,
        buffer_min=problem.policy.buffer_min,
        visit_factor=problem.policy.visit_factor,
        pacing=problem.policy.pacing,
        mode=problem.policy.mode,
        source=problem.policy.source,
    )
    for note in problem.notes:
        log.add("opening.opening_windows", "OPENING_HOURS_UNPARSED", note=note)
    for d in problem.days:
        if d.lunch_earliest_start is None and request.lunch.enabled:
            log.add(
                "itinerary.prepare_problem",
                "NO_LUNCH_THIS_DAY",
                day_index=d.index,
                fact="the day's hours do not span the lunch window",
            )


def _solve_variants(
    problem: ItineraryProblem,
    wanted: Sequence[PlanVariant],
    *,
    settings: Settings,
    log: DecisionLog,
    report: ProgressCallback,
    preferred_days: dict[str, int] | None,
    warm_routes: dict[int, list[str]] | None,
) -> _Variants:
    """Each wanted variant solved (warm-started from ``warm_routes`` made into a seed for the problem) and
    measured."""
    variants: _Variants = {}
    for i, name in enumerate(wanted):
        report(f"optimise:{name}", 0.15 + 0.55 * i / len(wanted))
        t0 = _time.perf_counter()
        if warm_routes:
            warm_routes = seed_routes(problem, warm_routes, settings=settings)
        if name == "per_day":
            plans = solve_per_day(
                problem, settings=settings, log=log, preferred_days=preferred_days, warm_routes=warm_routes
            )
        else:
            plans = solve_multi_vehicle(problem, settings=settings, log=log, warm_routes=warm_routes)
        variants[name] = (plans, measure_variant(problem, plans, settings, name, _time.perf_counter() - t0))
    return variants


def _choose_variant(
    variants: _Variants, wanted: Sequence[PlanVariant], log: DecisionLog
) -> tuple[PlanVariant, list[DayPlan]]:
    """The better variant (fewest must dropped, then least dropped penalty, then least robust travel + wait, then
    the order wanted), marked chosen in the measures and logged: its name and plans."""

    def rank(item: tuple[PlanVariant, tuple[list[DayPlan], VariantMeasure]]) -> tuple[int, int, int, int]:
        name, (_, m) = item
        return (m.must_dropped, m.dropped_penalty, m.travel_robust_min + m.wait_min, wanted.index(name))

    chosen_name, (plans, _) = min(variants.items(), key=rank)
    for name, (_, m) in variants.items():
        m.chosen = name == chosen_name
    log.add(
        "itinerary.plan_itinerary",
        "VARIANT_CHOSEN",
        variant=chosen_name,
        measures={n: m.model_dump(exclude={"variant", "chosen"}) for n, (_, m) in variants.items()},
        rule="fewest must dropped, then least dropped penalty, then least robust travel + wait",
    )
    return chosen_name, plans


def plan_itinerary(
    request: TripRequest,
    *,
    provider: MapServices,
    settings: Settings,
    progress: ProgressCallback | None = None,
    removed_keys: Sequence[str] = (),
    preferred_days: dict[str, int] | None = None,
    variant: PlanVariant | None = None,
    warm_routes: dict[int, list[str]] | None = None,
) -> ItineraryResult:
    """The whole slow path: a multi-day plan that can really be carried out, checked by the critic.

    ``variant`` solves only that variant (a re-plan after an edit: the variant the plan came from) instead of
    ``settings.itinerary_variant``; ``warm_routes`` (day → visit keys of the plan before) warm-start its solves.
    """
    started = _time.perf_counter()
    report = progress or (lambda stage, fraction: None)
    log = DecisionLog()

    provider.drain_warnings()  # an earlier plan's warnings are not this one's
    # a hanging provider degrades, never stalls; a paced one (AMap) gets the time its calls need at its rate: one
    # distance call per point (places, the hotel and each day's own start and end), a geocode per unplaced place
    points = len(request.places) + 1 + 2 * len(request.days)
    budget_s = provider.budget_for(2 * points, answers_s=settings.provider_budget_s)
    with provider.budget(budget_s, call_wait_s=settings.provider_budget_s):
        report("prepare", 0.05)
        problem = prepare_problem(request, provider=provider, settings=settings, removed_keys=removed_keys)
        _log_problem(log, problem, request)

        chosen_variant = variant or settings.itinerary_variant
        wanted: list[PlanVariant] = ["per_day", "multi_vehicle"] if chosen_variant == "auto" else [chosen_variant]
        variants = _solve_variants(
            problem,
            wanted,
            settings=settings,
            log=log,
            report=report,
            preferred_days=preferred_days,
            warm_routes=warm_routes,
        )
        chosen_name, plans = _choose_variant(variants, wanted, log)

        plans, balance_moves = rebalance_days(problem, plans, settings=settings)
        for move in balance_moves:
            log.add("itinerary.rebalance_days", "STOP_MOVED_FOR_BALANCE", **move)

        report("timeline", 0.75)
        result = assemble_result(
            problem,
            plans,
            provider=provider,
            settings=settings,
            log=log,
            variants=[m for _, m in variants.values()],
            variant=chosen_name,
            balance_moves=balance_moves,
        )
        report("critic", 0.95)
    result.seconds = round(_time.perf_counter() - started, 4)
    report("done", 1.0)
    return result
