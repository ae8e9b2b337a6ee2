"""Vehicle routing with time windows (VRPTW) on Solomon-style instances.

Objective is hierarchical: first the number of vehicles, then the total Euclidean distance
(double precision, unrounded). Conventions (those of the published Solomon tables):

* travel time = Euclidean distance; a vehicle arriving early waits until READY TIME;
* service must *start* no later than DUE DATE; SERVICE TIME is spent at the customer;
* every vehicle starts at the depot at time ``ready[0]`` (or later) and must be back by ``due[0]``
  (the horizon); the load of a route must not exceed ``capacity``.

Approach (see docs/BENCHMARKS.md for measurements)
-------------------------------------------------------
The search works on an integer model (distances scaled by :data:`SCALE`; travel times rounded *up*,
so every integer-feasible schedule is feasible in double precision too; the result is always re-checked
with :func:`check_solution`). Each worker process does

1. a first solution: OR-Tools routing with a fleet-size penalty per used vehicle + guided local search (short);
2. **fleet minimisation** (:func:`bench.vrptw_sisr.reduce_fleet`, numba): remove one route, then
   ruin & recreate with string removals, accepting a candidate that leaves fewer customers unassigned or
   a smaller sum of "absence" counters (SISR, Christiaens & Vanden Berghe 2020, section 5); repeat
   until it stalls;
3. **distance phase** (:func:`bench.vrptw_sisr.run_sisr`, numba): SISR ruin & recreate with
   simulated annealing, the fleet capped at the vehicle count reached; with long routes (R2/RC2/C2) the
   search may pass through solutions with unassigned customers at a penalty (only complete ones are kept).

Two workers with different first-solution strategies, stall limits and SISR parameters run in parallel
(one per core) and the best result (fewest vehicles, then shortest distance) wins.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from bench.instances import VrptwInstance, check_solution, route_distance

__all__ = ["VrptwSolution", "solve_vrptw", "SCALE"]

#: Integer scaling of distances / times inside the OR-Tools model.
SCALE = 1000
#: Fleet minimisation ends at this share of the time limit at the latest (the rest goes to distance).
RM_SHARE = 0.5
#: The distance phase (SISR) runs until this share of the time limit; OR-Tools GLS may polish the rest.
LNS_END_SHARE = 1.0
#: SISR parameters per worker (temperatures in model units, i.e. distance x SCALE) for short routes
#: (R1/RC1/C1): worker 0 only accepts complete solutions (``penalty=None``; alone it stays in the basin of its
#: start, e.g. RC106 +3 %); worker 1 may leave customers unassigned at a penalty (alone erratic: R109/R112 at
#: 0-1 % in some runs, no progress in others). The exchange at the sync points combines the two.
SISR_PARAMS = (
    dict(temp0=30_000.0, temp1=10.0, cbar=10.0, lmax=10.0),
    dict(temp0=100_000.0, temp1=10.0, cbar=10.0, lmax=10.0, penalty=3.0),
)
#: Long routes (at least :data:`LONG_ROUTE_AVG` customers per route after fleet minimisation, i.e. the
#: R2/RC2/C2 classes): at the minimum fleet the complete-solution space is badly connected and the search
#: sticks in the basin of its start, so both workers let the distance SISR leave customers unassigned at a
#: penalty (x twice the mean depot distance) and only return complete solutions.
LONG_ROUTE_AVG = 20.0
SISR_PARAMS_LONG = (
    dict(temp0=30_000.0, temp1=10.0, cbar=10.0, lmax=10.0, penalty=1.0),
    dict(temp0=100_000.0, temp1=1_000.0, cbar=10.0, lmax=10.0, penalty=3.0),
)
#: Shares of the time limit at which the workers exchange their best solutions (distance phase).
SYNC_SHARES = (0.5, 0.6, 0.7, 0.8, 0.9)
#: Basin kick after a swap: share of the customers removed (adapted: smaller after a failed repair, larger
#: after a success, within the bounds), longest repair, reheated start temperature.
KICK_SHARE = 0.15
KICK_SHARE_MIN = 0.03
KICK_SHARE_MAX = 0.25
KICK_MAX_S = 1.0
#: With an iteration budget the kick's repair is capped by chunks of 200 iterations instead of time.
KICK_MAX_CHUNKS = 10
KICK_TEMP0 = 10_000.0
#: Before the first sync, how often a worker looks at the board for a solution with fewer routes (seconds).
PEEK_S = 1.0
#: Penalty per unassigned customer (x twice the mean depot distance) of an epoch after a failed kick.
SOFT_KICK_PENALTY = 3.0
#: Share of the time limit for the first solution.
FIRST_SHARE = 0.05
#: Per worker: stop eliminating routes after this share of the time limit without success.
STALL_SHARES = (0.25, 0.12)
#: Tolerance of :func:`check_solution` for time-window and horizon comparisons (double precision).


@dataclass(frozen=True)
class VrptwSolution:
    routes: list[list[int]]  # customer ids (as in the file), one list per used vehicle, depot excluded
    vehicles: int
    distance: float  # Euclidean, double precision, unrounded
    feasible: bool
    method: str


# --------------------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# OR-Tools model
# --------------------------------------------------------------------------------------------------


class _Model:
    """Integer data shared by every OR-Tools model of one instance (row indices; 0 = depot)."""

    def __init__(self, inst: VrptwInstance):
        self.inst = inst
        self.n_nodes = len(inst.ids)
        d = inst.distance_matrix()
        self.dist = d
        self.cost = np.rint(d * SCALE).astype(np.int64)
        # Travel time rounded up: integer-feasible schedules are feasible in double precision.
        travel_up = np.ceil(d * SCALE - 1e-7).astype(np.int64)
        travel_up = np.maximum(travel_up, 0)
        svc = np.rint(inst.service * SCALE).astype(np.int64)
        self.transit = (travel_up + svc[:, None]).astype(np.int64)
        np.fill_diagonal(self.transit, 0)
        self.ready = np.ceil(inst.ready * SCALE - 1e-7).astype(np.int64)
        self.due = np.floor(inst.due * SCALE + 1e-7).astype(np.int64)
        self.demand = np.rint(inst.demand).astype(np.int64)
        self.capacity = int(math.floor(inst.capacity + 1e-9))
        self.horizon = int(self.due[0])
        self.cost_list = self.cost.tolist()
        self.transit_list = self.transit.tolist()
        self.demand_list = self.demand.tolist()

    def route_cost(self, routes: list[list[int]]) -> float:
        return sum(route_distance(self.inst, r) for r in routes)

    def build(self, vehicles: int, *, fixed_cost: int = 0, optional_penalty: int | None = None):
        from ortools.constraint_solver import pywrapcp

        manager = pywrapcp.RoutingIndexManager(self.n_nodes, vehicles, 0)
        routing = pywrapcp.RoutingModel(manager)
        cost = self.cost_list
        transit = self.transit_list
        demand = self.demand_list
        node = manager.IndexToNode

        def cost_cb(i, j):
            return cost[node(i)][node(j)]

        def time_cb(i, j):
            return transit[node(i)][node(j)]

        def demand_cb(i):
            return demand[node(i)]

        c_idx = routing.RegisterTransitCallback(cost_cb)
        routing.SetArcCostEvaluatorOfAllVehicles(c_idx)
        t_idx = routing.RegisterTransitCallback(time_cb)
        routing.AddDimension(t_idx, self.horizon, self.horizon, False, "Time")
        tdim = routing.GetDimensionOrDie("Time")
        for nd in range(1, self.n_nodes):
            tdim.CumulVar(manager.NodeToIndex(nd)).SetRange(int(self.ready[nd]), int(self.due[nd]))
        for v in range(vehicles):
            tdim.CumulVar(routing.Start(v)).SetRange(int(self.ready[0]), self.horizon)
            tdim.CumulVar(routing.End(v)).SetRange(int(self.ready[0]), self.horizon)
        d_idx = routing.RegisterUnaryTransitCallback(demand_cb)
        routing.AddDimensionWithVehicleCapacity(d_idx, 0, [self.capacity] * vehicles, True, "Load")
        if fixed_cost:
            routing.SetFixedCostOfAllVehicles(fixed_cost)
        if optional_penalty is not None:
            for nd in range(1, self.n_nodes):
                routing.AddDisjunction([manager.NodeToIndex(nd)], optional_penalty)
        return manager, routing

    @staticmethod
    def params(time_limit_s: float, first: str | None = None):
        from ortools.constraint_solver import pywrapcp, routing_enums_pb2

        p = pywrapcp.DefaultRoutingSearchParameters()
        if first is not None:
            p.first_solution_strategy = getattr(routing_enums_pb2.FirstSolutionStrategy, first)
        p.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
        ms = max(1, int(time_limit_s * 1000))
        p.time_limit.FromMilliseconds(ms)
        p.log_search = False
        return p

    @staticmethod
    def extract(manager, routing, solution) -> list[list[int]]:
        routes = []
        for v in range(routing.vehicles()):
            idx = routing.Start(v)
            r = []
            idx = solution.Value(routing.NextVar(idx))
            while not routing.IsEnd(idx):
                r.append(manager.IndexToNode(idx))
                idx = solution.Value(routing.NextVar(idx))
            if r:
                routes.append(r)
        return routes

    def feasible_rows(self, routes: list[list[int]]) -> bool:
        ids = self.inst.ids
        ok, _, _ = check_solution(self.inst, [[ids[r] for r in route] for route in routes])
        return ok

    # ---------------------------------------------------------------------------------------------

    def first_solution(self, deadline: float, first: str, budget: float) -> list[list[int]] | None:
        fleet = self.inst.fleet
        big = int(self.cost.max()) * (self.n_nodes + 1) + 1
        manager, routing = self.build(fleet, fixed_cost=big)
        limit = max(0.05, min(budget, deadline - time.monotonic()))
        sol = routing.SolveWithParameters(self.params(limit, first))
        if sol is None:
            return None
        return self.extract(manager, routing, sol)

    def improve(self, routes: list[list[int]], time_limit: float) -> list[list[int]]:
        k = len(routes)
        manager, routing = self.build(k)
        p = self.params(time_limit)
        routing.CloseModelWithParameters(p)
        assignment = routing.ReadAssignmentFromRoutes(routes, True)
        if assignment is None:
            return routes
        sol = routing.SolveFromAssignmentWithParameters(assignment, p)
        if sol is None:
            return routes
        new = self.extract(manager, routing, sol)
        if sum(len(r) for r in new) != self.n_nodes - 1:
            return routes
        return new


def _dbg(msg: str) -> None:
    if os.environ.get("OMNI_VRPTW_DEBUG"):
        import sys

        print(msg, file=sys.stderr, flush=True)


def _key(routes: list[list[int]], model: _Model) -> tuple[int, float]:
    return (len(routes), model.route_cost(routes))


def _better(candidate: list[list[int]] | None, routes: list[list[int]], model: _Model) -> list[list[int]]:
    """``candidate`` if it is feasible and better (fewer routes, then shorter) than ``routes``, else ``routes``."""
    if candidate is not None and model.feasible_rows(candidate) and _key(candidate, model) < _key(routes, model):
        return candidate
    return routes


def _sisr_params(n_customers: int, n_routes: int, variant: int) -> dict:
    """SISR parameters of worker ``variant`` for the fleet reached (long routes: soft penalty)."""
    table = SISR_PARAMS_LONG if n_customers / max(1, n_routes) >= LONG_ROUTE_AVG else SISR_PARAMS
    return dict(table[variant % len(table)])


def _worker(
    inst: VrptwInstance, time_limit_s: float, seed: int, variant: int, max_iterations: int | None = None
) -> tuple[list[list[int]], str]:
    """One search: first solution, route elimination, distance improvement. Returns row-index routes."""
    t0 = time.monotonic()
    deadline = t0 + time_limit_s
    model = _Model(inst)
    firsts = ["PARALLEL_CHEAPEST_INSERTION", "LOCAL_CHEAPEST_INSERTION"]
    first = firsts[(variant + seed) % len(firsts)]
    routes = model.first_solution(deadline, first, budget=FIRST_SHARE * time_limit_s)
    if routes is None or not model.feasible_rows(routes):
        # Fallback: one route per customer (the route eliminator merges them).
        routes = [[r] for r in range(1, model.n_nodes)]
        first = "singletons"
        _, _, bad = check_solution(inst, [[inst.ids[r] for r in route] for route in routes])
        if any("vehicles used" not in b for b in bad):
            return [], "none"
    # --- fleet minimisation: SISR with absence counters (numba) ----------------------------------------
    from bench.vrptw_sisr import SisrData, kick_and_repair, reduce_fleet, run_sisr

    data = SisrData(model.transit, model.cost, model.ready, model.due, model.demand, model.capacity)
    lb = max(1, int(math.ceil(float(inst.demand.sum()) / float(inst.capacity) - 1e-9)))
    _dbg(f"[{variant}] first {len(routes)} veh {model.route_cost(routes):.1f} at {time.monotonic() - t0:.1f}s")
    stall = STALL_SHARES[variant % len(STALL_SHARES)] * time_limit_s
    new = reduce_fleet(
        data,
        routes,
        deadline=t0 + RM_SHARE * time_limit_s,
        seed=seed * 7919 + variant,
        lower_bound=lb,
        stall_s=stall,
        log=_dbg if os.environ.get("OMNI_VRPTW_DEBUG") else None,
        on_improve=None if _EXCHANGE is None else (lambda rs: _EXCHANGE.publish(rs, data.cost(rs))),
    )
    if model.feasible_rows(new) and len(new) <= len(routes):
        routes = new
    _dbg(f"[{variant}] fm {len(routes)} veh {model.route_cost(routes):.1f} at {time.monotonic() - t0:.1f}s")

    if _EXCHANGE is not None:
        _EXCHANGE.publish(routes, data.cost(routes))
    # --- distance phase: SISR ruin & recreate (numba kernels), fleet capped, in epochs --------------------
    # At the minimum fleet the complete solutions form badly connected basins and the search ends where its
    # start lies. So at each sync point the workers swap their best solutions, and each of them restarts from
    # the best one: it kicks it into a neighbouring basin (kick_and_repair, own seed) and anneals from there at
    # a reheated temperature. The best solution itself is kept, so a kick can only help.
    dist_start = time.monotonic()
    lns_end = t0 + LNS_END_SHARE * time_limit_s
    span = max(1e-3, lns_end - dist_start)
    ends = [t0 + s * time_limit_s for s in SYNC_SHARES] + [lns_end]
    n_epochs = len(ends)
    start, reheat, soft, kick_share = routes, False, False, KICK_SHARE
    for epoch, seg_end in enumerate(ends):
        seg_start = time.monotonic()
        params = _sisr_params(model.n_nodes - 1, len(start), variant)
        if max_iterations is not None:
            its = max_iterations // n_epochs + (1 if epoch < max_iterations % n_epochs else 0)
            sched = (epoch / n_epochs, (epoch + 1) / n_epochs)
            kwargs = dict(max_iterations=its, deadline=None)
        else:
            its = None
            sched = (max(0.0, (seg_start - dist_start) / span), min(1.0, (seg_end - dist_start) / span))
            kwargs = dict(deadline=seg_end)
        if reheat:
            params["temp0"], sched = min(params["temp0"], KICK_TEMP0), (0.0, 1.0)
        if soft:  # the kick found no complete neighbour: leave the basin through partial solutions instead
            params["penalty"] = params.get("penalty") or SOFT_KICK_PENALTY
        if epoch == 0 and its is None and _EXCHANGE is not None:
            # Before the first sync the other worker may still be minimising its fleet: look at the board
            # every PEEK_S and take a solution with fewer routes at once instead of waiting for the sync.
            while seg_end - time.monotonic() > PEEK_S + 0.05:
                fewer = _EXCHANGE.read(fewer_than=len(routes))
                if fewer is not None and model.feasible_rows(fewer):
                    _dbg(f"[{variant}] takes {len(fewer)} veh {model.route_cost(fewer):.1f} from the board")
                    routes = start = fewer
                    params = _sisr_params(model.n_nodes - 1, len(start), variant)
                    break
                now = time.monotonic()
                piece = run_sisr(
                    data,
                    start,
                    seed=seed * 104729 + variant + int(now * 1000) % 9973,
                    deadline=now + PEEK_S,
                    schedule=((now - dist_start) / span, (now + PEEK_S - dist_start) / span),
                    **params,
                )
                routes = start = _better(piece, routes, model)
            sched = (max(0.0, (time.monotonic() - dist_start) / span), sched[1])
        if (its or 0) > 0 or (its is None and seg_end - time.monotonic() > 0.05):
            new = run_sisr(data, start, seed=seed * 104729 + variant + 7 * epoch, schedule=sched, **kwargs, **params)
            routes = _better(new, routes, model)
            _dbg(
                f"[{variant}] sisr e{epoch}{' kick' if reheat else ''}{' soft' if soft else ''} {len(new)} veh "
                f"{model.route_cost(new):.1f}"
                f" best {model.route_cost(routes):.1f} at {time.monotonic() - t0:.1f}s ({run_sisr.iterations} it)"
            )
            start, reheat, soft = routes if _key(new, model) > _key(routes, model) else new, False, False
        if epoch == n_epochs - 1 or _EXCHANGE is None:
            continue
        # With an iteration budget the other worker may still be in its (time-limited) fleet minimisation:
        # wait for it rather than break the barrier, so the exchange happens at the same points every run.
        wait = time_limit_s if max_iterations is not None else max(0.2, min(2.0, deadline - time.monotonic()))
        board = _EXCHANGE.swap(routes, data.cost(routes), timeout=wait)
        if _better(board, routes, model) is board:
            _dbg(f"[{variant}] adopts {len(board)} veh {model.route_cost(board):.1f}")
            routes = board
        # Every worker (the best one too) restarts from the best solution through a kick.
        if max_iterations is not None:
            kick_end, kick_chunks = None, KICK_MAX_CHUNKS
        else:
            kick_end = time.monotonic() + min(KICK_MAX_S, 0.3 * max(0.0, ends[epoch + 1] - time.monotonic()))
            kick_chunks = None
        kicked = kick_and_repair(
            data,
            routes,
            n_remove=max(2, int(kick_share * (model.n_nodes - 1))),
            deadline=kick_end,
            max_chunks=kick_chunks,
            seed=seed * 7 + variant * 1009 + epoch,
        )
        if kicked is not None and len(kicked) <= len(routes):
            start, reheat = kicked, True
            kick_share = min(KICK_SHARE_MAX, kick_share * 1.2)
        else:  # repair failed in time: smaller kicks from now on
            start, reheat, soft = routes, True, True
            kick_share = max(KICK_SHARE_MIN, kick_share * 0.6)
    remaining = deadline - time.monotonic()
    if remaining > 0.3 and max_iterations is None:
        routes = _better(model.improve(routes, remaining), routes, model)
        _dbg(f"[{variant}] gls {len(routes)} veh {model.route_cost(routes):.1f} at {time.monotonic() - t0:.1f}s")
    return routes, f"ejection-pool+sisr({first})"


class _Exchange:
    """Best-solution board shared by the worker processes: shared memory plus a barrier (fork-inherited).

    Layout of ``buf``: ``[vehicles, cost, (route length, customers...) ...]`` in the integer model.
    """

    def __init__(self, ctx, n_nodes: int, workers: int):
        self.buf = ctx.Array("q", 2 + 2 * n_nodes)
        self.buf[0] = 2**62
        self.buf[1] = 2**62
        self.barrier = ctx.Barrier(workers)

    def publish(self, routes: list[list[int]], cost: int) -> None:
        """Put ``routes`` on the board if they beat it (fewer vehicles, then lower cost). Never waits."""
        with self.buf.get_lock():
            if (len(routes), cost) < (self.buf[0], self.buf[1]):
                self.buf[0], self.buf[1] = len(routes), cost
                pos = 2
                for r in routes:
                    self.buf[pos] = len(r)
                    self.buf[pos + 1 : pos + 1 + len(r)] = r
                    pos += 1 + len(r)

    def read(self, *, fewer_than: int | None = None) -> list[list[int]] | None:
        """The board's solution (None if empty, or if it does not have fewer than ``fewer_than`` routes)."""
        with self.buf.get_lock():
            if self.buf[0] >= 2**62 or (fewer_than is not None and self.buf[0] >= fewer_than):
                return None
            out, pos = [], 2
            for _ in range(self.buf[0]):
                m = self.buf[pos]
                out.append(list(self.buf[pos + 1 : pos + 1 + m]))
                pos += 1 + m
            return out

    def swap(self, routes: list[list[int]], cost: int, *, timeout: float) -> list[list[int]] | None:
        """Publish ``routes``, wait for the other workers, return the board's best (None if the board is
        empty). A missing worker only costs ``timeout`` once: the barrier then stays broken and later swaps
        do not wait."""
        import threading

        self.publish(routes, cost)
        try:
            self.barrier.wait(timeout=timeout)
        except threading.BrokenBarrierError:
            pass
        return self.read()


