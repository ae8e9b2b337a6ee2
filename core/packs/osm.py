"""Reading an OpenStreetMap extract for a region pack: the gazetteer (every named feature a planner can visit or
start from) and the light basemap (streets, water, parks) the map draws offline.

The reader is pyosmium (``osmium``): libosmium's streaming reader with node locations and multipolygon
assembly, no geodata stack (pyrosm needs geopandas, quackosm DuckDB) and fast on a city extract. It is needed
when a pack is built, not when the app runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.models.entrance import Entrance
from core.packs.entrances import EntranceCollector

if TYPE_CHECKING:
    from osmium.osm import Way

#: name tags kept as a place's names and aliases, most preferred first; every other ``name:<language>`` (and
#: ``alt_name:<language>`` …) follows them (issue 20 §5: a name in any language the data carries is a way in)
NAME_KEYS = (
    "name",
    "name:en",
    "name:zh-Hans",
    "name:zh",
    "name:zh-Hant",
    "name:fi",
    "name:sv",
    "official_name",
    "alt_name",
    "short_name",
    "old_name",
    "loc_name",
)
#: a name in one language: ``name:fi``, ``name:zh-Hans``, ``name:be-tarask``, ``alt_name:sv`` (not ``name:etymology``)
_LANG_NAME = re.compile(
    r"(?:name|official_name|alt_name|short_name|old_name|loc_name):[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*"
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


def stop_mode(tags: dict[str, str]) -> str | None:
    """The mode of a public-transport stop (``tram``, ``bus``, ``metro``, ``rail``), or None for anything else.

    A stop is where one boards: ``highway=bus_stop``, ``railway=tram_stop``/``stop``/``halt`` or a
    ``public_transport`` platform or stop position with its mode tagged; a station (``railway=station``) is a
    station, not a stop."""
    railway, pt = tags.get("railway", ""), tags.get("public_transport", "")
    if railway == "station" or pt == "station" or tags.get("amenity") == "bus_station":
        return None
    boards = railway in {"tram_stop", "stop", "halt"} or tags.get("highway") == "bus_stop"
    boards = boards or pt in {"platform", "stop_position"}
    if not boards:
        return None
    if railway == "tram_stop" or tags.get("tram") == "yes":
        return "tram"
    if tags.get("subway") == "yes" or tags.get("station") == "subway":
        return "metro"
    if tags.get("highway") == "bus_stop" or tags.get("bus") == "yes" or tags.get("trolleybus") == "yes":
        return "bus"
    if railway in {"stop", "halt"} or tags.get("train") == "yes":
        return "rail"
    return None


def is_square(tags: dict[str, str]) -> bool:
    """A square (``place=square``) or a named pedestrian area (``highway=pedestrian`` drawn as an area)."""
    area = tags.get("area") == "yes" or tags.get("type") == "multipolygon"
    return tags.get("place") == "square" or (tags.get("highway") == "pedestrian" and area)


def category_for(tags: dict[str, str]) -> str | None:
    """The product's category (core/packs/validate.py CATEGORIES) an OSM feature belongs to, or None."""
    tourism, amenity, leisure = tags.get("tourism", ""), tags.get("amenity", ""), tags.get("leisure", "")
    if stop_mode(tags):
        return "stop"
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
    if tourism in {"attraction", "viewpoint", "artwork"} or tags.get("historic") or is_square(tags):
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
    if category == "park" or tags.get("tourism") == "viewpoint" or is_square(tags):
        out.append("outdoor")
    if category in {"stop", "station"}:
        out.append("transport")
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
    approximate: bool = False  # the point is estimated from the part of the feature the extract holds
    district: str = ""  # the part of the city it lies in (addr:suburb, a boundary, the nearest district centre)


@dataclass
class Extract:
    features: list[Feature] = field(default_factory=list)
    #: named district areas (admin boundaries of level 9-11, place=suburb/quarter/… areas): name, outer rings
    district_areas: list[tuple[str, list[list[tuple[float, float]]]]] = field(default_factory=list)
    basemap: list[dict[str, Any]] = field(default_factory=list)  # GeoJSON features
    #: the doors of the places that are buildings or areas (their osm id -> doors; core/packs/entrances.py)
    entrances: dict[str, list[Entrance]] = field(default_factory=dict)
    bbox: tuple[float, float, float, float] | None = None
    data_date: str | None = None
    objects: int = 0


