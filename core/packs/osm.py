"""Reading an OpenStreetMap extract for a region pack: the gazetteer (every named feature a planner can visit or
start from) and the light basemap (streets, water, parks) the map draws offline.

The reader is pyosmium (``osmium``): libosmium's streaming reader with node locations and multipolygon
assembly, no geodata stack (pyrosm needs geopandas, quackosm DuckDB) and fast on a city extract. It is needed
when a pack is built, not when the app runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: name tags kept as a place's names and aliases, most preferred first
NAME_KEYS = (
    "name",
    "name:en",
    "name:zh",
    "name:zh-Hans",
    "name:fi",
    "name:sv",
    "official_name",
    "alt_name",
    "short_name",
    "old_name",
    "loc_name",
)
#: streets worth a gazetteer entry (named service roads and paths are noise)
STREETS = {
    "motorway",
    "trunk",
    "primary",
    "secondary",
    "tertiary",
    "unclassified",
    "residential",
    "living_street",
    "pedestrian",
}
#: basemap classes: what the offline map draws under routes
ROAD_CLASSES = {
    "motorway": "major",
    "trunk": "major",
    "primary": "major",
    "secondary": "major",
    "tertiary": "minor",
    "unclassified": "minor",
    "residential": "minor",
    "living_street": "minor",
    "pedestrian": "path",
    "service": "minor",
    "footway": "path",
    "cycleway": "path",
    "path": "path",
    "steps": "path",
}


#: OSM diet keys whose ``yes``/``only`` become the product's diet tags (core/packs/validate.py TAGS)
DIET_TAGS = {"diet:vegetarian": "vegetarian_friendly", "diet:vegan": "vegan_options", "diet:halal": "halal"}
#: OSM cuisine values that are the product's codes (core/packs/validate.py CUISINES) spelt another way
CUISINE_SYNONYMS = {"coffee_shop": "coffee", "noodle": "noodles", "dumpling": "dumplings", "hot_pot": "hotpot"}
#: OSM ``place=*`` values that name a part of a city: the node is where the map puts its centre (issue 12 §3)
DISTRICT_PLACES = {"borough", "suburb", "quarter", "neighbourhood", "city_district"}
_NOT_CODE = re.compile(r"[^a-z0-9]+")


def category_for(tags: dict[str, str]) -> str | None:
    """The product's category (core/packs/validate.py CATEGORIES) an OSM feature belongs to, or None."""
    tourism, amenity, leisure = tags.get("tourism", ""), tags.get("amenity", ""), tags.get("leisure", "")
    if tourism in {"museum", "gallery"}:
        return "museum"
    if tourism in {"zoo", "aquarium", "theme_park"} or leisure in {"playground", "water_park"}:
        return "family"
    if tourism in {"hotel", "hostel", "guest_house", "motel", "apartment"}:
        return "hotel"
    if amenity == "place_of_worship":
        return "temple"
    if amenity in {"theatre", "cinema", "arts_centre", "concert_hall"}:
        return "theatre"
    if amenity in {"restaurant", "fast_food", "food_court", "pub", "bar", "biergarten"}:
        return "restaurant"
    if amenity in {"cafe", "ice_cream"}:
        return "cafe"
    if amenity == "marketplace":
        return "market"
    if leisure in {"park", "garden", "nature_reserve"}:
        return "park"
    if (
        tags.get("railway") in {"station", "halt"}
        or tags.get("public_transport") == "station"
        or amenity in {"bus_station", "ferry_terminal"}
    ):
        return "station"
    if tags.get("aeroway") == "aerodrome":
        return "airport"
    if tags.get("place") in DISTRICT_PLACES:
        return "district"
    if tourism in {"attraction", "viewpoint", "artwork"} or tags.get("historic") or tags.get("place") == "square":
        return "landmark"
    if tags.get("shop") or amenity == "marketplace":
        return "shopping"
    if tags.get("highway") in STREETS or "addr:housenumber" in tags:
        return "address"
    return None