#: The board of the current solve in a worker process (set by the pool initializer).
_EXCHANGE: _Exchange | None = None


def _set_exchange(exchange: _Exchange | None) -> None:
    global _EXCHANGE
    _EXCHANGE = exchange


def _worker_star(args):
    return _worker(*args)


def solve_vrptw(
    inst: VrptwInstance,
    *,
    time_limit_s: float,
    seed: int = 0,
    workers: int | None = None,
    max_iterations: int | None = None,
) -> VrptwSolution:
    """Solve ``inst`` hierarchically (vehicles first, then distance) within about ``time_limit_s`` seconds.

    ``workers`` parallel searches (default: ``min(2, cpu_count)``) with different strategies; the best
    wins. ``max_iterations`` caps the SISR distance phase of each worker at that many iterations (its
    temperature then follows the iteration count and the exchanges wait for every worker and cap kicks by
    iterations, so that phase is reproducible for given start solutions of the workers; the OR-Tools first
    solution and the route elimination remain time-limited). The returned
    solution is re-checked with :func:`check_solution`.
    """
    if inst.n == 0:
        return VrptwSolution(routes=[], vehicles=0, distance=0.0, feasible=True, method="empty")
    t0 = time.monotonic()
    from bench.vrptw_sisr import warmup

    warmup()  # compile / load the numba kernels once, before forking
    if workers is None:
        workers = max(1, min(2, os.cpu_count() or 1))
    # Spare a little for process start-up and result checking.
    budget = max(0.2, time_limit_s - (0.6 if workers > 1 else 0.05))
    results: list[tuple[list[list[int]], str]] = []
    if workers > 1:
        try:
            ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
            exchange = _Exchange(ctx, len(inst.ids), workers)
            with ProcessPoolExecutor(
                max_workers=workers, mp_context=ctx, initializer=_set_exchange, initargs=(exchange,)
            ) as ex:
                spent = time.monotonic() - t0
                args = [(inst, max(0.2, budget - spent), seed, v, max_iterations) for v in range(workers)]
                results = list(ex.map(_worker_star, args))
        except Exception:  # pragma: no cover - fall back to a single in-process search
            results = []
    if not results:
        results = [_worker(inst, max(0.2, time_limit_s - (time.monotonic() - t0) - 0.05), seed, 0, max_iterations)]
    model_inst = inst
    best: tuple[tuple[int, float], list[list[int]], str] | None = None
    for routes, method in results:
        if not routes:
            continue
        id_routes = [[model_inst.ids[r] for r in route] for route in routes]
        ok, dist, _ = check_solution(model_inst, id_routes)
        if not ok:
            continue
        key = (len(id_routes), dist)
        if best is None or key < best[0]:
            best = (key, id_routes, method)
    if best is None:
        # No feasible solution found: return the first attempt, marked infeasible.
        routes = results[0][0] if results and results[0][0] else []
        id_routes = [[inst.ids[r] for r in route] for route in routes]
        ok, dist, _ = check_solution(inst, id_routes)
        return VrptwSolution(routes=id_routes, vehicles=len(id_routes), distance=dist, feasible=ok, method="failed")
    (veh, dist), id_routes, method = best
    return VrptwSolution(routes=id_routes, vehicles=veh, distance=dist, feasible=True, method=method)
