"""``python -m core bench amap-live``: trips of 5, 10, 20 and 30 places planned through a stand-in AMap that keeps
AMap's limits (standins/amap.py: a QPS per key, refused with CUQPS 10021, and a daily quota), at QPS 1 and
3, with the shipped settings except the key, the stand-in's address and ``amap_qps`` (set to the stand-in's QPS).

Then the 10- and 20-place trips again on a stand-in whose directions differ from its distances by up to 5 % a leg
(``directions_spread``), as AMap's two services do: there orders 2 and 3 can outrank the best on directions, and the
re-measure asks for their legs where their lower bound says they could.

Per trip: the requests that reached the stand-in by service, the refusals it gave, the seconds the plan took, the
seconds spent pacing in the rate limiter (not counted against the provider budget), the share of the best
route's legs whose figures are AMap's (not estimates), and the requests of a warm re-plan in a new process (the
on-disk cache). Each plan runs in its own process, as a user's would.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT
from standins.amap import AMapLimitedStandIn

SIZES = (5, 10, 20, 30)
RATES = (1.0, 3.0)
#: AMap's direction service answers other figures than its distance service; the second set of rows has each leg's
#: directions off by up to this share (fixed per leg), so orders 2 and 3 may outrank the best and be re-measured
DIRECTIONS_SPREAD = 0.05
SPREAD_SIZES = (10, 20)
SERVICES = {"/v3/geocode/geo": "geocode", "/v3/place/text": "search", "/v3/distance": "matrix"}

_CHILD = """
import json, sys, time
from pydantic import SecretStr
from core.config import Settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route
base_url, cache_dir, request, qps = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
settings = Settings(provider="amap", amap_key=SecretStr("bench-live-key-0123"), amap_base_url=base_url,
                    amap_qps=qps, cache_dir=cache_dir or None)
provider = make_provider("amap", settings=settings)
t0 = time.perf_counter()
result = plan_route(RoutePlanRequest.model_validate_json(open(request, encoding="utf-8").read()),
                    provider=provider, settings=settings)
elapsed = time.perf_counter() - t0
legs = result.best_route.legs
limiter = provider.router.inner.limiter
print(json.dumps({
    "elapsed_s": round(elapsed, 2),
    "paced_s": limiter.stats().waited_s,
    "legs": len(legs),
    "legs_from_amap": sum(1 for leg in legs if leg.source == "amap"),
    "notices": sorted({n.code for n in result.notices}),
    "calls": result.provider_calls.model_dump(),
}))
"""


def trip_request(n_places: int, *, region: str = "shanghai") -> dict[str, Any]:
    """A driving trip through ``n_places`` of the pack's sights (origin, n-2 stops, destination), by Chinese name."""
    from core.packs.loader import load_region

    pack = load_region(region)
    sights = [p for p in pack.places if p.category in {"landmark", "museum", "park", "temple", "theatre"}]
    seen: set[tuple[float, float]] = set()
    chosen = []
    for p in sights:
        spot = (round(p.lon, 4), round(p.lat, 4))
        if spot not in seen:
            seen.add(spot)
            chosen.append(p)
    if len(chosen) < n_places:
        raise ValueError(f"the {region} pack has {len(chosen)} distinct sights, not {n_places}")
    chosen = chosen[:n_places]
    return {
        "task_name": f"{n_places} places through AMap",
        "origin_mode": "fixed",
        "origin_name": chosen[0].name_zh,
        "origin_city": "上海",
        "destination_name": chosen[1].name_zh,
        "destination_city": "上海",
        "stops": [{"name": p.name_zh, "city": "上海"} for p in chosen[2:]],
        "transport_mode": "driving",
        "route_strategy": "fastest_time",
    }


def plan_in_new_process(base_url: str, cache_dir: str, request_file: Path, qps: float) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, base_url, cache_dir, str(request_file), str(qps)],
        capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=900, check=True,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def by_service(paths: list[str]) -> dict[str, int]:
    counts = Counter(
        SERVICES.get(p, "route" if p.startswith(("/v3/direction/", "/v4/direction/")) else p) for p in paths
    )
    return dict(sorted(counts.items()))


def run_trip(n_places: int, qps: float, *, latency_s: float = 0.03, directions_spread: float = 0.0) -> dict[str, Any]:
    with (
        AMapLimitedStandIn(qps=qps, daily=5000, latency_s=latency_s, directions_spread=directions_spread) as amap,
        tempfile.TemporaryDirectory(prefix="omni-amap-live-") as tmp,
    ):
        request = Path(tmp) / "request.json"
        request.write_text(json.dumps(trip_request(n_places), ensure_ascii=False), encoding="utf-8")
        cold = plan_in_new_process(amap.base_url, f"{tmp}/cache", request, qps)
        cold_paths = list(amap.requests)
        refused = dict(amap.refused)
        warm = plan_in_new_process(amap.base_url, f"{tmp}/cache", request, qps)
        warm_requests = len(amap.requests) - len(cold_paths)
    return {
        "places": n_places,
        "qps": qps,
        "directions_spread": directions_spread,
        "requests": len(cold_paths),
        "by_service": by_service(cold_paths),
        "refused": refused,
        "elapsed_s": cold["elapsed_s"],
        "paced_s": cold["paced_s"],
        "legs_from_amap": f"{cold['legs_from_amap']}/{cold['legs']}",
        "share_from_amap": round(cold["legs_from_amap"] / cold["legs"], 3) if cold["legs"] else None,
        "notices": cold["notices"],
        "warm_requests": warm_requests,
        "warm_elapsed_s": warm["elapsed_s"],
    }


def run_grid(
    run: Any, *, sizes: tuple[int, ...], rates: tuple[float, ...], progress: Any = None
) -> list[dict[str, Any]]:
    """``run(n_places, qps)`` for every rate and size, each row reported as it comes (amap-live, amap-mcp)."""
    rows = []
    for qps in rates:
        for n in sizes:
            row = run(n, qps)
            rows.append(row)
            if progress is not None:
                progress(json.dumps(row, ensure_ascii=False))
    return rows


def bench_amap_live(
    *,
    sizes: tuple[int, ...] = SIZES,
    rates: tuple[float, ...] = RATES,
    spread_sizes: tuple[int, ...] = SPREAD_SIZES,
    progress: Any = None,
) -> dict[str, Any]:
    """The grid on a stand-in whose directions equal its distances, then ``spread_sizes`` on one whose directions
    differ from them by up to ``DIRECTIONS_SPREAD`` per leg, where the re-measure of orders 2 and 3 can matter."""
    rows = run_grid(run_trip, sizes=sizes, rates=rates, progress=progress)
    spread = functools.partial(run_trip, directions_spread=DIRECTIONS_SPREAD)
    rows += run_grid(spread, sizes=spread_sizes, rates=rates, progress=progress)
    return {"benchmark": "amap-live", "latency_ms": 30, "directions_spread": DIRECTIONS_SPREAD, "rows": rows}
