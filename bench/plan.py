"""End-to-end offline plan timing (``python -m core bench plan N``).

Stops are the first N ordinary places of the bundled pack in a fixed order, so runs are
comparable; each repeat uses a fresh provider (cold cache), so resolution and the matrix are
timed too.
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
    }
