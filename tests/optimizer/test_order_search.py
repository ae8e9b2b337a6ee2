"""The order search the route planner uses: exact candidates where affordable, with their neighbours."""

from __future__ import annotations

import itertools

import numpy as np

from core.optimizer.order_search import candidate_orders, distinct_place_orders, neighbour_orders, order_totals


def _random_matrix(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 10_000, size=(n, 2))
    return np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))


def _brute_best(m: np.ndarray, stops: list[int], start: int, end: int) -> tuple[int, ...]:
    orders = np.asarray(list(itertools.permutations(stops)))
    return tuple(orders[int(np.argmin(order_totals(orders, m, start, end)))])


def test_held_karp_candidates_contain_the_true_shortest_and_fastest_orders():
    dist, dur = _random_matrix(9, 1), _random_matrix(9, 2)
    stops = list(range(1, 8))
    pool, info = candidate_orders(
        dist, dur, stops, start=0, end=8, max_permutations=24, exact_limit=15, time_limit_s=1.0
    )
    assert info.method == "held_karp" and info.exact
    assert _brute_best(dist, stops, 0, 8) in pool
    assert _brute_best(dur, stops, 0, 8) in pool
    assert all(sorted(o) == stops for o in pool)


def test_small_instances_are_enumerated_and_beyond_exact_is_called_heuristic():
    m = _random_matrix(6, 3)
    pool, info = candidate_orders(
        m, m, [1, 2, 3, 4], start=0, end=5, max_permutations=24, exact_limit=15, time_limit_s=1.0
    )
    assert info.method == "enumeration" and len(pool) == 24 and info.orders_evaluated == 24
    big = _random_matrix(20, 4)
    pool, info = candidate_orders(
        big, big, list(range(1, 19)), start=0, end=19, max_permutations=24, exact_limit=15, time_limit_s=0.2
    )
    assert info.method == "heuristic" and not info.exact


def test_neighbours_are_one_move_away():
    order = (1, 2, 3, 4)
    near = neighbour_orders(order)
    assert order not in near
    assert (2, 1, 3, 4) in near and (2, 3, 4, 1) in near
    assert all(sorted(o) == [1, 2, 3, 4] for o in near)


def test_orders_that_only_swap_two_stops_at_one_place_count_once():
    # nodes 1 and 2 are the same place (2 -> 1); of the orders that only swap them, the cheaper one stays
    orders = [(1, 2, 3), (2, 1, 3), (3, 1, 2), (3, 2, 1)]
    dist = np.array([10.0, 9.0, 12.0, 12.0])
    dur = np.array([5.0, 5.0, 7.0, 6.0])
    kept = distinct_place_orders(orders, dist, dur, {1: 1, 2: 1, 3: 3})
    assert [orders[i] for i in kept] == [(2, 1, 3), (3, 2, 1)]
    assert distinct_place_orders(orders, dist, dur, {1: 1, 2: 2, 3: 3}) == [0, 1, 2, 3]
