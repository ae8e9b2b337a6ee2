"""A stand-in for AMap's hosted MCP server on 127.0.0.1 (the ``mcp`` SDK's own streamable-HTTP server).

The tools have AMap's names and answer in the hosted server's projections (recorded in
tests/fixtures/amap/mcp/): geocodes and distances from the shanghai pack (GCJ-02 on the wire, like AMap),
text search without locations, directions without polylines, and the schema tools' links in the recorded form.
With a wrong key it does what the hosted server does: a raw AMap error body instead of JSON-RPC.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import uvicorn

from core.geo.coords import gcj02_to_wgs84, wgs84_to_gcj02
from core.geo.offline import OfflineProvider
from core.packs.loader import load_region
from tests.support.paths import AMAP_FIXTURES

MCP_FIXTURES = AMAP_FIXTURES / "mcp"


def recorded_text(name: str) -> str:
    """The text payload of a recorded tools/call answer."""
    message = json.loads((MCP_FIXTURES / name).read_text(encoding="utf-8"))
    return "".join(block["text"] for block in message["result"]["content"])


class AMapMcpStandIn:
    def __init__(self, *, key: str, region: str = "shanghai") -> None:
        from mcp.server.fastmcp import FastMCP

        self.key = key
        self.calls: list[str] = []
        offline = OfflineProvider(load_region(region))
        server = FastMCP("amap-sse-server", stateless_http=True, json_response=True, log_level="ERROR")

        def gcj(lon: float, lat: float) -> str:
            g = wgs84_to_gcj02(lon, lat)
            return f"{g[0]:.6f},{g[1]:.6f}"

        def wgs(text: str) -> tuple[float, float]:
            lon, lat = (float(x) for x in text.split(","))
            return gcj02_to_wgs84(lon, lat)

        def seen(name: str) -> None:
            self.calls.append(name)

        @server.tool()
        def maps_geo(address: str, city: str = "") -> str:
            seen("maps_geo")
            rows = [
                {"country": "中国", "province": "上海市", "city": "上海市", "district": p.district or "",
                 "street": p.address or p.name, "number": "", "location": gcj(p.lon, p.lat), "level": "兴趣点"}
                for p in offline.geocode(address)[:1]
            ]  # fmt: skip
            return json.dumps({"results": rows}, ensure_ascii=False)

        @server.tool()
        def maps_text_search(keywords: str, city: str = "", citylimit: bool = False) -> str:
            seen("maps_text_search")
            pois = [{"id": p.poi_id, "name": p.name, "address": p.address or "", "typecode": "", "photos": []}
                    for p in offline.search(keywords, limit=5)]  # fmt: skip
            return json.dumps({"suggestion": {"keywords": [], "ciytes": []}, "pois": pois}, ensure_ascii=False)

        @server.tool()
        def maps_search_detail(id: str) -> str:  # noqa: A002 - AMap's argument name
            seen("maps_search_detail")
            p = offline.detail(id)
            if p is None:
                return json.dumps({})
            return json.dumps(
                {"id": id, "name": p.name, "location": gcj(p.lon, p.lat), "address": p.address or "",
                 "city": "上海市", "type": p.category or ""},
                ensure_ascii=False,
            )  # fmt: skip

        @server.tool()
        def maps_distance(origins: str, destination: str, type: str = "1") -> str:  # noqa: A002
            seen("maps_distance")
            mode = "walking" if type == "3" else "driving"
            d = wgs(destination)
            results = []
            for i, o in enumerate(origins.split("|"), start=1):
                leg = offline.route(wgs(o), d, mode=mode)  # type: ignore[arg-type]
                results.append({"origin_id": str(i), "dest_id": "1", "distance": str(round(leg.distance_m)),
                                "duration": str(round(leg.duration_s))})  # fmt: skip
            return json.dumps({"results": results})

        def direction(origin: str, destination: str, mode: str) -> str:
            leg = offline.route(wgs(origin), wgs(destination), mode=mode)  # type: ignore[arg-type]
            path = {"path": "", "distance": str(round(leg.distance_m)), "duration": str(round(leg.duration_s)),
                    "steps": []}  # fmt: skip
            return json.dumps({"route": {"origin": origin, "destination": destination, "paths": [path]}})

        @server.tool()
        def maps_direction_driving(origin: str, destination: str) -> str:
            seen("maps_direction_driving")
            return direction(origin, destination, "driving")

        @server.tool()
        def maps_direction_walking(origin: str, destination: str) -> str:
            seen("maps_direction_walking")
            return direction(origin, destination, "walking")

        @server.tool()
        def maps_schema_personal_map(orgName: str, lineList: list[dict[str, Any]]) -> str:  # noqa: N803
            seen("maps_schema_personal_map")
            self.personal_map_args = {"orgName": orgName, "lineList": lineList}
            return recorded_text("call_maps_schema_personal_map.json")

        @server.tool()
        def maps_schema_navi(lon: str, lat: str) -> str:
            seen("maps_schema_navi")
            return f"amapuri://navi?sourceApplication=amap_mcp&lon={lon}&lat={lat}&dev=1&style=2"

        app = server.streamable_http_app()
        invalid_key = (MCP_FIXTURES / "invalid_key_raw_body.json").read_bytes()

        async def checked(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                query = dict(p.split("=", 1) for p in scope.get("query_string", b"").decode().split("&") if "=" in p)
                if query.get("key") != self.key:  # the hosted server's raw AMap body, not JSON-RPC
                    await send({"type": "http.response.start", "status": 200,
                                "headers": [(b"content-type", b"application/json")]})  # fmt: skip
                    await send({"type": "http.response.body", "body": invalid_key})
                    return
            await app(scope, receive, send)

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(checked, host="127.0.0.1", port=self.port, log_level="error"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def __enter__(self) -> AMapMcpStandIn:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
