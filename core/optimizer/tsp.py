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
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "OrderSolution",
    "SearchReport",
    "stall_budget",
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


@dataclass(frozen=True)
class OrderSolution:
    order: tuple[int, ...]
    cost: float
    method: str
    exact: bool
    alternatives: tuple[tuple[tuple[int, ...], float], ...] = ()
    #: how the heuristic search ended (ILS engine only; see :class:`SearchReport`)
    search: SearchReport | None = None


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _as_matrix(cost) -> np.ndarray:
    m = np.asarray(cost, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"cost must be a square matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError("cost matrix must be finite")
    return m


def _check(cost: np.ndarray, stops: Sequence[int], start, end) -> list[int]:
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


def path_cost(cost: np.ndarray, order, *, start: int | None, end: int) -> float:
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


def _reduce(cost: np.ndarray, stops: Sequence[int], start, end) -> np.ndarray:
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


def _tour_len(M: np.ndarray, tour) -> float:
    t = np.asarray(tour, dtype=np.int64)
    return float(M[t, np.roll(t, -1)].sum())


# --------------------------------------------------------------------------
# exact solvers
# --------------------------------------------------------------------------


def _permutation_array(k: int) -> np.ndarray:
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


def enumerate_paths(cost, stops, *, start, end) -> list[tuple[tuple[int, ...], float]]:
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


def held_karp_path(cost, stops, *, start, end) -> OrderSolution:
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


def _neighbours(M: np.ndarray, K: int) -> np.ndarray:
    n = M.shape[0]
    K = max(1, min(K, n - 1))
    S = M + M.T
    S = S.copy()
    np.fill_diagonal(S, np.inf)
    nb = np.argsort(S, axis=1, kind="stable")[:, :K]
    return np.ascontiguousarray(nb.astype(np.int64))


class _Runner:
    """One ILS trajectory (numba kernels) on tour matrix ``M``."""

    def __init__(self, M: np.ndarray, nb: np.ndarray, sym: bool, seed: int, init=None):
        from . import _ils

        self.k = _ils
        self.M = M
        self.nb = nb
        self.sym = sym
        n = M.shape[0]
        self.n = n
        self.t = np.empty(n, dtype=np.int64)
        if init is None:
            _ils.nearest_neighbour(M, self.t)
        else:
            self.t[:] = init
        self.pos = np.empty(n, dtype=np.int64)
        self.pos[self.t] = np.arange(n)
        self.fwd = np.zeros(n)
        self.bwd = np.zeros(n)
        _ils._prefix(M, self.t, self.fwd, self.bwd, 0)
        pos_edges = M[M > 0]
        scale = float(pos_edges.mean()) if pos_edges.size else 1.0
        self.eps = 1e-9 * scale
        self.lmax = int(max(1, min(50, n // 3)))
        active = np.ones(n, dtype=np.int8)
        stack = np.arange(n, dtype=np.int64)[::-1].copy()
        buf = np.empty(n, dtype=np.int64)
        _ils.local_search(M, nb, self.t, self.pos, self.fwd, self.bwd, active, stack, n, sym, self.eps, buf)
        self.cur = float(_ils.tour_cost(M, self.t))
        self.best_t = self.t.copy()
        self.best = self.cur
        self.seed = seed
        self._seeded = False
        self.kicks = 0
        self.stalled = 0  # kicks in a row without improving the best tour by more than eps
        self.stop = ""

    def run(self, n_kicks: int, stall_limit: int = 0) -> int:
        """Up to ``n_kicks`` kicks, fewer once ``stall_limit`` (> 0) kicks in a row brought no improvement.

        Returns the number of kicks done."""
        if not self._seeded:
            self.k.seed_rng(self.seed)
            self._seeded = True
        cur, best, done, stalled = self.k.ils(
            self.M,
            self.nb,
            self.t,
            self.pos,
            self.fwd,
            self.bwd,
            self.best_t,
            self.cur,
            self.best,
            int(n_kicks),
            self.lmax,
            self.sym,
            self.eps,
            int(stall_limit),
            self.stalled,
        )
        # resynchronise against float drift (a tour equal up to rounding is no improvement: stalled stays)
        self.cur = float(self.k.tour_cost(self.M, self.t))
        self.best = float(self.k.tour_cost(self.M, self.best_t))
        if self.cur < self.best:
            self.best = self.cur
            self.best_t[:] = self.t
        self.kicks += int(done)
        self.stalled = int(stalled)
        return int(done)

    def run_until(self, deadline: float, max_kicks: int | None = None, stall_kicks: int | None = None) -> None:
        """Kick until the deadline (or ``max_kicks``), stopping early once ``stall_kicks`` kicks in a row
        brought no improvement; ``self.stop`` tells which ("max_kicks", "time_limit", "stall")."""
        chunk = 50
        limit = int(stall_kicks) if stall_kicks else 0
        while True:
            if max_kicks is not None:
                left = max_kicks - self.kicks
                if left <= 0:
                    self.stop = "max_kicks"
                    return
                chunk = min(chunk, left)
            elif time.perf_counter() >= deadline:
                self.stop = "time_limit"
                return
            if limit and self.stalled >= limit:
                self.stop = "stall"
                return
            t0 = time.perf_counter()
            done = self.run(chunk, limit)
            if done == 0 and not (limit and self.stalled >= limit):
                self.stop = "no_moves"  # fewer than 5 nodes: nothing to kick
                return
            if max_kicks is None:
                dt = max(time.perf_counter() - t0, 1e-6)
                remaining = deadline - time.perf_counter()
                # aim for ~20 ms chunks, never overshoot the deadline by much
                per = dt / max(done, 1)
                chunk = int(max(1, min(0.02, max(remaining, 0.0)) / per))


_WARM = False
_WARM_LOCK = threading.Lock()


def warm_up() -> bool:
    """Compile (or load from numba's on-disk cache) the ILS kernels.

    Returns False when numba is not installed.  Safe to call repeatedly.
    """
    global _WARM
    with _WARM_LOCK:
        if _WARM:
            return True
        if _kernels() is None:
            return False
        rng = np.random.default_rng(0)
        P = rng.random((12, 2))
        for sym in (True, False):
            M = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
            if not sym:
                M = M + 0.1 * rng.random((12, 12))
                np.fill_diagonal(M, 0.0)
            r = _Runner(M, _neighbours(M, 5), sym, 0)
            r.run(3)
        _WARM = True
        return True


def _ortools_tour(M: np.ndarray, time_limit_s: float) -> np.ndarray:
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


#: Early stop of the ILS (the time limit stays the cap): each trajectory stops once
#: ``STALL_KICKS_PER_NODE * n`` kicks in a row (n = tour nodes, at least ``STALL_KICKS_MIN``)
#: brought no improvement of its best tour by more than its ``eps``.  The budget scales with n
#: because a kick only touches a few nodes, so covering the tour takes ~n kicks.  400 is above the
#: longest improvement-free stretch seen before a later improvement in 372 traced trajectories
#: (random Euclidean paths and tours of 13-60 stops, float and integer costs; TSPLIB <= 200 nodes;
#: random n = 100, 200): 377 n once (eil51, integer lengths, a long walk over equal-length tours),
#: 171 n and 161 n once each, below 50 n otherwise.  It stops a 30-stop search after ~12k kicks
#: (~0.1 s) instead of running out the clock, and never binds at 100-200 nodes within 1 s
#: (40k-80k kicks), where the time limit stops the search as before.  See docs/BENCHMARKS.md.
STALL_KICKS_PER_NODE = 400
STALL_KICKS_MIN = 2000


@dataclass(frozen=True)
class SearchReport:
    """How the iterated local search ended (machine-independent facts, no timings).

    ``stop``: ``"stall"`` (every trajectory reached ``stall_kicks`` kicks in a row without
    improvement), ``"time_limit"`` (some trajectory was still searching at the deadline),
    ``"max_kicks"`` (the fixed kick budget was spent) or ``"no_moves"`` (tour too small to kick).
    ``kicks``: kicks done per trajectory (worker order); ``stall_kicks``: the stall budget
    (None with ``max_kicks``)."""

    stop: str
    kicks: tuple[int, ...]
    stall_kicks: int | None


def stall_budget(n: int) -> int:
    """Kicks in a row without improvement after which one ILS trajectory over ``n`` nodes stops."""
    return max(STALL_KICKS_MIN, STALL_KICKS_PER_NODE * int(n))


_STOP_RANK = {"no_moves": 0, "stall": 1, "max_kicks": 2, "time_limit": 3}


def _ils_tour(
    M: np.ndarray, deadline: float, seed: int, *, workers: int = 1, max_kicks: int | None = None, neighbours: int = 10
) -> tuple[np.ndarray, SearchReport]:
    sym = bool(np.array_equal(M, M.T))
    nb = _neighbours(M, neighbours)
    n = M.shape[0]
    stall = None if max_kicks is not None else stall_budget(n)
    runners: list[_Runner | None] = [None] * max(1, workers)

    def work(w: int) -> None:
        r = _Runner(M, nb, sym, seed if workers <= 1 else seed * 7919 + w)
        runners[w] = r
        r.run_until(deadline, max_kicks, stall)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(1, workers)]
    for th in threads:
        th.start()
    work(0)
    for th in threads:
        th.join()
    done = [r for r in runners if r is not None]
    best = min(done, key=lambda r: (r.best, done.index(r)))
    stop = max((r.stop for r in done), key=lambda x: _STOP_RANK.get(x, 9))
    return best.best_t.copy(), SearchReport(stop=stop, kicks=tuple(r.kicks for r in done), stall_kicks=stall)


def _small_tour(M: np.ndarray) -> np.ndarray:
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


def _default_workers() -> int:
    return 2 if (os.cpu_count() or 1) >= 2 else 1


def _kernels():
    """The numba ILS kernel module, or None when it cannot be used."""
    try:
        from . import _ils
    except Exception:  # pragma: no cover - e.g. numba cache dir problems
        return None
    return _ils if _ils.HAVE_NUMBA else None


def _solve_tour_matrix(
    M: np.ndarray,
    time_limit_s: float,
    seed: int,
    engine: str,
    workers: int | None,
    max_kicks: int | None,
    t_start: float,
) -> tuple[np.ndarray, str, SearchReport | None]:
    n = M.shape[0]
    if n <= 8:
        return _small_tour(M), "enumeration", None
    if engine == "auto":
        # a fixed kick budget asks for the deterministic ILS (pure Python without numba)
        engine = "ils" if (_kernels() is not None or max_kicks is not None) else "ortools"
    if engine == "ils":
        warm_up()
        deadline = t_start + float(time_limit_s)
        w = _default_workers() if workers is None else int(workers)
        if max_kicks is not None:
            w = 1  # deterministic single trajectory
        tour, report = _ils_tour(M, deadline, seed, workers=w, max_kicks=max_kicks)
        return tour, "ils_2opt_oropt", report
    if engine == "ortools":
        remaining = max(0.05, t_start + float(time_limit_s) - time.perf_counter())
        return _ortools_tour(M, remaining), "ortools_gls", None
    raise ValueError(f"unknown engine {engine!r}")


def heuristic_path(
    cost,
    stops,
    *,
    start,
    end,
    time_limit_s: float,
    seed: int = 0,
    engine: str = "auto",
    workers: int | None = None,
    max_kicks: int | None = None,
) -> OrderSolution:
    """Heuristic stop order within ``time_limit_s`` seconds of wall time.

    ``engine``: ``"ils"`` (own iterated 2-opt/Or-opt local search, numba),
    ``"ortools"`` (OR-Tools guided local search) or ``"auto"`` (ILS when numba
    is installed, else OR-Tools).  ``max_kicks`` replaces the time limit by a
    fixed number of ILS perturbations, which makes the result deterministic
    for a given ``seed``.  With a time limit the result may vary between runs
    (the number of iterations depends on machine speed; ``workers=2`` runs two
    seeds in parallel threads), and the search ends early once every trajectory
    has done :func:`stall_budget` kicks in a row without improvement
    (``search.stop == "stall"``; the time limit stays the cap).
    """
    t_start = time.perf_counter()
    c = _as_matrix(cost)
    stops = _check(c, stops, start, end)
    k = len(stops)
    if k == 0:
        return OrderSolution((), path_cost(c, (), start=start, end=end), "enumeration", True)
    M = _reduce(c, stops, start, end)
    tour, method, report = _solve_tour_matrix(M, time_limit_s, seed, engine, workers, max_kicks, t_start)
    # rotate so the depot (0) is first, then map back
    z = int(np.where(tour == 0)[0][0])
    tour = np.roll(tour, -z)
    order = tuple(int(stops[x - 1]) for x in tour[1:])
    return OrderSolution(
        order, path_cost(c, order, start=start, end=end), method, method == "enumeration", search=report
    )


def solve_path(
    cost, stops, *, start, end, time_limit_s: float = 1.0, exact_limit: int = DEFAULT_EXACT_LIMIT, seed: int = 0
) -> OrderSolution:
    """Held-Karp when ``len(stops) <= exact_limit``, else :func:`heuristic_path`."""
    if len(stops) <= exact_limit:
        return held_karp_path(cost, stops, start=start, end=end)
    return heuristic_path(cost, stops, start=start, end=end, time_limit_s=time_limit_s, seed=seed)


def solve_tour(
    cost,
    *,
    time_limit_s: float,
    seed: int = 0,
    engine: str = "auto",
    workers: int | None = None,
    max_kicks: int | None = None,
) -> OrderSolution:
    """Closed tour over all nodes; ``order`` starts at node 0, ``cost`` includes the return."""
    t_start = time.perf_counter()
    c = _as_matrix(cost)
    n = c.shape[0]
    if n == 0:
        return OrderSolution((), 0.0, "enumeration", True)
    tour, method, report = _solve_tour_matrix(c, time_limit_s, seed, engine, workers, max_kicks, t_start)
    z = int(np.where(tour == 0)[0][0])
    tour = np.roll(tour, -z)
    order = tuple(int(x) for x in tour)
    return OrderSolution(order, _tour_len(c, order), method, method == "enumeration", search=report)
