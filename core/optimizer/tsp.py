"""Stop-order optimisation: exact (enumeration, Held-Karp) and heuristic solvers.

Conventions
-----------
* ``cost`` is an ``n x n`` float matrix (may be asymmetric, diagonal 0).
* ``stops`` are the node indices to visit, ``start`` the node the trip starts
  at (or ``None``: the trip may start at any stop, only stops -> end counts),
  ``end`` the destination node (``end == start`` is a round trip).
* ``OrderSolution.order`` lists the stop node indices in visiting order.

Path problems are reduced to a closed (asymmetric) tour over ``k + 1`` nodes
where node 0 is the merged start/end ("depot"): ``M[0, x] = cost[start, x]``
(0 when ``start`` is None) and ``M[x, 0] = cost[x, end]``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from .arrays import Floats, Nodes
from .ils import TRAJECTORIES, SearchReport, _ils_tour, _kernels, kick_budget, stall_budget, warm_up

__all__ = [
    "OrderSolution",
    "SearchReport",
    "stall_budget",
    "kick_budget",
    "path_cost",
    "enumerate_paths",
    "held_karp_path",
    "heuristic_path",
    "solve_path",
    "solve_tour",
    "DEFAULT_EXACT_LIMIT",
]

#: Largest number of stops solved exactly by :func:`solve_path` by default.
#: Held-Karp takes 0.08-0.15 s at k=16, 0.17-0.37 s at k=17 and 0.6-0.8 s at
#: k=18 on the 2-core benchmark machine (time doubles per extra stop, ranges
#: are quiet vs. loaded machine; see docs/BENCHMARKS.md), so 16 keeps the
#: exact solve well under 0.3 s even under load.
DEFAULT_EXACT_LIMIT = 16

#: Enumeration is only allowed up to this many stops (9! = 362880 orders).
ENUMERATION_LIMIT = 10

#: how an order was found: exactly by enumeration or Held-Karp, heuristically by the ILS or OR-Tools
Method = Literal["enumeration", "held_karp", "ils_2opt_oropt", "ortools_gls"]
#: the heuristic engine asked for (``auto``: the ILS when numba is installed, else OR-Tools)
Engine = Literal["auto", "ils", "ortools"]


@dataclass(frozen=True)
class OrderSolution:
    order: tuple[int, ...]
    cost: float
    method: Method
    exact: bool
    alternatives: tuple[tuple[tuple[int, ...], float], ...] = ()
    #: how the heuristic search ended (ILS engine only; see :class:`SearchReport`)
    search: SearchReport | None = None


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _as_matrix(cost: npt.ArrayLike) -> Floats:
    m = np.asarray(cost, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"cost must be a square matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError("cost matrix must be finite")
    return m


def _check(cost: Floats, stops: Sequence[int], start: int | None, end: int) -> list[int]:
    n = cost.shape[0]
    stops = [int(s) for s in stops]
    if len(set(stops)) != len(stops):
        raise ValueError("stops contain duplicates")
    for s in stops:
        if not 0 <= s < n:
            raise ValueError(f"stop {s} out of range for {n} nodes")
    if not 0 <= int(end) < n:
        raise ValueError(f"end {end} out of range")
    if start is not None and not 0 <= int(start) < n:
        raise ValueError(f"start {start} out of range")
    if int(end) in stops or (start is not None and int(start) in stops):
        raise ValueError("start/end must not be among the stops")
    return stops


def path_cost(cost: npt.ArrayLike, order: Iterable[int], *, start: int | None, end: int) -> float:
    """Cost of ``start -> order... -> end`` (``start`` None: begins at order[0])."""
    c = np.asarray(cost, dtype=np.float64)
    order = [int(x) for x in order]
    total = 0.0
    prev = start
    for v in order:
        if prev is not None:
            total += float(c[prev, v])
        prev = v
    if prev is not None:
        total += float(c[prev, end])
    return total


def _reduce(cost: Floats, stops: Sequence[int], start: int | None, end: int) -> Floats:
    """(k+1)x(k+1) tour matrix with node 0 = merged start/end."""
    idx = np.asarray(stops, dtype=np.int64)
    k = len(idx)
    M = np.zeros((k + 1, k + 1), dtype=np.float64)
    M[1:, 1:] = cost[np.ix_(idx, idx)]
    M[1:, 0] = cost[idx, end]
    if start is not None:
        M[0, 1:] = cost[start, idx]
    np.fill_diagonal(M, 0.0)
    return M


def _tour_len(M: Floats, tour: Sequence[int] | Nodes) -> float:
    t = np.asarray(tour, dtype=np.int64)
    return float(M[t, np.roll(t, -1)].sum())


# --------------------------------------------------------------------------
# exact solvers
# --------------------------------------------------------------------------


def _permutation_array(k: int) -> Nodes:
    """All permutations of ``range(k)`` as rows, in lexicographic order."""
    P = np.zeros((1, 0), dtype=np.int64)
    for m in range(1, k + 1):
        r = len(P)
        A = np.empty((m * r, m), dtype=np.int64)
        for f in range(m):
            A[f * r : (f + 1) * r, 0] = f
            A[f * r : (f + 1) * r, 1:] = P + (P >= f)
        P = A
    return P


def enumerate_paths(
    cost: npt.ArrayLike, stops: Sequence[int], *, start: int | None, end: int
) -> list[tuple[tuple[int, ...], float]]:
    """All permutations of ``stops`` with their path cost, cheapest first.

    Ties keep lexicographic order of the permutation of ``stops``.
    """
    c = _as_matrix(cost)
    stops = _check(c, stops, start, end)
    k = len(stops)
    if k > ENUMERATION_LIMIT:
        raise ValueError(f"enumeration limited to {ENUMERATION_LIMIT} stops, got {k}")
    if k == 0:
        return [((), path_cost(c, (), start=start, end=end))]
    perms = np.asarray(stops, dtype=np.int64)[_permutation_array(k)]
    costs = np.zeros(len(perms), dtype=np.float64)
    for j in range(k - 1):
        costs += c[perms[:, j], perms[:, j + 1]]
    costs += c[perms[:, -1], end]
    if start is not None:
        costs += c[start, perms[:, 0]]
    ordr = np.argsort(costs, kind="stable")
    return list(zip(map(tuple, perms[ordr].tolist()), costs[ordr].tolist()))


def held_karp_path(cost: npt.ArrayLike, stops: Sequence[int], *, start: int | None, end: int) -> OrderSolution:
    """Exact Held-Karp DP over subsets, vectorised with numpy.

    The DP table ``dp[S, j]`` (shape ``(2**k, k)``) is the cheapest path that
    begins at ``start`` (or at any stop when ``start`` is None), visits exactly
    the stops in bit set ``S`` and ends at stop ``j``.  Subsets are processed
    by popcount; each layer is a single gather + min over the predecessor.

    ``alternatives`` holds, for every other possible *last* stop, the optimal
    path ending with that stop (exact per last stop), cheapest first.
    """
    c = _as_matrix(cost)
    stops = _check(c, stops, start, end)
    k = len(stops)
    if k == 0:
        return OrderSolution((), path_cost(c, (), start=start, end=end), "held_karp", True)
    if k > 20:
        raise ValueError(f"Held-Karp limited to 20 stops, got {k}")
    idx = np.asarray(stops, dtype=np.int64)
    C = c[np.ix_(idx, idx)]  # C[i, j] stop i -> stop j
    CT = np.ascontiguousarray(C.T)  # CT[j, i]
    full = (1 << k) - 1
    dp = np.full((1 << k, k), np.inf, dtype=np.float64)
    par = np.full((1 << k, k), -1, dtype=np.int8)
    bits = 1 << np.arange(k, dtype=np.int64)
    first = c[start, idx] if start is not None else np.zeros(k)
    dp[bits, np.arange(k)] = first
    # subsets grouped by popcount
    allsets = np.arange(1 << k, dtype=np.int64)
    pc = np.zeros(1 << k, dtype=np.int64)
    for b in range(k):
        pc += (allsets >> b) & 1
    order = np.argsort(pc, kind="stable")
    bounds = np.searchsorted(pc[order], np.arange(k + 2))
    shifts = np.arange(k, dtype=np.int64)
    chunk = max(1, (1 << 18) // (k * k))  # bounds the (m, k, k) temporary to ~2 MB
    for s in range(2, k + 1):
        layer = order[bounds[s] : bounds[s + 1]]  # all sets of size s
        for c0 in range(0, len(layer), chunk):
            T = layer[c0 : c0 + chunk]
            prev = T[:, None] ^ bits[None, :]  # (m, k): T without j (or with j if j not in T)
            # cand[m, j, i] = dp[prev[m, j], i] + C[i, j]; entries with i not in prev,
            # or j not in T (prev then has s+1 elements, not computed yet) are inf.
            cand = dp[prev]
            cand += CT[None, :, :]
            arg = np.argmin(cand, axis=2)
            best = np.take_along_axis(cand, arg[:, :, None], axis=2)[:, :, 0]
            inT = ((T[:, None] >> shifts[None, :]) & 1).astype(bool)
            dp[T] = np.where(inT, best, np.inf)
            par[T] = arg.astype(np.int8)
    last_cost = c[idx, end]
    totals = dp[full] + last_cost

    def rebuild(j: int) -> tuple[int, ...]:
        seq = []
        S = full
        while j >= 0:
            seq.append(j)
            pj = int(par[S, j]) if S != (1 << j) else -1
            S ^= 1 << j
            j = pj
        seq.reverse()
        return tuple(int(idx[x]) for x in seq)

    ranking = sorted(range(k), key=lambda j: (totals[j], j))
    paths = [(rebuild(j), j) for j in ranking]
    scored = [(p, path_cost(c, p, start=start, end=end)) for p, _ in paths]
    scored.sort(key=lambda pc_: pc_[1])
    best_order, best_cost = scored[0]
    return OrderSolution(
        order=best_order,
        cost=best_cost,
        method="held_karp",
        exact=True,
        alternatives=tuple(scored[1:]),
    )


# --------------------------------------------------------------------------
# heuristics
# --------------------------------------------------------------------------


def _ortools_tour(M: Floats, time_limit_s: float) -> Nodes:
    """Closed tour over M starting at 0 via OR-Tools guided local search."""
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    n = M.shape[0]
    mx = float(np.max(M)) if M.size else 0.0
    # scale floats to int64 without overflow: keep n * max * scale < 2**52
    scale = 1000.0
    if mx > 0:
        scale = min(scale, (2.0**52) / (mx * max(n, 1) * 4))
    Mi = np.rint(M * scale).astype(np.int64)
    manager = pywrapcp.RoutingIndexManager(n, 1, 0)
    routing = pywrapcp.RoutingModel(manager)
    cb = routing.RegisterTransitMatrix(Mi.tolist())
    routing.SetArcCostEvaluatorOfAllVehicles(cb)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    ms = max(1, int(time_limit_s * 1000))
    params.time_limit.seconds = ms // 1000
    params.time_limit.nanos = (ms % 1000) * 1_000_000
    params.use_full_propagation = False
    sol = routing.SolveWithParameters(params)
    if sol is None:
        raise RuntimeError("OR-Tools found no solution")
    idx = routing.Start(0)
    tour = []
    while not routing.IsEnd(idx):
        tour.append(manager.IndexToNode(idx))
        idx = sol.Value(routing.NextVar(idx))
    return np.asarray(tour, dtype=np.int64)


def _small_tour(M: Floats) -> Nodes:
    """Exact closed tour for tiny instances (n <= 8) by enumeration."""
    n = M.shape[0]
    if n <= 2:
        return np.arange(n, dtype=np.int64)
    best = None
    bc = math.inf
    for p in itertools.permutations(range(1, n)):
        t = (0,) + p
        cst = _tour_len(M, t)
        if cst < bc - 1e-12:
            bc, best = cst, t
    return np.asarray(best, dtype=np.int64)


def _solve_tour_matrix(
    M: Floats,
    time_limit_s: float,
    seed: int,
    engine: Engine,
    workers: int | None,
    max_kicks: int | None,
    t_start: float,
    *,
    early_stop: bool = True,
) -> tuple[Nodes, Method, SearchReport | None]:
    n = M.shape[0]
    if n <= 8:
        return _small_tour(M), "enumeration", None
    if engine == "auto":
        # a fixed kick budget asks for the deterministic ILS (pure Python without numba)
        engine = "ils" if (_kernels() is not None or max_kicks is not None) else "ortools"
    if engine == "ils":
        t_warm = time.perf_counter()
        warm_up()  # loading the kernels (once per process) is not search: the safety cap starts after it
        deadline = t_start + float(time_limit_s) + (time.perf_counter() - t_warm)
        w = TRAJECTORIES if workers is None else int(workers)
        if max_kicks is not None:
            w = 1  # deterministic single trajectory
        tour, report = _ils_tour(M, deadline, seed, workers=w, max_kicks=max_kicks, early_stop=early_stop)
        return tour, "ils_2opt_oropt", report
    if engine == "ortools":
        remaining = max(0.05, t_start + float(time_limit_s) - time.perf_counter())
        return _ortools_tour(M, remaining), "ortools_gls", None
    raise ValueError(f"unknown engine {engine!r}")


def heuristic_path(
    cost: npt.ArrayLike,
    stops: Sequence[int],
    *,
    start: int | None,
    end: int,
    time_limit_s: float,
    seed: int = 0,
    engine: Engine = "auto",
    workers: int | None = None,
    max_kicks: int | None = None,
    early_stop: bool = True,
) -> OrderSolution:
    """Heuristic stop order; ``time_limit_s`` is a safety cap on wall time.

    ``engine``: ``"ils"`` (own iterated 2-opt/Or-opt local search, numba),
    ``"ortools"`` (OR-Tools guided local search, runs to the time limit) or
    ``"auto"`` (ILS when numba is installed, else OR-Tools).  The ILS runs
    ``workers`` trajectories (default :data:`~core.optimizer.ils.TRAJECTORIES`,
    whatever the machine) and each stops when it is done: after
    :func:`stall_budget` kicks in a row without improvement (``search.stop ==
    "stall"``) or :func:`kick_budget` kicks in all (``"max_kicks"``), so the
    same instance and ``seed`` give the same order on any machine
    (``search.reproducible``) unless the cap ends it (``"time_limit"``).
    ``max_kicks`` asks for exactly that many kicks on one trajectory (no stall
    stop, no time limit); ``early_stop=False`` searches until the time limit
    (benchmarks).
    """
    t_start = time.perf_counter()
    c = _as_matrix(cost)
    stops = _check(c, stops, start, end)
    k = len(stops)
    if k == 0:
        return OrderSolution((), path_cost(c, (), start=start, end=end), "enumeration", True)
    M = _reduce(c, stops, start, end)
    tour, method, report = _solve_tour_matrix(
        M, time_limit_s, seed, engine, workers, max_kicks, t_start, early_stop=early_stop
    )
    # rotate so the depot (0) is first, then map back
    z = int(np.where(tour == 0)[0][0])
    tour = np.roll(tour, -z)
    order = tuple(int(stops[x - 1]) for x in tour[1:])
    return OrderSolution(
        order, path_cost(c, order, start=start, end=end), method, method == "enumeration", search=report
    )


def solve_path(
    cost: npt.ArrayLike,
    stops: Sequence[int],
    *,
    start: int | None,
    end: int,
    time_limit_s: float = 1.0,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    seed: int = 0,
) -> OrderSolution:
    """Held-Karp when ``len(stops) <= exact_limit``, else :func:`heuristic_path`."""
    if len(stops) <= exact_limit:
        return held_karp_path(cost, stops, start=start, end=end)
    return heuristic_path(cost, stops, start=start, end=end, time_limit_s=time_limit_s, seed=seed)


def solve_tour(
    cost: npt.ArrayLike,
    *,
    time_limit_s: float,
    seed: int = 0,
    engine: Engine = "auto",
    workers: int | None = None,
    max_kicks: int | None = None,
    early_stop: bool = True,
) -> OrderSolution:
    """Closed tour over all nodes; ``order`` starts at node 0, ``cost`` includes the return."""
    t_start = time.perf_counter()
    c = _as_matrix(cost)
    n = c.shape[0]
    if n == 0:
        return OrderSolution((), 0.0, "enumeration", True)
    tour, method, report = _solve_tour_matrix(
        c, time_limit_s, seed, engine, workers, max_kicks, t_start, early_stop=early_stop
    )
    z = int(np.where(tour == 0)[0][0])
    tour = np.roll(tour, -z)
    order = tuple(int(x) for x in tour)
    return OrderSolution(order, _tour_len(c, order), method, method == "enumeration", search=report)
