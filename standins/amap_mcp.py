"""A stand-in for AMap's hosted MCP server on 127.0.0.1 (the ``mcp`` SDK's own streamable-HTTP server) that keeps
AMap's limits (issue 20 §6), beside the REST one (standins/amap.py).

The tools have AMap's names and answer in the hosted server's projections (recorded in tests/fixtures/amap/mcp/,
the few shapes it needs inlined here): geocodes and distances from a region pack (GCJ-02 on the wire, like AMap),
text search without locations, directions without polylines, and the schema tools' links in the recorded form.
With a wrong key it does what the hosted server does: a raw AMap error body instead of JSON-RPC.

Limits: the MCP tools call AMap's REST APIs under the key in the URL, so each tool call spends the key's QPS and
daily quota (docs/amap.md §4). A call past them is refused as the hosted server refuses it: a tool error whose text
names AMap's info (``Geocoding failed: CUQPS_HAS_EXCEEDED_THE_LIMIT``). ``limits`` may be the REST stand-in's
(``AMapLimitedStandIn.limits``): then MCP calls and REST fills spend one budget, as they do on AMap.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn
from mcp.types import CallToolResult, TextContent  # FastMCP reads the tools' annotations from this module

from core.clock import real_epoch_s
from core.geo.coords import gcj02_to_wgs84, wgs84_to_gcj02
from standins.amap import AMapKeyLimits

#: the hosted server's answer to a wrong key: AMap's raw REST body, not JSON-RPC (tests/fixtures/amap/mcp/)
INVALID_KEY_BODY = b'{"status": "0", "info": "INVALID_USER_KEY", "infocode": "10001"}'
#: the recorded personal-map link (call_maps_schema_personal_map.json); the token is the recording's
PERSONAL_MAP_LINK = "amapuri://workInAmap/createWithToken?polymericId=mcp_0f1e2d3c4b5a69788796a5b4c3d2e1f0&from=MCP"
#: how a tool's refusal begins: maps_geo's is recorded (call_tool_error.json, "Geocoding failed: ..."); the others
#: follow the same "<what> failed: <info>" form of the npm server's source
FAILED = {
    "maps_geo": "Geocoding failed",
    "maps_text_search": "Search failed",
    "maps_search_detail": "Get poi detail failed",
    "maps_distance": "Direction Distance failed",
    "maps_direction_driving": "Direction Driving failed",
    "maps_direction_walking": "Direction Walking failed",
}


def _gcj(lon: float, lat: float) -> str:
    g = wgs84_to_gcj02(lon, lat)
    return f"{g[0]:.6f},{g[1]:.6f}"


def _wgs(text: str) -> tuple[float, float]:
    lon, lat = (float(x) for x in text.split(","))
    return gcj02_to_wgs84(lon, lat)


class AMapMcpStandIn:
    """AMap's MCP tools answered from a region pack, at AMap's limits for ``key``.

    ``qps`` (None: no limit) and ``daily`` (None: no quota), or ``limits`` shared with a REST stand-in;
    ``latency_s``: the time each answer takes. ``calls`` lists every tool call by name (refused ones too),
    ``answered`` counts the calls answered by tool, ``refused`` the refusals by AMap's info name. ``amap_ids``:
    the search answers ids shaped like AMap's (``B0…``) instead of the pack's, and the detail reads them back."""

    def __init__(
        self,
        *,
        key: str,
        region: str = "shanghai",
        qps: float | None = None,
        daily: int | None = None,
        latency_s: float = 0.0,
        clock: Callable[[], float] = real_epoch_s,
        limits: AMapKeyLimits | None = None,
        amap_ids: bool = False,
    ) -> None:
        from mcp.server.fastmcp import FastMCP

        from core.geo.offline import OfflineProvider
        from core.packs.loader import load_region

        self.key = key
        self.limits = limits or AMapKeyLimits(qps=qps, daily=daily, clock=clock)
        self.latency_s = max(0.0, latency_s)
        self.calls: list[str] = []
        self.answered: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.personal_map_args: dict[str, Any] = {}
        self._lock = threading.Lock()
        offline = OfflineProvider(load_region(region))
        # ids shaped like AMap's (B0 and ten capitals or digits, from the pack's id), as the real server answers:
        # the links take only such ids; a pack id ("sh-bund") is not one
        amap_to_pack: dict[str, str] = {}

        def poi_id(pack_id: str | None) -> str | None:
            if not amap_ids or not pack_id:
                return pack_id
            shaped = "B0" + hashlib.sha1(pack_id.encode()).hexdigest()[:10].upper()
            amap_to_pack[shaped] = pack_id
            return shaped

        server = FastMCP("amap-sse-server", stateless_http=True, json_response=True, log_level="ERROR")

        async def serve(tool: str, answer: Callable[[], str]) -> CallToolResult:
            """One tool call: logged, counted against the key, slowed by the latency, refused past the limits."""
            with self._lock:
                self.calls.append(tool)
            refusal = self.limits.refusal(self.key)  # only this key gets past the URL check
            if self.latency_s:
                await anyio.sleep(self.latency_s)
            if refusal is not None:
                with self._lock:
                    self.refused[refusal["info"]] += 1
                text = f"{FAILED.get(tool, 'Request failed')}: {refusal['info']}"
                return CallToolResult(content=[TextContent(type="text", text=text)], isError=True)
            with self._lock:
                self.answered[tool] += 1
            return CallToolResult(content=[TextContent(type="text", text=answer())], isError=False)

        @server.tool()
        async def maps_geo(address: str, city: str = "") -> CallToolResult:
            def answer() -> str:
                rows = [
                    {"country": "中国", "province": "上海市", "city": "上海市", "district": p.district or "",
                     "street": p.address or p.name, "number": "", "location": _gcj(p.lon, p.lat), "level": "兴趣点"}
                    for p in offline.geocode(address)[:1]
                ]  # fmt: skip
                return json.dumps({"results": rows}, ensure_ascii=False)

            return await serve("maps_geo", answer)

        @server.tool()
        async def maps_text_search(keywords: str, city: str = "", citylimit: bool = False) -> CallToolResult:
            def answer() -> str:
                pois: list[dict[str, Any]] = [{"id": poi_id(p.poi_id), "name": p.name, "address": p.address or "", "typecode": "", "photos": []}
                        for p in offline.search(keywords, limit=5)]  # fmt: skip
                return json.dumps({"suggestion": {"keywords": [], "ciytes": []}, "pois": pois}, ensure_ascii=False)

            return await serve("maps_text_search", answer)

        @server.tool()
        async def maps_search_detail(id: str) -> CallToolResult:  # noqa: A002 - AMap's argument name
            def answer() -> str:
                p = offline.detail(amap_to_pack.get(id, id))
                if p is None:
                    return json.dumps({})
                return json.dumps(
                    {"id": id, "name": p.name, "location": _gcj(p.lon, p.lat), "address": p.address or "",
                     "city": "上海市", "type": p.category or ""},
                    ensure_ascii=False,
                )  # fmt: skip

            return await serve("maps_search_detail", answer)

        @server.tool()
        async def maps_distance(origins: str, destination: str, type: str = "1") -> CallToolResult:  # noqa: A002
            def answer() -> str:
                mode = "walking" if type == "3" else "driving"
                d = _wgs(destination)
                results = []
                for i, o in enumerate(origins.split("|"), start=1):
                    leg = offline.route(_wgs(o), d, mode=mode)  # type: ignore[arg-type]
                    results.append({"origin_id": str(i), "dest_id": "1", "distance": str(round(leg.distance_m)),
                                    "duration": str(round(leg.duration_s))})  # fmt: skip
                return json.dumps({"results": results})

            return await serve("maps_distance", answer)

        def direction(origin: str, destination: str, mode: str) -> str:
            # the hosted server leaves the polyline out
            leg = offline.route(_wgs(origin), _wgs(destination), mode=mode)  # type: ignore[arg-type]
            path = {"path": "", "distance": str(round(leg.distance_m)), "duration": str(round(leg.duration_s)),
                    "steps": []}  # fmt: skip
            return json.dumps({"route": {"origin": origin, "destination": destination, "paths": [path]}})

        @server.tool()
        async def maps_direction_driving(origin: str, destination: str) -> CallToolResult:
            return await serve("maps_direction_driving", lambda: direction(origin, destination, "driving"))

        @server.tool()
        async def maps_direction_walking(origin: str, destination: str) -> CallToolResult:
            return await serve("maps_direction_walking", lambda: direction(origin, destination, "walking"))

        @server.tool()
        async def maps_schema_personal_map(orgName: str, lineList: list[dict[str, Any]]) -> CallToolResult:  # noqa: N803
            self.personal_map_args = {"orgName": orgName, "lineList": lineList}
            return await serve("maps_schema_personal_map", lambda: PERSONAL_MAP_LINK)

        @server.tool()
        async def maps_schema_navi(lon: str, lat: str) -> CallToolResult:
            link = f"amapuri://navi?sourceApplication=amap_mcp&lon={lon}&lat={lat}&dev=1&style=2"
            return await serve("maps_schema_navi", lambda: link)

        app = server.streamable_http_app()

        async def checked(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                query = dict(p.split("=", 1) for p in scope.get("query_string", b"").decode().split("&") if "=" in p)
                if query.get("key") != self.key:  # the hosted server's raw AMap body, not JSON-RPC
                    await send({"type": "http.response.start", "status": 200,
                                "headers": [(b"content-type", b"application/json")]})  # fmt: skip
                    await send({"type": "http.response.body", "body": INVALID_KEY_BODY})
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

    def calls_by_tool(self) -> dict[str, int]:
        with self._lock:
            return dict(sorted(Counter(self.calls).items()))

    def reset_day(self) -> None:
        """Midnight in Asia/Shanghai: the key's daily count starts again."""
        self.limits.reset_day()

    def __enter__(self) -> AMapMcpStandIn:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