def product_tags(tags: dict[str, str], category: str) -> list[str]:
    """The product's tag vocabulary, from what OSM states (nothing guessed from the name)."""
    out: list[str] = []
    if category in {"museum", "theatre", "shopping", "cafe", "restaurant"} or tags.get("indoor") == "yes":
        out.append("indoor")
    if category == "park" or tags.get("tourism") == "viewpoint" or tags.get("place") == "square":
        out.append("outdoor")
    if category == "park":
        out.append("nature")
    if tags.get("historic") or tags.get("heritage"):
        out.append("historic")
    if tags.get("tourism") in {"gallery", "artwork"} or tags.get("amenity") == "arts_centre":
        out.append("art")
    if tags.get("fee") == "no":
        out.append("free")
    if tags.get("wheelchair") == "yes":
        out.append("accessible")
    if category in {"restaurant", "cafe", "market"}:
        out.append("food")
    for key, tag in DIET_TAGS.items():
        if tags.get(key, "").strip().lower() in {"yes", "only"}:
            out.append(tag)
    return out


def cuisine_of(tags: dict[str, str]) -> list[str]:
    """The ``cuisine`` tag's values (OSM separates several with ';') as lowercase codes; a few OSM spellings of
    the product's codes are written as those (``coffee_shop`` → ``coffee``). Untagged: empty."""
    out: list[str] = []
    for part in tags.get("cuisine", "").split(";"):
        code = _NOT_CODE.sub("_", part.strip().lower()).strip("_")
        code = CUISINE_SYNONYMS.get(code, code)
        if code and code not in out:
            out.append(code)
    return out


def min_age_of(tags: dict[str, str]) -> int | None:
    """The ``min_age`` tag when it is whole years (``18``); anything else is left out."""
    value = tags.get("min_age", "").strip()
    return int(value) if re.fullmatch(r"\d{1,2}", value) else None


def address_of(tags: dict[str, str]) -> str:
    """The postal address as tagged ("Street 3, 00100 City"); a street's own name; otherwise empty."""
    street = tags.get("addr:street") or tags.get("addr:place") or ""
    line = " ".join(x for x in (street, tags.get("addr:housenumber", "")) if x)
    town = " ".join(x for x in (tags.get("addr:postcode", ""), tags.get("addr:city", "")) if x)
    if not line and tags.get("highway") in STREETS:
        line = tags.get("name", "")
    return ", ".join(x for x in (line, town) if x)


@dataclass
class Feature:
    """One named OSM feature, located (WGS-84) and categorised."""

    osm_id: str  # n123 / w45 / r6: the OSM object, never invented
    names: dict[str, str]
    category: str
    lon: float
    lat: float
    tags: dict[str, str]
    weight: int = 1  # for streets: how many nodes the chosen way has (the longest way represents the street)


@dataclass
class Extract:
    features: list[Feature] = field(default_factory=list)
    basemap: list[dict[str, Any]] = field(default_factory=list)  # GeoJSON features
    bbox: tuple[float, float, float, float] | None = None
    data_date: str | None = None
    objects: int = 0


_WS = re.compile(r"\s+")


