"""Distances on the sphere and the WGS-84 <-> GCJ-02 datum shift used by AMap.

The forward shift comes from ``coordtransform`` (the maintained implementation of the public
algorithm); its inverse is one step only (1-2 m off in Shanghai), so we refine it by fixed-point
iteration to below a millimetre.
"""

from __future__ import annotations

import math

import coordTransform
import numpy as np

EARTH_RADIUS_M = 6_371_008.8


def haversine_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def haversine_matrix_m(lons: np.ndarray, lats: np.ndarray) -> np.ndarray:
    """Pairwise great-circle distances in metres (vectorised)."""
    lon = np.radians(np.asarray(lons, dtype=float))
    lat = np.radians(np.asarray(lats, dtype=float))
    dlat = lat[:, None] - lat[None, :]
    dlon = lon[:, None] - lon[None, :]
    a = np.sin(dlat / 2) ** 2 + np.cos(lat)[:, None] * np.cos(lat)[None, :] * np.sin(dlon / 2) ** 2
    out: np.ndarray = 2 * EARTH_RADIUS_M * np.arcsin(np.minimum(1.0, np.sqrt(a)))
    return out


def out_of_china(lon: float, lat: float) -> bool:
    return not (73.66 < lon < 135.05 and 3.86 < lat < 53.55)


def wgs84_to_gcj02(lon: float, lat: float) -> tuple[float, float]:
    if out_of_china(lon, lat):
        return lon, lat
    glon, glat = coordTransform.wgs84_to_gcj02(lon, lat)
    return float(glon), float(glat)


def gcj02_to_wgs84(lon: float, lat: float, *, iterations: int = 12) -> tuple[float, float]:
    if out_of_china(lon, lat):
        return lon, lat
    wlon, wlat = (float(v) for v in coordTransform.gcj02_to_wgs84(lon, lat))
    for _ in range(iterations):
        glon, glat = wgs84_to_gcj02(wlon, wlat)
        dlon, dlat = glon - lon, glat - lat
        if abs(dlon) < 1e-10 and abs(dlat) < 1e-10:
            break
        wlon -= dlon
        wlat -= dlat
    return wlon, wlat


def parse_lonlat(text: str) -> tuple[float, float]:
    """Parse ``"lon,lat"`` (AMap order) into floats."""
    lon_s, lat_s = str(text).split(",")[:2]
    return float(lon_s), float(lat_s)


#: closer than this, two places of one kind (or named by one form) are one spot mapped twice (a station's node and
#: its building): the route resolver and the agent's named places read them as one
SAME_SPOT_M = 100.0
