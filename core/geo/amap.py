"""AMap (高德地图) Web Service REST provider (v3 endpoints) behind the ``MapProvider`` protocol.

routingpy style: every call is split into a ``get_*_params()`` builder and a ``parse_*_json()``
parser, both usable without HTTP. HTTP, pacing, status codes and redaction come from the HTTP base
(core/geo/http.py); this module adds the map from AMap's ``infocode`` to our exceptions (geopy style).

Datum: core speaks WGS-84; AMap speaks GCJ-02. Every coordinate sent is converted with
``wgs84_to_gcj02`` and every coordinate received with ``gcj02_to_wgs84``, here and nowhere else.

Secrets: the key is a query parameter and AMap echoes it in invalid-key bodies, so it never
appears in a log line, an exception message or exception details (``key=***``).

The envelope, the infocode table, the endpoints and the coordinate rules are AMap's published
Web Service documentation; the recorded bodies in tests/fixtures/amap pin them.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

import httpx

from core.errors import (
    InputError,
    ProviderAuthError,
    ProviderError,
    ProviderMalformed,
    ProviderRateLimited,
    ProviderUnavailable,
    RouteNotFound,
)
from core.geo.amap_envelope import (
    AMAP_ZONE,
    PER_MINUTE_CODE,
    RATE_LIMIT_CODES,
    _norm,
    _text,
    amap_rows,
    held_error,
    hold_after_refusal,
    raise_for_amap_status,
)
from core.geo.amap_rows import (
    DistanceItem,
    _geocode_level,
    _number,
    _place_from_poi,
    _polyline_to_wgs,
    _to_wgs,
    format_lnglat,
)
from core.geo.base import (
    DayForecast,
    Leg,
    LonLat,
    Place,
    TravelMatrix,
    TravelMode,
    column_groups,
)
from core.geo.coords import haversine_m
from core.geo.daily_quota import DailyCount, quota_reached_error
from core.geo.http import HttpService
from core.geo.ratelimit import KeyHold, RateLimiter, ServiceHold
from core.geo.weather import pick_forecast

__all__ = ["AMapProvider", "DistanceItem"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_BASE_URL = "https://restapi.amap.com"

GEOCODE_PATH = "/v3/geocode/geo"
SEARCH_PATH = "/v3/place/text"
DETAIL_PATH = "/v3/place/detail"
DISTANCE_PATH = "/v3/distance"
DRIVING_PATH = "/v3/direction/driving"
WALKING_PATH = "/v3/direction/walking"
BICYCLING_PATH = "/v4/direction/bicycling"  # v4: the errcode envelope, the route under "data", numbers as numbers
ROUTE_PATHS: dict[str, str] = {"driving": DRIVING_PATH, "walking": WALKING_PATH, "cycling": BICYCLING_PATH}
WEATHER_PATH = "/v3/weather/weatherInfo"
#: the service each path's calls count against in the key's daily quota (docs/amap.md, "Rate limits / quotas":
#: AMap's table has one line per service; the settings' ``amap_daily_quota`` is keyed by these names)
DAILY_SERVICE: dict[str, str] = {
    GEOCODE_PATH: "geocode", SEARCH_PATH: "search", DETAIL_PATH: "detail", DISTANCE_PATH: "distance",
    DRIVING_PATH: "driving", WALKING_PATH: "walking", BICYCLING_PATH: "cycling", WEATHER_PATH: "weather",
}  # fmt: skip

MAX_SEARCH_OFFSET = 25  # "强烈建议不超过25"
MAX_GEOCODE_BATCH = 10  # /v3/geocode/geo: up to 10 addresses joined with "|" and batch=true
MAX_DISTANCE_ORIGINS = 100  # /v3/distance: 1-100 origins per call
WALKING_DISTANCE_LIMIT_M = 5_000.0  # /v3/distance type=3 only answers walks up to 5 km
DISTANCE_TYPE: dict[str, str] = {"driving": "1", "walking": "3"}
DRIVING_STRATEGY = "0"  # v3 速度优先: one path, the documented default

# /v3/distance per-item `code` (driving mode), as AMap documents it
DISTANCE_ITEM_CODES = {
    "1": "no drivable road connects the two points",
    "2": "a point is too far from any road",
    "3": "a point is outside mainland China",
}

# --------------------------------------------------------------------------------------------
# The provider
# --------------------------------------------------------------------------------------------


class AMapProvider(HttpService):
    """AMap Web Service (v3): a Geocoder, a Router and a WeatherService. All coordinates in and out are WGS-84."""

    name = "amap"
    #: the distance service (/v3/distance) and the direction service (paths[0]) are two services, two figures
    matrix_differs_from_directions = True
    label = "AMap"

    def __init__(
        self,
        *,
        key: str,
        client: httpx.Client | None = None,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 10.0,
        min_interval_s: float = 0.0,
        city_default: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        limiter: RateLimiter | None = None,
        rate_limit_retries: int = 0,
        rate_limit_backoff_s: float = 1.0,
        hold: KeyHold | None = None,
        daily: DailyCount | None = None,
    ) -> None:
        if not key or not str(key).strip():
            raise ProviderAuthError("No AMap key was given; set OMNI_AMAP_KEY.", field="amap_key")
        self._key = str(key).strip()
        super().__init__(
            base_url=base_url,
            client=client,
            timeout_s=timeout_s,
            min_interval_s=min_interval_s,
            secret=self._key,
            sleep=sleep,
            clock=clock,
            limiter=limiter,
        )
        self.city_default = city_default
        #: a refusal for going too fast (AMap's QPS infocodes) is asked again this many times, after a pause of
        #: ``rate_limit_backoff_s``, doubled each time (with a limiter the pause holds every caller back)
        self.rate_limit_retries = max(0, int(rate_limit_retries))
        self.rate_limit_backoff_s = max(0.0, float(rate_limit_backoff_s))
        #: refusals that last (the minute's limit, the day's quota) hold every later call of the key, unsent
        self.hold = hold if hold is not None else ServiceHold()
        #: every call sent is counted against the key's daily quota first (None: not counted)
        self.daily = daily

    def __repr__(self) -> str:
        return f"AMapProvider(base_url={self.base_url!r}, key=***)"

    # ---- params builders (no HTTP) ---------------------------------------------------------

    def _city(self, city: str | None) -> str | None:
        city = city if city is not None else self.city_default
        if city is None:
            return None
        return str(city).strip() or None

    def get_geocode_params(self, address: str, *, city: str | None = None) -> dict[str, str]:
        params = {"key": self._key, "address": str(address).strip()}
        if (c := self._city(city)) is not None:
            params["city"] = c
        return params

    def get_geocode_batch_params(self, addresses: Sequence[str], *, city: str | None = None) -> dict[str, str]:
        """Up to ``MAX_GEOCODE_BATCH`` addresses in one call: ``address`` joined with ``|`` and ``batch=true``."""
        cleaned = [str(a).strip() for a in addresses]
        if not 1 <= len(cleaned) <= MAX_GEOCODE_BATCH:
            raise ValueError(f"{GEOCODE_PATH} takes 1 to {MAX_GEOCODE_BATCH} addresses a call, got {len(cleaned)}.")
        if any(not a or "|" in a for a in cleaned):
            raise ValueError("a batch address must be non-empty and must not contain '|'.")
        params = {"key": self._key, "address": "|".join(cleaned), "batch": "true"}
        if (c := self._city(city)) is not None:
            params["city"] = c
        return params

    def get_search_params(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> dict[str, str]:
        """/v3/place/text. ``near`` is not sent: v3 text search has no location parameter."""
        params = {
            "key": self._key,
            "keywords": str(keywords).strip(),
            "offset": str(max(1, min(int(limit), MAX_SEARCH_OFFSET))),
            "page": "1",
            "extensions": "all",
        }
        if (c := self._city(city)) is not None:
            params["city"] = c
            params["citylimit"] = "true"
        return params

    def get_detail_params(self, poi_id: str) -> dict[str, str]:
        return {"key": self._key, "id": str(poi_id).strip()}

    def get_distance_params(
        self, origins: Sequence[LonLat], destination: LonLat, *, mode: TravelMode
    ) -> dict[str, str]:
        if not 1 <= len(origins) <= MAX_DISTANCE_ORIGINS:
            raise ValueError(f"/v3/distance takes 1 to {MAX_DISTANCE_ORIGINS} origins, got {len(origins)}.")
        if mode not in DISTANCE_TYPE:
            raise ValueError(f"Unsupported travel mode {mode!r}; expected one of {sorted(DISTANCE_TYPE)}.")
        return {
            "key": self._key,
            "origins": "|".join(format_lnglat(p) for p in origins),
            "destination": format_lnglat(destination),
            "type": DISTANCE_TYPE[mode],
        }

    def get_route_params(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> dict[str, str]:
        params = {"key": self._key, "origin": format_lnglat(origin), "destination": format_lnglat(destination)}
        if mode == "driving":
            params.update({"strategy": DRIVING_STRATEGY, "extensions": "base"})
        elif mode not in ROUTE_PATHS:
            raise ValueError(f"Unsupported travel mode {mode!r}; expected one of {sorted(ROUTE_PATHS)}.")
        return params

    def get_driving_params(self, origin: LonLat, destination: LonLat) -> dict[str, str]:
        return self.get_route_params(origin, destination, mode="driving")

    def get_walking_params(self, origin: LonLat, destination: LonLat) -> dict[str, str]:
        return self.get_route_params(origin, destination, mode="walking")

    def get_weather_params(self, city: str, *, forecast: bool = True) -> dict[str, str]:
        """``city``: an adcode (AMap's documented input; names can match several areas)."""
        city = str(city).strip()
        if not city:
            raise InputError("weather needs a city adcode", field="city")
        return {"key": self._key, "city": city, "extensions": "all" if forecast else "base"}

    # ---- parsers (no HTTP) -----------------------------------------------------------------

    @staticmethod
    def parse_weather_forecast_json(data: Any) -> list[DayForecast]:
        """The published days of a forecast (``extensions=all``): today and the next three, for every area
        the answer holds (a city name can match several; an adcode matches one)."""
        raise_for_amap_status(data, endpoint=WEATHER_PATH)
        out: list[DayForecast] = []

        def first_number(*values: Any) -> float | None:
            # the *_float fields may be present but empty ([] or ""); then the plain field is the value
            return next((n for n in (_number(v) for v in values) if n is not None), None)

        for fc in (data or {}).get("forecasts") or []:
            for cast in fc.get("casts") or []:
                try:
                    day = date.fromisoformat(str(cast.get("date")))
                except ValueError:
                    continue
                out.append(
                    DayForecast(
                        city=_text(fc.get("city")),
                        adcode=_text(fc.get("adcode")),
                        date=day,
                        day_weather=_text(cast.get("dayweather")),
                        night_weather=_text(cast.get("nightweather")),
                        day_temp_c=first_number(cast.get("daytemp_float"), cast.get("daytemp")),
                        night_temp_c=first_number(cast.get("nighttemp_float"), cast.get("nighttemp")),
                        day_wind=_text(cast.get("daywind")),
                        night_wind=_text(cast.get("nightwind")),
                        day_power=_text(cast.get("daypower")),
                        night_power=_text(cast.get("nightpower")),
                        report_time=_text(fc.get("reporttime")),
                        source=f"amap:{WEATHER_PATH}",
                    )
                )
        return out

    @staticmethod
    def parse_geocode_json(data: Any) -> list[Place]:
        raise_for_amap_status(data, endpoint=GEOCODE_PATH)
        places: list[Place] = []
        for i, row in enumerate(amap_rows(data, "geocodes", endpoint=GEOCODE_PATH)):
            wgs = _to_wgs(row.get("location"))
            if wgs is None:  # AMap places every geocode: one without a point is a broken answer, not a miss
                raise ProviderMalformed(
                    f"AMap's {GEOCODE_PATH} answer breaks its schema: geocodes[{i}] has no readable location",
                    details={"service": GEOCODE_PATH, "field": f"geocodes[{i}].location"},
                )
            formatted = _text(row.get("formatted_address"))
            places.append(
                Place(
                    name=formatted or "",
                    address=formatted,
                    lon=wgs[0],
                    lat=wgs[1],
                    city=_text(row.get("city")) or _text(row.get("province")),
                    district=_text(row.get("district")),
                    poi_id=None,
                    level=_geocode_level(row.get("level")),
                    source="amap",
                    raw=row,
                )
            )
        return places

    @staticmethod
    def parse_geocode_batch_json(data: Any, n_addresses: int) -> list[list[Place]]:
        """One list per address asked, in order. In a batch AMap answers every address with one row, in the order
        asked; a row without a location is that address unmatched (an empty list). Fewer or more rows than
        addresses break the batch's schema."""
        raise_for_amap_status(data, endpoint=GEOCODE_PATH)
        rows = amap_rows(data, "geocodes", endpoint=GEOCODE_PATH)
        if len(rows) != n_addresses:
            raise ProviderMalformed(
                f"AMap's batch {GEOCODE_PATH} answer breaks its schema: {len(rows)} geocodes for {n_addresses} "
                "addresses",
                details={"service": GEOCODE_PATH, "field": "geocodes"},
            )
        out: list[list[Place]] = []
        for row in rows:
            if row.get("location") in (None, "", []):  # that address unmatched
                out.append([])
                continue
            # a location AMap cannot have meant raises in the single parser: malformed, never "no match"
            out.append(AMapProvider.parse_geocode_json({"status": "1", "geocodes": [row]}))
        return out

    @staticmethod
    def parse_search_json(data: Any) -> list[Place]:
        """POI rows -> places. A city-suggestion answer (no city, generic word) gives []."""
        raise_for_amap_status(data, endpoint=SEARCH_PATH)
        rows = amap_rows(data, "pois", endpoint=SEARCH_PATH)
        return [p for row in rows if (p := _place_from_poi(row)) is not None]

    @staticmethod
    def parse_detail_json(data: Any) -> Place | None:
        raise_for_amap_status(data, endpoint=DETAIL_PATH)
        for row in amap_rows(data, "pois", endpoint=DETAIL_PATH):
            if (place := _place_from_poi(row)) is not None:
                return place
        return None

    @staticmethod
    def parse_distance_json(data: Any, n_origins: int) -> list[DistanceItem]:
        """One item per origin sent (1-based ``origin_id``); failed items carry ``error``."""
        raise_for_amap_status(data, endpoint=DISTANCE_PATH)
        items: list[DistanceItem | None] = [None] * n_origins
        for pos, row in enumerate(amap_rows(data, "results", endpoint=DISTANCE_PATH)):
            oid = _number(row.get("origin_id"))
            idx = int(oid) - 1 if oid is not None else pos
            if not 0 <= idx < n_origins:
                continue
            code, info = _text(row.get("code")), _text(row.get("info"))
            failed = (code is not None and code != "0") or (info is not None and info.upper() != "OK")
            if failed:
                reason = DISTANCE_ITEM_CODES.get(code or "", info or "unknown error")
                items[idx] = DistanceItem(None, None, f"{reason} (code {code or '?'}, info {info or '?'})")
                continue
            dist, dur = _number(row.get("distance")), _number(row.get("duration"))
            if dist is None or dur is None:
                items[idx] = DistanceItem(None, None, "AMap returned no distance/duration")
            else:
                items[idx] = DistanceItem(dist, dur)
        return [it if it is not None else DistanceItem(None, None, "AMap returned no result") for it in items]

    @staticmethod
    def parse_route_json(data: Any, *, mode: TravelMode) -> Leg:
        """First path -> Leg; geometry = the steps' polylines joined (shared endpoints once), WGS-84."""
        endpoint = ROUTE_PATHS.get(mode, WALKING_PATH)
        raise_for_amap_status(data, endpoint=endpoint)
        route = _norm(data.get("route") or data.get("data")) or {}
        paths = _norm(route.get("paths")) if isinstance(route, Mapping) else None
        if not paths or not isinstance(paths[0], Mapping):
            raise RouteNotFound(f"AMap returned no {mode} route ({endpoint} answered without paths).")
        path = paths[0]
        distance, duration = _number(path.get("distance")), _number(path.get("duration"))
        for field, value, number in (
            ("distance", path.get("distance"), distance),
            ("duration", path.get("duration"), duration),
        ):
            if number is None and _norm(value) is not None:  # a figure that is not a number breaks AMap's schema
                raise ProviderMalformed(
                    f"AMap's {endpoint} answer breaks its schema: paths[0].{field} is {value!r}, not a number",
                    details={"service": endpoint, "field": f"paths[0].{field}"},
                )
        geometry: list[tuple[float, float]] = []
        for step in _norm(path.get("steps")) or []:
            if not isinstance(step, Mapping):
                continue
            for point in _polyline_to_wgs(step.get("polyline")):
                if not geometry or geometry[-1] != point:
                    geometry.append(point)
        if distance is None:
            raise RouteNotFound(f"AMap returned a {mode} route without a distance.")
        if duration is None:
            steps = [s for s in _norm(path.get("steps")) or [] if isinstance(s, Mapping)]
            durations = [_number(s.get("duration")) for s in steps]
            if not durations or any(d is None for d in durations):
                raise RouteNotFound(f"AMap returned a {mode} route without a duration.")
            duration = float(sum(d for d in durations if d is not None))
        return Leg(distance_m=distance, duration_s=duration, geometry=geometry, source="amap", mode=mode)

    # ---- HTTP (the base does transport, status codes and redaction) ------------------------

    def _held(self, path: str) -> None:
        """Refuse, without sending it, a call AMap would refuse: the key is held for the rest of the minute
        (10004) or of the day (10003/10044, until 00:00 Asia/Shanghai)."""
        held = self.hold.current()
        if held is not None:
            raise held_error(held, endpoint=path)

    def _note_lasting_refusal(self, code: str | None) -> None:
        hold_after_refusal(self.hold, code)

    def _count(self, path: str) -> None:
        """Count the call about to be sent against the key's daily quota; refuse it, unsent, when the day's quota
        has no room left (every retry is a call AMap counts too)."""
        if self.daily is None:
            return
        use = self.daily.spend(DAILY_SERVICE.get(path, path))
        if not use.allowed:
            raise quota_reached_error(use, endpoint=path, zone=AMAP_ZONE)

    def _request(self, path: str, params: Mapping[str, str]) -> dict[str, Any]:
        pause = self.rate_limit_backoff_s
        self._held(path)
        for attempt in range(self.rate_limit_retries + 1):
            self._count(path)
            data = self.get_json(path, params)
            code = _text(data.get("infocode")) if isinstance(data, Mapping) and str(data.get("status")) == "0" else None
            self._note_lasting_refusal(code)
            # the minute's limit is not lifted by a pause of seconds: asking again would only spend quota
            if code not in RATE_LIMIT_CODES or code == PER_MINUTE_CODE or attempt == self.rate_limit_retries:
                break
            logger.info("AMap %s refused the call for going too fast (infocode %s); asking again", path, code)
            if self.limiter is not None:
                self.limiter.penalize(pause)  # every caller waits: pacing, excluded from the plan's budget
            else:
                self._sleep(pause)
                self.scope.exclude_from_budget(pause)
            pause *= 2
        try:
            raise_for_amap_status(data, endpoint=path)
        except ProviderError as exc:
            if isinstance(exc, ProviderRateLimited) and self.rate_limit_retries:
                # asked again here already, paced: the resilient wrapper does not ask a third time
                exc.details = {**(exc.details or {}), "paced_retries": self.rate_limit_retries}
            exc.message = self.redact(exc.message)
            exc.args = (exc.message,)
            if isinstance(exc.details, dict) and "body" in exc.details:
                exc.details["body"] = self.sanitize(exc.details["body"])
            logger.warning("AMap %s failed: %s", path, exc.message)
            raise
        return dict(data)

    def _read(self, path: str, params: Mapping[str, str], parse: Callable[[dict[str, Any]], T]) -> T:
        """One call: request, check the envelope, parse. A body the parser cannot read (a broken polyline, a
        field of the wrong type) is the service failing, not a crash: ProviderUnavailable, so the call degrades."""
        data = self._request(path, params)
        try:
            return parse(data)
        except ProviderError:
            raise
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ProviderUnavailable(
                f"AMap answered {path} with a body that could not be read ({type(exc).__name__})",
                details={"endpoint": path},
            ) from None

    # ---- Geocoder, Router, WeatherService ------------------------------------------------------

    def weather_forecast(self, city: str) -> list[DayForecast]:
        return self._read(WEATHER_PATH, self.get_weather_params(city), self.parse_weather_forecast_json)

    def weather(self, city: str, *, day: date) -> DayForecast | None:
        """The published forecast for ``day``, or None when AMap's four days do not include it.

        Raises ProviderError when AMap publishes nothing for ``city`` or when the answer covers several
        areas none of which has ``city`` as its adcode (a name such as 中山 matches more than one city)."""
        return pick_forecast(self.weather_forecast(city), city, day)

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        return self._read(GEOCODE_PATH, self.get_geocode_params(address, city=city), self.parse_geocode_json)

    #: addresses one geocode call answers (core.geo.base.BatchGeocoder)
    batch_size = MAX_GEOCODE_BATCH

    def geocode_batch(self, addresses: Sequence[str], *, city: str | None = None) -> list[list[Place]]:
        """Every address geocoded, ``MAX_GEOCODE_BATCH`` a call: one list of places per address, in order."""
        out: list[list[Place]] = []
        for start in range(0, len(addresses), MAX_GEOCODE_BATCH):
            chunk = list(addresses[start : start + MAX_GEOCODE_BATCH])
            params = self.get_geocode_batch_params(chunk, city=city)
            out += self._read(
                GEOCODE_PATH, params, functools.partial(self.parse_geocode_batch_json, n_addresses=len(chunk))
            )
        return out

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        params = self.get_search_params(keywords, city=city, near=near, limit=limit)
        return self._read(SEARCH_PATH, params, self.parse_search_json)[: max(0, int(limit))]

    def detail(self, poi_id: str) -> Place | None:
        return self._read(DETAIL_PATH, self.get_detail_params(poi_id), self.parse_detail_json)

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        """N x N matrix from /v3/distance: every column (see :meth:`matrix_to`)."""
        return self.matrix_to(points, range(len(points)), mode=mode)

    def matrix_to(self, points: Sequence[LonLat], destinations: Sequence[int], *, mode: TravelMode) -> TravelMatrix:
        """The columns ``destinations`` of the N x N matrix from /v3/distance: one call per distinct destination
        point (AMap answers one destination a call, <= 100 origins each; two columns at one point are asked once),
        from every other distinct point. The other columns' cells are ``math.inf``: not asked.

        Pairs AMap cannot answer (per-item failure, or walking pairs farther apart than the
        5 km limit of ``type=3``, which are not sent) are ``math.inf`` and explained in ``notes``.
        """
        if mode not in DISTANCE_TYPE:  # /v3/distance measures driving, walking and straight lines only
            raise ProviderError(
                f"AMap's distance matrix has no {mode} mode; the {mode} matrix is estimated",
                field="transport_mode",
                details={"endpoint": DISTANCE_PATH},
            )
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        n = len(pts)
        dist = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        at_point: dict[LonLat, list[int]] = {}
        for i, p in enumerate(pts):
            at_point.setdefault(p, []).append(i)
        failures: list[str] = []
        for target, columns in column_groups(pts, destinations).items():
            for j in columns:  # another index at the destination's own point is there already
                for i in at_point[target]:
                    dist[i][j] = dur[i][j] = 0.0
            origins: list[LonLat] = []
            for p, rows in at_point.items():
                if p == target:
                    continue
                if mode == "walking" and haversine_m(*p, *target) > WALKING_DISTANCE_LIMIT_M:
                    failures += [
                        f"{i}->{j}: beyond AMap's {WALKING_DISTANCE_LIMIT_M / 1000:g} km walking limit"
                        for i in rows
                        for j in columns
                    ]
                    continue
                origins.append(p)
            for start in range(0, len(origins), MAX_DISTANCE_ORIGINS):
                chunk = origins[start : start + MAX_DISTANCE_ORIGINS]
                params = self.get_distance_params(chunk, target, mode=mode)
                parse = functools.partial(self.parse_distance_json, n_origins=len(chunk))
                items = self._read(DISTANCE_PATH, params, parse)
                for origin, item in zip(chunk, items, strict=True):
                    for i in at_point[origin]:
                        for j in columns:
                            if item.ok:
                                dist[i][j] = float(item.distance_m)  # type: ignore[arg-type]
                                dur[i][j] = float(item.duration_s)  # type: ignore[arg-type]
                            else:
                                failures.append(f"{i}->{j}: {item.error}")
        notes: list[str] = []
        if failures:
            notes.append(
                f"AMap could not answer {len(failures)} of {n * (n - 1)} {mode} pairs (left as unreachable): "
                + "; ".join(failures[:10])
                + (f"; and {len(failures) - 10} more" if len(failures) > 10 else "")
            )
        asked = sorted(set(destinations))
        return TravelMatrix(
            distances_m=dist,
            durations_s=dur,
            source="amap",
            mode=mode,
            notes=notes,
            destinations=None if len(asked) == n else asked,
        )

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        params = self.get_route_params(origin, destination, mode=mode)
        return self._read(ROUTE_PATHS[mode], params, lambda d: self.parse_route_json(d, mode=mode))
