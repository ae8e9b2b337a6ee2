"""The ILS early stop (core/optimizer/ils.py): a trajectory ends after stall_budget(n) kicks in a row without
improvement or kick_budget(n) kicks in all; the time limit stays a safety cap; max_kicks runs are unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from core.optimizer import held_karp_path, heuristic_path, solve_tour
from core.optimizer.ils import (
    MAX_KICKS_PER_NODE,
    STALL_KICKS_PER_NODE,
    TRAJECTORIES,
    _neighbours,
    _Runner,
    kick_budget,
    stall_budget,
    warm_up,
)
from core.optimizer.tsp import _reduce

from .test_optimizer import instance, manual_cost

# a cap far above any stall stop on these sizes: reaching it would show as stop == "time_limit"
CAP_S = 30.0


def test_stall_and_kick_budgets_scale_with_nodes():
    assert stall_budget(30) == 30 * STALL_KICKS_PER_NODE == 750
    assert stall_budget(61) == 1525
    assert stall_budget(14) == stall_budget(3) == 500  # floor for small tours
    assert kick_budget(26) == 26 * MAX_KICKS_PER_NODE == 26000
    assert kick_budget(3) == 3000


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("mode", ["start", "none", "round"])
@pytest.mark.parametrize("k", [13, 16])
def test_early_stop_ends_on_stall_with_the_held_karp_optimum(k, mode, symmetric):
    C, stops, start, end = instance(k, mode, symmetric, seed=700 + k)
    opt = held_karp_path(C, stops, start=start, end=end)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=0)
    assert sol.search is not None
    assert sol.search.stop == "stall"
    assert sol.search.stall_kicks == stall_budget(k + 1)  # k stops + the merged start/end node
    assert len(sol.search.kicks) == TRAJECTORIES
    assert all(kicks >= stall_budget(k + 1) for kicks in sol.search.kicks)
    assert sorted(sol.order) == sorted(stops)
    assert abs(sol.cost - manual_cost(C, sol.order, start, end)) <= 1e-9 * sol.cost
    assert abs(sol.cost - opt.cost) <= 1e-9 * opt.cost


def test_integer_lengths_stop_on_stall():
    # 30 stops on a 6 x 6 grid with integer Manhattan lengths: many tours of equal length, which the search
    # wanders over (accept if not worse); tours equal up to float rounding are no improvement, so it stops
    xs, ys = np.meshgrid(np.arange(6), np.arange(6))
    P = np.c_[xs.ravel(), ys.ravel()][:32] * 100
    C = np.abs(P[:, None, :] - P[None, :, :]).sum(-1).astype(float)
    stops = list(range(30))
    sol = heuristic_path(C, stops, start=30, end=31, time_limit_s=CAP_S, seed=0)
    assert sol.search is not None and sol.search.stop == "stall"
    assert sorted(sol.order) == stops
    # a path through 30 grid points spaced 100 apart takes at least 29 steps of 100, + the legs to 30 and 31
    assert sol.cost >= 2900 + C[30, sol.order[0]] + C[sol.order[-1], 31]


def test_closed_tour_reports_stall_and_full_search_reports_time_limit():
    P = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 20, endpoint=False)]) * 1000
    D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    early = solve_tour(D, time_limit_s=CAP_S, workers=1)
    assert early.search is not None and early.search.stop == "stall"
    assert early.order == tuple(range(20)) or early.order == (0, *range(19, 0, -1))  # the convex polygon
    full = solve_tour(D, time_limit_s=0.05, workers=1, early_stop=False)
    assert full.search is not None and full.search.stop == "time_limit" and full.search.stall_kicks is None
    assert abs(full.cost - early.cost) <= 1e-9 * early.cost


def test_max_kicks_run_is_not_cut_by_the_stall_budget():
    C, stops, start, end = instance(13, "start", True, seed=5)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=3, max_kicks=8000)
    assert sol.search is not None
    assert sol.search.stop == "max_kicks"
    assert sol.search.kicks == (8000,)  # more than stall_budget(14) = 500: all kicks are done
    assert sol.search.stall_kicks is None


def test_kernel_stops_at_the_same_kick_however_the_work_is_split():
    warm_up()
    C, stops, start, end = instance(25, "start", False, seed=11)
    M = _reduce(C, stops, start, end)
    nb = _neighbours(M, 10)
    limit = 700
    whole = _Runner(M, nb, False, 4)
    done = whole.run(10**7, limit)
    assert done < 10**7 and whole.stalled == limit
    assert whole.run(10**7, limit) == 0  # already stalled: no further kick
    pieces = _Runner(M, nb, False, 4)
    while pieces.stalled < limit:
        pieces.run(37, limit)
    assert pieces.kicks == whole.kicks
    assert np.array_equal(pieces.best_t, whole.best_t)
    assert pieces.best == whole.best
