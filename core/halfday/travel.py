"""Travel between the candidates of a half day: one walking and one driving matrix from the provider, robust minutes
(nominal × factor + buffer), a leg walked when it is short enough for the party and driven otherwise.

Half-day planner §4 level 2: the provider's matrix goes through a circuit breaker; while it is open (or the call
fails) the legs come from the pack's local estimate (read-only, on this machine) and the planner says so. A call the
provider answered from its own fallback (AMap failing behind its retries and breaker) counts as the failure it is
(issue 31 §3): the calls are watched (``MapServices.watching``), not read from the warnings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.config import Settings
from core.errors import OmniError
from core.geo.base import LonLat, TravelMatrix, TravelMode
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.halfday.breaker import Breaker, BreakerOpen, HalfDayBreakers
from core.models.halfday.plans import TravelLeg

__all__ = ["TravelTable", "build_travel_table", "map_breaker"]

#: what counts against the map service: its own errors, a socket's, a timeout
MAP_FAILURES: tuple[type[BaseException], ...] = (OmniError, OSError, TimeoutError)


@dataclass
class TravelTable:
    """Legs between points 0..n-1 (the candidates, then the origin if any), walked or driven."""

    walk: TravelMatrix
    drive: TravelMatrix
    walk_limit_min: int
    factor: float
    buffer_min: int
    warnings: list[str] = field(default_factory=list)
    router_name: str = "router"

    @property
    def source(self) -> str:
        sources = {self.walk.source, self.drive.source}
        return sources.pop() if len(sources) == 1 else "mixed"

    def leg(self, i: int, j: int) -> TravelLeg:
        if i == j:
            return TravelLeg(minutes=0, nominal_minutes=0.0, distance_m=0.0, mode="none", source="same_place")
        walk_min = float(self.walk.durations_s[i][j]) / 60.0
        if walk_min <= self.walk_limit_min:
            m, mode = self.walk, "walking"
        else:
            m, mode = self.drive, "driving"
        nominal = float(m.durations_s[i][j]) / 60.0
        robust = math.ceil(nominal * self.factor + self.buffer_min)
        source = m.source
        if source == "mixed":  # this leg's own source: the network's, or the estimate that filled it
            source = "offline_estimate" if (i, j) in self._estimated(m) else self._network_source
        return TravelLeg(
            minutes=robust,
            nominal_minutes=round(nominal, 1),
            distance_m=round(float(m.distances_m[i][j]), 1),
            mode=mode,
            source=source,
        )

    def __post_init__(self) -> None:
        self._filled = {id(m): {(int(a), int(b)) for a, b in m.estimated_pairs} for m in (self.walk, self.drive)}

    def _estimated(self, m: TravelMatrix) -> set[tuple[int, int]]:
        return self._filled[id(m)]

    @property
    def _network_source(self) -> str:
        return self.router_name


def map_breaker(breakers: HalfDayBreakers, provider: MapServices, *, settings: Settings) -> Breaker:
    """The map service's breaker in the provider's region (its own threshold and cool-down; one region's outage
    stops no other)."""
    return breakers.breaker("map", f"{provider.name}@{provider.region.name}", settings=settings, counts=MAP_FAILURES)


def build_travel_table(
    points: Sequence[LonLat],
    *,
    provider: MapServices,
    breaker: Breaker,
    walk_limit_min: int,
    factor: float,
    buffer_min: int,
) -> TravelTable:
    """Both matrices through ``breaker`` (``map_breaker``'s); a failure or an open breaker uses the pack's estimate
    with a warning."""
    warnings: list[str] = []
    local = OfflineProvider(provider.region)

    def matrix(mode: TravelMode) -> TravelMatrix:
        try:
            with breaker.calling() as call, provider.watching() as watch:
                answer = provider.matrix(list(points), mode=mode)
                # the whole answer came from the fallback (the service failed or was never asked): a failure of the
                # service; pairs the network could not join, filled from the estimate, are not: each leg says its
                # own source
                if watch.fallbacks:
                    call.failed("fallback")
        except BreakerOpen:
            warnings.append("TRAVEL_BREAKER_OPEN")
        except MAP_FAILURES:
            warnings.append("TRAVEL_SERVICE_FAILED")
        else:
            if call.failure is not None:
                warnings.append("TRAVEL_SERVICE_FAILED")
            return answer
        return local.matrix(list(points), mode=mode)

    walk, drive = matrix("walking"), matrix("driving")
    if "TRAVEL_BREAKER_OPEN" in warnings or "TRAVEL_SERVICE_FAILED" in warnings:
        warnings.append("TRAVEL_FROM_LOCAL_ESTIMATE")
    return TravelTable(
        walk=walk,
        drive=drive,
        walk_limit_min=walk_limit_min,
        factor=factor,
        buffer_min=buffer_min,
        warnings=sorted(set(warnings)),
        router_name=getattr(provider.router, "name", provider.name),
    )
