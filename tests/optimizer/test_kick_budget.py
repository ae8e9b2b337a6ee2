"""The order search stops when it is done (issue 23 §5): kick budgets, not a clock, end every ILS trajectory, so
the same request and seed give the same order on any machine; the time limit is only a safety cap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.optimizer import held_karp_path, heuristic_path
from core.optimizer.ils import TRAJECTORIES, _neighbours, _Runner, kick_budget, stall_budget, warm_up
from core.optimizer.order_search import candidate_orders
from core.optimizer.tsp import _reduce

from .test_optimizer import instance

CAP_S = 30.0  # far above any kick budget on these sizes: reaching it would show as stop == "time_limit"


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_the_same_request_and_seed_give_the_same_order_twice(symmetric: bool):
    C, stops, start, end = instance(25, "start", symmetric, seed=31)
    a = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=5)
    b = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=5)
    assert a.search is not None and b.search is not None
    assert a.search.reproducible and b.search.reproducible
    assert a.order == b.order and a.cost == b.cost
    assert a.search.kicks == b.search.kicks  # not just the same answer: the same search, kick for kick


def test_the_answer_does_not_depend_on_threads_or_timing():
    """The trajectories run in threads; run one after the other with no clock they give the same tour."""
    warm_up()
    C, stops, start, end = instance(22, "round", False, seed=8)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=3)
    assert sol.search is not None and len(sol.search.kicks) == TRAJECTORIES
    M = _reduce(C, stops, start, end)
    nb = _neighbours(M, 10)
    n = M.shape[0]
    runners = []
    for w in range(TRAJECTORIES):
        r = _Runner(M, nb, False, 3 * 7919 + w)
        r.run_until(math.inf, kick_budget(n), stall_budget(n))
        runners.append(r)
    assert tuple(r.kicks for r in runners) == sol.search.kicks
    best = min(runners, key=lambda r: r.best)
    tour = [int(x) for x in best.best_t]
    assert sol.order == tuple(stops[x - 1] for x in tour[1:])


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_a_25_stop_search_ends_on_its_kick_budget_not_the_clock(symmetric: bool):
    C, stops, start, end = instance(25, "start", symmetric, seed=25)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=0)
    assert sol.search is not None
    assert sol.search.stop in {"stall", "max_kicks"}
    assert sol.search.stall_kicks == stall_budget(26) and sol.search.max_kicks == kick_budget(26)
    assert all(stall_budget(26) <= k <= kick_budget(26) for k in sol.search.kicks)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["start", "round"])
def test_a_small_instances_ils_order_is_the_held_karp_optimum(mode: str, seed: int):
    C, stops, start, end = instance(14, mode, False, seed=900 + seed)
    opt = held_karp_path(C, stops, start=start, end=end)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=CAP_S, seed=0)
    assert sol.search is not None and sol.search.stop == "stall"
    assert sol.order == opt.order


def test_a_search_cut_by_the_cap_says_so_and_is_not_reproducible():
    C, stops, start, end = instance(25, "start", False, seed=25)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=1e-4, seed=0)
    assert sol.search is not None and sol.search.stop == "time_limit" and not sol.search.reproducible
    assert sorted(sol.order) == sorted(stops)


def test_the_planners_order_search_reports_what_stopped_it():
    C, stops, start, end = instance(20, "start", False, seed=4)
    D = C * 0.07 + 5.0  # a second objective, as a duration matrix
    np.fill_diagonal(D, 0.0)
    pool, info = candidate_orders(
        C, D, stops, start=start, end=end, max_permutations=24, exact_limit=15, time_limit_s=CAP_S, seed=0
    )
    again, info2 = candidate_orders(
        C, D, stops, start=start, end=end, max_permutations=24, exact_limit=15, time_limit_s=CAP_S, seed=0
    )
    assert info.method == "heuristic" and info.search_stop in {"stall", "max_kicks"}
    assert pool == again and info.kicks == info2.kicks
