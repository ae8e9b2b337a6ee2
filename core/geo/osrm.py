"""OSRM (the Open Source Routing Machine) as a router over HTTP: ``/table`` for matrices and ``/route`` for one
leg (http://project-osrm.org/docs/v5.24.0/api/). Any server: a team's own ``osrm-routed`` or the public demo
(``OMNI_OSRM_URL``, never asked unless set).

A table larger than the server's ``--max-table-size`` (100 on osrm-routed by default) is asked in blocks of
sources x destinations and stitched. A ``null`` cell (no route between the two points) stays unanswered
(``inf``) for the resilient wrapper to estimate and state per pair; nothing is filled here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import polyline

from core.errors import ProviderError, RouteNotFound
from core.geo.base import Leg, LonLat, TravelMatrix, TravelMode
from core.geo.http import HttpService

DEFAULT_BASE_URL = "https://router.project-osrm.org"
PROFILES: dict[str, str] = {"driving": "driving", "walking": "foot", "cycling": "bike"}
#: codes that mean "no route here", an answer rather than a failure
NO_ROUTE = {"NoRoute", "NoSegment"}


def _coords(points: Sequence[LonLat]) -> str:
    return ";".join(f"{p.lon:.6f},{p.lat:.6f}" for p in points)


def table_path(profile: str, points: Sequence[LonLat]) -> str:
    return f"/table/v1/{profile}/{_coords(points)}"


def table_params(sources: Sequence[int], destinations: Sequence[int]) -> dict[str, str]:
    """Indices into the coordinates of the path: the block of the matrix one request answers."""
    return {
        "sources": ";".join(str(i) for i in sources),
        "destinations": ";".join(str(j) for j in destinations),
        "annotations": "duration,distance",
    }


def route_path(profile: str, origin: LonLat, destination: LonLat) -> str:
    return f"/route/v1/{profile}/{_coords([origin, destination])}"


def route_params() -> dict[str, str]:
    return {"overview": "full", "geometries": "polyline6", "steps": "false", "alternatives": "false"}


def _check_code(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ProviderError(f"OSRM's {what} answer is not a JSON object", details={"service": what})
    code = body.get("code")
    if code == "Ok":
        return body
    message = str(body.get("message") or code or "no code")
    if code in NO_ROUTE:
        raise RouteNotFound(f"OSRM found no route: {message}", details={"osrm_code": code})
    raise ProviderError(f"OSRM refused the {what} request: {message}", details={"osrm_code": code})


def parse_table(body: Any, *, sources: int, destinations: int) -> tuple[list[list[float]], list[list[float]]]:
    """Distances (m) and durations (s) of one block; ``inf`` where OSRM answered null."""
    data = _check_code(body, "table")
    durations, distances = data.get("durations"), data.get("distances")
    for grid, name in ((durations, "durations"), (distances, "distances")):
        if not isinstance(grid, list) or len(grid) != sources or any(len(r) != destinations for r in grid):
            raise ProviderError(f"OSRM's table has no {sources}x{destinations} {name}", details={"service": "table"})
    assert isinstance(durations, list) and isinstance(distances, list)

    def cell(value: Any) -> float:
        return math.inf if value is None else float(value)

    return [[cell(v) for v in row] for row in distances], [[cell(v) for v in row] for row in durations]


def parse_route(body: Any, *, mode: TravelMode) -> Leg:
    data = _check_code(body, "route")
    try:
        route = data["routes"][0]
        shape = polyline.decode(route["geometry"], 6, geojson=True)
        return Leg(
            distance_m=float(route["distance"]),
            duration_s=float(route["duration"]),
            geometry=[(float(lon), float(lat)) for lon, lat in shape],
            source="osrm",
            mode=mode,
        )
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ProviderError(f"OSRM's route answer could not be read ({exc})", details={"service": "route"}) from None


class OsrmRouter(HttpService):
    """An OSRM server as a Router (``matrix`` from /table in blocks, ``route`` from /route)."""

    name = "osrm"
    label = "OSRM"

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        min_interval_s: float = 0.0,
        max_table_size: int = 100,
        profiles: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(base_url=base_url, client=client, timeout_s=timeout_s, min_interval_s=min_interval_s)
        if max_table_size < 2:
            raise ValueError("max_table_size must be at least 2")
        self.max_table_size = int(max_table_size)
        self.profiles = dict(profiles or PROFILES)

    def _profile(self, mode: str) -> str:
        try:
            return self.profiles[mode]
        except KeyError:
            raise ProviderError(f"OSRM has no profile for '{mode}'", field="mode") from None

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        n = len(pts)
        profile = self._profile(mode)
        dist = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        # each request carries the coordinates of one block of sources and one of destinations
        half = max(1, self.max_table_size // 2)
        blocks = [list(range(start, min(n, start + half))) for start in range(0, n, half)]
        for rows in blocks:
            for cols in blocks:
                used = sorted(set(rows) | set(cols))
                index = {k: u for u, k in enumerate(used)}
                body = self.get_json(
                    table_path(profile, [pts[k] for k in used]),
                    table_params([index[i] for i in rows], [index[j] for j in cols]),
                )
                block_d, block_t = parse_table(body, sources=len(rows), destinations=len(cols))
                for r, i in enumerate(rows):
                    for c, j in enumerate(cols):
                        if i != j:
                            dist[i][j], dur[i][j] = block_d[r][c], block_t[r][c]
        missing = sum(1 for i in range(n) for j in range(n) if i != j and math.isinf(dur[i][j]))
        notes = [f"OSRM found no route for {missing} of {n * (n - 1)} {mode} pairs"] if missing else []
        return TravelMatrix(distances_m=dist, durations_s=dur, source=self.name, mode=mode, notes=notes)

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        o = LonLat(float(origin[0]), float(origin[1]))
        d = LonLat(float(destination[0]), float(destination[1]))
        body = self.get_json(route_path(self._profile(mode), o, d), route_params())
        return parse_route(body, mode=mode)

    def check_status(self, response: httpx.Response, path: str) -> None:
        if response.status_code == 400:  # OSRM answers NoRoute / InvalidQuery as 400 with a JSON code
            try:
                body = response.json()
            except ValueError:
                body = None
            if isinstance(body, dict) and "code" in body:
                _check_code(body, "route" if path.startswith("/route") else "table")
        super().check_status(response, path)
