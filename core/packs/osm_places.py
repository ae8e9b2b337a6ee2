"""From an extract's features to the gazetteer's places (core/packs/osm.py reads them; core/packs/build.py writes the
pack): one entry per street, one place per stop and mode, each feature's district, and each feature's importance.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from core.packs.osm import STREETS, Feature, is_square, normalize_name, stop_mode

__all__ = [
    "DISTRICT_REACH_M",
    "MODE_WORDS",
    "STOP_GROUP_M",
    "assign_districts",
    "dedupe_streets",
    "group_stops",
    "importance_of",
]


def dedupe_streets(features: list[Feature]) -> Iterator[Feature]:
    """One entry per street name: OSM splits a street into many ways; the longest one stands for it. A pedestrian
    area named as a street (the paved part of Aleksanterinkatu) is that street's, not a square."""
    best: dict[str, Feature] = {}
    streets = {
        f.names.get("name", "") for f in features if f.category == "address" and f.tags.get("highway") in STREETS
    }
    for f in features:
        if f.category == "landmark" and f.tags.get("place") != "square" and f.names.get("name") in streets:
            if f.tags.get("highway") == "pedestrian" and not f.tags.get("tourism"):
                continue
        if f.category == "address" and f.tags.get("highway") in STREETS:
            key = f.names.get("name", "")
            if key not in best or f.weight > best[key].weight:
                best[key] = f
        else:
            yield f
    yield from best.values()


#: stops of one name and mode closer than this are one place (the platforms of both directions, a shelter and
#: its pole: in the extract they lie 20-150 m apart; two stops of a name 400 m apart are not one stop)
STOP_GROUP_M = 250.0
#: a district centre farther than this from a place says nothing about where it lies (Helsinki's district
#: centres are 0.6-1.5 km apart; the extract's corners are under 2.5 km from one)
DISTRICT_REACH_M = 2500.0
MODE_WORDS = {"tram": "tram stop", "bus": "bus stop", "metro": "metro station", "rail": "train station"}


def _metres(a: tuple[float, float], b: tuple[float, float]) -> float:
    dx = math.radians(b[0] - a[0]) * math.cos(math.radians((a[1] + b[1]) / 2))
    return 6371008.8 * math.hypot(dx, math.radians(b[1] - a[1]))


def group_stops(features: list[Feature]) -> list[Feature]:
    """One place per stop name and mode near each other (issue 20 §5): the platforms, poles and stop positions
    of ``Kauppatori`` for the tram become one ``stop`` at their middle, its id the first member's; the English
    name says the mode ("Kauppatori tram stop") where OSM has no ``name:en``. A stop whose name and mode a
    station already stands for (a metro station's platforms) is that station's."""
    stations = [(normalize_name(f.names.get("name", "")), f) for f in features if f.category == "station"]
    groups: list[tuple[str, str, list[Feature]]] = []
    out: list[Feature] = []
    for f in features:
        mode = stop_mode(f.tags) if f.category == "stop" else None
        if mode is None:
            out.append(f)
            continue
        key = normalize_name(f.names.get("name", ""))
        if mode in {"metro", "rail"} and any(
            k == key and _metres((f.lon, f.lat), (s.lon, s.lat)) <= STOP_GROUP_M for k, s in stations
        ):
            continue
        for gkey, gmode, members in groups:
            if (
                gkey == key
                and gmode == mode
                and _metres((f.lon, f.lat), (members[0].lon, members[0].lat)) <= STOP_GROUP_M
            ):
                members.append(f)
                break
        else:
            groups.append((key, mode, [f]))
    for _, mode, members in groups:
        first = members[0]
        names = dict(first.names)
        for m in members[1:]:
            for k, v in m.names.items():
                if v not in names.values():
                    names.setdefault(k if k not in names else f"{k}#{len(names)}", v)
        names.setdefault("name:en", f"{names.get('name', '')} {MODE_WORDS[mode]}".strip())
        tags = dict(first.tags) | {"omni:mode": mode}
        lon = sum(m.lon for m in members) / len(members)
        lat = sum(m.lat for m in members) / len(members)
        out.append(Feature(first.osm_id, names, "stop", lon, lat, tags, weight=len(members)))
    return out


def _inside(point: tuple[float, float], ring: list[tuple[float, float]]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def assign_districts(features: list[Feature], areas: list[tuple[str, list[list[tuple[float, float]]]]]) -> None:
    """Each feature's district: as tagged (``addr:suburb``), else the named district area it lies in (an admin
    boundary), else the nearest district centre (``place=suburb``/``quarter``/… node) within
    ``DISTRICT_REACH_M``; a district is its own. None of these: left empty (unknown, not guessed)."""
    centres = [(f.names["name"], (f.lon, f.lat)) for f in features if f.category == "district" and "name" in f.names]
    for f in features:
        where = (f.lon, f.lat)
        if f.category == "district":
            f.district = f.names.get("name", "")
            continue
        tagged = f.tags.get("addr:suburb") or f.tags.get("addr:district") or ""
        if tagged:
            f.district = tagged
            continue
        inside = [name for name, rings in areas if any(_inside(where, ring) for ring in rings)]
        if inside:
            f.district = inside[0]
            continue
        near = min(centres, key=lambda c: _metres(where, c[1]), default=None)
        if near is not None and _metres(where, near[1]) <= DISTRICT_REACH_M:
            f.district = near[0]


#: how much a kind of feature is a place in its own right rather than something named after one (0-100)
_KIND_IMPORTANCE = {
    "airport": 80,
    "station": 60,
    "district": 60,
    "museum": 50,
    "landmark": 45,
    "temple": 45,
    "theatre": 40,
    "park": 40,
    "market": 40,
    "family": 40,
    "stop": 30,
    "hotel": 20,
    "shopping": 15,
    "restaurant": 10,
    "cafe": 10,
    "address": 10,
}


def importance_of(feature: Feature) -> int:
    """The feature's kind and fame as one number: its category's base (a railway station 60, a landmark 45, a
    stop 30, a kiosk 10), +20 when it has a Wikidata or Wikipedia entry, +10 for a railway station proper, a
    square or a tourist attraction, +10 for a street (a street is what its shops are named after)."""
    tags = feature.tags
    score = _KIND_IMPORTANCE.get(feature.category, 10)
    if tags.get("wikidata") or any(k == "wikipedia" or k.startswith("wikipedia:") for k in tags):
        score += 20
    if tags.get("railway") == "station" or is_square(tags) or tags.get("tourism") == "attraction":
        score += 10
    if tags.get("highway") in STREETS:
        score += 10
    return min(100, score)
