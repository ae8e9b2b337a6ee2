"""The figure a strategy minimises is the figure it reports (issue 31), over many generated Helsinki trips (seeded:
the same trips every run). On the reported figures (the sums of the legs a user sees), for every request and mode:
the "fastest time" order is never slower than the "shortest distance" order and the "shortest distance" order never
longer than the "fastest time" one; neither loses on its own figure to nearest neighbour on the same matrix; and
plan_route's best route has the least total of its strategy's figure among the candidates it shows."""

from __future__ import annotations

import json
from functools import cache

import pytest

from core.config import get_settings
from core.geo.pool import ProviderPool
from core.geo.registry import make_provider
from core.lab.generate import generate_batch
from core.lab.task import run_task
from core.models.lab import LabGrid, RouteBatchItem, TaskCell
from core.route.planner import plan_route

PROVIDERS = ProviderPool()
#: small trips (enumeration), trips past max_permutations (Held-Karp) and past the exact limit (the heuristic)
SIZES = {"small": ((2, 4), 12, 41), "held_karp": ((5, 12), 24, 42), "heuristic": ((16, 18), 4, 43)}


@cache
def _trips(size: str) -> tuple[RouteBatchItem, ...]:
    stops, n, seed = SIZES[size]
    items = generate_batch(region="helsinki", kind="delivery", n=n, stops=stops, seed=seed, settings=get_settings())
    return tuple(i for i in items if isinstance(i, RouteBatchItem))


def _figures(rows: list[dict], strategy: str, optimiser: str) -> tuple[int, int]:
    (row,) = [r for r in rows if r["strategy"] == strategy and r["optimiser"] == optimiser]
    assert row["status"] == "ok", row["error_message"]
    return row["distance_m"], row["duration_s"]


@pytest.mark.parametrize("mode", ["driving", "walking"])
@pytest.mark.parametrize("size", list(SIZES))
def test_fastest_and_shortest_keep_their_promise_on_the_reported_figures(size: str, mode: str):
    settings = get_settings()
    grid = LabGrid(strategies=["shortest_distance", "fastest_time"], optimisers=["project", "nearest_neighbour"])
    cell = TaskCell(provider="offline", mode=mode)
    for index, item in enumerate(_trips(size)):
        rows = run_task(item, index=index, cell=cell, grid=grid, settings=settings, providers=PROVIDERS)
        short_d, short_t = _figures(rows, "shortest_distance", "project")
        fast_d, fast_t = _figures(rows, "fastest_time", "project")
        assert fast_t <= short_t and short_d <= fast_d, (item.id, (short_d, short_t), (fast_d, fast_t))
        nn_d, _ = _figures(rows, "shortest_distance", "nearest_neighbour")
        _, nn_t = _figures(rows, "fastest_time", "nearest_neighbour")
        assert short_d <= nn_d and fast_t <= nn_t, (item.id, (short_d, nn_d), (fast_t, nn_t))


@pytest.mark.parametrize("strategy", ["shortest_distance", "fastest_time"])
def test_plan_routes_best_is_least_on_its_figure_among_the_orders_it_shows(strategy: str):
    settings = get_settings()
    provider = make_provider("offline", region="helsinki", settings=settings)
    grid = LabGrid(strategies=[strategy], optimisers=["project"])
    cell = TaskCell(provider="offline", mode="driving")
    for index, item in enumerate(_trips("held_karp")[:8]):
        request = item.request.model_copy(update={"route_strategy": strategy, "transport_mode": "driving"})
        result = plan_route(request, provider=provider, settings=settings)
        best = result.best_route
        figure = (lambda c: c.total_duration_s) if strategy == "fastest_time" else (lambda c: c.total_distance_m)
        assert figure(best) == min(figure(c) for c in result.candidates)
        assert best.total_distance_m == sum(leg.distance_m for leg in best.legs)
        assert best.total_duration_s == sum(leg.duration_s for leg in best.legs)
        (row,) = run_task(item, index=index, cell=cell, grid=grid, settings=settings, providers=PROVIDERS)
        assert (row["distance_m"], row["duration_s"]) == (best.total_distance_m, best.total_duration_s)
        assert json.loads(row["stop_order"]) == best.stop_order
