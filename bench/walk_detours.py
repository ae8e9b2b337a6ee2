"""``python -m core bench walk-detours``: walking detour ratios (route / straight line) between nearby landmarks of
the helsinki pack, Valhalla with three ways of joining the network (nearest edge, ground level, ground level from
the buildings' doors), against a reference from the same extract.

- Places: the pack's places in their own right (landmarks, stations, parks, theatres, museums, churches, markets
  with ``importance`` >= 65, one per name and none within 30 m of another) plus Stockmann, the issue's example.
  Pairs: every two of them 50 m - 1.5 km apart (haversine).
- Reference: a shortest path over the extract's walkable ways (the ``walking`` graph of ``bench.roads`` without
  ``area=yes`` outlines, read with osmium), own Dijkstra, each place placed on its nearest walkable way at ground level (not a tunnel nor
  ``layer`` < 0: where a person standing at the place can step on). Like Valhalla's lengths it leaves out the
  step from the point to the way.
- ``before``: the router with no snap options (nearest edge of any kind); ``ground``: the options the router
  sends for walking (``core.geo.valhalla.SNAP_OPTIONS``) from the places' points; ``after``: those options from
  each place's main entrance where the pack has one (``entrances.csv``; what the router does by default).
  Straight lines and the reference stay between the places' points for all three: the same pairs, the same
  yardstick. ``per_pair`` says which ends were routed from a door.
- ``door_reference``: the same Dijkstra from and to the buildings' main entrances (the shortest over their doors,
  as the router keeps), each door put on its nearest ground-level way: what ``after`` should come close to.
"""

from __future__ import annotations

import heapq
import math
import statistics
from pathlib import Path
from typing import Any

from core.geo.base import LonLat
from core.geo.coords import haversine_m

#: categories of places that are places in their own right; importance floor (core/packs/osm_places.py importance_of)
CATEGORIES = {"landmark", "station", "park", "theatre", "museum", "temple", "market"}
MIN_IMPORTANCE = 65
#: places added by id: the issue's examples that the rule above leaves out (Stockmann is a shop, importance 35)
EXTRA_IDS = ("hel-w122595241",)
MIN_APART_M, MAX_APART_M = 50.0, 1500.0


def pick_places(places: list[Any]) -> list[Any]:
    chosen: list[Any] = []
    names: set[str] = set()
    ranked = sorted(places, key=lambda p: (-p.importance, p.id))
    extra = [p for p in places if p.id in EXTRA_IDS]
    for p in [*extra, *ranked]:
        wanted = p.id in EXTRA_IDS or (p.category in CATEGORIES and p.importance >= MIN_IMPORTANCE)
        name = p.name_en or p.name_zh
        if not wanted or p.approximate or not name or name in names:
            continue
        if all(haversine_m(p.lon, p.lat, q.lon, q.lat) >= 30 for q in chosen):
            chosen.append(p)
            names.add(name)
    return chosen


def pick_pairs(places: list[Any]) -> list[tuple[Any, Any]]:
    return [
        (a, b)
        for i, a in enumerate(places)
        for b in places[i + 1 :]
        if MIN_APART_M < haversine_m(a.lon, a.lat, b.lon, b.lat) <= MAX_APART_M
    ]


# ---- reference ------------------------------------------------------------------------------------------------
def _ground_level(tags: dict[str, str]) -> bool:
    try:
        layer = float(tags.get("layer", "0").split(";")[0])
    except ValueError:
        layer = 0.0
    return tags.get("tunnel", "no") in {"no", "building_passage"} and layer >= 0


