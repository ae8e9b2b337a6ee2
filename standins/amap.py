"""A stand-in AMap Web Service on 127.0.0.1 that keeps AMap's limits (issue 20 §5): a QPS per key and a daily
quota, refused with AMap's own infocodes and bodies (docs/amap.md §1: ``CUQPS_HAS_EXCEEDED_THE_LIMIT`` 10021 for
going too fast, ``ACCESS_TOO_FREQUENT`` 10004 past a per-minute volume (optional), ``DAILY_QUERY_OVER_LIMIT`` 10003
once the day's calls are spent; HTTP 200 either way).

It answers the endpoints a plan uses in AMap's documented shapes (GCJ-02 on the wire): geocodes (one address, or
up to 10 joined with ``|`` and ``batch=true``) and POI text search from a region pack's own places; distances and
directions from the pack's straight-line estimate (directions optionally off by a fixed share per leg,
``directions_spread``, as AMap's direction service differs from its distance service); the weather forecast of the
pack's adcode (``extensions=all``: today and the next three days of the stand-in's clock, ``forecast`` saying each
day's sky and temperatures, fair by default). Its figures are the stand-in's; what it is for is the traffic: how
many requests reach it, how fast, and what AMap would have refused. ``failing``: the paths it fails on purpose, as
AMap's engine fails (``ENGINE_RESPONSE_DATA_ERROR``, infocode 30001, HTTP 200), counted as requests.

Started by ``python -m standins amap --port P --qps Q --daily N`` and by the tests and benchmarks that need it
(``with AMapLimitedStandIn(qps=1) as amap: ... amap.base_url``).

How the limits are kept (AMap does not publish its algorithm): the QPS counts every request of a key within one
calendar second of the server's clock; the daily quota counts every request of a key, refused ones included (on
AMap every retry is a real request that counts against the quota).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

from core.clock import clock_from_settings, real_epoch_s
from core.config import Settings
from core.geo.coords import gcj02_to_wgs84, wgs84_to_gcj02
from standins.http import send_json

CUQPS_BODY = {"status": "0", "info": "CUQPS_HAS_EXCEEDED_THE_LIMIT", "infocode": "10021"}
DAILY_BODY = {"status": "0", "info": "DAILY_QUERY_OVER_LIMIT", "infocode": "10003"}
MINUTE_BODY = {"status": "0", "info": "ACCESS_TOO_FREQUENT", "infocode": "10004"}
OK = {"status": "1", "info": "OK", "infocode": "10000"}
ENGINE_BODY = {"status": "0", "info": "ENGINE_RESPONSE_DATA_ERROR", "infocode": "30001"}
MAX_BATCH = 10
WEATHER_PATH = "/v3/weather/weatherInfo"
#: AMap issues its forecasts about three times a day (docs/amap.md §2.9): the last one before now is the one it gives
ISSUED_AT = (8, 11, 18)
SHANGHAI = ZoneInfo("Asia/Shanghai")


@dataclass(frozen=True)
class CastDay:
    """One published day of the stand-in's forecast: the sky by day and by night as AMap words it, the day's high
    and the night's low (°C)."""

    day: str = "晴"
    night: str = "晴"
    high: int = 18
    low: int = 10
    wind: str = "东北"
    power: str = "1-3"


#: the forecast when a test says none: four fair days
FAIR = (CastDay(), CastDay(day="多云", night="多云"), CastDay(day="晴", high=17), CastDay(day="多云", high=16, low=9))


def _gcj(lon: float, lat: float) -> str:
    g = wgs84_to_gcj02(lon, lat)
    return f"{g[0]:.6f},{g[1]:.6f}"


def _wgs(text: str) -> tuple[float, float]:
    lon, lat = (float(x) for x in text.split(","))
    w = gcj02_to_wgs84(lon, lat)
    return float(w[0]), float(w[1])