def _names(tags: dict[str, str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for key in NAME_KEYS:
        value = _WS.sub(" ", tags.get(key, "")).strip()
        if value:
            for part in value.split(";"):  # OSM separates several names with ';'
                if part.strip():
                    names.setdefault(key if key not in names else f"{key}#{len(names)}", part.strip())
    return names


def _round(coords: Iterable[tuple[float, float]]) -> list[list[float]]:
    return [[round(lon, 5), round(lat, 5)] for lon, lat in coords]


def _way_points(way: Any) -> list[tuple[float, float]]:
    pts = []
    for node in way.nodes:
        if node.location.valid():
            pts.append((node.location.lon, node.location.lat))
    return pts


def _representative(points: list[tuple[float, float]], *, closed: bool) -> tuple[float, float]:
    """A closed ring: the mean of its corners; a line (a street): its middle vertex, which lies on the line."""
    if closed:
        ring = points[:-1] if len(points) > 1 and points[0] == points[-1] else points
        return sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring)
    return points[len(points) // 2]


def _basemap_class(tags: dict[str, str]) -> str | None:
    if tags.get("natural") == "water" or tags.get("waterway") == "riverbank" or tags.get("landuse") == "reservoir":
        return "water"
    if tags.get("leisure") in {"park", "garden"} or tags.get("landuse") in {"grass", "recreation_ground", "forest"}:
        return "park"
    return None


def read_extract(pbf: Path) -> Extract:
    """Every named feature of the extract and its basemap layers, in one pass of pyosmium."""
    import osmium

    out = Extract()
    processor = osmium.FileProcessor(str(pbf)).with_locations().with_areas()
    box = processor.header.box()
    if box is not None and box.valid():
        out.bbox = (box.bottom_left.lon, box.bottom_left.lat, box.top_right.lon, box.top_right.lat)
    newest: datetime | None = None
    west, south, east, north = 180.0, 90.0, -180.0, -90.0
    for obj in processor:
        out.objects += 1
        stamp = getattr(obj, "timestamp", None)
        if isinstance(stamp, datetime) and stamp.year > 1970 and (newest is None or stamp > newest):
            newest = stamp
        tags = dict(obj.tags) if hasattr(obj, "tags") else {}
        if obj.is_node():
            loc = obj.location
            if loc.valid():
                west, south = min(west, loc.lon), min(south, loc.lat)
                east, north = max(east, loc.lon), max(north, loc.lat)
            if tags.get("name") or "addr:housenumber" in tags:
                _add(out, f"n{obj.id}", tags, (loc.lon, loc.lat) if loc.valid() else None)
        elif obj.is_way():
            pts = _way_points(obj)
            if len(pts) < 2:
                continue
            closed = obj.is_closed()
            road = ROAD_CLASSES.get(tags.get("highway", ""))
            if road and not closed:
                out.basemap.append(_geo("LineString", _round(pts), road, tags.get("name")))
            elif closed and (kind := _basemap_class(tags)):
                out.basemap.append(_geo("Polygon", [_round(pts)], kind, tags.get("name")))
            if tags.get("name") or "addr:housenumber" in tags:
                _add(out, f"w{obj.id}", tags, _representative(pts, closed=closed), weight=len(pts))
        elif obj.is_area() and not obj.from_way():  # multipolygon relations; ways were handled as ways
            rings = [[(n.lon, n.lat) for n in ring] for ring in obj.outer_rings()]
            rings = [r for r in rings if len(r) >= 4]
            if not rings:
                continue
            if kind := _basemap_class(tags):
                for ring in rings:
                    out.basemap.append(_geo("Polygon", [_round(ring)], kind, tags.get("name")))
            if tags.get("name"):
                _add(out, f"r{obj.orig_id()}", tags, _representative(max(rings, key=len), closed=True))
    if out.bbox is None and west <= east:
        out.bbox = (west, south, east, north)
    out.data_date = newest.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if newest else None
    return out


def _add(
    out: Extract, osm_id: str, tags: dict[str, str], where: tuple[float, float] | None, *, weight: int = 1
) -> None:
    category = category_for(tags)
    names = _names(tags)
    if category is None or not names and not address_of(tags):
        return
    if category == "district" and (not osm_id.startswith("n") or not tags.get("name")):
        return  # a district is its named place node, the point the map gives as its centre (not an area's middle)
    if where is None:
        return
    if not names:  # a building known only by its address: the address is its name
        names = {"name": address_of(tags)}
    out.features.append(
        Feature(osm_id=osm_id, names=names, category=category, lon=where[0], lat=where[1], tags=tags, weight=weight)
    )


def _geo(kind: str, coordinates: Any, cls: str, name: str | None) -> dict[str, Any]:
    props: dict[str, Any] = {"class": cls}
    if name:
        props["name"] = name
    return {"type": "Feature", "geometry": {"type": kind, "coordinates": coordinates}, "properties": props}


def dedupe_streets(features: list[Feature]) -> Iterator[Feature]:
    """One entry per street name: OSM splits a street into many ways; the longest one stands for it."""
    best: dict[str, Feature] = {}
    for f in features:
        if f.category == "address" and f.tags.get("highway") in STREETS:
            key = f.names.get("name", "")
            if key not in best or f.weight > best[key].weight:
                best[key] = f
        else:
            yield f
    yield from best.values()
