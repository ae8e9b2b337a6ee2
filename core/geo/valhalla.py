"""Valhalla (MIT) as the road router: embedded (an in-process ``valhalla.Actor`` over a pack's tiles) or over
HTTP (any Valhalla server, e.g. ``valhalla_service`` on the same tiles). Both engines take the same request
bodies from the params builders below and their answers go through the same parsers.

A point farther than ``snap_cutoff_m`` from every road of the network is outside the pack's coverage: a matrix
leaves its pairs unanswered (non-finite, for the resilient wrapper to fill from the estimate, stated per pair)
and a route raises ``OutsideCoverage``. Valhalla itself would silently snap such a point to the nearest road,
kilometres away. Pairs the network cannot join (one-way streets, islands) are unanswered too, never filled here.

Walking and cycling points join the network where a person there can step on it (``SNAP_OPTIONS``): Valhalla's
nearest edge is often a tunnel under the place (Senate Square's nearest is a service tunnel at layer -4, which
made a 100 m walk to the Cathedral 1.2 km; ``python -m core bench walk-detours``), and a building with doors in
the map data joins it at a main entrance (``core.geo.doors.entrance_index``: the pack's ``entrances.csv``): the location sent is
the door, the place's own point goes as Valhalla's ``display_lon``/``display_lat`` (the side of the street the place
is on). A building with several main entrances (Stockmann has two, on different streets) is measured from each and
a pair keeps the quicker, as a person leaves by the door on their way: the matrix does it over every door, and a
route asks the same matrix for its pair first (one rule, ``_measure``). The matrix (``entrances``) and the leg
(``origin_entrance``/``destination_entrance``) say which figures were measured from a door. Driving keeps the
place's point: a car stops on a road near the place, not at its door, and the pack does not know where.
"""

from __future__ import annotations

import json
import math
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import httpx
import polyline

from core.errors import OutsideCoverage, ProviderError, ProviderUnavailable, RouteNotFound
from core.geo.base import Leg, LonLat, PairDoors, TravelMatrix, TravelMode
from core.geo.cache import point_key
from core.geo.coords import haversine_m
from core.geo.doors import ENTRANCE_COSTINGS, Measured, Spot, pick_doors
from core.geo.http import HttpService
from core.geo.scope import CallScope, ScopedService
from core.models.entrance import Entrance

