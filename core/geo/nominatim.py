"""Nominatim (OpenStreetMap's geocoder) over HTTP: ``/search``, ``/reverse`` and ``/lookup`` in ``jsonv2``
(https://nominatim.org/release-docs/latest/api/Overview/). Any server: a team's own or the public one
(``OMNI_NOMINATIM_URL``, never asked unless set). The public server's policy asks for one request a second and a
User-Agent that names the application: both are the defaults here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from core.errors import ProviderError
from core.geo.base import LonLat, MatchLevel, Place
from core.geo.http import HttpService
from core.geo.ratelimit import RateLimiter

DEFAULT_BASE_URL = "https://nominatim.openstreetmap.org"
DEFAULT_USER_AGENT = "omni-travel-planner/0.1 (offline-first trip planner)"
#: Nominatim's addresstype -> our match level
LEVELS: dict[str, MatchLevel] = {
    "house": "house_number",
    "building": "house_number",
    "road": "road",
    "street": "road",
    "city": "city",
    "town": "city",
    "village": "city",
    "municipality": "city",
    "suburb": "area",
    "quarter": "area",
    "neighbourhood": "area",
    "city_district": "area",
    "county": "area",
    "state": "area",
}
SEARCH_RADIUS_DEG = 0.05  # the viewbox around ``near``: about 5 km, a preference, not a bound


def _osm_id(row: Mapping[str, Any]) -> str | None:
    kind, number = str(row.get("osm_type") or ""), row.get("osm_id")
    return f"{kind[:1].upper()}{number}" if kind and number is not None else None


def parse_place(row: Any) -> Place | None:
    """One jsonv2 result as a Place (WGS-84 as Nominatim gives it); None when it has no position."""
    if not isinstance(row, Mapping):
        return None
    try:
        lon, lat = float(row["lon"]), float(row["lat"])
    except (KeyError, TypeError, ValueError):
        return None
    address_raw, names_raw = row.get("address"), row.get("namedetails")
    address: Mapping[str, Any] = address_raw if isinstance(address_raw, Mapping) else {}
    names: Mapping[str, Any] = names_raw if isinstance(names_raw, Mapping) else {}
    display = str(row.get("display_name") or "")
    name = str(row.get("name") or names.get("name") or display.split(",")[0]).strip()
    kind = str(row.get("addresstype") or "")
    level: MatchLevel = LEVELS.get(kind, "poi" if row.get("category") not in {"place", "boundary"} else "area")
    category = f"{row.get('category')}:{row.get('type')}" if row.get("category") else None
    return Place(
        name=name or display,
        address=display or None,
        lon=lon,
        lat=lat,
        city=address.get("city") or address.get("town") or address.get("village"),
        district=address.get("suburb") or address.get("city_district"),
        poi_id=_osm_id(row),
        category=category,
        level=level,
        source="nominatim",
        raw=row,
    )


def parse_places(body: Any) -> list[Place]:
    if isinstance(body, Mapping) and "error" in body:
        raise ProviderError(f"Nominatim refused the request: {body['error']}", details={"service": "search"})
    if not isinstance(body, list):
        raise ProviderError("Nominatim's answer is not a list of places", details={"service": "search"})
    return [p for p in (parse_place(row) for row in body) if p is not None]


class NominatimGeocoder(HttpService):
    """A Nominatim server as a Geocoder, plus ``reverse``."""

    name = "nominatim"
    label = "Nominatim"

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        min_interval_s: float = 1.0,
        limiter: RateLimiter | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        language: str = "zh,en",
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(
            base_url=base_url,
            client=client,
            timeout_s=timeout_s,
            min_interval_s=min_interval_s,
            limiter=limiter,  # one request a second for the whole application (the server's usage policy)
            headers={"User-Agent": user_agent},
            sleep=sleep,
        )
        self.language = language

    # ---- params builders ----------------------------------------------------------------------------
    def _common(self) -> dict[str, str]:
        return {"format": "jsonv2", "addressdetails": "1", "namedetails": "1", "accept-language": self.language}

    def get_search_params(
        self, query: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> dict[str, str]:
        params = {**self._common(), "q": f"{query}, {city}" if city else query, "limit": str(max(1, min(limit, 40)))}
        if near is not None:
            r = SEARCH_RADIUS_DEG
            params["viewbox"] = f"{near.lon - r:.6f},{near.lat + r:.6f},{near.lon + r:.6f},{near.lat - r:.6f}"
            params["bounded"] = "0"
        return params

    def get_reverse_params(self, point: LonLat) -> dict[str, str]:
        return {**self._common(), "lon": f"{point.lon:.7f}", "lat": f"{point.lat:.7f}", "zoom": "18"}

    def get_lookup_params(self, osm_id: str) -> dict[str, str]:
        return {**self._common(), "osm_ids": osm_id}

    # ---- the Geocoder -------------------------------------------------------------------------------
    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        return parse_places(self.get_json("/search", self.get_search_params(address, city=city, limit=5)))

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        return parse_places(
            self.get_json("/search", self.get_search_params(keywords, city=city, near=near, limit=limit))
        )

    def detail(self, poi_id: str) -> Place | None:
        if not poi_id or poi_id[:1] not in {"N", "W", "R"} or not poi_id[1:].isdigit():
            return None  # not an OSM id (a pack's or AMap's): Nominatim cannot know it
        found = parse_places(self.get_json("/lookup", self.get_lookup_params(poi_id)))
        return found[0] if found else None

    def reverse(self, point: LonLat) -> Place | None:
        body = self.get_json("/reverse", self.get_reverse_params(point))
        if isinstance(body, Mapping) and "error" in body:  # "Unable to geocode": nothing there
            return None
        return parse_place(body)