class WalkGraph:
    """Undirected walkable ways of the extract: adjacency (node -> [(node, m)]), positions, and the segments
    a place may be put on (ground level only)."""

    def __init__(self, pbf: Path) -> None:
        import osmium

        from bench.roads import WALK

        self.adj: dict[int, list[tuple[int, float]]] = {}
        self.pos: dict[int, tuple[float, float]] = {}
        self.snappable: list[tuple[int, int]] = []
        for way in osmium.FileProcessor(str(pbf)).with_locations().with_filter(osmium.filter.KeyFilter("highway")):
            if not isinstance(way, osmium.osm.Way):
                continue
            tags = dict(way.tags)
            closed = tags.get("access") in {"no", "private"} and tags.get("foot") not in {"yes", "designated"}
            walkable = tags.get("highway", "") in WALK or tags.get("foot") in {"yes", "designated"}
            # an area's outline is no path (Valhalla's graph leaves pedestrian areas out too: the reference
            # differs from it in snapping, not in which ways exist)
            if not walkable or tags.get("foot") == "no" or closed or tags.get("area") == "yes":
                continue
            nodes = [(n.ref, (n.location.lon, n.location.lat)) for n in way.nodes if n.location.valid()]
            ground = _ground_level(tags)
            for (a, pa), (b, pb) in zip(nodes, nodes[1:], strict=False):
                self.pos[a], self.pos[b] = pa, pb
                length = haversine_m(pa[0], pa[1], pb[0], pb[1])
                self.adj.setdefault(a, []).append((b, length))
                self.adj.setdefault(b, []).append((a, length))
                if ground:
                    self.snappable.append((a, b))
        # a place goes on the connected network, not on a fragment the extract's edge cut off
        main = self._largest_part()
        self.snappable = [(a, b) for a, b in self.snappable if a in main]

    def _largest_part(self) -> set[int]:
        seen: set[int] = set()
        best: set[int] = set()
        for start in self.adj:
            if start in seen:
                continue
            part, stack = {start}, [start]
            while stack:
                for m, _ in self.adj[stack.pop()]:
                    if m not in part:
                        part.add(m)
                        stack.append(m)
            seen |= part
            best = max(best, part, key=len)
        return best

    def place(self, point: LonLat) -> tuple[int, int, float, float]:
        """The nearest ground-level segment (a, b), the fraction along it and the metres from the point."""
        best = (0, 0, 0.0, math.inf)
        kx = 111_320.0 * math.cos(math.radians(point.lat))  # local metres per degree (a few hundred metres)
        for a, b in self.snappable:
            (ax, ay), (bx, by) = self.pos[a], self.pos[b]
            ux, uy = (ax - point.lon) * kx, (ay - point.lat) * 110_574.0
            vx, vy = (bx - point.lon) * kx, (by - point.lat) * 110_574.0
            dx, dy = vx - ux, vy - uy
            seg2 = dx * dx + dy * dy
            t = 0.0 if seg2 == 0 else min(1.0, max(0.0, -(ux * dx + uy * dy) / seg2))
            gap = math.hypot(ux + t * dx, uy + t * dy)
            if gap < best[3]:
                best = (a, b, t, gap)
        return best

    def distances_from(self, start: tuple[int, int, float, float]) -> dict[int, float]:
        a, b, t, _ = start
        length = self._length(a, b)
        dist: dict[int, float] = {}
        heap = [(t * length, a), ((1 - t) * length, b)]
        while heap:
            d, n = heapq.heappop(heap)
            if n in dist:
                continue
            dist[n] = d
            for m, w in self.adj.get(n, ()):
                if m not in dist:
                    heapq.heappush(heap, (d + w, m))
        return dist

    def between(
        self, start: tuple[int, int, float, float], end: tuple[int, int, float, float], dist: dict[int, float]
    ) -> float:
        a, b, t, _ = end
        length = self._length(a, b)
        via_nodes = min(dist.get(a, math.inf) + t * length, dist.get(b, math.inf) + (1 - t) * length)
        if {a, b} == {start[0], start[1]}:  # both on one segment: straight along it
            s = start[2] if (a, b) == (start[0], start[1]) else 1 - start[2]
            return min(via_nodes, abs(t - s) * length)
        return via_nodes

    def _length(self, a: int, b: int) -> float:
        (ax, ay), (bx, by) = self.pos[a], self.pos[b]
        return haversine_m(ax, ay, bx, by)


# ---- the benchmark --------------------------------------------------------------------------------------------
def _summary(ratios: list[float]) -> dict[str, float]:
    ordered = sorted(ratios)
    return {
        "median": round(statistics.median(ordered), 3),
        "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        "max": round(ordered[-1], 3),
    }


def _door(door: Any) -> tuple[str, str] | None:
    return None if door is None else (door.osm_id, door.kind)


