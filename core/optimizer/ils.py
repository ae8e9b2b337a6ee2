"""Iterated local search driver for closed tours (the numba kernels are in ``_ils.py``).

One trajectory (:class:`_Runner`) starts from a nearest-neighbour tour, applies 2-opt + Or-opt and then
kicks (segment-local double bridge + local search, accept if not worse) until its stall budget
(:func:`stall_budget`) or kick budget (:func:`kick_budget`) is spent, the deadline only a safety cap.
:func:`_ils_tour` runs :data:`TRAJECTORIES` seeded trajectories on threads (numba ``nogil``) and keeps the best.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import numpy as np

from core.optimizer.arrays import Floats, Nodes


def _neighbours(M: Floats, K: int) -> Nodes:
    n = M.shape[0]
    K = max(1, min(K, n - 1))
    S = M + M.T  # a new array: the diagonal may be overwritten
    np.fill_diagonal(S, np.inf)
    nb = np.argsort(S, axis=1, kind="stable")[:, :K]
    return np.ascontiguousarray(nb.astype(np.int64))


class _Runner:
    """One ILS trajectory (numba kernels) on tour matrix ``M``."""

    def __init__(self, M: Floats, nb: Nodes, sym: bool, seed: int, init: Nodes | None = None) -> None:
        from . import _ils

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
        self.stop: SearchStop | None = None  # set when run_until returns

    def run(self, n_kicks: int, stall_limit: int = 0) -> int:
        """Up to ``n_kicks`` kicks, fewer once ``stall_limit`` (> 0) kicks in a row brought no improvement.

        Returns the number of kicks done."""
        from . import _ils

        if not self._seeded:
            _ils.seed_rng(self.seed)
            self._seeded = True
        cur, best, done, stalled = _ils.ils(
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
        self.cur = float(_ils.tour_cost(self.M, self.t))
        self.best = float(_ils.tour_cost(self.M, self.best_t))
        if self.cur < self.best:
            self.best = self.cur
            self.best_t[:] = self.t
        self.kicks += int(done)
        self.stalled = int(stalled)
        return int(done)

    def run_until(self, deadline: float, max_kicks: int | None = None, stall_kicks: int | None = None) -> None:
        """Kick until ``max_kicks`` kicks are done or ``stall_kicks`` kicks in a row brought no improvement,
        with the deadline as a safety cap; ``self.stop`` tells which ("max_kicks", "stall", "time_limit").
        Both budgets count exact kicks, so unless the cap ends it the trajectory is the same on any machine."""
        chunk = 50
        limit = int(stall_kicks) if stall_kicks else 0
        while True:
            if limit and self.stalled >= limit:
                self.stop = "stall"
                return
            if max_kicks is not None and self.kicks >= max_kicks:
                self.stop = "max_kicks"
                return
            if time.perf_counter() >= deadline:
                self.stop = "time_limit"
                return
            if max_kicks is not None:
                chunk = min(chunk, max_kicks - self.kicks)
            t0 = time.perf_counter()
            done = self.run(chunk, limit)
            if done == 0 and not (limit and self.stalled >= limit):
                self.stop = "no_moves"  # fewer than 5 nodes: nothing to kick
                return
            if deadline != math.inf:
                dt = max(time.perf_counter() - t0, 1e-6)
                remaining = deadline - time.perf_counter()
                # aim for ~20 ms chunks, never overshoot the deadline by much
                per = dt / max(done, 1)
                chunk = int(max(1, min(0.02, max(remaining, 0.0)) / per))
            else:
                chunk = 1000


_WARM_LOCK = threading.Lock()
_WARMED = threading.Event()  # the kernels are compiled for this process (numba keeps them; nothing of a request)


def warm_up() -> bool:
    """Compile (or load from numba's on-disk cache) the ILS kernels.

    Returns False when numba is not installed.  Safe to call repeatedly.
    """
    with _WARM_LOCK:
        if _WARMED.is_set():
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
        _WARMED.set()
        return True


def _kernels() -> ModuleType | None:
    """The numba ILS kernel module, or None when it cannot be used."""
    try:
        from . import _ils
    except Exception:  # pragma: no cover - e.g. numba cache dir problems
        return None
    return _ils if _ils.HAVE_NUMBA else None


#: The ILS stops when it is done, not at a clock (issue 23 §5): each trajectory stops once
#: ``STALL_KICKS_PER_NODE * n`` kicks in a row (n = tour nodes, at least ``STALL_KICKS_MIN``) brought no
#: improvement of its best tour by more than its ``eps``, or after ``MAX_KICKS_PER_NODE * n`` kicks in all.
#: Both count exact kicks in the kernel and every trajectory has its own seed, so a request gives the same order
#: on any machine; the time limit stays only as a safety cap (a search it ends says ``time_limit`` and is not
#: reproducible).  The budget scales with n because a kick only touches a few nodes, so covering the tour takes
#: ~n kicks.  K = 25 from 2,136 traced trajectories on the strategy lab's own matrices (89 requests of 16-25
#: stops, driving and walking, both objectives, 6 seeds, 1000 n kicks each) and 48 on TSPLIB (<= 150 nodes):
#: with 4 trajectories, K = 10-100 all found the best known on 354 of the 356 lab problems and on every
#: TSPLIB instance; the last improvement came after 1 n kicks at the median, 37 n at p99 and 521 n once.
#: Figures and commands: docs/BENCHMARKS.md ("Early stop").
STALL_KICKS_PER_NODE = 25
STALL_KICKS_MIN = 500
MAX_KICKS_PER_NODE = 1000
#: independent trajectories per search, each with its own seed: fixed, not the machine's core count, so the
#: same request gives the same order everywhere (threads only change how fast they finish).  Several short
#: trajectories beat a few long ones: the lab's misses were trajectories stuck in one basin from their first few
#: kicks on (no stall budget up to 1000 n freed them), which another seed's trajectory avoided.
TRAJECTORIES = 4

#: how a search can end (SearchReport.stop)
SearchStop = Literal["stall", "max_kicks", "no_moves", "time_limit"]
#: the first three are kick budgets (the same on any machine)
REPRODUCIBLE_STOPS: frozenset[SearchStop] = frozenset({"stall", "max_kicks", "no_moves"})


@dataclass(frozen=True)
class SearchReport:
    """How the iterated local search ended (machine-independent facts, no timings).

    ``stop``: ``"stall"`` (every trajectory reached ``stall_kicks`` kicks in a row without
    improvement), ``"max_kicks"`` (some trajectory spent the kick budget ``max_kicks``),
    ``"time_limit"`` (some trajectory was still searching at the safety cap) or ``"no_moves"`` (tour
    too small to kick).  ``kicks``: kicks done per trajectory (trajectory order); ``stall_kicks``: the
    stall budget (None without an early stop)."""

    stop: SearchStop
    kicks: tuple[int, ...]
    stall_kicks: int | None
    max_kicks: int | None = None

    @property
    def reproducible(self) -> bool:
        """A kick budget ended every trajectory: the same instance and seed give the same tour anywhere."""
        return self.stop in REPRODUCIBLE_STOPS


def stall_budget(n: int) -> int:
    """Kicks in a row without improvement after which one ILS trajectory over ``n`` nodes stops."""
    return max(STALL_KICKS_MIN, STALL_KICKS_PER_NODE * int(n))


def kick_budget(n: int) -> int:
    """Kicks after which one ILS trajectory over ``n`` nodes stops even while it still improves."""
    return max(stall_budget(n), MAX_KICKS_PER_NODE * int(n))


STOP_RANK: dict[SearchStop, int] = {"no_moves": 0, "stall": 1, "max_kicks": 2, "time_limit": 3}


def _ils_tour(
    M: Floats,
    deadline: float,
    seed: int,
    *,
    workers: int = TRAJECTORIES,
    max_kicks: int | None = None,
    neighbours: int = 10,
    early_stop: bool = True,
) -> tuple[Nodes, SearchReport]:
    """The best of ``workers`` trajectories (seeds ``seed * 7919 + w``; one trajectory: ``seed``).

    Default: each stops on its stall or kick budget, the deadline a safety cap.  ``max_kicks``: exactly that
    many kicks, no stall stop, no deadline (a fixed budget).  ``early_stop=False``: until the deadline (benches)."""
    sym = bool(np.array_equal(M, M.T))
    nb = _neighbours(M, neighbours)
    n = M.shape[0]
    stall: int | None
    if max_kicks is not None:
        stall, cap, until = None, int(max_kicks), math.inf
    elif early_stop:
        stall, cap, until = stall_budget(n), kick_budget(n), deadline
    else:
        stall, cap, until = None, None, deadline
    workers = max(1, workers)
    runners: list[_Runner | None] = [None] * workers
    # budgeted trajectories may share a thread (one after the other); clock-bound ones each need their own
    n_threads = workers if cap is None else max(1, min(workers, os.cpu_count() or 1))

    def work(first: int) -> None:
        # whole trajectories per thread (numba's random state is per thread, seeded when a trajectory starts)
        for w in range(first, workers, n_threads):
            r = _Runner(M, nb, sym, seed if workers == 1 else seed * 7919 + w)
            runners[w] = r
            r.run_until(until, cap, stall)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(1, n_threads)]
    for th in threads:
        th.start()
    work(0)
    for th in threads:
        th.join()
    done = [r for r in runners if r is not None]
    best = min(done, key=lambda r: (r.best, done.index(r)))
    stop = max((r.stop for r in done if r.stop is not None), key=STOP_RANK.__getitem__)  # run_until sets it
    report = SearchReport(stop=stop, kicks=tuple(r.kicks for r in done), stall_kicks=stall, max_kicks=cap)
    return best.best_t.copy(), report
