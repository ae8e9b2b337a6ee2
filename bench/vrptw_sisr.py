"""Numba kernels for the VRPTW distance phase: SISR ruin & recreate with simulated annealing.

Slack Induction by String Removals (Christiaens & Vanden Berghe, 2020), fleet capped at the number of
routes of the start solution. Works on the integer model of :mod:`bench.vrptw_solver`
(``T[i, j]`` = service time of ``i`` + travel time ``i -> j`` rounded up, windows scaled, ``C`` = rounded
distance x SCALE), so every route it produces is feasible in double precision as well (the caller still
re-checks with ``check_solution``).

Route state (per route slot ``k``): customers ``rt[k, :rlen[k]]``, earliest service starts ``A[k, i]``
(forward pass) and latest feasible service starts ``Z[k, i]`` (backward pass, "slack" array), load and
cost. Inserting ``v`` between positions ``p-1`` and ``p`` is feasible iff the load fits, ``v`` is reached by
its due time and the next node is reached by its ``Z`` (or the depot by the horizon): O(1) per position.

Determinism: the kernels draw from numba's own generator, seeded by :func:`seed_rng`; with an iteration
budget (``max_iterations``) a run is reproducible.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from bench.vrptw_kernels import (
    _copy_route,
    _recreate,
    _route_state,
    _ruin,
    _scratch,
    routes_feasible_int,
    seed_rng,
)

__all__ = ["SisrData", "sisr_chunk", "sisr_fleet_chunk", "run_sisr", "reduce_fleet", "kick_and_repair", "warmup"]


@njit(cache=True)
def sisr_chunk(
    T,
    C,
    e,
    l,
    q,
    Q,
    H,
    neigh,
    rt,
    rlen,
    pool,
    npool,
    best_rt,
    best_rlen,
    best_key,
    iters,
    temp0,
    temp1,
    cbar,
    lmax,
    blink,
    beta,
    penalty,
):
    """Run ``iters`` SISR iterations from the current solution ``rt/rlen`` (updated in place).

    The current solution may leave customers unassigned (``pool[:npool[0]]``, updated in place); each
    costs ``penalty`` in the annealing objective (a huge penalty = only complete solutions are accepted).

    The temperature falls geometrically from ``temp0`` to ``temp1`` over the chunk. ``best_rt/best_rlen``
    hold the best complete solution seen, ``best_key = [vehicles, cost]`` its key (updated in place).
    Returns the number of accepted moves.
    """
    R = rt.shape[0]
    n = T.shape[0]
    A, Z, load, rcost, wrt, wlen, wA, wZ, wload, wcost = _route_state(T, C, e, l, q, H, rt, rlen)
    np_cur = npool[0]
    cur_cost = penalty * np_cur
    for k in range(R):
        cur_cost += rcost[k]
    rof, pof, removed, keys, touched, ruined, is_rem, unassigned_out = _scratch(n, R)
    accepted = 0
    ratio = 1.0
    if iters > 1 and temp0 > 0 and temp1 > 0:
        ratio = (temp1 / temp0) ** (1.0 / (iters - 1))
    temp = temp0
    for _it in range(iters):
        # ---------------- ruin
        for i in range(np_cur):
            removed[i] = pool[i]
        nrem = _ruin(
            T,
            C,
            e,
            l,
            q,
            H,
            neigh,
            wrt,
            wlen,
            wA,
            wZ,
            wload,
            wcost,
            touched,
            ruined,
            rof,
            pof,
            removed,
            np_cur,
            is_rem,
            cbar,
            lmax,
            beta,
        )
        # ---------------- recreate
        unassigned = _recreate(
            T,
            C,
            e,
            l,
            q,
            Q,
            H,
            wrt,
            wlen,
            wA,
            wZ,
            wload,
            wcost,
            touched,
            removed,
            nrem,
            keys,
            is_rem,
            blink,
            unassigned_out,
        )
        new_cost = penalty * unassigned
        for k in range(R):
            new_cost += wcost[k]
        # ---------------- acceptance (simulated annealing)
        thr = cur_cost
        if temp > 0:
            thr = cur_cost - temp * math.log(1.0 - np.random.random())
        if new_cost < thr:
            accepted += 1
            cur_cost = new_cost
            np_cur = unassigned
            for i in range(unassigned):
                pool[i] = unassigned_out[i]
            for k in range(R):
                if touched[k]:
                    _copy_route(wrt, wlen, wA, wZ, wload, wcost, rt, rlen, A, Z, load, rcost, k)
            if unassigned > 0:
                temp *= ratio
                continue
            nveh = 0
            for k in range(R):
                if rlen[k] > 0:
                    nveh += 1
            if nveh < best_key[0] or (nveh == best_key[0] and new_cost < best_key[1]):
                best_key[0] = nveh
                best_key[1] = new_cost
                for k in range(R):
                    best_rlen[k] = rlen[k]
                    for i in range(rlen[k]):
                        best_rt[k, i] = rt[k, i]
        else:
            for k in range(R):
                if touched[k]:
                    _copy_route(rt, rlen, A, Z, load, rcost, wrt, wlen, wA, wZ, wload, wcost, k)
        temp *= ratio
    npool[0] = np_cur
    return accepted


@njit(cache=True)
def sisr_fleet_chunk(T, C, e, l, q, Q, H, neigh, rt, rlen, pool, npool, absn, iters, cbar, lmax, blink, beta):
    """Fleet minimisation (SISR paper, section 5): ``rt/rlen`` (one slot fewer than before) plus the
    unassigned customers ``pool[:npool[0]]``. Each iteration ruins and recreates (pool customers included);
    ``absn[c]`` counts how often ``c`` stayed unassigned. A candidate is accepted if it leaves fewer
    customers out, or the same number with a smaller sum of absences. Returns True as soon as the pool is
    empty (then ``rt/rlen`` is complete); state is updated in place either way.
    """
    R = rt.shape[0]
    n = T.shape[0]
    A, Z, load, rcost, wrt, wlen, wA, wZ, wload, wcost = _route_state(T, C, e, l, q, H, rt, rlen)
    rof, pof, removed, keys, touched, ruined, is_rem, unassigned_out = _scratch(n, R)
    np_cur = npool[0]
    abs_cur = 0
    for i in range(np_cur):
        abs_cur += absn[pool[i]]
    for _it in range(iters):
        for i in range(np_cur):
            removed[i] = pool[i]
        nrem = _ruin(
            T,
            C,
            e,
            l,
            q,
            H,
            neigh,
            wrt,
            wlen,
            wA,
            wZ,
            wload,
            wcost,
            touched,
            ruined,
            rof,
            pof,
            removed,
            np_cur,
            is_rem,
            cbar,
            lmax,
            beta,
        )
        nu = _recreate(
            T,
            C,
            e,
            l,
            q,
            Q,
            H,
            wrt,
            wlen,
            wA,
            wZ,
            wload,
            wcost,
            touched,
            removed,
            nrem,
            keys,
            is_rem,
            blink,
            unassigned_out,
        )
        abs_new = 0
        for i in range(nu):
            absn[unassigned_out[i]] += 1
            abs_new += absn[unassigned_out[i]]
        if nu < np_cur or abs_new < abs_cur:
            np_cur = nu
            abs_cur = abs_new
            for i in range(nu):
                pool[i] = unassigned_out[i]
            for k in range(R):
                if touched[k]:
                    _copy_route(wrt, wlen, wA, wZ, wload, wcost, rt, rlen, A, Z, load, rcost, k)
            if nu == 0:
                npool[0] = 0
                return True
        else:
            for k in range(R):
                if touched[k]:
                    _copy_route(rt, rlen, A, Z, load, rcost, wrt, wlen, wA, wZ, wload, wcost, k)
    npool[0] = np_cur
    return False


def reduce_fleet(
    data: SisrData,
    routes: list[list[int]],
    *,
    deadline: float,
    seed: int = 0,
    lower_bound: int = 1,
    stall_s: float | None = None,
    cbar: float = 10.0,
    lmax: float = 10.0,
    blink: float = 0.01,
    beta: float = 0.5,
    chunk: int = 500,
    log=None,
    on_improve=None,
) -> list[list[int]]:
    """Remove routes one at a time with :func:`sisr_fleet_chunk` until the deadline (or ``stall_s`` without
    success, or ``lower_bound`` routes). Returns the complete solution with the fewest routes found;
    ``on_improve(routes)`` is called with each new one (e.g. to share it with other workers at once)."""
    best = [list(r) for r in routes if r]
    seed_rng(int(seed) % (2**31 - 1))
    rng = np.random.default_rng(seed)
    absn = np.ones(data.n, dtype=np.int64)
    last = time.monotonic()
    while len(best) > lower_bound:
        now = time.monotonic()
        if now >= deadline or (stall_s is not None and now - last > stall_s):
            break
        # dissolve one of the three smallest routes
        order = sorted(range(len(best)), key=lambda i: (sum(data.q[c] for c in best[i]) + len(best[i]), rng.random()))
        drop = order[int(rng.integers(min(3, len(order))))]
        keep = [r for i, r in enumerate(best) if i != drop]
        rt, rlen = data.to_arrays(keep, len(keep))
        pool = np.zeros(data.n, dtype=np.int64)
        pool[: len(best[drop])] = best[drop]
        npool = np.array([len(best[drop])], dtype=np.int64)
        ok = False
        while True:
            now = time.monotonic()
            if now >= deadline or (stall_s is not None and now - last > stall_s):
                break
            if sisr_fleet_chunk(
                data.T,
                data.C,
                data.e,
                data.l,
                data.q,
                data.Q,
                data.H,
                data.neigh,
                rt,
                rlen,
                pool,
                npool,
                absn,
                chunk,
                cbar,
                lmax,
                blink,
                beta,
            ):
                ok = True
                break
        if not ok:
            break
        new = data.from_arrays(rt, rlen)
        if not data.feasible(new) or sorted(c for r in new for c in r) != list(range(1, data.n)):
            break  # never expected; keep the last verified solution
        best = new
        last = time.monotonic()
        if log:
            log(f"  fm -> {len(best)}")
        if on_improve is not None:
            on_improve(best)
    return best


def kick_and_repair(
    data: SisrData,
    routes: list[list[int]],
    *,
    n_remove: int,
    deadline: float | None = None,
    max_chunks: int | None = None,
    seed: int = 0,
    cbar: float = 10.0,
    lmax: float = 10.0,
    blink: float = 0.01,
    beta: float = 0.5,
    chunk: int = 200,
) -> list[list[int]] | None:
    """Jump to a neighbouring basin at the same fleet size: remove a random customer and its ``n_remove - 1``
    nearest neighbours, then re-insert them with fleet-minimisation iterations (absence counters, no cost
    criterion) on the same number of routes. Returns the complete solution, or None if the pool was not
    emptied by ``deadline`` / within ``max_chunks`` chunks (at least one of them must be given)."""
    if deadline is None and max_chunks is None:
        raise ValueError("give a deadline or max_chunks")
    routes = [list(r) for r in routes if r]
    if not routes:
        return None
    seed_rng(int(seed) % (2**31 - 1))
    rng = np.random.default_rng(seed)
    centre = int(rng.integers(1, data.n))
    n_remove = max(1, min(int(n_remove), data.n - 1))
    # neigh[centre] lists every customer by distance, the centre itself among the first
    gone = {centre, *[int(c) for c in data.neigh[centre] if c != centre][: n_remove - 1]}
    rt, rlen = data.to_arrays([[c for c in r if c not in gone] for r in routes], len(routes))
    pool = np.zeros(data.n, dtype=np.int64)
    pool[: len(gone)] = sorted(gone)
    npool = np.array([len(gone)], dtype=np.int64)
    absn = np.ones(data.n, dtype=np.int64)
    chunks = 0
    while (deadline is None or time.monotonic() < deadline) and (max_chunks is None or chunks < max_chunks):
        chunks += 1
        if sisr_fleet_chunk(
            data.T,
            data.C,
            data.e,
            data.l,
            data.q,
            data.Q,
            data.H,
            data.neigh,
            rt,
            rlen,
            pool,
            npool,
            absn,
            chunk,
            cbar,
            lmax,
            blink,
            beta,
        ):
            new = data.from_arrays(rt, rlen)
            return new if data.feasible(new) else None
    return None


class SisrData:
    """Integer arrays of one instance for the kernels (row indices; 0 = depot)."""

    def __init__(self, transit, cost, ready, due, demand, capacity):
        self.T = np.ascontiguousarray(np.asarray(transit, dtype=np.int64))
        self.C = np.ascontiguousarray(np.asarray(cost, dtype=np.int64))
        self.e = np.ascontiguousarray(np.asarray(ready, dtype=np.int64))
        self.l = np.ascontiguousarray(np.asarray(due, dtype=np.int64))
        self.q = np.ascontiguousarray(np.asarray(demand, dtype=np.int64))
        self.Q = int(capacity)
        self.H = int(self.l[0])
        n = self.T.shape[0]
        self.n = n
        nb = np.zeros((n, max(1, n - 1)), dtype=np.int64)
        for i in range(n):
            cand = np.arange(1, n)
            if len(cand):
                nb[i] = cand[np.argsort(self.C[i, 1:], kind="stable")]
        self.neigh = nb

    def to_arrays(self, routes, slots):
        rt = np.zeros((slots, self.n + 1), dtype=np.int64)
        rlen = np.zeros(slots, dtype=np.int64)
        for k, r in enumerate(routes):
            rt[k, : len(r)] = r
            rlen[k] = len(r)
        return rt, rlen

    @staticmethod
    def from_arrays(rt, rlen):
        return [[int(x) for x in rt[k, : rlen[k]]] for k in range(len(rlen)) if rlen[k] > 0]

    def cost(self, routes) -> int:
        s = 0
        for r in routes:
            prev = 0
            for c in r:
                s += int(self.C[prev, c])
                prev = c
            if r:
                s += int(self.C[prev, 0])
        return s

    def feasible(self, routes) -> bool:
        rt, rlen = self.to_arrays(routes, max(1, len(routes)))
        return bool(routes_feasible_int(self.T, self.C, self.e, self.l, self.q, self.Q, self.H, rt, rlen))


def warmup() -> None:
    """Compile (or load from the on-disk cache) the kernels on a tiny instance."""
    T = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=np.int64)
    d = SisrData(T, T, [0, 0, 0], [100, 50, 50], [0, 1, 1], 10)
    run_sisr(d, [[1], [2]], max_iterations=3, seed=0)
    reduce_fleet(d, [[1], [2]], deadline=time.monotonic() + 5.0, seed=0)


def run_sisr(
    data: SisrData,
    routes: list[list[int]],
    *,
    deadline: float | None = None,
    max_iterations: int | None = None,
    seed: int = 0,
    temp0: float = 10_000.0,
    temp1: float = 10.0,
    cbar: float = 10.0,
    lmax: float = 10.0,
    blink: float = 0.01,
    beta: float = 0.5,
    penalty: float | None = None,
    chunk: int = 2000,
    schedule: tuple[float, float] = (0.0, 1.0),
) -> list[list[int]]:
    """SISR from ``routes`` (row-index routes, all feasible) with at most ``len(routes)`` routes.

    Stops at ``deadline`` (time.monotonic()) or after ``max_iterations``, whichever comes first (at least one
    of them must be given). The temperature follows the elapsed share of time (or of iterations when only
    ``max_iterations`` is given, which makes the run reproducible). Returns the best complete solution
    (fewest routes, then cost).

    ``penalty``: None = only complete solutions are accepted; otherwise the search may leave customers
    unassigned at ``penalty`` x twice the mean depot distance each (only complete solutions are returned).

    ``schedule = (f0, f1)``: this call covers the part ``f0 .. f1`` of a longer annealing schedule from
    ``temp0`` to ``temp1`` (a search split into epochs keeps one falling temperature across them).
    """
    if deadline is None and max_iterations is None:
        raise ValueError("give a deadline or max_iterations")
    routes = [list(r) for r in routes if r]
    if not routes:
        return routes
    slots = len(routes)
    rt, rlen = data.to_arrays(routes, slots)
    best_rt, best_rlen = rt.copy(), rlen.copy()
    best_key = np.array([slots, data.cost(routes)], dtype=np.int64)
    pool = np.zeros(data.n, dtype=np.int64)
    npool = np.zeros(1, dtype=np.int64)
    if penalty is None:
        pen = 10**12
    else:
        pen = int(penalty * 2.0 * float(data.C[0, 1:].mean()))
    seed_rng(int(seed) % (2**31 - 1))
    start = time.monotonic()
    done = 0
    iter_mode = max_iterations is not None  # temperature follows iterations: reproducible
    while True:
        if max_iterations is not None and done >= max_iterations:
            break
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        if iter_mode:
            f0 = done / max_iterations
            n_it = min(chunk, max_iterations - done)
            f1 = (done + n_it) / max_iterations
        else:
            span = max(1e-3, deadline - start)
            f0 = (now - start) / span
            n_it = chunk if max_iterations is None else min(chunk, max_iterations - done)
            # guess the share of time this chunk takes from the speed so far
            rate = (now - start) / done if done else 0.0
            f1 = min(1.0, f0 + rate * n_it / span) if done else f0
        g0, g1 = schedule
        t_a = temp0 * (temp1 / temp0) ** (g0 + (g1 - g0) * min(1.0, f0))
        t_b = temp0 * (temp1 / temp0) ** (g0 + (g1 - g0) * min(1.0, f1))
        sisr_chunk(
            data.T,
            data.C,
            data.e,
            data.l,
            data.q,
            data.Q,
            data.H,
            data.neigh,
            rt,
            rlen,
            pool,
            npool,
            best_rt,
            best_rlen,
            best_key,
            n_it,
            t_a,
            t_b,
            cbar,
            lmax,
            blink,
            beta,
            pen,
        )
        done += n_it
    run_sisr.iterations = done
    return data.from_arrays(best_rt, best_rlen)
