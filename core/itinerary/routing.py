"""The OR-Tools model: one vehicle per day, time windows, visits as service, lunch as a break,
optional stops as disjunctions priced by priority, must-visits hard (docs/ARCHITECTURE.md).

Searches are deterministic: greedy descent stops at a local optimum; the time limit is only a cap.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.config import Settings
from core.itinerary.layout import best_insertion, layout_day, order_is_feasible
from core.itinerary.problem import day_windows, effective_penalty, is_hard, lunch_bounds
from core.models.itinerary_problem import DayPlan, ItineraryProblem, MinuteInterval, ProblemDay, ProblemStop
from core.optimizer.ortools_status import routing_status_name

#: All days at once: the cost of each visit a day has beyond its even share (+1), in robust travel minutes.
BALANCE_VISIT_COST = 30
#: Up to this many stops, a feasible order is searched by enumeration (exact) rather than by OR-Tools.
_BRUTE_FORCE_MAX = 6


def exact_feasible_order(
    problem: ItineraryProblem,
    day_index: int,
    keys: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None = None,
    start_min: int | None = None,
) -> list[str] | None:
    """A feasible order of all ``keys`` on the day, or None. Exact by enumeration for up to
    ``_BRUTE_FORCE_MAX`` stops, else OR-Tools with every stop hard (then confirmed by layout)."""
    keys = list(keys)
    if len(keys) <= _BRUTE_FORCE_MAX:
        for perm in itertools.permutations(keys):
            if layout_day(problem, day_index, perm, settings=settings, end_min=end_min, start_min=start_min):
                return list(perm)
        return None
    overrides = dict(
        end_override={day_index: end_min} if end_min is not None else None,
        start_override={day_index: start_min} if start_min is not None else None,
    )
    routes, dropped, _, _ = _solve_routing(problem, [day_index], keys, settings=settings, all_hard=True, **overrides)
    if routes is None:
        # With every stop mandatory the first-solution heuristic can fail on a feasible instance
        # (tight windows + the lunch break). Every stop optional at a high price always has a first
        # solution; if the search then keeps all of them, that order is a witness.
        routes, dropped, _, _ = _solve_routing(
            problem, [day_index], keys, settings=settings, relax_hard=True, **overrides
        )
    if routes is None or dropped:
        return None
    order = routes[day_index]
    ok = order_is_feasible(problem, day_index, order, settings=settings, end_min=end_min, start_min=start_min)
    return order if ok else None


def _solve_routing(
    problem: ItineraryProblem,
    day_indices: Sequence[int],
    keys: Sequence[str],
    *,
    settings: Settings,
    **options: Any,
) -> tuple[dict[int, list[str]] | None, list[str], int | None, str]:
    """:func:`_solve_routing_model`, checked against the layout when lunch may be taken on site.

    The model only bounds when a visit starts, so it may put the lunch inside a long visit that then ends
    after closing; the layout rejects that order. Then the day(s) are solved again with lunch kept between
    visits, and that answer is used if the layout accepts all of its days.
    """
    result = _solve_routing_model(problem, day_indices, keys, settings=settings, **options)
    routes = result[0]
    if routes is None or not any(problem.stop(k).lunch_on_site for r in routes.values() for k in r):
        return result
    ends, starts = options.get("end_override") or {}, options.get("start_override") or {}

    def layout_ok(rs: dict[int, list[str]]) -> bool:
        return all(
            order_is_feasible(problem, d, order, settings=settings, end_min=ends.get(d), start_min=starts.get(d))
            for d, order in rs.items()
        )

    if layout_ok(routes):
        return result
    strict = _solve_routing_model(problem, day_indices, keys, settings=settings, lunch_on_site=False, **options)
    return strict if strict[0] is not None and layout_ok(strict[0]) else result


def _solve_routing_model(
    problem: ItineraryProblem,
    day_indices: Sequence[int],
    keys: Sequence[str],
    *,
    settings: Settings,
    all_hard: bool = False,
    relax_hard: bool = False,
    end_override: dict[int, int] | None = None,
    start_override: dict[int, int] | None = None,
    force_keys: Sequence[str] = (),
    lunch_on_site: bool = True,
    initial_routes: dict[int, list[str]] | None = None,
    cold_fallback: bool = True,
) -> tuple[dict[int, list[str]] | None, list[str], int | None, str]:
    """Solve a VRPTW over ``keys`` with one vehicle per day in ``day_indices``.

    Returns (routes by day or None when no solution, dropped keys, objective, status name).
    Stops with no window on any of the days are returned as dropped without entering the model.
    ``initial_routes`` (day → keys, e.g. the plan before a user edit) warm-start the search when the model accepts
    them as a solution (ReadAssignmentFromRoutes); otherwise the search starts from its own first solution, unless
    ``cold_fallback`` is False (the caller already ran that same deterministic cold search).
    """
    from ortools.constraint_solver import pywrapcp

    end_override = end_override or {}
    start_override = start_override or {}
    days = [problem.days[d] for d in day_indices]
    bounds = [(start_override.get(d.index, d.start_min), end_override.get(d.index, d.end_min)) for d in days]
    nodes = _model_nodes(problem, days, bounds, keys)
    manager = pywrapcp.RoutingIndexManager(len(nodes.point), len(days), nodes.starts, nodes.ends)
    routing = pywrapcp.RoutingModel(manager)
    time_dim = _time_dimension(routing, problem, nodes, bounds)
    if len(days) > 1 and nodes.stops:
        _even_days(routing, nodes, len(days))
    penalty = {
        stop.key: effective_penalty(stop, settings)
        for _, stop, _ in nodes.stops
        if not (all_hard or stop.key in force_keys or (is_hard(stop) and not relax_hard))
    }
    _stop_windows(routing, manager, time_dim, nodes, len(days), penalty)
    _lunch_breaks(routing, manager, time_dim, problem, days, bounds, nodes, lunch_on_site=lunch_on_site)
    params = _search_parameters(settings)
    solution = None
    if initial_routes:
        node_of_key = {stop.key: node for node, stop, _ in nodes.stops}
        seed = [
            [manager.NodeToIndex(node_of_key[k]) for k in initial_routes.get(day.index, []) if k in node_of_key]
            for day in days
        ]
        routing.CloseModelWithParameters(params)
        start = routing.ReadAssignmentFromRoutes(seed, True)
        if start is not None:
            solution = routing.SolveFromAssignmentWithParameters(start, params)
        elif not cold_fallback:
            return None, list(keys), None, "SEED_REJECTED"
    if solution is None:
        solution = routing.SolveWithParameters(params)
    status = routing_status_name(routing.status())
    if solution is None:
        return None, list(keys), None, status
    routes: dict[int, list[str]] = {}
    key_of_node = {node: stop.key for node, stop, _ in nodes.stops}
    for v, day in enumerate(days):
        idx = solution.Value(routing.NextVar(routing.Start(v)))
        order = []
        while not routing.IsEnd(idx):
            order.append(key_of_node[manager.IndexToNode(idx)])
            idx = solution.Value(routing.NextVar(idx))
        routes[day.index] = order
    visited = {k for order in routes.values() for k in order}
    dropped = [k for k in keys if k not in visited]
    return routes, dropped, int(solution.ObjectiveValue()), status


@dataclass
class _ModelNodes:
    """The routing model's nodes: each day's start and end, then each stop with a window on some day (a stop with
    none never enters the model: it is dropped)."""

    point: list[int] = field(default_factory=list)  # node -> point index in the matrix
    service: list[int] = field(default_factory=list)  # node -> minutes spent there
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    #: (node, stop, [(vehicle, its windows that day)])
    stops: list[tuple[int, ProblemStop, list[tuple[int, list[MinuteInterval]]]]] = field(default_factory=list)


def _model_nodes(
    problem: ItineraryProblem, days: Sequence[ProblemDay], bounds: Sequence[tuple[int, int]], keys: Sequence[str]
) -> _ModelNodes:
    nodes = _ModelNodes()
    for day in days:
        for key, ends_here in ((day.start_key, False), (day.end_key, True)):
            (nodes.ends if ends_here else nodes.starts).append(len(nodes.point))
            nodes.point.append(problem.point_index(key))
            nodes.service.append(0)
    for key in keys:
        stop = problem.stop(key)
        allowed = []
        for v, day in enumerate(days):
            lo, hi = bounds[v]
            wins = day_windows(
                problem, stop, day, hi if hi != day.end_min else None, lo if lo != day.start_min else None
            )
            if wins:
                allowed.append((v, wins))
        if allowed:
            nodes.stops.append((len(nodes.point), stop, allowed))
            nodes.point.append(stop.point_index)
            nodes.service.append(stop.visit_min)
    return nodes


def _time_dimension(
    routing: Any, problem: ItineraryProblem, nodes: _ModelNodes, bounds: Sequence[tuple[int, int]]
) -> Any:
    """The "Time" dimension: service at the from-node plus robust travel, each day from its start to its end."""
    robust = problem.matrix.robust()
    # Node-indexed matrices stay in C++ (no Python callback per arc): service at the from-node + robust travel.
    travel_nodes = [[robust[a][b] for b in nodes.point] for a in nodes.point]
    transit_nodes = [[nodes.service[i] + row[j] for j in range(len(row))] for i, row in enumerate(travel_nodes)]
    transit_cb = routing.RegisterTransitMatrix(transit_nodes)
    travel_cb = routing.RegisterTransitMatrix(travel_nodes)
    routing.SetArcCostEvaluatorOfAllVehicles(travel_cb)
    horizon = max(hi for _, hi in bounds) + 1
    routing.AddDimension(transit_cb, horizon, horizon, False, "Time")
    time_dim = routing.GetDimensionOrDie("Time")
    for v, (lo, hi) in enumerate(bounds):
        # The day leaves at its start time, so the span (priced below) runs from it: travel, waiting and an idle
        # morning all cost. With a free start the day could "begin" late at no cost, so an 11:30 lunch came first
        # while a place open from 09:00 fitted before it. (The layout still leaves later rather than wait at the
        # first stop.)
        time_dim.CumulVar(routing.Start(v)).SetValue(lo)
        time_dim.CumulVar(routing.End(v)).SetRange(lo, hi)
        time_dim.SetSpanCostCoefficientForVehicle(1, v)  # travel + waiting both cost
        routing.AddVariableMinimizedByFinalizer(time_dim.CumulVar(routing.Start(v)))
        routing.AddVariableMinimizedByFinalizer(time_dim.CumulVar(routing.End(v)))
    return time_dim


def _even_days(routing: Any, nodes: _ModelNodes, n_vehicles: int) -> None:
    """Even days: a count dimension whose end on each day has a soft upper bound at the even share (+1), each visit
    beyond it priced like BALANCE_VISIT_COST robust minutes (far below any drop penalty)."""
    ones = [0 if i < 2 * n_vehicles else 1 for i in range(len(nodes.point))]
    count_cb = routing.RegisterUnaryTransitVector(ones)
    routing.AddDimension(count_cb, 0, len(nodes.stops), True, "Visits")
    visits_dim = routing.GetDimensionOrDie("Visits")
    share = -(-len(nodes.stops) // n_vehicles) + 1
    for v in range(n_vehicles):
        visits_dim.SetCumulVarSoftUpperBound(routing.End(v), share, BALANCE_VISIT_COST)


def _stop_windows(
    routing: Any, manager: Any, time_dim: Any, nodes: _ModelNodes, n_vehicles: int, penalty: dict[str, int]
) -> None:
    """Each stop inside its windows (the gaps between them removed), on the days it has any; a stop with a
    ``penalty`` may be left out at that price, the others must be visited."""
    for node, stop, allowed in nodes.stops:
        index = manager.NodeToIndex(node)
        intervals = sorted((w.start, w.end) for _, wins in allowed for w in wins)
        merged: list[list[int]] = []
        for s, e in intervals:
            if merged and s <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        cumul = time_dim.CumulVar(index)
        cumul.SetRange(merged[0][0], merged[-1][1])
        for (_, e1), (s2, _) in zip(merged, merged[1:]):
            cumul.RemoveInterval(e1 + 1, s2 - 1)  # gaps: closed hours, nights, other days
        if len(allowed) < n_vehicles:
            # -1 keeps "unperformed" possible for optional stops
            # (the Python binding of SetAllowedVehiclesForIndex rejects lists in 9.15).
            routing.VehicleVar(index).SetValues([-1, *(v for v, _ in allowed)])
        if stop.key in penalty:
            routing.AddDisjunction([index], penalty[stop.key])


def _lunch_breaks(
    routing: Any,
    manager: Any,
    time_dim: Any,
    problem: ItineraryProblem,
    days: Sequence[ProblemDay],
    bounds: Sequence[tuple[int, int]],
    nodes: _ModelNodes,
    *,
    lunch_on_site: bool,
) -> None:
    """The lunch break may not overlap a visit, except a long one that can host lunch on site (then the break
    lengthens that visit's transit, as the split visit does in the layout)."""
    solver = routing.solver()
    on_site = {node for node, stop, _ in nodes.stops if stop.lunch_on_site and lunch_on_site}
    node_visit_transits = [
        0 if manager.IndexToNode(i) in on_site else nodes.service[manager.IndexToNode(i)] for i in range(routing.Size())
    ]
    dur = problem.request.lunch.duration_min
    for v, day in enumerate(days):
        lb = lunch_bounds(day, bounds[v][0], bounds[v][1], problem)
        meals = [
            solver.IsEqualCstVar(routing.VehicleVar(manager.NodeToIndex(node)), v)
            for node, stop, allowed in nodes.stops
            if stop.meal == "lunch" and any(w == v for w, _ in allowed)
        ]
        if meals:
            # a lunch meal on the day is its lunch: one at most, and the break only on a day without one
            solver.Add(solver.Sum(meals) <= 1)
        if lb is None:
            continue
        lunch = solver.FixedDurationIntervalVar(lb[0], lb[1], dur, bool(meals), f"lunch_day{day.index}")
        if meals:
            solver.Add(lunch.PerformedExpr() == 1 - solver.Sum(meals))
        time_dim.SetBreakIntervalsOfVehicle([lunch], v, node_visit_transits)


def _search_parameters(settings: Settings) -> Any:
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2
    from ortools.util import optional_boolean_pb2

    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PARALLEL_CHEAPEST_INSERTION
    meta = routing_enums_pb2.LocalSearchMetaheuristic
    params.local_search_metaheuristic = (
        meta.GUIDED_LOCAL_SEARCH if settings.itinerary_metaheuristic == "guided_local_search" else meta.GREEDY_DESCENT
    )
    # The insertion-based path LNS operators dominate run time on these small instances and did not
    # improve any measured plan (docs/BENCHMARKS.md); greedy descent then converges well
    # inside the cap, so the time limit is a safety net, not what ends the search (determinism).
    ops = params.local_search_operators
    for name in (
        "use_global_cheapest_insertion_path_lns",
        "use_local_cheapest_insertion_path_lns",
        "use_relocate_path_global_cheapest_insertion_insert_unperformed",
        "use_global_cheapest_insertion_visit_types_lns",
        "use_local_cheapest_insertion_visit_types_lns",
    ):
        setattr(ops, name, optional_boolean_pb2.BOOL_FALSE)
    params.time_limit.FromMilliseconds(int(settings.itinerary_solver_time_limit_s * 1000))
    return params


def optimize_day_vrptw(
    problem: ItineraryProblem,
    *,
    day_index: int,
    keys: Sequence[str],
    settings: Settings,
    end_min: int | None = None,
    force_keys: Sequence[str] = (),
    displace_musts: bool = False,
    initial_order: Sequence[str] | None = None,
) -> DayPlan:
    """One day as a VRPTW: must-visits hard, the rest optional with priority penalties.

    If the must-visits cannot all be kept, it re-solves with them as (very) expensive optional
    stops, so the plan keeps every must it can; the caller reports the rest as infeasible.
    ``force_keys`` are always kept; with ``displace_musts`` the other musts are (very) expensive optional
    stops from the start, so a forced stop may displace a must (for a caller that re-homes it on another day).
    ``initial_order`` (the day's order before a user edit) warm-starts the first search when the model accepts it.
    """
    keys = list(dict.fromkeys(keys))
    if not keys:
        sched = layout_day(problem, day_index, [], settings=settings, end_min=end_min)
        return DayPlan(
            day_index=day_index,
            order=[],
            dropped=[],
            objective=0,
            solver_status="EMPTY" if sched else "EMPTY_DAY_INFEASIBLE",
        )
    eo = {day_index: end_min} if end_min is not None else None
    if force_keys and _forced_day_proven_infeasible(
        problem, day_index, keys, force_keys, settings=settings, end_min=end_min, displace_musts=displace_musts
    ):
        # What the solver would conclude after searching to its time limit (no first solution), and the
        # witness after it: the same plan, without the search.
        return _forced_infeasible(day_index, keys, "PROVEN_BY_LAYOUT")
    routes, dropped, objective, status = _solve_routing(
        problem,
        [day_index],
        keys,
        settings=settings,
        end_override=eo,
        force_keys=force_keys,
        relax_hard=displace_musts,
        initial_routes={day_index: list(initial_order)} if initial_order else None,
    )
    if routes is None and force_keys:
        witness = _forced_witness(
            problem,
            day_index,
            keys,
            force_keys,
            settings=settings,
            end_min=end_min,
            displace_musts=displace_musts,
            cold_searched=not initial_order,
        )
        if witness is None:
            return _forced_infeasible(day_index, keys, status)
        routes, dropped, objective, status = witness
    if routes is None:
        routes, dropped, objective, status = _solve_routing(
            problem, [day_index], keys, settings=settings, relax_hard=True, end_override=eo
        )
        status = f"MUSTS_RELAXED:{status}"
    order = routes[day_index] if routes else []
    order, extra = _make_layout_feasible(problem, day_index, order, settings=settings, end_min=end_min)
    return DayPlan(
        day_index=day_index, order=order, dropped=[*dropped, *extra], objective=objective, solver_status=status
    )


def _forced_infeasible(day_index: int, keys: list[str], why: str) -> DayPlan:
    """The day that cannot hold its forced stops: nothing planned, every stop dropped, and why."""
    return DayPlan(
        day_index=day_index, order=[], dropped=keys, objective=None, solver_status=f"FORCED_INFEASIBLE:{why}"
    )


def _shortcuts_never_delay(problem: ItineraryProblem, points: Sequence[int]) -> bool:
    """Robust minutes between ``points`` obey the triangle inequality, so leaving a stop out of a route never
    makes a later arrival later (a layout-infeasible set of stops stays infeasible with more stops added)."""
    R = problem.matrix.robust()
    return all(R[a][c] <= R[a][b] + R[b][c] for a in points for b in points for c in points)


def _forced_day_proven_infeasible(
    problem: ItineraryProblem,
    day_index: int,
    keys: Sequence[str],
    force_keys: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None,
    displace_musts: bool,
) -> bool:
    """True when the stops a forced solve must keep (the forced ones, and the other musts unless
    ``displace_musts``; a stop with no window that day never enters the model) have no feasible order, by
    exact enumeration. Then the model has no solution either: it and the layout read the same robust matrix,
    and with the triangle inequality the optional stops cannot help. Without a proof (a lunch on site, where
    the model is looser than the layout; too many stops to enumerate; a matrix that shortcuts) the solver
    decides: False."""
    day = problem.days[day_index]
    stops = [problem.stop(k) for k in dict.fromkeys(keys)]
    if any(s.lunch_on_site for s in stops):
        return False
    forced = set(force_keys)
    must_keep = [
        s.key
        for s in stops
        if day_windows(problem, s, day, end_min) and (s.key in forced or (is_hard(s) and not displace_musts))
    ]
    if not must_keep or len(must_keep) > _BRUTE_FORCE_MAX:
        return False
    points = [problem.point_index(day.start_key), problem.point_index(day.end_key), *(s.point_index for s in stops)]
    if not _shortcuts_never_delay(problem, points):
        return False
    return exact_feasible_order(problem, day_index, must_keep, settings=settings, end_min=end_min) is None


def _forced_witness(
    problem: ItineraryProblem,
    day_index: int,
    keys: Sequence[str],
    force_keys: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None,
    displace_musts: bool,
    cold_searched: bool = False,
) -> tuple[dict[int, list[str]], list[str], int | None, str] | None:
    """A plan keeping ``force_keys`` when the forced solve found no first solution: its insertion heuristic can
    fail on a feasible day when several stops are forced (a long visit, tight windows, the lunch break).

    A feasible order of the forced stops (exact for small days), the others inserted where they fit, most
    valuable first; the solver then improves it from there (warm start) when it accepts it (``cold_searched``: the
    caller's cold search of this same model found nothing, so a rejected warm start is not followed by it again). None when the
    forced stops have no feasible order, or (without ``displace_musts``) when that order leaves out a must.
    (routes, dropped, objective, status) like :func:`_solve_routing`.
    """
    wanted = set(force_keys)
    forced = [k for k in keys if k in wanted]
    order = exact_feasible_order(problem, day_index, forced, settings=settings, end_min=end_min)
    if order is None:
        return None
    rest = sorted(
        (k for k in keys if k not in wanted), key=lambda k: (-effective_penalty(problem.stop(k), settings), k)
    )
    for k in rest:
        sched = best_insertion(problem, day_index, order, k, settings=settings, end_min=end_min)
        if sched is not None:
            order = list(sched.order)
    routes, dropped, objective, status = _solve_routing(
        problem,
        [day_index],
        keys,
        settings=settings,
        end_override={day_index: end_min} if end_min is not None else None,
        force_keys=force_keys,
        relax_hard=displace_musts,
        initial_routes={day_index: order},
        cold_fallback=not cold_searched,  # the same deterministic cold search found nothing: not again
    )
    if routes is not None and set(forced) <= set(routes[day_index]):
        return routes, dropped, objective, f"FORCED_WARM:{status}"
    left = [k for k in keys if k not in order]
    if not displace_musts and any(is_hard(problem.stop(k)) for k in left):
        return None  # the other musts stay hard: a forced stop may not displace one
    return {day_index: order}, left, None, "FORCED_WITNESS"


def _make_layout_feasible(
    problem: ItineraryProblem,
    day_index: int,
    order: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None = None,
) -> tuple[list[str], list[str]]:
    """Guard: if the layout disagrees with the solver, drop the cheapest stops until it fits."""
    order = list(order)
    removed: list[str] = []
    while order and not order_is_feasible(problem, day_index, order, settings=settings, end_min=end_min):
        victim = max(order, key=lambda k: (-effective_penalty(problem.stop(k), settings), k))
        order.remove(victim)
        removed.append(victim)
    return order, removed


def plan_penalty(problem: ItineraryProblem, dropped: Sequence[str], settings: Settings) -> int:
    return sum(effective_penalty(problem.stop(k), settings) for k in dropped)


def optimize_all_days_vrptw(
    problem: ItineraryProblem,
    *,
    settings: Settings,
    initial_routes: dict[int, list[str]] | None = None,
) -> list[DayPlan]:
    """The multi-vehicle variant: every day a vehicle on one absolute timeline (closed days are
    simply gaps in a stop's allowed start times). ``initial_routes`` warm-start the search (see
    :func:`_solve_routing_model`)."""
    day_indices = [d.index for d in problem.days]
    keys = [s.key for s in problem.stops]
    routes, dropped, objective, status = _solve_routing(
        problem, day_indices, keys, settings=settings, initial_routes=initial_routes
    )
    if routes is None:
        routes, dropped, objective, status = _solve_routing(
            problem, day_indices, keys, settings=settings, relax_hard=True
        )
        status = f"MUSTS_RELAXED:{status}"
    plans = []
    for d in day_indices:
        order, extra = _make_layout_feasible(problem, d, routes.get(d, []) if routes else [], settings=settings)
        plans.append(DayPlan(day_index=d, order=order, dropped=extra, objective=objective, solver_status=status))
    # Attribute solver drops to a day (first day it could go on) so repair/reasons have a home.
    for k in dropped:
        stop = problem.stop(k)
        d = next((i for i in day_indices if stop.windows_by_day[i]), 0)
        plans[d].dropped.append(k)
    return plans
