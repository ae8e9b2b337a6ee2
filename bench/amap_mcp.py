"""``python -m core bench amap-mcp``: the trips of ``bench amap-live`` (5, 10, 20 and 30 of the shanghai pack's
sights) planned through the AMap MCP provider, at QPS 1 and 3, with the shipped settings except the key, the two
stand-ins' addresses and ``amap_qps`` (set to the stand-ins' QPS).

Two stand-ins keep one key's limits together (standins/amap.AMapKeyLimits, as on AMap, where the MCP
tools call the REST APIs under the key): the MCP one (standins/amap_mcp.py) answers the tools, the REST one
(standins/amap.py) the fills MCP leaves out (positions, drawn paths). Per trip: the calls each received
(MCP by tool, REST by service), the refusals each gave, the seconds the plan took, the seconds spent pacing in the
key's bucket (not counted against the provider budget), the share of the best route's legs whose figures are
AMap's, and the calls of a warm re-plan in a new process (the on-disk cache).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.amap_live import RATES, SIZES, by_service, run_grid, trip_request
from core.config import PROJECT_ROOT
from standins.amap import AMapKeyLimits, AMapLimitedStandIn
from standins.amap_mcp import AMapMcpStandIn

KEY = "bench-mcp-key-0123"
LATENCY_S = 0.03

_CHILD = """
import json, sys, time
from pydantic import SecretStr
from core.config import Settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route
key, rest_url, mcp_url, cache_dir, request, qps = sys.argv[1:6] + [float(sys.argv[6])]
settings = Settings(provider="amap-mcp", amap_key=SecretStr(key), amap_base_url=rest_url, amap_mcp_url=mcp_url,
                    amap_qps=qps, cache_dir=cache_dir or None)
provider = make_provider("amap-mcp", settings=settings)
t0 = time.perf_counter()
result = plan_route(RoutePlanRequest.model_validate_json(open(request, encoding="utf-8").read()),
                    provider=provider, settings=settings)
elapsed = time.perf_counter() - t0
legs = result.best_route.legs
print(json.dumps({
    "elapsed_s": round(elapsed, 2),
    "paced_s": provider.router.inner.limiter.stats().waited_s,
    "legs": len(legs),
    "legs_from_amap": sum(1 for leg in legs if leg.source == "amap"),
    "notices": sorted({n.code for n in result.notices}),
}))
"""


def _plan(rest_url: str, mcp_url: str, cache_dir: str, request_file: Path, qps: float) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, KEY, rest_url, mcp_url, cache_dir, str(request_file), str(qps)],
        capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=1800, check=True,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run_trip(n_places: int, qps: float, *, latency_s: float = LATENCY_S) -> dict[str, Any]:
    limits = AMapKeyLimits(qps=qps, daily=5000)  # one key: MCP tool calls and REST fills spend the same limits
    with (
        AMapLimitedStandIn(limits=limits, latency_s=latency_s) as rest,
        AMapMcpStandIn(key=KEY, limits=limits, latency_s=latency_s) as mcp,
        tempfile.TemporaryDirectory(prefix="omni-amap-mcp-") as tmp,
    ):
        request = Path(tmp) / "request.json"
        request.write_text(json.dumps(trip_request(n_places), ensure_ascii=False), encoding="utf-8")
        cold = _plan(rest.base_url, mcp.url, f"{tmp}/cache", request, qps)
        mcp_calls, rest_paths = mcp.calls_by_tool(), list(rest.requests)
        refused = {"mcp": dict(mcp.refused), "rest": dict(rest.refused)}
        warm = _plan(rest.base_url, mcp.url, f"{tmp}/cache", request, qps)
        warm_mcp, warm_rest = len(mcp.calls) - sum(mcp_calls.values()), len(rest.requests) - len(rest_paths)
    return {
        "places": n_places,
        "qps": qps,
        "mcp_calls": sum(mcp_calls.values()),
        "mcp_by_tool": mcp_calls,
        "rest_requests": len(rest_paths),
        "rest_by_service": by_service(rest_paths),
        "refused": refused,
        "elapsed_s": cold["elapsed_s"],
        "paced_s": cold["paced_s"],
        "legs_from_amap": f"{cold['legs_from_amap']}/{cold['legs']}",
        "share_from_amap": round(cold["legs_from_amap"] / cold["legs"], 3) if cold["legs"] else None,
        "notices": cold["notices"],
        "warm_mcp_calls": warm_mcp,
        "warm_rest_requests": warm_rest,
        "warm_elapsed_s": warm["elapsed_s"],
    }


def bench_amap_mcp(
    *, sizes: tuple[int, ...] = SIZES, rates: tuple[float, ...] = RATES, progress: Any = None
) -> dict[str, Any]:
    rows = run_grid(run_trip, sizes=sizes, rates=rates, progress=progress)
    return {"benchmark": "amap-mcp", "latency_ms": round(LATENCY_S * 1000), "rows": rows}
