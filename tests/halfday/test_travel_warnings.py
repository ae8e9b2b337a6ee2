"""The half-day travel table reads its request's own provider log: a matrix the remote answered through its fallback
as a whole is TRAVEL_SERVICE_FAILED (and the plan says it uses local estimates); pairs the network could not join,
filled from the estimate, are no failure: each leg names its own source (what a walk on Helsinki found)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.config import Settings
from core.errors import ProviderUnavailable
from core.geo.base import LonLat, TravelMatrix, TravelMode, WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.resilience import ResilientProvider
from core.halfday.breaker import HalfDayBreakers
from core.halfday.travel import build_travel_table, map_breaker
from core.packs.loader import load_region

PACK = load_region("shanghai")
POINTS = [LonLat(p.lon, p.lat) for p in PACK.places[:4]]


class RoadRouter:
    """A 'remote' router: all pairs, pair 0→3 unjoinable, or nothing at all."""

    def __init__(self, behaviour: str) -> None:
        self.name = "roads"
        self.behaviour = behaviour
        self.offline = OfflineProvider(PACK)

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        if self.behaviour == "down":
            raise ProviderUnavailable("roads is down", details={"service": "matrix"})
        m = self.offline.matrix(points, mode=mode).model_copy(update={"source": "roads"})
        if self.behaviour == "one_pair_unjoinable":
            m.distances_m[0][3] = math.inf
            m.durations_s[0][3] = math.inf
        return m

    def __getattr__(self, name: str) -> Any:
        return getattr(self.offline, name)


def table_warnings(behaviour: str) -> tuple[list[str], set[str]]:
    log = WarningLog()
    offline = OfflineProvider(PACK)
    router = ResilientProvider(RoadRouter(behaviour), fallback=offline, retries=0, warnings=log)  # type: ignore[arg-type]
    shared = MapServices(geocoder=offline, router=router, region=PACK, warnings=log)  # type: ignore[arg-type]
    view = shared.for_request()
    breaker = map_breaker(HalfDayBreakers(), view, settings=Settings())
    table = build_travel_table(POINTS, provider=view, breaker=breaker, walk_limit_min=20, factor=1.2, buffer_min=5)
    return table.warnings, {table.leg(i, j).source for i in range(4) for j in range(4) if i != j}


def test_a_service_that_answers_every_pair_warns_of_nothing():
    assert table_warnings("all_pairs") == ([], {"roads"})


def test_pairs_the_network_cannot_join_are_not_a_failure_each_leg_says_its_source():
    warnings, sources = table_warnings("one_pair_unjoinable")
    assert warnings == []
    assert sources == {"roads", "offline_estimate"}


def test_a_service_answered_by_its_fallback_as_a_whole_is_a_failure():
    warnings, sources = table_warnings("down")
    assert warnings == ["TRAVEL_FROM_LOCAL_ESTIMATE", "TRAVEL_SERVICE_FAILED"]
    assert sources == {"offline_estimate"}
