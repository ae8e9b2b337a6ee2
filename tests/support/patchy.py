"""A shared provider whose 'remote' router is down for some points (its fallback answers them with a warning):
what the concurrency tests plan on, so that some requests warn and others do not (tests/app)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from core.errors import ProviderUnavailable
from core.geo.base import Leg, LonLat, TravelMatrix, TravelMode, WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.resilience import ResilientProvider
from core.models.region import RegionPack


def point(lon: float, lat: float) -> tuple[float, float]:
    return (round(lon, 5), round(lat, 5))


class PatchyRouter:
    """The pack's estimate as a 'remote' router that is down for some points and takes a moment to answer, so
    concurrent requests overlap inside it. A good answer takes twice as long as a refusal: a request that gets one
    is still inside its call when the refused ones' warnings are recorded (a shared log would hand them over)."""

    name = "patchy"

    def __init__(self, pack: RegionPack, down: set[tuple[float, float]], *, delay_s: float = 0.05) -> None:
        self.offline = OfflineProvider(pack)
        self.down = down
        self.delay_s = delay_s

    def _check(self, points: Sequence[LonLat]) -> None:
        time.sleep(self.delay_s)
        if any(point(p.lon, p.lat) in self.down for p in points):
            raise ProviderUnavailable("patchy is down for one of these points", details={"service": "matrix"})
        time.sleep(self.delay_s)

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        self._check(points)
        return self.offline.matrix(points, mode=mode)

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        self._check([origin, destination])
        return self.offline.route(origin, destination, mode=mode)

    # as a geocoder (``patchy_services(geocoding=True)``): down for a place whose point is down
    def _check_name(self, text: str) -> None:
        time.sleep(self.delay_s)
        found = self.offline.geocode(text)
        if found and point(found[0].lon, found[0].lat) in self.down:
            raise ProviderUnavailable("patchy cannot look this place up", details={"service": "geocode"})

    def geocode(self, address: str, *, city: str | None = None) -> list[Any]:
        self._check_name(address)
        return self.offline.geocode(address, city=city)

    def search(self, keywords: str, **kw: Any) -> list[Any]:
        self._check_name(keywords)
        return self.offline.search(keywords, **kw)

    def detail(self, poi_id: str) -> Any:
        return self.offline.detail(poi_id)

    def close(self) -> None:
        pass


def patchy_services(
    pack: RegionPack, down: set[tuple[float, float]], *, delay_s: float = 0.05, geocoding: bool = False
) -> MapServices:
    """One MapServices to share: the pack's gazetteer (or, with ``geocoding``, the patchy service as the geocoder
    too: its fallback warnings then come early in a request, long before the request reads them), the patchy router
    behind retries (none), a breaker that never opens (every request meets the service as it is) and the pack's
    estimate as the fallback."""
    log = WarningLog()
    offline = OfflineProvider(pack)
    router = ResilientProvider(
        PatchyRouter(pack, down, delay_s=delay_s),  # type: ignore[arg-type]
        fallback=offline,
        retries=0,
        fail_max=10_000,
        warnings=log,
    )
    geocoder = router if geocoding else offline
    return MapServices(geocoder=geocoder, router=router, region=pack, warnings=log)  # type: ignore[arg-type]
