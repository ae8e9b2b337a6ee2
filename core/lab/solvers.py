"""The optimisers the lab compares on one matrix (docs/ARCHITECTURE.md, "Strategy lab").

Conventions are those of core/optimizer/tsp.py: ``cost`` is an ``n x n`` matrix (asymmetric allowed), ``stops``
the nodes to order, ``start`` the first node (None: the route may begin at any stop), ``end`` the last. Every
solver returns stop orders; their cost is always measured on the same matrix (:func:`order_cost`), so a solver
that optimises its own figures (Valhalla) is judged on the figures every other solver saw.

* ``project``: the route planner's own order search (core/optimizer/order_search.py, run by the task through the
  planner's stages); not here.
* ``ortools_gls``: OR-Tools routing, one vehicle from ``start`` to ``end``, guided local search under a time limit.
* ``valhalla``: Valhalla's ``optimized_route`` on the pack's roads (its own costing decides the order; it is
  randomised inside the engine, so its rows are marked not reproducible).
* ``nearest_neighbour``: the baseline, always the cheapest next stop.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from core.errors import OmniError
from core.geo.base import LonLat, TravelMode
from core.models.lab import OptStatus
from core.optimizer.arrays import Floats
from core.optimizer.nearest import nearest_neighbour_path, path_cost
from core.optimizer.ortools_status import routing_status_name

#: the objectives an optimiser is asked for: the matrix each one minimises
OBJECTIVES = ("distance_m", "duration_s")


@dataclass(frozen=True)
class Solve:
    """One optimiser's answer for one objective (``order`` None when it failed or did not apply)."""

    order: tuple[int, ...] | None
    status: OptStatus
    detail: str
    error_code: str | None = None
    error_message: str | None = None


@dataclass(frozen=True)
class OptimiserRun:
    """One optimiser on one matrix: an answer per objective, and its time for both (one Valhalla call serves
    both objectives; the others solve each)."""

    name: str
    solves: dict[str, Solve]
    time_s: float | None
    time_limit_s: float | None = None
    #: the same matrix, seed and versions give the same orders (False: randomised, or cut by a time limit)
    reproducible: bool = True
    #: what ended the search: ``exact`` (nothing to stop), ``stall`` / ``max_kicks`` (the ILS's kick budgets),
    #: ``time_limit`` (a clock: OR-Tools, or the ILS's safety cap); None for one-shot answers
    stop: str | None = None


def order_cost(cost: Floats, order: Sequence[int], *, start: int | None, end: int) -> float:
    """``start -> order... -> end`` on ``cost`` (``start`` None: from the first stop)."""
    return path_cost(cost, order, start=start, end=end)


def failed(
    name: str, code: str, message: str, *, status: OptStatus = "error", time_s: float | None = None
) -> OptimiserRun:
    """An optimiser that failed (or does not apply) on this request: the same answer for every objective."""
    solve = Solve(order=None, status=status, detail=code.lower(), error_code=code, error_message=message)
    return OptimiserRun(name=name, solves={o: solve for o in OBJECTIVES}, time_s=time_s)


# ---- nearest neighbour ------------------------------------------------------------------------------------
def run_nearest_neighbour(
    dist: Floats, dur: Floats, stops: Sequence[int], *, start: int | None, end: int
) -> OptimiserRun:
    t0 = time.perf_counter()
    solves = {
        objective: Solve(
            order=nearest_neighbour_path(mat, stops, start=start, end=end), status="heuristic", detail="nn"
        )
        for objective, mat in zip(OBJECTIVES, (dist, dur))
    }
    return OptimiserRun(name="nearest_neighbour", solves=solves, time_s=time.perf_counter() - t0)


