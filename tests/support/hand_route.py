"""A router answering a matrix written by hand (tests/route/test_own_order.py lists it and sums its orders by
hand), for the places of tests/support/region_packs.py's test city."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.geo.base import Leg, LonLat, TravelMatrix, TravelMode, WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region

NAMES = {"O": "人民广场", "A": "外滩", "B": "豫园", "C": "新天地", "D": "上海博物馆"}
HAND_M = {
    ("O", "A"): 1000, ("O", "B"): 2000, ("O", "C"): 3000,
    ("A", "B"): 1500, ("A", "C"): 2500, ("A", "D"): 4000,
    ("B", "A"): 1500, ("B", "C"): 1000, ("B", "D"): 3000,
    ("C", "A"): 2500, ("C", "B"): 1000, ("C", "D"): 1000,
}  # fmt: skip
HAND_S = {
    ("O", "A"): 120, ("O", "B"): 200, ("O", "C"): 260,
    ("A", "B"): 150, ("A", "C"): 300, ("A", "D"): 420,
    ("B", "A"): 150, ("B", "C"): 90, ("B", "D"): 330,
    ("C", "A"): 300, ("C", "B"): 90, ("C", "D"): 100,
}  # fmt: skip


class HandRouter:
    """A router answering the hand-written matrix for the places above (found by their coordinates); counts its
    calls."""

    name = "osrm"  # a road router's name: its figures are not straight-line estimates

    def __init__(self, where: dict[tuple[float, float], str]) -> None:
        self.where = where
        self.calls = 0

    def _letter(self, p: LonLat) -> str:
        return self.where[(round(p.lon, 5), round(p.lat, 5))]

    def _cell(self, table: dict[tuple[str, str], int], a: LonLat, b: LonLat) -> float:
        pair = (self._letter(a), self._letter(b))
        return 0.0 if pair[0] == pair[1] else float(table.get(pair, 99_999))

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        self.calls += 1
        return TravelMatrix(
            distances_m=[[self._cell(HAND_M, a, b) for b in points] for a in points],
            durations_s=[[self._cell(HAND_S, a, b) for b in points] for a in points],
            source=self.name,
            mode=mode,
        )

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        self.calls += 1
        return Leg(
            distance_m=self._cell(HAND_M, origin, destination),
            duration_s=self._cell(HAND_S, origin, destination),
            geometry=[(origin.lon, origin.lat), (destination.lon, destination.lat)],
            source=self.name,
            mode=mode,
        )

    def close(self) -> None:
        pass


def hand_services(data_dir: Path) -> tuple[MapServices, HandRouter]:
    """The test city's gazetteer with the hand-written router (and the router, for its call count)."""
    pack = load_region("testcity", data_dir)
    by_name = {p.name_zh: p for p in pack.places}
    router = HandRouter({(round(by_name[n].lon, 5), round(by_name[n].lat, 5)): k for k, n in NAMES.items()})
    services = MapServices(geocoder=OfflineProvider(pack), router=router, region=pack, warnings=WarningLog())  # type: ignore[arg-type]
    return services, router


def hand_request(stops: str = "ABC", **kw: object) -> RoutePlanRequest:
    """O → the stops (letters of ``NAMES``) → D."""
    return RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": NAMES["O"],
            "destination_address": NAMES["D"],
            "stops": [{"address": NAMES[s]} for s in stops],
            "need_deep_link": False,
            **kw,
        }
    )