def _leg_jitter(origin: str, destination: str) -> float:
    """A number in [-1, 1] fixed for one leg (a hash of its two ends): the same leg always differs alike."""
    digest = hashlib.sha256(f"{origin};{destination}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 0xFFFFFFFF * 2 - 1


_EMPTY_GEOCODE: dict[str, Any] = {
    "formatted_address": [],
    "country": [],
    "province": [],
    "city": [],
    "citycode": [],
    "district": [],
    "township": [],
    "adcode": [],
    "street": [],
    "number": [],
    "location": [],
    "level": [],
}


class AMapKeyLimits:
    """AMap's limits per key: ``qps`` (None: none) counted per calendar second of ``clock``, ``per_minute`` per
    calendar minute, ``daily`` calls a day (every call counts, refused ones too). One instance may be shared by
    several stand-ins (the REST one and the MCP one): on AMap both spend the same key's QPS and quota."""

    def __init__(
        self,
        *,
        qps: float | None = None,
        daily: int | None = None,
        per_minute: int | None = None,
        clock: Callable[[], float] = real_epoch_s,
    ) -> None:
        self.qps = qps
        self.daily = daily
        self.per_minute = per_minute
        self.clock = clock  # the wall clock: AMap counts a key's QPS per calendar second (tests freeze it)
        self._day_calls: Counter[str] = Counter()
        self._second: dict[str, tuple[int, int]] = {}  # key -> (calendar second, requests in it)
        self._minute: dict[str, tuple[int, int]] = {}  # key -> (calendar minute, requests in it)
        self._lock = threading.Lock()

    def refusal(self, key: str) -> dict[str, Any] | None:
        """AMap's refusal body for this call of ``key``, or None; the call is counted either way."""
        with self._lock:
            self._day_calls[key] += 1
            if self.daily is not None and self._day_calls[key] > self.daily:
                return dict(DAILY_BODY)
            if self.per_minute is not None:
                minute = math.floor(self.clock() / 60)
                at, count = self._minute.get(key, (minute, 0))
                count = count + 1 if at == minute else 1
                self._minute[key] = (minute, count)
                if count > self.per_minute:
                    return dict(MINUTE_BODY)
            if self.qps is not None:
                second = math.floor(self.clock())
                at, count = self._second.get(key, (second, 0))
                count = count + 1 if at == second else 1
                self._second[key] = (second, count)
                if count > self.qps:
                    return dict(CUQPS_BODY)
        return None

    def reset_day(self) -> None:
        """Midnight in Asia/Shanghai: every key's daily count starts again."""
        with self._lock:
            self._day_calls.clear()


class AMapLimitedStandIn:
    """AMap's geocode, search, distance and direction endpoints answered from a region pack, at AMap's limits.

    ``qps`` (None: no limit) and ``daily`` (None: no quota) per key; ``latency_s``: the time each answer takes.
    ``requests`` lists the path of every request; ``refused`` counts the refusals by infocode."""

    def __init__(
        self,
        region: str = "shanghai",
        *,
        qps: float | None = None,
        daily: int | None = None,
        per_minute: int | None = None,
        latency_s: float = 0.0,
        port: int = 0,
        clock: Callable[[], float] = real_epoch_s,
        limits: AMapKeyLimits | None = None,
        directions_spread: float = 0.0,
        traffic: float = 1.0,
        slow_legs: Callable[[tuple[float, float], tuple[float, float], str], float] | None = None,
        forecast: Sequence[CastDay] = FAIR,
        now: Callable[[], datetime] | None = None,
        failing: Collection[str] = (),
    ) -> None:
        from core.geo.offline import OfflineProvider
        from core.packs.loader import load_region

        self.pack = load_region(region)
        self.offline = OfflineProvider(self.pack)
        #: the key's limits (``limits``: shared with another stand-in of the same key, e.g. the MCP one)
        self.limits = limits or AMapKeyLimits(qps=qps, daily=daily, per_minute=per_minute, clock=clock)
        self.latency_s = max(0.0, latency_s)
        #: how far its directions may differ from its distances, as AMap's two services do: each leg's direction
        #: figures are the distance service's times a factor in [1 - spread, 1 + spread], fixed per leg (0: equal)
        self.directions_spread = max(0.0, directions_spread)
        #: AMap's driving distance is traffic-aware (docs/amap.md §2.8): each driving duration it answers is the
        #: estimate's times ``traffic``; ``slow_legs(origin, destination, mode)`` (WGS-84) multiplies one leg's more
        #: (a closed road, a jam), so its measured figure differs from the estimate a planner screened on
        self.traffic = max(0.0, traffic)
        self.slow_legs = slow_legs
        #: the published days from today on (AMap publishes four); ``now``: the moment they are issued at (OMNI_NOW's
        #: when set, as the product the stand-in serves reads it, else the machine's)
        self.forecast = list(forecast)
        self.now = now or clock_from_settings(Settings())
        #: the paths answered with AMap's engine failure (a test may change it while the server runs)
        self.failing = set(failing)
        self.requests: list[str] = []
        self.refused: Counter[str] = Counter()  # this server's refusals by infocode
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                send_json(self, 200, outer.handle(parts.path, query))  # AMap answers its refusals with HTTP 200 too

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # ---- the limits -----------------------------------------------------------------------------
    @property
    def qps(self) -> float | None:
        return self.limits.qps

    @qps.setter
    def qps(self, value: float | None) -> None:
        self.limits.qps = value

    def _refusal(self, key: str) -> dict[str, Any] | None:
        refusal = self.limits.refusal(key)
        if refusal is not None:
            with self._lock:
                self.refused[refusal["infocode"]] += 1
        return refusal

    def handle(self, path: str, query: dict[str, str]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(path)
        refusal = self._refusal(query.get("key", ""))
        if self.latency_s:
            time.sleep(self.latency_s)
        if refusal is not None:
            return refusal
        if path in self.failing:
            with self._lock:
                self.refused[ENGINE_BODY["infocode"]] += 1
            return dict(ENGINE_BODY)
        return self.answer(path, query)

    def reset_day(self) -> None:
        """Midnight in Asia/Shanghai: every key's daily count starts again."""
        self.limits.reset_day()

    # ---- the answers ----------------------------------------------------------------------------
    def _geocode_row(self, address: str) -> dict[str, Any] | None:
        found = self.offline.geocode(address, city=None)[:1]
        if not found:
            return None
        p = found[0]
        return {
            "formatted_address": p.address or p.name,
            "city": p.city or "",
            "district": p.district or "",
            "location": _gcj(p.lon, p.lat),
            "level": "兴趣点",
        }

    def weather(self, city: str) -> dict[str, Any]:
        """AMap's forecast answer (``extensions=all``) for the pack's adcode or city name: its published days from
        the stand-in's today, issued at the last of AMap's issue hours before now; an area it does not know is an
        answer with no forecasts, as AMap gives."""
        pack = self.pack
        if not city or city not in {pack.adcode, *pack.city_names()}:
            return {**OK, "count": "0", "forecasts": []}
        now = self.now().astimezone(SHANGHAI)
        hours = [h for h in ISSUED_AT if h <= now.hour]
        issued = now.replace(hour=hours[-1]) if hours else (now - timedelta(days=1)).replace(hour=ISSUED_AT[-1])
        casts = []
        for offset, cast in enumerate(self.forecast[:4]):
            day = now.date() + timedelta(days=offset)
            casts.append(
                {"date": day.isoformat(), "week": str(day.isoweekday()), "dayweather": cast.day,
                 "nightweather": cast.night, "daytemp": str(cast.high), "nighttemp": str(cast.low),
                 "daywind": cast.wind, "nightwind": cast.wind, "daypower": cast.power, "nightpower": cast.power,
                 "daytemp_float": f"{cast.high:.1f}", "nighttemp_float": f"{cast.low:.1f}"}
            )  # fmt: skip
        area = {"city": pack.display_name.get("zh", pack.city), "adcode": pack.adcode or "", "province": pack.city,
                "reporttime": issued.strftime("%Y-%m-%d %H:00:00"), "casts": casts}  # fmt: skip
        return {**OK, "count": "1", "forecasts": [area]}

    def answer(self, path: str, q: dict[str, str]) -> dict[str, Any]:
        if path == WEATHER_PATH:
            if q.get("extensions") != "all":  # the live weather is not served: no plan reads it
                return {"status": "0", "info": "INVALID_PARAMS", "infocode": "20000"}
            return self.weather(q.get("city", ""))
        if path == "/v3/geocode/geo":
            address = q.get("address", "")
            if q.get("batch") == "true":
                addresses = address.split("|")
                if len(addresses) > MAX_BATCH:
                    return {"status": "0", "info": "INVALID_PARAMS", "infocode": "20000"}
                # a batch answers every address in order; an unmatched one is a row of empty values
                rows = [self._geocode_row(a) or dict(_EMPTY_GEOCODE) for a in addresses]
            else:
                rows = [r for r in (self._geocode_row(address),) if r is not None]
            return {**OK, "count": str(len(rows)), "geocodes": rows}
        if path == "/v3/place/text":
            found = self.offline.search(q.get("keywords", ""), limit=int(q.get("offset", "10")))
            pois = [
                {"id": p.poi_id or "", "name": p.name, "address": p.address or "", "location": _gcj(p.lon, p.lat),
                 "cityname": p.city or "", "adname": p.district or "", "type": p.category or ""}
                for p in found
            ]  # fmt: skip
            return {**OK, "count": str(len(pois)), "pois": pois}
        mode = "walking" if q.get("type") == "3" or path.endswith("/walking") else "driving"
        if path == "/v3/distance":
            dest = _wgs(q["destination"])
            results = []
            for i, o in enumerate(q["origins"].split("|"), start=1):
                leg = self.offline.route(_wgs(o), dest, mode=mode)  # type: ignore[arg-type]
                seconds = leg.duration_s * self._slower(_wgs(o), dest, mode)
                results.append(
                    {"origin_id": str(i), "dest_id": "1", "distance": str(round(leg.distance_m)),
                     "duration": str(round(seconds))}
                )  # fmt: skip
            return {**OK, "count": str(len(results)), "results": results}
        if path.startswith("/v3/direction/"):
            leg = self.offline.route(_wgs(q["origin"]), _wgs(q["destination"]), mode=mode)  # type: ignore[arg-type]
            factor = 1.0 + self.directions_spread * _leg_jitter(q["origin"], q["destination"])
            step = {"distance": str(round(leg.distance_m * factor)), "duration": str(round(leg.duration_s * factor)),
                    "polyline": f"{q['origin']};{q['destination']}"}  # fmt: skip
            paths = [{"distance": step["distance"], "duration": step["duration"], "steps": [step]}]
            return {
                **OK,
                "count": "1",
                "route": {"origin": q["origin"], "destination": q["destination"], "paths": paths},
            }
        return {"status": "0", "info": "INVALID_PARAMS", "infocode": "20000"}

    def _slower(self, origin: tuple[float, float], destination: tuple[float, float], mode: str) -> float:
        factor = self.traffic if mode == "driving" else 1.0
        return factor * (self.slow_legs(origin, destination, mode) if self.slow_legs is not None else 1.0)

    # ---- lifecycle ------------------------------------------------------------------------------
    def start(self) -> AMapLimitedStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the command line), then close the socket."""
        try:
            self._server.serve_forever()
        finally:
            self._server.server_close()

    def __enter__(self) -> AMapLimitedStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
