"""A door of a place in the map data: where walking and cycling figures to and from the place are measured from
(issue 20 §5). Shared by the region packs (which keep them), the routers (which route from them) and the route
result (which says so)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: how a door is known, best first: OSM ``entrance=main``; another public ``entrance=*`` value (``yes``,
#: ``secondary``, ``side``, ``shop``, ``staircase``, ``home``) or a ``door=*`` node; the end of a footway on the
#: building's outline (no door tagged, but the path ends at the wall). The order is the one ``main_entrance`` keeps.
EntranceKind = Literal["main", "yes", "secondary", "side", "shop", "staircase", "home", "door", "footway_end"]
ENTRANCE_KINDS: tuple[EntranceKind, ...] = (
    "main",
    "yes",
    "secondary",
    "side",
    "shop",
    "staircase",
    "home",
    "door",
    "footway_end",
)


class Entrance(BaseModel):
    """One door of a place: an OpenStreetMap node on the place's outline, at the node's own coordinates."""

    model_config = ConfigDict(frozen=True)

    osm_id: str = Field(pattern=r"^n\d+$", description="the OSM node (n317122136), never invented")
    lon: float = Field(ge=-180, le=180)
    lat: float = Field(ge=-90, le=90)
    kind: EntranceKind


def main_entrances(entrances: Sequence[Entrance]) -> tuple[Entrance, ...]:
    """The doors a walk to or from the place may use: those of the best kind (``ENTRANCE_KINDS``' order), by node
    id. Stockmann has two ``entrance=main`` on different streets: a leg leaves by the one on its way (the router
    measures from each and keeps the shorter, the same for the matrix and the route). Empty: no door known."""
    if not entrances:
        return ()
    best = min(ENTRANCE_KINDS.index(e.kind) for e in entrances)
    return tuple(
        sorted((e for e in entrances if ENTRANCE_KINDS.index(e.kind) == best), key=lambda e: int(e.osm_id[1:]))
    )
