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
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from core.config import PROJECT_ROOT


class AMapShapedServer:
    """AMap's geocode, distance and direction endpoints on 127.0.0.1, answered from a region pack."""

    def __init__(self, region: str = "shanghai") -> None:
        from core.geo.offline import OfflineProvider
        from core.packs.loader import load_region

        self.offline = OfflineProvider(load_region(region))
        self.requests: list[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                with outer._lock:
                    outer.requests.append(parts.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                body = outer.answer(parts.path, query)
                data = json.dumps(body, ensure_ascii=False).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @staticmethod
    def _gcj(lon: float, lat: float) -> str:
        from core.geo.coords import wgs84_to_gcj02

        g = wgs84_to_gcj02(lon, lat)
        return f"{g[0]:.6f},{g[1]:.6f}"

    @staticmethod
    def _wgs(text: str) -> tuple[float, float]:
        from core.geo.coords import gcj02_to_wgs84

        lon, lat = (float(x) for x in text.split(","))
        w = gcj02_to_wgs84(lon, lat)
        return float(w[0]), float(w[1])

    def answer(self, path: str, q: dict[str, str]) -> dict[str, Any]:
        ok = {"status": "1", "info": "OK", "infocode": "10000"}
        if path == "/v3/geocode/geo":
            found = self.offline.geocode(q.get("address", ""), city=None)[:1]
            rows = [
                {"formatted_address": p.address or p.name, "city": p.city or "", "district": p.district or "",
                 "location": self._gcj(p.lon, p.lat), "level": "兴趣点"}
                for p in found
            ]  # fmt: skip
            return {**ok, "count": str(len(rows)), "geocodes": rows}
        if path == "/v3/place/text":
            found = self.offline.search(q.get("keywords", ""), limit=int(q.get("offset", "10")))
            pois = [
                {"id": p.poi_id or "", "name": p.name, "address": p.address or "", "location": self._gcj(p.lon, p.lat),
                 "cityname": p.city or "", "adname": p.district or "", "type": p.category or ""}
                for p in found
            ]  # fmt: skip
            return {**ok, "count": str(len(pois)), "pois": pois}
        mode = "walking" if q.get("type") == "3" or path.endswith("/walking") else "driving"
        if path == "/v3/distance":
            dest = self._wgs(q["destination"])
            origins = [self._wgs(o) for o in q["origins"].split("|")]
            results = []
            for i, o in enumerate(origins, start=1):
                leg = self.offline.route(o, dest, mode=mode)  # type: ignore[arg-type]
                results.append(
                    {"origin_id": str(i), "dest_id": "1", "distance": str(round(leg.distance_m)),
                     "duration": str(round(leg.duration_s))}
                )  # fmt: skip
            return {**ok, "count": str(len(results)), "results": results}
        if path.startswith("/v3/direction/"):
            a, b = self._wgs(q["origin"]), self._wgs(q["destination"])
            leg = self.offline.route(a, b, mode=mode)  # type: ignore[arg-type]
            step = {"distance": str(round(leg.distance_m)), "duration": str(round(leg.duration_s)),
                    "polyline": f"{q['origin']};{q['destination']}"}  # fmt: skip
            paths = [{"distance": step["distance"], "duration": step["duration"], "steps": [step]}]
            return {
                **ok,
                "count": "1",
                "route": {"origin": q["origin"], "destination": q["destination"], "paths": paths},
            }
        return {"status": "0", "info": "INVALID_PARAMS", "infocode": "20000"}

    def __enter__(self) -> AMapShapedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


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
