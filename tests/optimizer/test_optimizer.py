"""Tests for core.optimizer.tsp: exact solvers against brute force, heuristics, tours."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.optimizer import (
    DEFAULT_EXACT_LIMIT,
    OrderSolution,
    enumerate_paths,
    held_karp_path,
    heuristic_path,
    path_cost,
    solve_path,
    solve_tour,
)

# ---------------------------------------------------------------- helpers


def make_matrix(n: int, seed: int, symmetric: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if symmetric:
        P = rng.random((n, 2)) * 1000.0
        C = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    else:
        C = rng.random((n, n)) * 1000.0  # no structure at all, strongly asymmetric
    np.fill_diagonal(C, 0.0)
    return C


def brute_force_all(C, stops, start, end):
    """All permutations with their cost (costs summed edge by edge with numpy)."""
    k = len(stops)
    count = math.factorial(k)
    flat = itertools.chain.from_iterable(itertools.permutations(stops))
    perms = np.fromiter(flat, dtype=np.int64, count=count * k).reshape(count, k)
    costs = np.zeros(len(perms))
    if start is not None:
        costs += C[start, perms[:, 0]]
    for j in range(len(stops) - 1):
        costs += C[perms[:, j], perms[:, j + 1]]
    costs += C[perms[:, -1], end]
    return perms, costs


def brute_force(C, stops, start, end) -> float:
    return float(brute_force_all(C, stops, start, end)[1].min())


def manual_cost(C, order, start, end) -> float:
    nodes = ([start] if start is not None else []) + list(order) + [end]
    return float(sum(C[a, b] for a, b in zip(nodes, nodes[1:])))


MODES = ["start", "none", "round"]


def instance(k: int, mode: str, symmetric: bool, seed: int):
    n = k + 2
    C = make_matrix(n, seed, symmetric)
    rng = np.random.default_rng(seed + 1000)
    perm = [int(x) for x in rng.permutation(n)]
    stops = perm[:k]
    end = perm[k]
    if mode == "start":
        start = perm[k + 1]
    elif mode == "none":
        start = None
    else:
        start = end
    return C, stops, start, end


# ---------------------------------------------------------------- path_cost


def test_path_cost_hand_example():
    C = np.array([[0, 1, 2, 3], [10, 0, 4, 5], [20, 40, 0, 6], [30, 50, 60, 0]], dtype=float)
    assert path_cost(C, [1, 2], start=0, end=3) == 1 + 4 + 6
    assert path_cost(C, [2, 1], start=0, end=3) == 2 + 40 + 5
    assert path_cost(C, [2, 1], start=None, end=3) == 40 + 5
    assert path_cost(C, [1, 2], start=0, end=0) == 1 + 4 + 20
    assert path_cost(C, [], start=0, end=3) == 3
    assert path_cost(C, [], start=None, end=3) == 0


# ---------------------------------------------------------------- exact vs brute force


@pytest.mark.slow
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", range(1, 10))
def test_exact_solvers_match_brute_force(k, mode, symmetric):
    C, stops, start, end = instance(k, mode, symmetric, seed=17 * k + MODES.index(mode))
    opt = brute_force(C, stops, start, end)

    enum = enumerate_paths(C, stops, start=start, end=end)
    assert len(enum) == math.factorial(k)
    assert abs(enum[0][1] - opt) <= 1e-9
    assert all(enum[i][1] <= enum[i + 1][1] for i in range(len(enum) - 1))
    assert sorted(enum[0][0]) == sorted(stops)
    assert abs(manual_cost(C, enum[0][0], start, end) - opt) <= 1e-9

    hk = held_karp_path(C, stops, start=start, end=end)
    assert isinstance(hk, OrderSolution)
    assert hk.method == "held_karp" and hk.exact
    assert sorted(hk.order) == sorted(stops)
    assert abs(hk.cost - opt) <= 1e-9
    assert abs(manual_cost(C, hk.order, start, end) - opt) <= 1e-9

    sp = solve_path(C, stops, start=start, end=end, time_limit_s=0.2)
    assert sp.exact
    assert sorted(sp.order) == sorted(stops)
    assert abs(sp.cost - opt) <= 1e-9
    assert abs(manual_cost(C, sp.order, start, end) - opt) <= 1e-9


def test_enumerate_paths_lists_every_permutation_with_its_cost():
    C, stops, start, end = instance(5, "start", False, seed=3)
    enum = enumerate_paths(C, stops, start=start, end=end)
    assert {o for o, _ in enum} == set(itertools.permutations(stops))
    for order, cost in enum:
        assert abs(cost - manual_cost(C, order, start, end)) <= 1e-9


def test_zero_stops():
    C = make_matrix(3, 1, False)
    assert held_karp_path(C, [], start=0, end=1).cost == C[0, 1]
    assert solve_path(C, [], start=None, end=1).order == ()
    assert enumerate_paths(C, [], start=2, end=2) == [((), 0.0)]


def test_invalid_input_rejected():
    C = make_matrix(5, 1, True)
    with pytest.raises(ValueError):
        held_karp_path(C, [1, 1, 2], start=0, end=4)
    with pytest.raises(ValueError):
        held_karp_path(C, [1, 2, 4], start=0, end=4)
    with pytest.raises(ValueError):
        held_karp_path(C, [1, 7], start=0, end=4)
    with pytest.raises(ValueError):
        held_karp_path(np.zeros((3, 4)), [1], start=0, end=2)


# ---------------------------------------------------------------- alternatives


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", [2, 4, 7])
def test_held_karp_alternatives_are_best_per_last_stop(k, mode, symmetric):
    C, stops, start, end = instance(k, mode, symmetric, seed=101 + k)
    perms, costs = brute_force_all(C, stops, start, end)
    best_by_last = {}
    for p, c in zip(perms, costs):
        last = int(p[-1])
        best_by_last[last] = min(best_by_last.get(last, math.inf), float(c))

    hk = held_karp_path(C, stops, start=start, end=end)
    everything = [(hk.order, hk.cost)] + list(hk.alternatives)
    # one entry per distinct last stop, the chosen order first
    assert len(everything) == k
    assert len({o for o, _ in everything}) == k
    assert {o[-1] for o, _ in everything} == set(stops)
    costs_listed = [c for _, c in everything]
    assert costs_listed == sorted(costs_listed)
    for order, cost in everything:
        assert sorted(order) == sorted(stops)
        assert abs(cost - path_cost(C, order, start=start, end=end)) <= 1e-9
        assert abs(cost - best_by_last[order[-1]]) <= 1e-9


# ---------------------------------------------------------------- heuristics


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", [8, 9, 10])
def test_heuristic_reaches_optimum_on_small_cases(k, mode, symmetric):
    C, stops, start, end = instance(k, mode, symmetric, seed=500 + k)
    opt = held_karp_path(C, stops, start=start, end=end).cost
    if k == 8:  # (Held-Karp == brute force is checked up to 9 stops above)
        assert abs(opt - brute_force(C, stops, start, end)) <= 1e-9
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=0.2, seed=0)
    assert sorted(sol.order) == sorted(stops)
    assert abs(sol.cost - manual_cost(C, sol.order, start, end)) <= 1e-9
    assert abs(sol.cost - opt) <= 1e-9
    # fixed number of kicks: deterministic and also optimal here
    det = heuristic_path(C, stops, start=start, end=end, time_limit_s=0.2, seed=0, max_kicks=300)
    assert abs(det.cost - opt) <= 1e-9


HEURISTIC_CASES = [(k, mode, sym, "auto") for k in (30, 60) for mode in MODES for sym in (True, False)]
HEURISTIC_CASES += [(45, mode, sym, "ortools") for mode in MODES for sym in (True, False)]


@pytest.mark.parametrize("k,mode,symmetric,engine", HEURISTIC_CASES)
def test_heuristic_returns_valid_permutation(k, mode, symmetric, engine):
    C, stops, start, end = instance(k, mode, symmetric, seed=900 + k)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=0.1, seed=1, engine=engine)
    assert sorted(sol.order) == sorted(stops)
    assert len(sol.order) == k
    assert not sol.exact
    assert abs(sol.cost - manual_cost(C, sol.order, start, end)) <= 1e-6 * sol.cost
    expected = {"auto": {"ils_2opt_oropt", "ortools_gls"}, "ils": {"ils_2opt_oropt"}, "ortools": {"ortools_gls"}}[
        engine
    ]
    assert sol.method in expected


def test_heuristic_never_worse_than_nearest_neighbour():
    C, stops, start, end = instance(60, "start", True, seed=4)
    order, prev, left = [], start, set(stops)
    while left:
        nxt = min(left, key=lambda v: (C[prev, v], v))
        order.append(nxt)
        left.remove(nxt)
        prev = nxt
    nn = manual_cost(C, order, start, end)
    sol = heuristic_path(C, stops, start=start, end=end, time_limit_s=0.2)
    assert sol.cost < nn


def test_heuristic_deterministic_with_max_kicks():
    C, stops, start, end = instance(40, "none", False, seed=8)
    a = heuristic_path(C, stops, start=start, end=end, time_limit_s=5, seed=3, max_kicks=200)
    b = heuristic_path(C, stops, start=start, end=end, time_limit_s=5, seed=3, max_kicks=200)
    assert a == b


def test_solve_path_dispatch():
    assert DEFAULT_EXACT_LIMIT >= 12
    C, stops, start, end = instance(12, "start", False, seed=12)
    exact = solve_path(C, stops, start=start, end=end, time_limit_s=0.2)
    assert exact.method == "held_karp" and exact.exact
    heur = solve_path(C, stops, start=start, end=end, time_limit_s=0.2, exact_limit=6)
    assert not heur.exact and heur.method != "held_karp"
    assert sorted(heur.order) == sorted(stops)
    assert heur.cost >= exact.cost - 1e-9
    # 12 stops: the heuristic finds the optimum as well
    assert abs(heur.cost - exact.cost) <= 1e-9


# ---------------------------------------------------------------- closed tours


def test_solve_tour_convex_polygon_is_optimal():
    # points on a circle, shuffled: the optimal tour follows the circle
    n = 40
    rng = np.random.default_rng(5)
    ang = np.sort(rng.random(n)) * 2 * np.pi
    perm = rng.permutation(n)
    P = np.c_[np.cos(ang), np.sin(ang)][perm] * 1000
    D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    inv = np.argsort(perm)  # circle order expressed in shuffled indices
    circle = [int(x) for x in inv]
    opt = float(D[circle, np.roll(circle, -1)].sum())
    sol = solve_tour(D, time_limit_s=0.2, seed=0)
    assert sol.order[0] == 0
    assert sorted(sol.order) == list(range(n))
    assert abs(sol.cost - opt) <= 1e-6
    t = list(sol.order)
    assert abs(sol.cost - float(D[t, np.roll(t, -1)].sum())) <= 1e-9


def test_solve_tour_tiny_is_exact():
    D = make_matrix(6, 2, False)
    sol = solve_tour(D, time_limit_s=0.1)
    best = min(sum(D[a, b] for a, b in zip((0,) + p, p + (0,))) for p in itertools.permutations(range(1, 6)))
    assert sol.exact and sol.order[0] == 0
    assert abs(sol.cost - best) <= 1e-9


def test_solve_tour_ortools_engine_valid():
    D = make_matrix(30, 9, True)
    sol = solve_tour(D, time_limit_s=0.2, engine="ortools")
    assert sol.method == "ortools_gls"
    assert sol.order[0] == 0 and sorted(sol.order) == list(range(30))


def test_float_seconds_and_large_metres_costs():
    # huge metre values must not overflow the OR-Tools integer scaling
    C, stops, start, end = instance(20, "start", True, seed=21)
    big = C * 1e9
    for engine in ("ortools", "ils"):
        sol = heuristic_path(big, stops, start=start, end=end, time_limit_s=0.15, engine=engine)
        assert sorted(sol.order) == sorted(stops)
        assert sol.cost > 0