#: our travel modes -> Valhalla costings (bicycle is available to callers that pass it by name)
COSTINGS: dict[str, str] = {"driving": "auto", "walking": "pedestrian", "cycling": "bicycle"}
#: Valhalla's shapes are encoded polylines with six decimals
SHAPE_PRECISION = 6
#: the most pairs one matrix request may hold in the config we generate (the Actor's default is 2,500)
MAX_MATRIX_PAIRS = 40_000
#: Valhalla error codes: no road near a location / no path between locations
_NO_EDGES = {171}
_NO_PATH = {442, 443}
#: Valhalla's road classes, highest first (``search_filter``'s min_road_class / max_road_class)
ROAD_CLASSES = ("motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "service_other")


@dataclass(frozen=True, kw_only=True)
class SnapOptions:
    """Which edges a point may join the network on: Valhalla's location options (API reference, route,
    "Locations": ``search_filter`` and ``minimum_reachability``). Unset fields are not sent (Valhalla's defaults)."""

    exclude_tunnel: bool = False
    exclude_bridge: bool = False
    exclude_ramp: bool = False
    min_road_class: str | None = None
    max_road_class: str | None = None
    minimum_reachability: int | None = None

    def __post_init__(self) -> None:
        for road_class in (self.min_road_class, self.max_road_class):
            if road_class is not None and road_class not in ROAD_CLASSES:
                raise ValueError(f"not a Valhalla road class: {road_class!r} (one of {', '.join(ROAD_CLASSES)})")

    def location_fields(self) -> dict[str, Any]:
        search_filter: dict[str, Any] = {
            name: True for name in ("exclude_tunnel", "exclude_bridge", "exclude_ramp") if getattr(self, name)
        }
        if self.min_road_class is not None:
            search_filter["min_road_class"] = self.min_road_class
        if self.max_road_class is not None:
            search_filter["max_road_class"] = self.max_road_class
        fields: dict[str, Any] = {"search_filter": search_filter} if search_filter else {}
        if self.minimum_reachability is not None:
            fields["minimum_reachability"] = self.minimum_reachability
        return fields


#: per costing: a walker or cyclist at a square is on it, not in the tunnel below (bench walk-detours: the
#: walking detour ratio's p90 from 2.34 to 1.85 and its worst from 34.2 to 4.3 on 626 Helsinki landmark pairs)
SNAP_OPTIONS: dict[str, SnapOptions] = {
    "pedestrian": SnapOptions(exclude_tunnel=True),
    "bicycle": SnapOptions(exclude_tunnel=True),
}


class ValhallaEngine(Protocol):
    """Where a Valhalla request is answered: ``action`` is ``route``, ``sources_to_targets``, ``locate`` or
    ``optimized_route``."""

    name: str

    def call(self, action: str, body: Mapping[str, Any]) -> Any: ...

    def close(self) -> None: ...


# ---- config for the embedded engine and for valhalla_service --------------------------------------------
def service_config(tile_dir: Path, *, listen: str | None = None) -> dict[str, Any]:
    """Valhalla's default config over ``tile_dir`` with matrix limits raised to ``MAX_MATRIX_PAIRS`` and, for the
    HTTP service, the address it listens on (``tcp://127.0.0.1:8002``)."""
    import valhalla

    config: dict[str, Any] = valhalla.get_config(tile_extract="", tile_dir=str(tile_dir))
    for limits in config["service_limits"].values():
        if isinstance(limits, dict) and limits.get("max_matrix_location_pairs"):
            limits["max_matrix_location_pairs"] = MAX_MATRIX_PAIRS
            limits["max_locations"] = max(int(limits.get("max_locations", 20)), 200)
    if listen is not None:
        config["httpd"]["service"]["listen"] = listen
        # one socket pair per service: two services on one machine must not share /tmp/loopback
        run_dir = Path(tempfile.mkdtemp(prefix="omni-valhalla-"))
        config["httpd"]["service"]["loopback"] = f"ipc://{run_dir / 'loopback'}"
        config["httpd"]["service"]["interrupt"] = f"ipc://{run_dir / 'interrupt'}"
        config["httpd"]["service"]["drain_seconds"] = 0  # stop at once when told to
    return config


def write_config(tile_dir: Path, path: Path, *, listen: str | None = None) -> Path:
    path.write_text(json.dumps(service_config(tile_dir, listen=listen), indent=1), encoding="utf-8")
    return path


class EmbeddedValhalla:
    """The in-process engine: one ``valhalla.Actor`` per tile folder, calls serialised (the Actor is not
    documented as thread-safe)."""

    name = "valhalla"

    def __init__(self, tile_dir: Path) -> None:
        self.tile_dir = Path(tile_dir)
        self._actor = _actor_for(str(self.tile_dir.resolve()))
        self._lock = _lock_for(str(self.tile_dir.resolve()))

    def __repr__(self) -> str:
        return f"EmbeddedValhalla(tile_dir={str(self.tile_dir)!r})"

    def call(self, action: str, body: Mapping[str, Any]) -> Any:
        method = {
            "route": "route",
            "sources_to_targets": "matrix",
            "locate": "locate",
            "optimized_route": "optimized_route",
        }[action]
        with self._lock:
            try:
                answer = getattr(self._actor, method)(json.dumps(body))
            except RuntimeError as exc:  # the Actor raises with Valhalla's message; the code is not kept
                raise _engine_error(str(exc), code=_code_from_message(str(exc))) from None
        return json.loads(answer)

    def close(self) -> None:
        """The Actor is shared per tile folder for the life of the process."""


@lru_cache(maxsize=8)
def _actor_for(tile_dir: str) -> Any:
    import valhalla

    if not Path(tile_dir).is_dir():
        raise ProviderUnavailable(f"the pack's road network is missing ({tile_dir})", details={"service": "route"})
    return valhalla.Actor(service_config(Path(tile_dir)))


@lru_cache(maxsize=8)
def _lock_for(tile_dir: str) -> threading.Lock:
    return threading.Lock()


class HttpValhalla(HttpService):
    """A Valhalla server (``valhalla_service``, a team's cluster behind a load balancer): JSON POST per action."""

    name = "valhalla"
    label = "Valhalla"

    def call(self, action: str, body: Mapping[str, Any]) -> Any:
        return self.post_json(f"/{action}", body)

    def check_status(self, response: httpx.Response, path: str) -> None:
        if response.status_code == 400:  # Valhalla's "no answer" (no edges, no path) comes as a 400 with a code
            try:
                data = response.json()
            except ValueError:
                data = {}
            if isinstance(data, dict) and "error_code" in data:
                raise _engine_error(str(data.get("error", "")), code=int(data["error_code"]))
        super().check_status(response, path)


def _code_from_message(message: str) -> int | None:
    lowered = message.lower()
    if "no suitable edges" in lowered:
        return 171
    if "no path could be found" in lowered:
        return 442
    return None


def _engine_error(message: str, *, code: int | None) -> ProviderError:
    if code in _NO_EDGES:
        return OutsideCoverage(f"Valhalla found no road near a point: {message}", details={"valhalla_code": code})
    if code in _NO_PATH:
        return RouteNotFound(f"Valhalla found no path: {message}", details={"valhalla_code": code})
    return ProviderError(f"Valhalla refused the request: {message}", details={"valhalla_code": code})


# ---- params builders --------------------------------------------------------------------------------------
def _location(point: LonLat | Spot, radius_m: float = 0, snap: SnapOptions | None = None) -> dict[str, Any]:
    at = point.at if isinstance(point, Spot) else point
    spot: dict[str, Any] = {"lon": round(float(at.lon), 7), "lat": round(float(at.lat), 7)}
    if isinstance(point, Spot) and point.shown is not None:
        # Valhalla's "display" location: the routing location is the door, this the place, from which Valhalla
        # takes the side of the street (no walking figure changes with it: 0 of the bench's 626 pairs)
        spot["display_lon"], spot["display_lat"] = round(float(point.shown.lon), 7), round(float(point.shown.lat), 7)
    if radius_m > 0:
        spot["radius"] = float(radius_m)
    if snap is not None:
        spot.update(snap.location_fields())
    return spot


def locate_params(points: Sequence[LonLat | Spot], *, costing: str, snap: SnapOptions | None = None) -> dict[str, Any]:
    return {"locations": [_location(p, 0, snap) for p in points], "costing": costing, "verbose": False}


def route_params(
    origin: LonLat | Spot,
    destination: LonLat | Spot,
    *,
    costing: str,
    radius_m: float = 0,
    snap: SnapOptions | None = None,
) -> dict[str, Any]:
    return {
        "locations": [_location(origin, radius_m, snap), _location(destination, radius_m, snap)],
        "costing": costing,
        "units": "kilometers",
        "directions_type": "none",
        "shape_format": "polyline6",
    }


def matrix_params(
    sources: Sequence[LonLat | Spot],
    targets: Sequence[LonLat | Spot],
    *,
    costing: str,
    radius_m: float = 0,
    snap: SnapOptions | None = None,
) -> dict[str, Any]:
    return {
        "sources": [_location(p, radius_m, snap) for p in sources],
        "targets": [_location(p, radius_m, snap) for p in targets],
        "costing": costing,
        "units": "kilometers",
    }


def optimized_route_params(
    points: Sequence[LonLat | Spot], *, costing: str, radius_m: float = 0, snap: SnapOptions | None = None
) -> dict[str, Any]:
    """Valhalla's own trip optimiser: the first and last locations stay where they are, the others are ordered
    by the costing's cost (time-like); first == last asks for a round trip."""
    return {
        "locations": [_location(p, radius_m, snap) for p in points],
        "costing": costing,
        "units": "kilometers",
        "directions_type": "none",
    }


# ---- parsers ----------------------------------------------------------------------------------------------
def parse_locate(body: Any, points: Sequence[LonLat]) -> list[float]:
    """Metres from each point to the nearest road Valhalla would use (inf where it found none)."""
    if not isinstance(body, list) or len(body) != len(points):
        raise ProviderError("Valhalla's locate answer does not match the points asked", details={"service": "locate"})
    gaps: list[float] = []
    for point, found in zip(points, body, strict=True):
        edges = (found or {}).get("edges") or []
        nodes = (found or {}).get("nodes") or []
        snapped = [
            LonLat(float(e["correlated_lon"]), float(e["correlated_lat"])) for e in edges if "correlated_lon" in e
        ] + [LonLat(float(n["lon"]), float(n["lat"])) for n in nodes if "lon" in n]
        gaps.append(min((haversine_m(point.lon, point.lat, s.lon, s.lat) for s in snapped), default=math.inf))
    return gaps


def parse_route(body: Any, *, mode: TravelMode, source: str) -> Leg:
    try:
        trip = body["trip"]
        legs = trip["legs"]
        summary = trip["summary"]
        shape: list[tuple[float, float]] = []
        for leg in legs:
            decoded = polyline.decode(leg["shape"], SHAPE_PRECISION, geojson=True)
            shape.extend((float(lon), float(lat)) for lon, lat in decoded)
        return Leg(
            distance_m=float(summary["length"]) * 1000.0,
            duration_s=float(summary["time"]),
            geometry=shape,
            source=source,
            mode=mode,
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ProviderError(
            f"Valhalla's route answer could not be read ({exc})", details={"service": "route"}
        ) from None


def parse_optimized_route(body: Any, *, locations: int) -> list[int]:
    """The visiting order Valhalla chose, as indices into the locations asked (first and last kept in place)."""
    try:
        order = [int(loc["original_index"]) for loc in body["trip"]["locations"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ProviderError(
            f"Valhalla's optimized_route answer could not be read ({exc})", details={"service": "optimized_route"}
        ) from None
    if sorted(order) != list(range(locations)) or order[0] != 0 or order[-1] != locations - 1:
        raise ProviderError(
            "Valhalla's optimized_route answer is not an order of the locations asked",
            details={"service": "optimized_route"},
        )
    return order


def parse_matrix(body: Any, *, sources: int, targets: int) -> tuple[list[list[float]], list[list[float]]]:
    """Distances (m) and durations (s), ``nan`` where Valhalla answered null (no path)."""
    rows = body.get("sources_to_targets") if isinstance(body, dict) else None
    if not isinstance(rows, list) or len(rows) != sources or any(len(r) != targets for r in rows):
        raise ProviderError("Valhalla's matrix answer has the wrong shape", details={"service": "matrix"})
    dist = [[math.nan] * targets for _ in range(sources)]
    dur = [[math.nan] * targets for _ in range(sources)]
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if cell.get("distance") is not None and cell.get("time") is not None:
                dist[i][j] = float(cell["distance"]) * 1000.0
                dur[i][j] = float(cell["time"])
    return dist, dur


class ValhallaRouter(ScopedService):
    """A Router over a Valhalla engine. Off-network points and unjoinable pairs are left unanswered, named.
    ``snap_options`` (per costing; default ``SNAP_OPTIONS``, ``{}``: nearest edge of any kind) go with every point
    of every call, the coverage check's ``locate`` included, so the gap measured is to the edge routed from.
    ``entrances`` (a place's point -> its main entrances, ``entrance_index``) move walking and cycling points to
    their doors (``_spots``, and ``_measure`` for the door of each pair: one rule for the matrix, the route and the
    coverage check; ``optimized_order`` takes each place's first door)."""

    name = "valhalla"
    SCOPED_PARTS = ("engine",)  # the server's HTTP engine sends the calls

    def __init__(
        self,
        engine: ValhallaEngine,
        *,
        snap_cutoff_m: float = 500.0,
        max_matrix_pairs: int = 2_500,
        costings: Mapping[str, str] | None = None,
        snap_options: Mapping[str, SnapOptions] | None = None,
        entrances: Mapping[tuple[float, float], Sequence[Entrance]] | None = None,
    ) -> None:
        self.engine = engine
        self.snap_cutoff_m = float(snap_cutoff_m)
        self.max_matrix_pairs = max(1, int(max_matrix_pairs))
        self.costings = dict(costings or COSTINGS)
        self.snap_options = dict(SNAP_OPTIONS if snap_options is None else snap_options)
        self.entrances = dict(entrances or {})
        # what the cache keys add to the router's name: figures from doors, or from a snapping of other filters,
        # are other figures
        doors = "doors" if self.entrances else "points"
        self.cache_variant = f"{doors};snap={sorted(self.snap_options.items())}"
        self.pickup_radius_m = min(100.0, self.snap_cutoff_m)
        self.scope = CallScope.detached()

    def __repr__(self) -> str:
        return f"ValhallaRouter(engine={self.engine!r})"

    def close(self) -> None:
        self.engine.close()

    def _costing(self, mode: str) -> str:
        try:
            return self.costings[mode]
        except KeyError:
            raise ProviderError(f"Valhalla has no costing for '{mode}'", field="mode") from None

    def _snap(self, costing: str) -> SnapOptions | None:
        return self.snap_options.get(costing)

    def _spots(self, points: Sequence[LonLat], costing: str) -> list[list[Spot]]:
        """Where each point may join the network for ``costing``: its place's main entrances (walking, cycling),
        else the point itself."""
        doors = self.entrances if costing in ENTRANCE_COSTINGS else {}
        return [
            [Spot(LonLat(d.lon, d.lat), shown=p, entrance=d) for d in doors.get(point_key(p), ())] or [Spot(p)]
            for p in points
        ]

    def gaps_m(self, points: Sequence[LonLat], *, mode: TravelMode) -> list[float]:
        """Metres from each point (its nearest door, where it is routed from doors) to the network (``inf``: none
        found)."""
        costing = self._costing(mode)
        groups = self._spots([LonLat(float(p[0]), float(p[1])) for p in points], costing)
        flat = [s for group in groups for s in group]
        gaps = self._flat_gaps(flat, costing)
        owner = [i for i, group in enumerate(groups) for _ in group]
        out = [math.inf] * len(groups)
        for k, gap in enumerate(gaps):
            out[owner[k]] = min(out[owner[k]], gap)
        return out

    def _flat_gaps(self, flat: list[Spot], costing: str) -> list[float]:
        if not flat:
            return []
        body = self.engine.call("locate", locate_params(flat, costing=costing, snap=self._snap(costing)))
        return parse_locate(body, [s.at for s in flat])

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        measured = self._measure(pts, mode=mode)
        return measured.matrix

    def _measure(self, pts: list[LonLat], *, mode: TravelMode) -> Measured:
        """The matrix between ``pts``, each place measured from each of its doors (one spot when it has none) and
        each pair kept at its quickest pair of doors, with the spots chosen."""
        n = len(pts)
        costing = self._costing(mode)
        groups = self._spots(pts, costing)
        flat = [s for group in groups for s in group]
        owner = [i for i, group in enumerate(groups) for _ in group]
        gaps = self._flat_gaps(flat, costing)
        near = [k for k in range(len(flat)) if gaps[k] <= self.snap_cutoff_m]
        inside = sorted({owner[k] for k in near})
        outside = [i for i in range(n) if i not in inside]
        m = len(flat)
        fdist = [[0.0 if a == b else math.nan for b in range(m)] for a in range(m)]
        fdur = [[0.0 if a == b else math.nan for b in range(m)] for a in range(m)]
        self._fill(flat, near, near, fdist, fdur, costing=costing, radius_m=0)
        chosen = pick_doors(groups, near, fdur)
        # a point on a clipped one-way street or a dead end: let it start from any road within the pick-up radius
        stuck_points = {k for i in inside for j in inside if i != j and (i, j) not in chosen for k in (i, j)}
        notes: list[str] = []
        if stuck_points:
            stuck = [k for k in near if owner[k] in stuck_points]
            before = sum(1 for i in inside for j in inside if i != j and (i, j) not in chosen)
            self._fill(
                flat, stuck, stuck, fdist, fdur, costing=costing, radius_m=self.pickup_radius_m, only_missing=True
            )
            chosen = pick_doors(groups, near, fdur)
            joined = before - sum(1 for i in inside for j in inside if i != j and (i, j) not in chosen)
            if joined:
                notes.append(f"{joined} pair(s) joined from a road within {self.pickup_radius_m:g} m of the point")
        point_gaps = [min((gaps[k] for k in range(m) if owner[k] == i), default=math.inf) for i in range(n)]
        notes += [
            f"point {i} ({pts[i].lon:.5f}, {pts[i].lat:.5f}) is "
            + ("far from" if math.isinf(point_gaps[i]) else f"{point_gaps[i] / 1000:.1f} km from")
            + " the road network"
            for i in outside
        ]
        dist = [[0.0 if i == j else math.nan for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else math.nan for j in range(n)] for i in range(n)]
        doors: list[PairDoors] = []
        starts = [sum(len(g) for g in groups[:i]) for i in range(n)]
        for (i, j), (a, b) in chosen.items():
            fa, fb = starts[i] + a, starts[j] + b
            dist[i][j], dur[i][j] = fdist[fa][fb], fdur[fa][fb]
            if flat[fa].entrance is not None or flat[fb].entrance is not None:
                doors.append(
                    PairDoors(
                        origin=i,
                        destination=j,
                        origin_entrance=flat[fa].entrance,
                        destination_entrance=flat[fb].entrance,
                    )
                )
        matrix = TravelMatrix(
            distances_m=dist,
            durations_s=dur,
            source=self.name,
            mode=mode,
            notes=notes,
            off_network=outside,
            entrances=doors,
        )
        return Measured(matrix=matrix, groups=groups, chosen=chosen)

    def _fill(
        self,
        spots: list[Spot],
        rows_of: list[int],
        cols_of: list[int],
        dist: list[list[float]],
        dur: list[list[float]],
        *,
        costing: str,
        radius_m: float,
        only_missing: bool = False,
    ) -> None:
        """Ask for rows x cols in blocks within the pair limit and write the answers into dist/dur."""
        if not rows_of or not cols_of:
            return
        per_block = max(1, self.max_matrix_pairs // len(cols_of))
        targets = [spots[j] for j in cols_of]
        for start in range(0, len(rows_of), per_block):
            rows = rows_of[start : start + per_block]
            body = self.engine.call(
                "sources_to_targets",
                matrix_params(
                    [spots[i] for i in rows], targets, costing=costing, radius_m=radius_m, snap=self._snap(costing)
                ),
            )
            block_d, block_t = parse_matrix(body, sources=len(rows), targets=len(cols_of))
            for r, i in enumerate(rows):
                for c, j in enumerate(cols_of):
                    if i != j and (not only_missing or math.isnan(dur[i][j])):
                        dist[i][j], dur[i][j] = block_d[r][c], block_t[r][c]

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        pts = [LonLat(float(origin[0]), float(origin[1])), LonLat(float(destination[0]), float(destination[1]))]
        costing = self._costing(mode)
        groups = self._spots(pts, costing)
        if len(groups[0]) * len(groups[1]) > 1:  # several doors: the pair the matrix keeps (one rule for both)
            measured = self._measure(pts, mode=mode)
            gaps = [0.0 if i not in measured.matrix.off_network else math.inf for i in range(2)]
            a, b = measured.chosen.get((0, 1), (0, 0))
        else:
            gaps = self.gaps_m(pts, mode=mode)
            a, b = 0, 0
        outside = [(p, g) for p, g in zip(pts, gaps, strict=True) if g > self.snap_cutoff_m]
        if outside:
            where = "; ".join(
                f"({p.lon:.5f}, {p.lat:.5f}) is " + ("far" if math.isinf(g) else f"{g / 1000:.1f} km") + " from it"
                for p, g in outside
            )
            raise OutsideCoverage(f"outside the road network: {where}", details={"service": "route"})
        snap = self._snap(costing)
        start, end = groups[0][a], groups[1][b]
        try:
            body = self.engine.call("route", route_params(start, end, costing=costing, snap=snap))
        except RouteNotFound:  # as in the matrix: start from any road within the pick-up radius
            body = self.engine.call(
                "route", route_params(start, end, costing=costing, radius_m=self.pickup_radius_m, snap=snap)
            )
        leg = parse_route(body, mode=mode, source=self.name)
        return leg.model_copy(update={"origin_entrance": start.entrance, "destination_entrance": end.entrance})

    def optimized_order(self, points: Sequence[LonLat], *, mode: TravelMode) -> list[int]:
        """Valhalla's ``optimized_route`` over ``points`` (first and last fixed; equal for a round trip): the order
        as indices into ``points``. A point off the network raises ``OutsideCoverage``; a set the network cannot
        join is retried from any road within the pick-up radius, as ``route`` does."""
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        gaps = self.gaps_m(pts, mode=mode)
        outside = [i for i, g in enumerate(gaps) if g > self.snap_cutoff_m]
        if outside:
            raise OutsideCoverage(
                f"outside the road network: point(s) {', '.join(map(str, outside))}",
                details={"service": "optimized_route"},
            )
        costing = self._costing(mode)
        snap = self._snap(costing)
        spots = [group[0] for group in self._spots(pts, costing)]  # the order only: one door each (the lowest id)
        try:
            body = self.engine.call("optimized_route", optimized_route_params(spots, costing=costing, snap=snap))
        except RouteNotFound:
            body = self.engine.call(
                "optimized_route",
                optimized_route_params(spots, costing=costing, radius_m=self.pickup_radius_m, snap=snap),
            )
        return parse_optimized_route(body, locations=len(pts))
