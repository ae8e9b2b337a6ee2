"""End-to-end offline plan timing (``python -m core bench plan N``).

Stops are the first N ordinary places of the bundled pack in a fixed order, so runs are
comparable; each repeat uses a fresh provider (cold cache), so resolution and the matrix are
timed too. Then, in the same warm process (kernels and pack loaded, one provider), ``repeats`` plans of a new
set of N stops each (``bench.ui.fresh_stops``: seeded draws, the same each bench): what a person meets who
pastes new stops into a running server (``fresh_warm``), with what ended each order search.
"""

from __future__ import annotations

import statistics
import time

from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from core.route.planner import plan_route


def bench_plan(*, stops: int, repeats: int = 5, region: str | None = None) -> dict:
    settings = get_settings()
    pack = load_region(region or settings.region, settings.data_dir)
    pool = [p for p in pack.places if p.category not in {"airport", "station", "district"}]
    if len(pool) < stops + 2:
        raise ValueError(f"region '{pack.name}' has only {len(pool)} usable places for {stops} stops")
    origin, destination, *rest = pool
    request = RoutePlanRequest(
        origin_mode="fixed",
        origin_address=origin.address,
        destination_address=destination.address,
        stops=[{"name": p.name_zh, "address": p.address} for p in rest[:stops]],
    )
    times, cached_times = [], []
    result = None
    for _ in range(repeats):
        provider = make_provider("offline", region=pack.name, settings=settings)
        t0 = time.perf_counter()
        result = plan_route(request, provider=provider, settings=settings)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plan_route(request, provider=provider, settings=settings)
        cached_times.append(time.perf_counter() - t0)
    assert result is not None
    fresh = _fresh_warm(stops=stops, repeats=repeats, region=pack.name)
    return {
        "benchmark": "plan",
        "region": pack.name,
        "stops": stops,
        "repeats": repeats,
        "median_s": round(statistics.median(times), 4),
        "max_s": round(max(times), 4),
        "median_replan_cached_s": round(statistics.median(cached_times), 4),
        "method": result.optimizer.method if result.optimizer else None,
        "exact": result.optimizer.exact if result.optimizer else None,
        "distance_m": result.best_route.total_distance_m,
        "provider_calls": result.provider_calls.model_dump(),
        "fresh_warm": fresh,
    }


def _fresh_warm(*, stops: int, repeats: int, region: str) -> dict:
    """plan_route on a new set of ``stops`` stops per repeat, in this (warm) process."""
    from bench.ui import fresh_stops, usable_stops

    settings = get_settings()
    pool = usable_stops(region=region, data_dir=settings.data_dir)
    provider = make_provider("offline", region=region, settings=settings)
    times, searches = [], []
    for draw in range(repeats + 1):  # draw 0 warms the provider's engines; not counted
        origin, *rest = fresh_stops(pool, n=stops + 1, draw=1000 + draw)
        request = RoutePlanRequest(origin_mode="fixed", origin_address=origin["address"], round_trip=True, stops=rest)
        t0 = time.perf_counter()
        result = plan_route(request, provider=provider, settings=settings)
        if draw:
            times.append(time.perf_counter() - t0)
            opt = result.optimizer
            searches.append(f"{opt.method}:{opt.search_stop or '-'}:{opt.kicks or 0}" if opt else "-")
    return {
        "median_s": round(statistics.median(times), 4),
        "max_s": round(max(times), 4),
        "times_s": [round(t, 3) for t in times],
        "searches": searches,
    }
