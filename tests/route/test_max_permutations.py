"""``max_permutations`` bounds the orders that are listed and ranked (issue 31): beyond it the search (Held-Karp's
exact shortest and fastest, or the heuristic with nearest neighbour) gives the orders, at most that many of them
are ranked, the candidates shown are among them, and the words say what was done, in both languages."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest

from core.config import get_settings
from core.geo.registry import make_provider
from core.lab.generate import generate_batch
from core.models.lab import RouteBatchItem
from core.models.route import RoutePlanRequest
from core.optimizer.nearest import nearest_neighbour_path, path_cost
from core.optimizer.order_search import candidate_orders
from core.route.planner import plan_route
from core.words.route import search_words


def _request(stops: int, seed: int, **update) -> RoutePlanRequest:
    (item,) = generate_batch(
        region="helsinki", kind="delivery", n=1, stops=(stops, stops), seed=seed, settings=get_settings()
    )
    assert isinstance(item, RouteBatchItem)
    return item.request.model_copy(update=update)


@cache
def _helsinki():
    """One offline provider for the module: its road network is loaded once (seconds), not once per plan."""
    return make_provider("offline", region="helsinki", settings=get_settings())


def _plan(request: RoutePlanRequest):
    return plan_route(request, provider=_helsinki().request_view(), settings=get_settings())


@pytest.mark.parametrize(("stops", "limit", "seed"), [(3, 2, 51), (4, 5, 52), (5, 3, 53)])
def test_no_more_orders_are_ranked_than_max_permutations(stops: int, limit: int, seed: int):
    bounded = _plan(_request(stops, seed, max_permutations=limit, route_strategy="fastest_time"))
    info = bounded.optimizer
    assert info is not None and info.orders_possible == math.factorial(stops) > limit
    assert info.orders_ranked is not None and info.orders_ranked <= limit
    assert info.orders_found is not None and info.orders_found > limit  # the search found more; the bound cut them
    assert len(bounded.candidates) <= limit
    # the bound keeps the exact fastest and shortest (Held-Karp): the same figures as listing every order
    for strategy in ("fastest_time", "shortest_distance"):
        every = _plan(_request(stops, seed, max_permutations=math.factorial(stops), route_strategy=strategy))
        assert every.optimizer is not None and every.optimizer.method == "enumeration"
        mine = _plan(_request(stops, seed, max_permutations=limit, route_strategy=strategy))
        assert (mine.best_route.total_distance_m, mine.best_route.total_duration_s) == (
            every.best_route.total_distance_m,
            every.best_route.total_duration_s,
        )


def test_the_words_say_how_many_orders_were_ranked_of_how_many_found():
    result = _plan(_request(3, 54, max_permutations=2))
    info = result.optimizer
    assert info is not None
    en, zh = search_words(info, "en"), search_words(info, "zh")
    assert f"the {info.orders_ranked} best on distance or time" in en and f"produced {info.orders_found} orders" in en
    assert "(2)" in en and "heuristic" in en
    assert f"{info.orders_ranked} 种" in zh and "启发式" in zh and "（2）" in zh
    assert "max_permutations" not in en and "max_permutations" not in zh  # words, never the option's name
    every = _plan(_request(3, 54, max_permutations=6)).optimizer
    assert every is not None and "heuristic" not in search_words(every, "en")  # all 6 listed: nothing bounded


def test_a_heuristic_search_is_bounded_too_and_says_it_is_heuristic():
    settings = get_settings()
    request = _request(17, 55, max_permutations=10)
    assert len(request.stops) > settings.exact_limit
    info = _plan(request).optimizer
    assert info is not None and info.method == "heuristic" and info.exact is False
    assert info.orders_ranked is not None and info.orders_ranked <= 10
    assert "not proven to be the best" in search_words(info, "en") and "10" in search_words(info, "en")


@pytest.mark.parametrize("seed", range(6))
def test_the_order_search_keeps_the_exact_optima_within_the_bound(seed: int):
    rng = np.random.default_rng(seed)
    n = 6
    dist = rng.integers(100, 5000, size=(n + 2, n + 2)).astype(float)
    dur = rng.integers(60, 900, size=(n + 2, n + 2)).astype(float)
    stops = list(range(1, n + 1))
    orders, info = candidate_orders(
        dist, dur, stops, start=0, end=n + 1, max_permutations=9, exact_limit=15, time_limit_s=1.0
    )
    assert len(orders) <= 9 and info.orders_found is not None and info.orders_found > 9
    for mat in (dist, dur):
        every = min(path_cost(mat, o, start=0, end=n + 1) for o in itertools.permutations(stops))
        assert min(path_cost(mat, o, start=0, end=n + 1) for o in orders) == every


@pytest.mark.parametrize("seed", range(4))
def test_a_heuristic_pool_never_loses_to_nearest_neighbour(seed: int):
    rng = np.random.default_rng(100 + seed)
    n = 12
    dist = rng.integers(100, 5000, size=(n + 2, n + 2)).astype(float)
    dur = rng.integers(60, 900, size=(n + 2, n + 2)).astype(float)
    stops = list(range(1, n + 1))
    orders, info = candidate_orders(
        dist, dur, stops, start=0, end=n + 1, max_permutations=50, exact_limit=4, time_limit_s=0.2
    )
    assert info.method == "heuristic" and len(orders) <= 50
    for mat in (dist, dur):
        nn = path_cost(mat, nearest_neighbour_path(mat, stops, start=0, end=n + 1), start=0, end=n + 1)
        assert min(path_cost(mat, o, start=0, end=n + 1) for o in orders) <= nn
