"""MapServices pairs any geocoder with any router, counts and caches their answers, and drains warnings."""

from __future__ import annotations

from datetime import date

import pytest

from core.errors import ProviderUnavailable
from core.geo.base import Leg, LonLat, TravelMatrix, WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.packs.loader import load_region
from tests.support.region_packs import write_pack


@pytest.fixture(scope="module")
def gazetteer(tmp_path_factory):
    return OfflineProvider(load_region("testcity", write_pack(tmp_path_factory.mktemp("data"))))


class LineRouter:
    """A router of its own: straight lines at 10 m/s, counting its calls."""

    name = "lines"

    def __init__(self, warnings: WarningLog | None = None):
        self.calls = 0
        self.warnings = warnings

    def matrix(self, points, *, mode):
        self.calls += 1
        n = len(points)
        d = [[0.0 if i == j else 1000.0 for j in range(n)] for i in range(n)]
        if self.warnings is not None:
            self.warnings.add("lines: every pair is 1 km")
        return TravelMatrix(distances_m=d, durations_s=[[x / 10 for x in row] for row in d], source="lines", mode=mode)

    def route(self, origin, destination, *, mode):
        self.calls += 1
        return Leg(
            distance_m=1000, duration_s=100, geometry=[tuple(origin), tuple(destination)], source="lines", mode=mode
        )


def test_a_gazetteer_paired_with_another_router(gazetteer):
    log = WarningLog()
    router = LineRouter(log)
    services = MapServices(geocoder=gazetteer, router=router, region=gazetteer.region, warnings=log)
    assert services.name == "offline+lines"
    assert services.geocode("外滩")[0].poi_id == "t-bund"
    pts = [LonLat(121.47, 31.23), LonLat(121.49, 31.24)]
    assert services.matrix(pts, mode="walking").source == "lines"
    assert services.matrix(pts, mode="walking").durations_s[0][1] == 100.0
    assert router.calls == 1 and services.snapshot().matrix == 1 and services.cache_hits == 1
    assert services.drain_warnings() == ["lines: every pair is 1 km"] and services.drain_warnings() == []


def test_points_a_hair_apart_share_one_cache_entry_and_modes_do_not(gazetteer):
    router = LineRouter()
    services = MapServices(geocoder=gazetteer, router=router, region=gazetteer.region)
    services.route(LonLat(121.47, 31.23), LonLat(121.49, 31.24), mode="driving")
    services.route(LonLat(121.4700000001, 31.23), LonLat(121.49, 31.24), mode="driving")
    services.route(LonLat(121.47, 31.23), LonLat(121.49, 31.24), mode="walking")
    assert router.calls == 2


def test_without_a_weather_service_weather_is_a_structured_error(gazetteer):
    services = MapServices(geocoder=gazetteer, router=gazetteer, region=gazetteer.region)
    assert not services.has_weather
    with pytest.raises(ProviderUnavailable) as info:
        services.weather("310000", day=date(2026, 11, 23))
    assert info.value.code == "NO_WEATHER_SOURCE"
