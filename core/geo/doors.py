"""Where a walker or cyclist joins Valhalla's network at a place: its doors (issue 20 §5).

A building with doors in the pack (``entrances.csv``) is routed from its main entrances: ``entrance_index`` finds
them from the place's point (what the planner routes between), ``Spot`` is one way onto the network (a door, with
the place's point to show, or the point itself), and ``pick_doors`` keeps, per pair of places, the quickest pair
of their doors from a matrix over all of them (``ValhallaRouter._measure``; a route asks the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.geo.base import LonLat, TravelMatrix
from core.geo.cache import point_key
from core.models.entrance import Entrance

#: costings that start and end at a place's door when it has one (a person on foot or on a bicycle goes in there)
ENTRANCE_COSTINGS = frozenset({"pedestrian", "bicycle"})


@dataclass(frozen=True)
class Spot:
    """Where a point joins the network: the location routed from (``at``: the place's door, or the point itself)
    and, when that is a door, the place's own point (``shown``) and the door."""

    at: LonLat
    shown: LonLat | None = None
    entrance: Entrance | None = None


def entrance_index(places: Any) -> dict[tuple[float, float], tuple[Entrance, ...]]:
    """The main entrances of every place that has them (``RegionPlace.main_entrances``), by the place's point
    (``point_key``): what the planner asks a route between is the place's point, so its doors are found from it,
    in one place for every call."""
    index: dict[tuple[float, float], tuple[Entrance, ...]] = {}
    for place in places:
        doors = place.main_entrances()
        if doors:
            index.setdefault(point_key((place.lon, place.lat)), doors)
    return index


@dataclass(frozen=True)
class Measured:
    """A matrix measured over doors, the spots of each point and the pair of spots each answered pair kept."""

    matrix: TravelMatrix
    groups: list[list[Spot]]
    #: (i, j) -> the spots (indices into groups[i], groups[j]) the pair was measured between; answered pairs only
    chosen: dict[tuple[int, int], tuple[int, int]]


def pick_doors(
    groups: list[list[Spot]], near: list[int], fdur: list[list[float]]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Per pair of points, the pair of their spots with the quickest answered leg (ties: the lower indices)."""
    near_set = set(near)
    starts = [sum(len(g) for g in groups[:i]) for i in range(len(groups))]
    chosen: dict[tuple[int, int], tuple[int, int]] = {}
    for i, gi in enumerate(groups):
        for j, gj in enumerate(groups):
            if i == j:
                continue
            best: tuple[float, int, int] | None = None
            for a in range(len(gi)):
                for b in range(len(gj)):
                    fa, fb = starts[i] + a, starts[j] + b
                    t = fdur[fa][fb]
                    if fa in near_set and fb in near_set and not math.isnan(t) and (best is None or t < best[0]):
                        best = (t, a, b)
            if best is not None:
                chosen[(i, j)] = (best[1], best[2])
    return chosen