# ---- OR-Tools routing with guided local search ------------------------------------------------------------
def ortools_path(
    cost: Floats, stops: Sequence[int], *, start: int | None, end: int, time_limit_s: float
) -> tuple[tuple[int, ...], str]:
    """One vehicle from ``start`` (a free start node when None) through every stop to ``end``: OR-Tools routing,
    path-cheapest-arc then guided local search until ``time_limit_s``. Returns the order and OR-Tools' status."""
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    stops = [int(s) for s in stops]
    k = len(stops)
    if k == 0:
        return (), "ROUTING_OPTIMAL"
    # local nodes: 0 = start (or a free start), 1..k = the stops, k + 1 = end
    m = np.zeros((k + 2, k + 2), dtype=np.float64)
    idx = np.asarray(stops, dtype=np.int64)
    m[1 : k + 1, 1 : k + 1] = cost[np.ix_(idx, idx)]
    m[1 : k + 1, k + 1] = cost[idx, end]
    if start is not None:
        m[0, 1 : k + 1] = cost[start, idx]
    biggest = float(np.max(m)) if m.size else 0.0
    scale = 1000.0 if biggest <= 0 else min(1000.0, 2.0**52 / (biggest * (k + 2) * 4))
    arcs = np.rint(m * scale).astype(np.int64)
    manager = pywrapcp.RoutingIndexManager(k + 2, 1, [0], [k + 1])
    routing = pywrapcp.RoutingModel(manager)

    # the matrix lives in C++ (a Python callback per arc would cost most of the time limit)
    routing.SetArcCostEvaluatorOfAllVehicles(routing.RegisterTransitMatrix(arcs.tolist()))
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    ms = max(1, int(time_limit_s * 1000))
    params.time_limit.seconds = ms // 1000
    params.time_limit.nanos = (ms % 1000) * 1_000_000
    solution = routing.SolveWithParameters(params)
    status = routing_status_name(routing.status())
    if solution is None:
        raise RuntimeError(f"OR-Tools found no route ({status})")
    order: list[int] = []
    node = solution.Value(routing.NextVar(routing.Start(0)))
    while not routing.IsEnd(node):
        order.append(stops[manager.IndexToNode(node) - 1])
        node = solution.Value(routing.NextVar(node))
    return tuple(order), status


def run_ortools(
    dist: Floats, dur: Floats, stops: Sequence[int], *, start: int | None, end: int, time_limit_s: float
) -> OptimiserRun:
    t0 = time.perf_counter()
    solves: dict[str, Solve] = {}
    for objective, mat in zip(OBJECTIVES, (dist, dur)):
        try:
            order, status = ortools_path(mat, stops, start=start, end=end, time_limit_s=time_limit_s)
        except RuntimeError as exc:
            solves[objective] = Solve(None, "error", "ortools", error_code="SOLVER_FAILED", error_message=str(exc))
            continue
        solves[objective] = Solve(order, "optimal" if status == "ROUTING_OPTIMAL" else "feasible", status)
    return OptimiserRun(
        name="ortools_gls",
        solves=solves,
        time_s=time.perf_counter() - t0,
        time_limit_s=time_limit_s,
        reproducible=False,  # guided local search runs until its time limit: how far it gets depends on the machine
        stop="time_limit",
    )


# ---- Valhalla's optimized_route ---------------------------------------------------------------------------
class OrderingRouter(Protocol):
    """A router that orders stops itself: Valhalla's ``optimized_route`` (core.geo.valhalla.ValhallaRouter)."""

    def optimized_order(self, points: Sequence[LonLat], *, mode: TravelMode) -> list[int]: ...


def run_valhalla(
    router: OrderingRouter | None,
    points: Sequence[LonLat],
    stops: Sequence[int],
    *,
    start: int | None,
    end: int,
    mode: TravelMode,
) -> OptimiserRun:
    """Valhalla orders the stops between the fixed start and end by its own costing; the one order answers both
    objectives. Not applicable without a road network (``router`` None) or without a fixed start."""
    if router is None:
        return failed("valhalla", "NO_ROAD_NETWORK", "the provider routes without Valhalla", status="not_applicable")
    if start is None:
        return failed("valhalla", "NO_FIXED_START", "optimized_route needs a fixed start", status="not_applicable")
    stops = [int(s) for s in stops]
    asked = [points[start], *(points[s] for s in stops), points[end]]
    t0 = time.perf_counter()
    try:
        found = router.optimized_order(asked, mode=mode)
    except OmniError as exc:
        return failed("valhalla", exc.code, exc.message, time_s=time.perf_counter() - t0)
    elapsed = time.perf_counter() - t0
    order = tuple(stops[i - 1] for i in found[1:-1])
    solve = Solve(order=order, status="heuristic", detail="optimized_route")
    # Valhalla's optimiser is randomised inside the engine (no seed is exposed): the same request may come back
    # in another order, tied or not
    return OptimiserRun(name="valhalla", solves={o: solve for o in OBJECTIVES}, time_s=elapsed, reproducible=False)
