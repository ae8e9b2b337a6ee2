"""A lab task gives the figures the route planner gives, for every strategy, on the same matrix."""

from __future__ import annotations

import json
import random

import pytest

from core.config import get_settings
from core.geo.pool import ProviderPool
from core.geo.registry import make_provider
from core.lab.generate import generate_batch
from core.lab.task import run_task
from core.models.lab import LabGrid, TaskCell
from core.models.route import STRATEGIES
from core.route.planner import plan_route
from core.route.strategies import Scored, best_of, rank

PROVIDERS = ProviderPool()  # the test process's, as a lab worker holds one


@pytest.mark.parametrize("seed", range(5))
def test_best_of_is_the_first_of_the_full_ranking(seed: int):
    rng = random.Random(seed)
    items = [
        Scored(
            order=(i,), distance_m=rng.choice([1000, 1010, 1200, 1500]) + rng.random(), duration_s=rng.randint(60, 90)
        )
        for i in range(40)
    ]
    for strategy in STRATEGIES:
        assert best_of(items, strategy, tolerance=0.02) == rank(items, strategy, tolerance=0.02)[0]


@pytest.mark.parametrize("mode", ["driving", "walking"])
def test_the_projects_rows_are_what_plan_route_returns_for_each_strategy(mode: str):
    settings = get_settings()
    (item,) = generate_batch(region="helsinki", kind="delivery", n=1, stops=(7, 7), seed=21, settings=get_settings())
    grid = LabGrid(optimisers=["project", "nearest_neighbour"], modes=[mode])
    rows = run_task(
        item, index=0, cell=TaskCell(provider="offline", mode=mode), grid=grid, settings=settings, providers=PROVIDERS
    )
    provider = make_provider("offline", region="helsinki", settings=settings)
    for strategy in STRATEGIES:
        (row,) = [r for r in rows if r["strategy"] == strategy and r["optimiser"] == "project"]
        request = item.request.model_copy(update={"route_strategy": strategy, "transport_mode": mode})
        best = plan_route(request, provider=provider, settings=settings).best_route
        assert (row["distance_m"], row["duration_s"]) == (best.total_distance_m, best.total_duration_s)
        assert json.loads(row["stop_order"]) == best.stop_order
    nn = [r for r in rows if r["optimiser"] == "nearest_neighbour" and r["objective"] == "distance_m"]
    assert nn[0]["gap"] >= 0 and nn[0]["best_known_exact"] is True


def test_a_heuristic_requests_rows_are_reproducible_and_say_what_stopped_the_search():
    from core.models.lab import TIMING_COLUMNS

    # the kick budgets stop the search; the clock is only a safety cap, set far out here so a loaded machine (CI on
    # two cores) cannot reach it first and make the row's stop a matter of speed
    settings = get_settings().model_copy(update={"solver_time_limit_s": 60.0})
    (item,) = generate_batch(region="helsinki", kind="delivery", n=1, stops=(19, 19), seed=23, settings=get_settings())
    assert len(item.request.stops) > settings.exact_limit  # beyond Held-Karp: the ILS orders it
    grid = LabGrid(optimisers=["project"], modes=["driving"])
    cell = TaskCell(provider="offline", mode="driving")
    first = run_task(item, index=0, cell=cell, grid=grid, settings=settings, providers=PROVIDERS)
    again = run_task(item, index=0, cell=cell, grid=grid, settings=settings, providers=PROVIDERS)
    assert len(first) == 3 and all(r["status"] == "ok" for r in first)
    for row in first:
        assert row["opt_status"] == "heuristic"
        assert row["search_stop"] in {"stall", "max_kicks"} and row["reproducible"] is True
    strip = [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in (*first, *again)]
    assert strip[:3] == strip[3:]
