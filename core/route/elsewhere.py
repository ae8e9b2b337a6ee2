"""Where a place the region's map data does not hold is known to be (issue 32, "honest look-ups").

A name that resolves nowhere in the pack is not found. When a maintained gazetteer still knows it, the answer says
where: a landmark of ``data/landmarks.csv`` in the pack's own city lies outside the pack's coverage (Temppeliaukio
Church, a kilometre west of the Helsinki extract's box); a landmark or a GeoNames city elsewhere (Tokyo Tower, the
Louvre) lies in another city. Facts only (codes, names, the box): the sentences are the faces' catalogs'.
"""

from __future__ import annotations

from typing import Any

from core.geo.coords import haversine_m
from core.models.region import RegionPack
from core.packs.coverage import mentions


def known_elsewhere(text: str, region: RegionPack) -> dict[str, Any] | None:
    """The place ``text`` names outside ``region``'s map data, as facts (``where``: ``outside_coverage`` for a
    landmark of the region's own city, ``other_city`` for a landmark or city elsewhere), or None when no gazetteer
    knows it (a country named is not a place: "National Museum of Finland" is known as a landmark, not as Finland)."""
    own = {n.casefold() for n in region.city_names()}
    for mention in mentions(text, pack=region):
        city = mention.places[0]
        if city.is_country:
            continue
        same = city.country == region.country and city.name.casefold() in own
        if same and mention.landmark is None:
            continue  # the region's own city named: nothing known beyond it
        return {
            "where": "outside_coverage" if same else "other_city",
            "place": mention.landmark.name if mention.landmark else mention.text,
            "city": city.name,
            "city_zh": mention.landmark.city_zh if mention.landmark else "",
            "country": city.country,
        }
    return None


def coverage_facts(region: RegionPack) -> dict[str, Any]:
    """The region's coverage as facts for the words: its name in each language, its box (west, south, east, north)
    and the box's width and height in km, measured along its middle."""
    west, south, east, north = region.bbox
    middle_lat, middle_lon = (south + north) / 2, (west + east) / 2
    return {
        "region": region.name,
        "names": dict(region.display_name),
        "bbox": list(region.bbox),
        "width_km": round(haversine_m(west, middle_lat, east, middle_lat) / 1000, 1),
        "height_km": round(haversine_m(middle_lon, south, middle_lon, north) / 1000, 1),
    }