_WS = re.compile(r"\s+")


def _names(tags: dict[str, str]) -> dict[str, str]:
    names: dict[str, str] = {}
    languages = sorted(k for k in tags if k not in NAME_KEYS and _LANG_NAME.fullmatch(k))
    for key in (*NAME_KEYS, *languages):
        value = _WS.sub(" ", tags.get(key, "")).strip()
        if value:
            for part in value.split(";"):  # OSM separates several names with ';'
                if part.strip():
                    names.setdefault(key if key not in names else f"{key}#{len(names)}", part.strip())
    return names


def _round(coords: Iterable[tuple[float, float]]) -> list[list[float]]:
    return [[round(lon, 5), round(lat, 5)] for lon, lat in coords]


def _way_points(way: Way) -> list[tuple[float, float]]:
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


class _ExtractPass:
    """The one pass over the extract: what it finds, the nodes' box, member ways' points, relations closed."""

    def __init__(self, member_ways: set[int]) -> None:
        self.out = Extract()
        self.member_ways = member_ways
        self.member_points: dict[int, list[tuple[float, float]]] = {}
        self.assembled: set[int] = set()
        self.doors = EntranceCollector()
        self.west, self.south, self.east, self.north = 180.0, 90.0, -180.0, -90.0

    def node(self, obj: Any, tags: dict[str, str]) -> None:
        loc = obj.location
        if loc.valid():
            self.west, self.south = min(self.west, loc.lon), min(self.south, loc.lat)
            self.east, self.north = max(self.east, loc.lon), max(self.north, loc.lat)
        if tags.get("name") or "addr:housenumber" in tags:
            _add(self.out, f"n{obj.id}", tags, (loc.lon, loc.lat) if loc.valid() else None)
        if loc.valid() and ("entrance" in tags or "door" in tags):
            self.doors.node(obj.id, loc.lon, loc.lat, tags)

    def way(self, obj: Any, tags: dict[str, str]) -> None:
        out, doors = self.out, self.doors
        pts = _way_points(obj)
        if len(pts) < 2:
            return
        if obj.id in self.member_ways:
            self.member_points[obj.id] = pts
        closed = obj.is_closed()
        road = ROAD_CLASSES.get(tags.get("highway", ""))
        if road and not closed:
            out.basemap.append(_geo("LineString", _round(pts), road, tags.get("name")))
        elif closed and (kind := _basemap_class(tags)):
            out.basemap.append(_geo("Polygon", [_round(pts)], kind, tags.get("name")))
        if tags.get("highway"):
            doors.way(tags, [(n.ref, (n.location.lon, n.location.lat)) for n in obj.nodes if n.location.valid()])
        if tags.get("name") or "addr:housenumber" in tags:
            kept = len(out.features)
            _add(out, f"w{obj.id}", tags, _representative(pts, closed=closed), weight=len(pts))
            if closed and len(out.features) > kept:
                doors.outline(f"w{obj.id}", tags, (n.ref for n in obj.nodes))

    def relation_area(self, obj: Any, tags: dict[str, str]) -> None:
        """A multipolygon relation the assembler closed (ways are handled as ways)."""
        out = self.out
        rings = [[(n.lon, n.lat) for n in ring] for ring in obj.outer_rings()]
        rings = [r for r in rings if len(r) >= 4]
        if not rings:
            return
        self.assembled.add(obj.orig_id())
        if (district := _district_area_name(tags)) is not None:
            out.district_areas.append((district, rings))
        if kind := _basemap_class(tags):
            for ring in rings:
                out.basemap.append(_geo("Polygon", [_round(ring)], kind, tags.get("name")))
        if tags.get("name"):
            kept = len(out.features)
            _add(out, f"r{obj.orig_id()}", tags, _representative(max(rings, key=len), closed=True))
            if len(out.features) > kept:
                self.doors.outline(f"r{obj.orig_id()}", tags, (n.ref for ring in obj.outer_rings() for n in ring))

    def place_unclosed(self, wanted: dict[int, tuple[dict[str, str], list[int]]]) -> None:
        """The wanted multipolygons left unclosed, at their corners' mean: near the middle, said approximate."""
        for rel_id, (tags, refs) in wanted.items():
            if rel_id in self.assembled:
                continue
            corners = list(dict.fromkeys(p for ref in refs for p in self.member_points.get(ref, [])))
            if corners:
                lon, lat = sum(p[0] for p in corners) / len(corners), sum(p[1] for p in corners) / len(corners)
                _add(self.out, f"r{rel_id}", tags, (lon, lat), approximate=True)


