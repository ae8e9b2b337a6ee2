"""A geocoded point's AMap POI id, for links that need every point's id (a personal map: docs/ARCHITECTURE.md,
"Deep links"): the id of the place a text search of the same service finds beside the point, never made up."""

from __future__ import annotations

from core.errors import ProviderError
from core.geo.base import Geocoder
from core.geo.coords import haversine_m
from core.models.route import RawStop, ResolvedPoint
from core.route.place_choice import RESEMBLES_MIN, resembles

#: a geocoded point without a POI id takes the id of a place a text search finds no farther than this from it whose
#: names resemble the input (a geocode lands on the building's address point, the POI on its door or centre)
POI_MATCH_M = 300.0
POI_LOOKUPS = 1  # the search's first answer only: each answer looked at costs a detail call on AMap's MCP


def with_poi_id(point: ResolvedPoint, *, provider: Geocoder, city: str | None = None) -> ResolvedPoint:
    """A geocoded point without a POI id with the id of the place a text search of the same service finds for it:
    within ``POI_MATCH_M`` of the point and with names that resemble the input (the search's own id, never made
    up); the note says so. The point's name and position stay (its figures were measured from them). Unchanged
    when none fits or the search fails, the note saying why."""
    if point.poi_id or point.source != "geo":
        return point
    raw = RawStop(name=point.input_name, address=point.input_address or point.resolved_name)
    try:
        found = provider.search(raw.name or raw.address, city=city or point.city, limit=POI_LOOKUPS)
    except ProviderError as exc:
        return _noted(point, f"no POI id ({exc.message})")
    fits = [
        (haversine_m(point.lon, point.lat, c.lon, c.lat), c)
        for c in found
        if c.poi_id and c.source.split(":")[0] == (point.provider or "") and resembles(raw, c) >= RESEMBLES_MIN
    ]
    near = [(d, c) for d, c in fits if d <= POI_MATCH_M]
    if not near:
        return _noted(point, "no POI id (no place a search found fits the geocoded point)")
    metres, poi = min(near, key=lambda dc: dc[0])
    noted = _noted(point, f"POI {poi.poi_id} '{poi.name}' found by a text search {metres:.0f} m away")
    return noted.model_copy(update={"poi_id": poi.poi_id})


def _noted(point: ResolvedPoint, note: str) -> ResolvedPoint:
    text = f"{point.confidence_note}; {note}" if point.confidence_note else note
    return point.model_copy(update={"confidence_note": text})
