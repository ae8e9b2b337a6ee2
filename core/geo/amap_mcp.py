"""AMap through its official MCP server (``https://mcp.amap.com/mcp?key=…``, streamable HTTP; ``mcp`` SDK 1.x).

The tools answer a reduced projection of the REST APIs (docs: shared/docs/amap.md §4): text search has no
coordinates and directions have no polyline. What MCP leaves out is filled from REST with the same key: a POI's
position from ``maps_search_detail`` and, failing that, REST place detail; a leg's drawn path from REST
directions. Only MCP makes the personal-map link (``maps_schema_personal_map``) and the navigation link
(``maps_schema_navi``). Every call runs under one total timeout: with a bad key the hosted server answers a raw
AMap body instead of JSON-RPC and the SDK would otherwise wait for ever.

The tools call the same REST APIs under the same key, so they spend the key's QPS and daily quota (docs/amap.md §4).
Every tool call therefore goes through the key's one token bucket and hold, the REST provider's (``limiter``,
``hold``: core.geo.ratelimit.shared_bucket/shared_hold), so MCP calls and REST fills together keep one rate; a
QPS refusal is asked again through the bucket's penalty, and a refusal that lasts holds the key, unsent.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from core.errors import ProviderError, ProviderNotRequested, ProviderRateLimited, ProviderTimeout, ProviderUnavailable
from core.geo.amap_envelope import (
    AMAP_ZONE,
    PER_MINUTE_CODE,
    RATE_LIMIT_CODES,
    error_for_infocode,
    held_error,
    hold_after_refusal,
    redact_key,
)
from core.geo.base import (
    Leg,
    LonLat,
    MatchLevel,
    Place,
    TravelMatrix,
    TravelMode,
    column_groups,
)
from core.geo.coords import gcj02_to_wgs84, wgs84_to_gcj02
from core.geo.daily_quota import DailyCount, quota_reached_error
from core.geo.http import install_http_log_redaction
from core.geo.ratelimit import KeyHold, RateLimiter, ServiceHold
from core.geo.scope import CallScope, ScopedService

logger = logging.getLogger(__name__)

DEFAULT_URL = "https://mcp.amap.com/mcp"
#: the REST service (core.geo.amap.DAILY_SERVICE's names) whose daily quota a tool's call spends; a tool not listed
#: is counted under its own name, against no quota
TOOL_SERVICE: dict[str, str] = {
    "maps_geo": "geocode", "maps_text_search": "search", "maps_search_detail": "detail", "maps_distance": "distance",
    "maps_direction_driving": "driving", "maps_direction_walking": "walking", "maps_direction_bicycling": "cycling",
    "maps_weather": "weather",
}  # fmt: skip
#: AMap's published info names -> infocodes (shared/docs/amap.md, the error table)
INFO_CODES = {
    "INVALID_USER_KEY": "10001", "SERVICE_NOT_AVAILABLE": "10002", "DAILY_QUERY_OVER_LIMIT": "10003",
    "ACCESS_TOO_FREQUENT": "10004", "INVALID_USER_IP": "10005", "INVALID_USER_DOMAIN": "10006",
    "INVALID_USER_SIGNATURE": "10007", "INVALID_USER_SCODE": "10008", "USERKEY_PLAT_NOMATCH": "10009",
    "IP_QUERY_OVER_LIMIT": "10010", "INSUFFICIENT_PRIVILEGES": "10012", "USER_KEY_RECYCLED": "10013",
    "QPS_HAS_EXCEEDED_THE_LIMIT": "10014", "GATEWAY_TIMEOUT": "10015", "SERVER_IS_BUSY": "10016",
    "CQPS_HAS_EXCEEDED_THE_LIMIT": "10019", "CKQPS_HAS_EXCEEDED_THE_LIMIT": "10020",
    "CUQPS_HAS_EXCEEDED_THE_LIMIT": "10021", "USER_DAILY_QUERY_OVER_LIMIT": "10044", "INVALID_PARAMS": "20000",
    "MISSING_REQUIRED_PARAMS": "20001", "OUT_OF_SERVICE": "20800", "NO_ROADS_NEARBY": "20801",
    "ROUTE_FAIL": "20802", "OVER_DIRECTION_RANGE": "20803",
}  # fmt: skip
_INFO = re.compile(r"\b([A-Z][A-Z_]{5,})\b")
DISTANCE_TYPE = {"driving": "1", "walking": "3"}
MAX_ORIGINS = 100
AMAP_LINK = re.compile(r"amapuri://\S+|https?://\S+")


def _gcj(point: LonLat) -> str:
    lon, lat = wgs84_to_gcj02(point.lon, point.lat)
    return f"{lon:.6f},{lat:.6f}"


def _wgs(text: Any) -> tuple[float, float] | None:
    try:
        lon, lat = (float(x) for x in str(text).split(","))
    except (TypeError, ValueError):
        return None
    return gcj02_to_wgs84(lon, lat)


def tool_error(text: str, *, tool: str) -> ProviderError:
    """``"Geocoding failed: DAILY_QUERY_OVER_LIMIT"`` as the exception REST would raise for that info."""
    found = _INFO.findall(text)
    info = next((name for name in found if name in INFO_CODES), found[-1] if found else "UNKNOWN")
    return error_for_infocode(INFO_CODES.get(info), info, endpoint=f"MCP {tool}")


def _json(text: str, *, tool: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise ProviderError(f"AMap MCP {tool} answered text that is not JSON", details={"tool": tool}) from None


# ---- parsers of the tools' text (npm 0.0.8 and hosted shapes both accepted) ------------------------------
def parse_geo(text: str) -> list[Place]:
    data = _json(text, tool="maps_geo")
    rows = data.get("results") or data.get("return") or data.get("geocodes") or [] if isinstance(data, dict) else []
    places = []
    for row in rows if isinstance(rows, list) else []:
        where = _wgs(row.get("location"))
        if where is None:
            continue
        # a city that is its own province (上海市, 北京市) is named once, not "上海市上海市黄浦区…"
        parts = [row.get(k) for k in ("province", "city", "district", "street", "number")]
        if parts[1] == parts[0]:
            parts[1] = None
        address = "".join(p for p in parts if isinstance(p, str))
        level: MatchLevel = (
            "house_number" if row.get("level") == "门牌号" else "poi" if row.get("level") == "兴趣点" else "area"
        )
        places.append(
            Place(
                name=address or str(row.get("location")),
                address=address or None,
                lon=where[0],
                lat=where[1],
                city=row.get("city") if isinstance(row.get("city"), str) else None,
                district=row.get("district") if isinstance(row.get("district"), str) else None,
                level=level,
                source="amap",
                raw=row,
            )
        )
    return places


def parse_text_search(text: str) -> list[dict[str, Any]]:
    """POIs as the tool gives them: id, name, address (no location)."""
    data = _json(text, tool="maps_text_search")
    pois = data.get("pois") if isinstance(data, dict) else None
    return [p for p in pois if isinstance(p, dict) and p.get("id")] if isinstance(pois, list) else []


def parse_detail(text: str) -> Place | None:
    data = _json(text, tool="maps_search_detail")
    if not isinstance(data, dict):
        return None
    where = _wgs(data.get("location"))
    if where is None:
        return None
    return Place(
        name=str(data.get("name") or ""),
        address=data.get("address") if isinstance(data.get("address"), str) else None,
        lon=where[0],
        lat=where[1],
        city=data.get("city") if isinstance(data.get("city"), str) else None,
        poi_id=str(data.get("id") or "") or None,
        category=data.get("type") if isinstance(data.get("type"), str) else None,
        level="poi",
        source="amap",
        raw=data,
    )


def parse_distance(text: str, n_origins: int) -> list[tuple[float, float] | None]:
    data = _json(text, tool="maps_distance")
    rows = data.get("results") if isinstance(data, dict) else None
    out: list[tuple[float, float] | None] = [None] * n_origins
    for row in rows if isinstance(rows, list) else []:
        try:
            i = int(row["origin_id"]) - 1
            out[i] = (float(row["distance"]), float(row["duration"]))
        except (KeyError, TypeError, ValueError, IndexError):
            continue
    return out


def parse_direction(text: str) -> tuple[float, float]:
    data = _json(text, tool="maps_direction")
    route = (data.get("route") or data.get("data") or data) if isinstance(data, dict) else {}
    paths = route.get("paths") if isinstance(route, dict) else None
    try:
        best = paths[0]  # type: ignore[index]
        return float(best["distance"]), float(best["duration"])
    except (TypeError, KeyError, IndexError, ValueError):
        raise ProviderError("AMap MCP directions have no path", details={"tool": "maps_direction"}) from None


def parse_link(text: str, *, tool: str) -> str:
    found = AMAP_LINK.search(text)
    if found is None:
        raise ProviderError(f"AMap MCP {tool} returned no link", details={"tool": tool})
    return found.group(0)


class AMapMcpProvider(ScopedService):
    """Geocoder and Router over the AMap MCP tools; REST (``rest``, an AMapProvider) fills what MCP omits."""

    name = "amap"
    #: the distance service (/v3/distance) and the direction service (paths[0]) are two services, two figures
    matrix_differs_from_directions = True
    label = "AMap MCP"
    SCOPED_PARTS = ("rest",)

    def __init__(
        self,
        *,
        key: str,
        url: str = DEFAULT_URL,
        timeout_s: float = 20.0,
        rest: Any = None,
        limiter: RateLimiter | None = None,
        hold: KeyHold | None = None,
        daily: DailyCount | None = None,
        rate_limit_retries: int = 0,
        rate_limit_backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not key or not key.strip():
            raise ValueError("an AMap key is needed")
        self._key = key.strip()
        install_http_log_redaction(self._key)  # the key travels in the URL, which the SDK and httpx log
        self.url = url.rstrip("?")
        self.timeout_s = float(timeout_s)
        self.rest = rest
        #: the key's one bucket (None: unpaced); the REST provider of the key must hold the same one
        self.limiter = limiter
        #: refusals that last (the minute's limit, the day's quota) hold every later call of the key, unsent
        self.hold = hold if hold is not None else ServiceHold()
        #: the key's daily counter, the REST provider's: a tool calls the REST service it names, under its quota
        self.daily = daily
        #: a QPS refusal is asked again this many times, after ``rate_limit_backoff_s`` doubled each time
        self.rate_limit_retries = max(0, int(rate_limit_retries))
        self.rate_limit_backoff_s = max(0.0, float(rate_limit_backoff_s))
        self._sleep = sleep
        self.scope = CallScope.detached()

    def __repr__(self) -> str:
        return f"AMapMcpProvider(url={self.url!r})"

    @property
    def secret(self) -> str:
        return self._key

    def close(self) -> None:
        if self.rest is not None:
            self.rest.close()

    # ---- one tool call: held, paced, asked again on a QPS refusal ----------------------------------------
    def call_tool(self, tool: str, arguments: Mapping[str, Any]) -> str:
        """The tool's text. Refused unsent while the key is held; paced through the key's bucket; a QPS refusal
        is asked again ``rate_limit_retries`` times (the bucket's penalty holds every caller of the key back)."""
        endpoint = f"MCP {tool}"
        held = self.hold.current()
        if held is not None:
            raise held_error(held, endpoint=endpoint)
        pause = self.rate_limit_backoff_s
        for attempt in range(self.rate_limit_retries + 1):
            try:
                return self._send(tool, arguments)
            except ProviderError as exc:
                code = exc.details.get("infocode") if isinstance(exc.details, dict) else None
                hold_after_refusal(self.hold, code)
                # the minute's limit is not lifted by a pause of seconds: asking again would only spend quota
                if code not in RATE_LIMIT_CODES or code == PER_MINUTE_CODE or attempt == self.rate_limit_retries:
                    if isinstance(exc, ProviderRateLimited) and self.rate_limit_retries:
                        # asked again here already, paced: the resilient wrapper does not ask a third time
                        exc.details = {**(exc.details or {}), "paced_retries": self.rate_limit_retries}
                    raise
            logger.info("AMap %s refused the call for going too fast (infocode %s); asking again", endpoint, code)
            if self.limiter is not None:
                self.limiter.penalize(pause)  # every caller of the key waits: pacing, outside the plan's budget
            else:
                self._sleep(pause)
                self.scope.exclude_from_budget(pause)
            pause *= 2
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _send(self, tool: str, arguments: Mapping[str, Any]) -> str:
        """One tool call, sync, under a total deadline (the plan's time left for providers, at most timeout_s)."""
        import anyio

        if (left := self.scope.budget_left()) is not None and left <= 0:
            raise ProviderNotRequested(
                f"AMap MCP was not asked {tool}: the plan's time for providers ran out", details={"tool": tool}
            )
        if self.daily is not None:
            use = self.daily.spend(TOOL_SERVICE.get(tool, tool))
            if not use.allowed:
                raise quota_reached_error(use, endpoint=f"MCP {tool}", zone=AMAP_ZONE)
        if self.limiter is not None:
            self.scope.exclude_from_budget(
                self.limiter.acquire()
            )  # waiting for the key's turn is pacing, not an answer
        self.scope.note_request()
        left = self.scope.call_wait_left()
        timeout = self.timeout_s if left is None else max(0.05, min(self.timeout_s, left))
        try:
            return anyio.run(self._call, tool, dict(arguments), timeout)
        except TimeoutError:
            raise ProviderTimeout(
                f"AMap MCP {tool} did not answer within {timeout:g} s",
                details={"tool": tool, "service": self.label, "timeout_s": float(timeout)},
            ) from None
        except ProviderError:
            raise
        except Exception as exc:  # the SDK's transport and protocol errors, whatever their type
            raise ProviderUnavailable(
                f"AMap MCP {tool} failed ({type(exc).__name__}: {redact_key(str(exc), self._key)})",
                details={"tool": tool},
            ) from None

    async def _call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> str:
        import anyio
        import httpx
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        url = f"{self.url}?key={self._key}"
        with anyio.fail_after(timeout_s):  # one deadline over connect, handshake and the call
            async with (
                httpx.AsyncClient(timeout=timeout_s, follow_redirects=False) as http,
                streamable_http_client(url, http_client=http) as (read, write, _),
                ClientSession(read, write, read_timeout_seconds=timedelta(seconds=timeout_s)) as session,
            ):
                await session.initialize()
                result = await session.call_tool(tool, arguments)
        text = "".join(getattr(block, "text", "") for block in result.content)
        if result.isError:
            raise tool_error(redact_key(text, self._key), tool=tool)
        return text

    # ---- Geocoder ---------------------------------------------------------------------------------------
    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        args = {"address": address, **({"city": city} if city else {})}
        return parse_geo(self.call_tool("maps_geo", args))

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        args: dict[str, Any] = {"keywords": keywords, **({"city": city, "citylimit": True} if city else {})}
        places = []
        for poi in parse_text_search(self.call_tool("maps_text_search", args))[: max(1, min(limit, 10))]:
            place = self.detail(str(poi["id"]))  # the tool gives no location: ask for the POI's
            if place is not None:
                places.append(place)
        return places

    def detail(self, poi_id: str) -> Place | None:
        place = parse_detail(self.call_tool("maps_search_detail", {"id": poi_id}))
        if place is None and self.rest is not None:
            place = self.rest.detail(poi_id)  # MCP left the position out: REST has it
        return place

    # ---- Router -----------------------------------------------------------------------------------------
    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        return self.matrix_to(points, range(len(points)), mode=mode)

    def matrix_to(self, points: Sequence[LonLat], destinations: Sequence[int], *, mode: TravelMode) -> TravelMatrix:
        """The columns ``destinations`` from ``maps_distance`` (one destination a call, as the REST service: one
        call per distinct destination point); the other columns' cells are ``math.inf``, not asked."""
        if mode not in DISTANCE_TYPE:
            raise ProviderError(f"AMap's distance tool has no {mode} mode; the {mode} matrix is estimated")
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        n = len(pts)
        dist = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        at_point: dict[LonLat, list[int]] = {}
        for i, p in enumerate(pts):
            at_point.setdefault(p, []).append(i)
        for target, columns in column_groups(pts, destinations).items():
            for j in columns:
                for i in at_point[target]:
                    dist[i][j] = dur[i][j] = 0.0
            origins = [p for p in at_point if p != target]
            for start in range(0, len(origins), MAX_ORIGINS):
                chunk = origins[start : start + MAX_ORIGINS]
                args = {
                    "origins": "|".join(_gcj(p) for p in chunk),
                    "destination": _gcj(target),
                    "type": DISTANCE_TYPE[mode],
                }
                for origin, cell in zip(
                    chunk, parse_distance(self.call_tool("maps_distance", args), len(chunk)), strict=True
                ):
                    if cell is not None:
                        for i in at_point[origin]:
                            for j in columns:
                                dist[i][j], dur[i][j] = cell
        asked = sorted(set(destinations))
        return TravelMatrix(
            distances_m=dist, durations_s=dur, source="amap", mode=mode, destinations=None if len(asked) == n else asked
        )

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        o = LonLat(float(origin[0]), float(origin[1]))
        d = LonLat(float(destination[0]), float(destination[1]))
        tool = {"driving": "maps_direction_driving", "cycling": "maps_direction_bicycling"}.get(
            mode, "maps_direction_walking"
        )
        distance, duration = parse_direction(self.call_tool(tool, {"origin": _gcj(o), "destination": _gcj(d)}))
        geometry: list[tuple[float, float]] = []
        if self.rest is not None:  # MCP directions carry no polyline: the drawn path comes from REST
            try:
                geometry = self.rest.route(o, d, mode=mode).geometry
            except ProviderError as exc:
                logger.info("AMap REST geometry unavailable for an MCP leg: %s", redact_key(exc.message, self._key))
        return Leg(distance_m=distance, duration_s=duration, geometry=geometry, source="amap", mode=mode)

    # ---- links only MCP makes ---------------------------------------------------------------------------
    def personal_map_link(self, title: str, points: Sequence[Place]) -> str:
        """A 专属地图 of ``points`` in order (each needs an AMap POI id); opens in the AMap app only."""
        info = []
        for p in points:
            lon, lat = wgs84_to_gcj02(p.lon, p.lat)
            info.append({"name": p.name, "lon": round(lon, 6), "lat": round(lat, 6), "poiId": p.poi_id or ""})
        args = {"orgName": title, "lineList": [{"title": title, "pointInfoList": info}]}
        return parse_link(self.call_tool("maps_schema_personal_map", args), tool="maps_schema_personal_map")

    def navi_link(self, destination: LonLat) -> str:
        """The app's navigation to ``destination``. The tool marks its link dev=1 (WGS-84 to be shifted), so it
        is given our WGS-84 coordinates, not AMap's."""
        args = {"lon": f"{destination.lon:.6f}", "lat": f"{destination.lat:.6f}"}
        return parse_link(self.call_tool("maps_schema_navi", args), tool="maps_schema_navi")