def bench_walk_detours(*, region: str = "helsinki") -> dict[str, Any]:
    from core.config import PROJECT_ROOT, get_settings
    from core.geo.doors import entrance_index
    from core.geo.valhalla import EmbeddedValhalla, ValhallaRouter
    from core.packs.loader import load_region

    pack = load_region(region, get_settings().data_dir)
    pbf = PROJECT_ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"
    if region != "helsinki" or pack.tile_dir is None or not pbf.is_file():
        raise ValueError("bench walk-detours needs the helsinki pack and its extract (make install builds both)")
    places = pick_places(list(pack.places))
    pairs = pick_pairs(places)
    graph = WalkGraph(pbf)
    spots = {p.id: graph.place(LonLat(p.lon, p.lat)) for p in places}
    from_spot = {p.id: graph.distances_from(spots[p.id]) for p in places}
    door_spots = {
        p.id: [graph.place(LonLat(d.lon, d.lat)) for d in p.main_entrances()] or [spots[p.id]] for p in places
    }
    from_door = {p.id: [graph.distances_from(s) for s in door_spots[p.id]] for p in places}
    engine = EmbeddedValhalla(pack.tile_dir)
    routers = {
        "before": ValhallaRouter(engine, snap_options={}),
        "ground": ValhallaRouter(engine),
        "after": ValhallaRouter(engine, entrances=entrance_index(pack.places)),
    }

    rows: list[dict[str, Any]] = []
    for a, b in pairs:
        straight = haversine_m(a.lon, a.lat, b.lon, b.lat)
        reference = graph.between(spots[a.id], spots[b.id], from_spot[a.id])
        row: dict[str, Any] = {
            "from": a.name_en or a.name_zh,
            "to": b.name_en or b.name_zh,
            "straight_m": round(straight),
            "reference_m": round(reference),
            "reference_ratio": round(reference / straight, 3),
        }
        by_doors = min(
            graph.between(sa, sb, dist)
            for sa, dist in zip(door_spots[a.id], from_door[a.id], strict=True)
            for sb in door_spots[b.id]
        )
        row["door_reference_m"] = round(by_doors)
        row["door_reference_ratio"] = round(by_doors / straight, 3)
        for label, router in routers.items():
            try:
                leg = router.route(LonLat(a.lon, a.lat), LonLat(b.lon, b.lat), mode="walking")
            except Exception as exc:  # a pair Valhalla cannot join is shown, not hidden
                row[f"{label}_m"], row[f"{label}_ratio"] = None, None
                row[f"{label}_error"] = type(exc).__name__
                continue
            row[f"{label}_m"] = round(leg.distance_m)
            row[f"{label}_ratio"] = round(leg.distance_m / straight, 3)
            if label == "after":  # the doors the walk was measured between (OSM node, kind), None: the point
                row["from_entrance"] = _door(leg.origin_entrance)
                row["to_entrance"] = _door(leg.destination_entrance)
        rows.append(row)

    out: dict[str, Any] = {
        "benchmark": "walk-detours",
        "region": region,
        "source": "routes: Valhalla (pyvalhalla) over the pack's tiles; reference: Dijkstra over the walkable ways "
        f"of {pbf.name}; straight lines: haversine between the pack's points",
        "places": len(places),
        "places_with_entrance": sum(bool(p.main_entrances()) for p in places),
        "pairs": len(rows),
        "reference": _summary([r["reference_ratio"] for r in rows]),
        "door_reference": _summary([r["door_reference_ratio"] for r in rows]),
    }
    for label in routers:
        answered = [r for r in rows if r[f"{label}_ratio"] is not None]
        out[label] = {
            **_summary([r[f"{label}_ratio"] for r in answered]),
            "unanswered": len(rows) - len(answered),
            "over_reference_by_more_than_25pct": sum(r[f"{label}_m"] > 1.25 * r["reference_m"] for r in answered),
            "within_10pct_of_reference": sum(
                abs(r[f"{label}_m"] - r["reference_m"]) <= 0.1 * r["reference_m"] for r in answered
            ),
            "within_10pct_of_door_reference": sum(
                abs(r[f"{label}_m"] - r["door_reference_m"]) <= 0.1 * r["door_reference_m"] for r in answered
            ),
        }
    out["per_pair"] = sorted(rows, key=lambda r: -(r["before_ratio"] or math.inf))
    return out
