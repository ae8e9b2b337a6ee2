"""AMap's answer rows read into our types: its match levels, numbers written as text, GCJ-02 "lng,lat" strings and
polylines turned into WGS-84 points, POI rows into places, and one distance result per origin (core/geo/amap.py
builds the calls and reads the envelopes)."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from core.geo.amap_envelope import _text
from core.geo.base import LonLat, MatchLevel, Place
from core.geo.coords import gcj02_to_wgs84, parse_lonlat, wgs84_to_gcj02

logger = logging.getLogger("core.geo.amap")

GEOCODE_LEVELS: dict[str, MatchLevel] = {
    "兴趣点": "poi",
    "门牌号": "house_number",
    "门址": "house_number",
    "单元号": "house_number",
    "道路": "road",
    "道路交叉路口": "road",
    "区县": "area",
    "乡镇": "area",
    "开发区": "area",
    "村庄": "area",
    "热点商圈": "area",
    "市": "city",
    "省": "city",
    "国家": "city",
}


# --------------------------------------------------------------------------------------------
# Envelope and scalar helpers
# --------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    value = _text(value)
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _to_wgs(lnglat: Any) -> tuple[float, float] | None:
    text = _text(lnglat)
    if text is None:
        return None
    try:
        lon, lat = parse_lonlat(text)
    except ValueError:
        return None
    return gcj02_to_wgs84(lon, lat)


def format_lnglat(point: LonLat | Sequence[float]) -> str:
    """WGS-84 point -> AMap wire form: GCJ-02 ``"lng,lat"`` with 6 decimals."""
    lon, lat = float(point[0]), float(point[1])
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise ValueError(f"Coordinate ({lon}, {lat}) is not a finite number.")
    glon, glat = wgs84_to_gcj02(lon, lat)
    return f"{glon:.6f},{glat:.6f}"


# --------------------------------------------------------------------------------------------
# Parsed row types
# --------------------------------------------------------------------------------------------


class DistanceItem(NamedTuple):
    """One row of a /v3/distance answer (in the order of the origins sent)."""

    distance_m: float | None
    duration_s: float | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.distance_m is not None and self.duration_s is not None


def _geocode_level(level: Any) -> MatchLevel:
    return GEOCODE_LEVELS.get(_text(level) or "", "unknown")


def _place_from_poi(row: Mapping[str, Any]) -> Place | None:
    wgs = _to_wgs(row.get("location"))
    name = _text(row.get("name"))
    if wgs is None or name is None:
        logger.debug("Skipping AMap POI without name or location: %s", _text(row.get("id")))
        return None
    return Place(
        name=name,
        address=_text(row.get("address")),
        lon=wgs[0],
        lat=wgs[1],
        city=_text(row.get("cityname")),
        district=_text(row.get("adname")),
        poi_id=_text(row.get("id")),
        category=_text(row.get("type")),
        level="poi",
        source="amap",
        raw=row,
    )


def _polyline_to_wgs(polyline: Any) -> list[tuple[float, float]]:
    text = _text(polyline)
    if text is None:
        return []
    points: list[tuple[float, float]] = []
    for chunk in text.split(";"):
        chunk = chunk.strip()
        if not chunk:
            continue
        lon, lat = parse_lonlat(chunk)
        points.append(gcj02_to_wgs84(lon, lat))
    return points