def read_extract(pbf: Path) -> Extract:
    """Every named feature of the extract and its basemap layers, in one pass of pyosmium."""
    import osmium

    # multipolygons the area assembler cannot close (cut at the extract's edge) are placed from their members
    wanted: dict[int, tuple[dict[str, str], list[int]]] = {}
    relations = (r for r in osmium.FileProcessor(str(pbf), osmium.osm.RELATION) if isinstance(r, osmium.osm.Relation))
    for rel in relations:
        tags = dict(rel.tags)
        if tags.get("type") == "multipolygon" and tags.get("name") and category_for(tags):
            wanted[rel.id] = (tags, [m.ref for m in rel.members if m.type == "w"])
    walk = _ExtractPass({ref for _, refs in wanted.values() for ref in refs})
    out = walk.out
    processor = osmium.FileProcessor(str(pbf)).with_locations().with_areas()
    box = processor.header.box()
    if box is not None and box.valid():
        out.bbox = (box.bottom_left.lon, box.bottom_left.lat, box.top_right.lon, box.top_right.lat)
    newest: datetime | None = None
    for obj in processor:
        out.objects += 1
        stamp = getattr(obj, "timestamp", None)
        if isinstance(stamp, datetime) and stamp.year > 1970 and (newest is None or stamp > newest):
            newest = stamp
        tags = dict(obj.tags) if hasattr(obj, "tags") else {}
        if isinstance(obj, osmium.osm.Node):
            walk.node(obj, tags)
        elif isinstance(obj, osmium.osm.Way):
            walk.way(obj, tags)
        elif isinstance(obj, osmium.osm.Area) and not obj.from_way():  # multipolygon relations; ways went above
            walk.relation_area(obj, tags)
    walk.place_unclosed(wanted)
    out.entrances = walk.doors.doors()
    if out.bbox is None and walk.west <= walk.east:
        out.bbox = (walk.west, walk.south, walk.east, walk.north)
    out.data_date = newest.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if newest else None
    return out


def _district_area_name(tags: dict[str, str]) -> str | None:
    """The name of an area that is a part of a city (an admin boundary of level 9-11, a place=suburb area)."""
    admin = tags.get("boundary") == "administrative" and tags.get("admin_level") in {"9", "10", "11"}
    if (admin or tags.get("place") in DISTRICT_PLACES) and tags.get("name"):
        return tags["name"]
    return None


def _add(
    out: Extract,
    osm_id: str,
    tags: dict[str, str],
    where: tuple[float, float] | None,
    *,
    weight: int = 1,
    approximate: bool = False,
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
        Feature(
            osm_id=osm_id,
            names=names,
            category=category,
            lon=where[0],
            lat=where[1],
            tags=tags,
            weight=weight,
            approximate=approximate,
        )
    )


def _geo(kind: str, coordinates: Any, cls: str, name: str | None) -> dict[str, Any]:
    props: dict[str, Any] = {"class": cls}
    if name:
        props["name"] = name
    return {"type": "Feature", "geometry": {"type": kind, "coordinates": coordinates}, "properties": props}


def normalize_name(text: str) -> str:
    """A name as names are compared: its runs of space one space, its case folded."""
    return _WS.sub(" ", text).strip().casefold()


def simplified_chinese(names: dict[str, str]) -> tuple[str | None, list[str]]:
    """The Chinese name in Simplified script (``name:zh-Hans``, else ``name:zh`` converted with OpenCC's
    Traditional-to-Simplified table) and the other Chinese forms kept as aliases (the original ``name:zh``,
    ``name:zh-Hant``); (None, []) when the feature has no Chinese name."""
    hans = names.get("name:zh-Hans")
    others = [v for k, v in names.items() if k.split("#")[0] in {"name:zh", "name:zh-Hant"}]
    if hans is None and others:
        from opencc_purepy import OpenCC

        hans = OpenCC("t2s").convert(others[0])
    if hans is None:
        return None, []
    return hans, [o for o in dict.fromkeys(others) if o != hans]
