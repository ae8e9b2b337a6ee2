import math

import pytest

from core.config import Settings
from core.errors import InputError
from core.geo.base import Geocoder, LonLat, Router
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.scope import CallScope, ScopedService
from core.packs.loader import load_region
from tests.support.region_packs import write_pack


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    root = write_pack(tmp_path_factory.mktemp("data"))
    return OfflineProvider(load_region("testcity", root))


def services(provider, router=None) -> MapServices:
    return MapServices(geocoder=provider, router=router or provider, region=provider.region)


def test_implements_the_protocols(provider):
    assert isinstance(provider, Geocoder) and isinstance(provider, Router)
    both = services(provider)
    assert isinstance(both, Geocoder) and isinstance(both, Router)
    assert both.name == "offline"


@pytest.mark.parametrize(
    "query,expected,field",
    [
        ("外滩", "t-bund", "name"),
        ("The Bund", "t-bund", "name_en"),
        ("东方明珠", "t-pearl", "alias"),
        ("浦东新区世纪大道1号", "t-pearl", "address"),
        ("上海市浦东新区世纪大道1号", "t-pearl", "address"),
        ("世纪大道1号", "t-pearl", "address"),
        ("pearl tower", "t-pearl", "alias"),
    ],
)
def test_geocode_exact_on_name_alias_address(provider, query, expected, field):
    hits = provider.geocode(query, city="上海")
    assert hits[0].poi_id == expected
    assert hits[0].level == "exact" and hits[0].matched_on == field


def test_geocode_other_city_finds_nothing(provider):
    assert provider.geocode("外滩", city="北京") == []


@pytest.mark.parametrize(
    "query,expected",
    [
        ("Shanghai Musem", "t-museum"),
        ("东方明珠塔", "t-pearl"),
        ("Yu Gardens", "t-yuyuan"),
        ("静安古寺", "t-jingan-temple"),
    ],
)
def test_search_is_fuzzy_in_chinese_and_english(provider, query, expected):
    hits = provider.search(query, city="上海")
    assert hits[0].poi_id == expected
    assert 60 < hits[0].score <= 100
    assert hits == sorted(hits, key=lambda p: -p.score)


def test_search_prefers_the_same_city(provider):
    same = provider.search("Century Park", city="上海")[0]
    other = provider.search("Century Park", city="北京")[0]
    assert other.score < same.score


def test_matrix_is_straight_line_times_circuity_over_speed(provider):
    a, b = LonLat(121.4737, 31.2304), LonLat(121.4998, 31.2397)
    m = provider.matrix([a, b], mode="driving")
    # independent haversine
    r = 6_371_008.8
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b.lon - a.lon) / 2) ** 2
    straight = 2 * r * math.asin(math.sqrt(h))
    assert m.distances_m[0][1] == round(straight * 1.35)
    assert m.durations_s[0][1] == round(straight * 1.35 / (28 / 3.6) + 120)
    assert m.distances_m[0][0] == 0 and m.durations_s[1][1] == 0
    assert m.source == "offline_estimate" and "1.35" in m.notes[0]
    walk = provider.matrix([a, b], mode="walking")
    assert walk.durations_s[0][1] == round(straight * 1.25 / (4.8 / 3.6))


def test_route_is_a_labelled_straight_line(provider):
    leg = provider.route(LonLat(121.4737, 31.2304), LonLat(121.4998, 31.2397), mode="walking")
    assert leg.source == "offline_estimate" and len(leg.geometry) == 2


def test_unknown_mode_is_a_clear_error(tmp_path):
    root = write_pack(tmp_path)
    pack = load_region("testcity", root)
    pack.estimate.pop("walking")
    with pytest.raises(InputError) as info:
        OfflineProvider(pack).matrix([LonLat(121.4, 31.2)], mode="walking")
    assert info.value.field == "transport_mode"


def test_cache_counts_calls_and_hits(provider):
    cached = services(provider)
    cached.geocode("外滩", city="上海")
    cached.geocode("外滩", city="上海")
    cached.matrix([LonLat(121.47, 31.23), LonLat(121.49, 31.24)], mode="driving")
    cached.matrix([LonLat(121.47, 31.23), LonLat(121.49, 31.24)], mode="driving")
    snap = cached.snapshot()
    assert (snap.geocode, snap.matrix, snap.cache_hits) == (1, 1, 2)


def test_unknown_region_names_the_available_ones(tmp_path):
    root = write_pack(tmp_path)
    with pytest.raises(InputError) as info:
        load_region("atlantis", root)
    assert "testcity" in info.value.message and info.value.field == "region"
    Settings(data_dir=root)  # settings accept the folder


def test_cache_never_keeps_a_degraded_answer(provider):
    class Flaky(ScopedService):
        """A router that falls back to the offline estimate while it is down (and says so to its call's scope)."""

        name = "amap"

        def __init__(self):
            self.down = True
            self.scope = CallScope.detached()

        def matrix(self, points, *, mode):
            m = provider.matrix(points, mode=mode)
            if self.down:
                self.scope.note_degraded()
                return m
            return m.model_copy(update={"source": "amap"})

        def route(self, origin, destination, *, mode):
            return provider.route(origin, destination, mode=mode)

    inner = Flaky()
    cached = services(provider, inner)
    pts = [LonLat(121.47, 31.23), LonLat(121.49, 31.24)]
    assert cached.matrix(pts, mode="driving").source == "offline_estimate"
    inner.down = False
    assert cached.matrix(pts, mode="driving").source == "amap"  # asked again, not served the estimate
    assert cached.matrix(pts, mode="driving").source == "amap"
    assert (cached.snapshot().matrix, cached.snapshot().cache_hits) == (2, 1)
