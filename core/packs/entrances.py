"""The doors of a pack's buildings, from the OpenStreetMap extract (issue 20 §5): walking and cycling
figures are measured from a place's main entrance, not from the middle of its outline.

A door is a node on a building's outline (a closed way, or the outer rings of a multipolygon) tagged
``entrance=*`` or ``door=*``, kept at the node's own coordinates with its OSM id. Doors that are not for visitors
(``entrance=service``, ``garage``, ``emergency``, ``exit``, ``no``; ``access=private``/``no``) are left out. A
building with no door tagged keeps instead the nodes of its outline where a footway, path or steps ends (the path
leads to the wall: in practice a door). An area that is not a building (a square, a courtyard) keeps none.
Nothing is placed that the data does not hold.

The pack stores them in ``entrances.csv`` beside ``places.csv`` (``ENTRANCE_COLUMNS``); a pack without the file
(the curated Shanghai pack, a pack built before it) has no doors and routes from its points as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.models.entrance import ENTRANCE_KINDS, Entrance, EntranceKind

ENTRANCES_FILE = "entrances.csv"
ENTRANCE_COLUMNS = ("place_id", "osm_id", "lon", "lat", "kind")
#: entrance=* values that are not a way in for a visitor
NOT_FOR_VISITORS = {"service", "garage", "emergency", "exit", "no"}
#: ways a person walks on whose end at a building's wall is a way in
FOOT_WAYS = {"footway", "path", "steps", "pedestrian", "corridor"}


def door_kind(tags: dict[str, str]) -> EntranceKind | None:
    """The kind of door a node is (``ENTRANCE_KINDS``), or None: not a door, or not one for visitors."""
    if tags.get("access") in {"private", "no"}:
        return None
    entrance = tags.get("entrance")
    if entrance is not None:
        if entrance in NOT_FOR_VISITORS:
            return None
        known = next((k for k in ENTRANCE_KINDS if k == entrance and k != "footway_end"), None)
        return known or "yes"  # entrance=<other>: a door of unstated kind
    return "door" if tags.get("door", "no") != "no" else None


@dataclass
class EntranceCollector:
    """Gathers, during the one pass over the extract, the doors, the ends of footways and the outlines of the
    places that are buildings; ``doors`` then gives each building's doors."""

    #: node id -> (lon, lat, kind) of every door node
    doors_at: dict[int, tuple[float, float, EntranceKind]] = field(default_factory=dict)
    #: node id -> (lon, lat) of every end of a footway
    path_ends: dict[int, tuple[float, float]] = field(default_factory=dict)
    #: place osm id (w45, r6) -> the node ids of its outline
    outlines: dict[str, list[int]] = field(default_factory=dict)

    def node(self, node_id: int, lon: float, lat: float, tags: dict[str, str]) -> None:
        kind = door_kind(tags)
        if kind is not None:
            self.doors_at[node_id] = (lon, lat, kind)

    def way(self, tags: dict[str, str], nodes: list[tuple[int, tuple[float, float]]]) -> None:
        """A way of the extract: its ends are kept when people walk on it (not an area's outline)."""
        if tags.get("highway") in FOOT_WAYS and tags.get("area") != "yes" and nodes and nodes[0][0] != nodes[-1][0]:
            for node_id, where in (nodes[0], nodes[-1]):
                self.path_ends[node_id] = where

    def outline(self, osm_id: str, tags: dict[str, str], node_ids: Iterable[int]) -> None:
        """A place that is a closed way or a multipolygon, with the node ids of its outline: kept when it is a
        building (a square's outline meets the walls round it: those doors are the buildings', not the square's;
        Mannerheimin aukio's would be Kiasma's main entrance, and a person is on a square wherever it is)."""
        if tags.get("building", "no") != "no":
            self.outlines[osm_id] = list(dict.fromkeys(node_ids))

    def doors(self) -> dict[str, list[Entrance]]:
        """Each building's doors (its osm id -> doors in outline order); buildings without any are left out."""
        out: dict[str, list[Entrance]] = {}
        for osm_id, node_ids in self.outlines.items():
            found = [
                Entrance(osm_id=f"n{n}", lon=door[0], lat=door[1], kind=door[2])
                for n in node_ids
                if (door := self.doors_at.get(n)) is not None
            ]
            if not found:
                found = [
                    Entrance(osm_id=f"n{n}", lon=where[0], lat=where[1], kind="footway_end")
                    for n in node_ids
                    if (where := self.path_ends.get(n)) is not None
                ]
            if found:
                out[osm_id] = found
        return out
