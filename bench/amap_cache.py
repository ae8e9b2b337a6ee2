"""``python -m core bench amap-cache``: how many AMap calls a 10-stop plan makes, cold and then warm in a new
process (the on-disk response cache, ``OMNI_CACHE_DIR``).

AMap itself is not reachable here, so a local stand-in answers in AMap's documented formats (GCJ-02 on the
wire): geocodes from the shanghai pack's own places, distances and routes from the pack's straight-line estimate.
The figures it returns are the stand-in's; what is measured is only how many requests reach it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT
from standins.amap import AMapLimitedStandIn


class AMapShapedServer(AMapLimitedStandIn):
    """AMap's geocode, distance and direction endpoints on 127.0.0.1, answered from a region pack, without limits
    (standins/amap.py; ``AMapLimitedStandIn(qps=..., daily=...)`` keeps AMap's)."""

    def __init__(self, region: str = "shanghai") -> None:
        super().__init__(region)

    def __enter__(self) -> AMapShapedServer:
        self.start()
        return self


_CHILD = """
import json, sys
from pydantic import SecretStr
from core.config import Settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route
base_url, cache_dir, request = sys.argv[1], sys.argv[2], sys.argv[3]
settings = Settings(provider="amap", amap_key=SecretStr("bench-cache-key"), amap_base_url=base_url,
                    amap_qps=0, cache_dir=cache_dir or None)
result = plan_route(RoutePlanRequest.model_validate_json(open(request, encoding="utf-8").read()),
                    provider=make_provider("amap", settings=settings), settings=settings)
print(json.dumps({"calls": result.provider_calls.model_dump(), "source": result.metric_source}))
"""


def _ten_stop_request() -> str:
    from core.packs.loader import load_region

    pack = load_region("shanghai")
    sights = [p for p in pack.places if p.category in {"landmark", "museum", "park"}][:12]
    return json.dumps(
        {
            "task_name": "10 stops through AMap",
            "origin_mode": "fixed",
            "origin_name": sights[0].name_zh,
            "origin_city": "上海",
            "destination_name": sights[1].name_zh,
            "destination_city": "上海",
            "stops": [{"name": p.name_zh, "city": "上海"} for p in sights[2:12]],
            "transport_mode": "driving",
            "route_strategy": "fastest_time",
        },
        ensure_ascii=False,
    )


def bench_amap_cache() -> dict[str, Any]:
    rows = []
    with AMapShapedServer() as server, tempfile.TemporaryDirectory(prefix="omni-amap-cache-") as tmp:
        request = Path(tmp) / "request.json"
        request.write_text(_ten_stop_request(), encoding="utf-8")
        for run, cache_dir in (("cold", f"{tmp}/cache"), ("warm, new process", f"{tmp}/cache"), ("no disk cache", "")):
            before = len(server.requests)
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, server.base_url, cache_dir, str(request)],
                capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300, check=True,
            )  # fmt: skip
            out = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append({"run": run, "amap_requests": len(server.requests) - before, **out})
    return {"benchmark": "amap-cache", "stops": 10, "rows": rows}
