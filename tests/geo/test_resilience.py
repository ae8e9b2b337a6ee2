"""ResilientProvider: retries, breakers, cache and degradation, over AMapProvider + MockTransport.

Waits are ``tenacity.wait_none()`` and sleeps go to a list: nothing here sleeps or times.
"""

from __future__ import annotations

import logging
import math

import httpx
import pytest
import tenacity
from pydantic import SecretStr

from core.config import Settings
from core.errors import ProviderAuthError, ProviderUnavailable, RouteNotFound
from core.geo.amap import AMapProvider
from core.geo.base import Geocoder, Leg, LonLat, Place, Router, TravelMatrix
from core.geo.composite import MapServices
from core.geo.resilience import ResilientProvider, make_amap_provider
from core.packs.loader import load_region
from tests.support.paths import AMAP_FIXTURES, ROOT, amap_fixture

FIXTURES = AMAP_FIXTURES
KEY = "0123456789abcdef0123456789abcdef"  # same value the invalid-key fixture echoes

A = LonLat(121.4737, 31.2304)
B = LonLat(121.4852, 31.2380)
C = LonLat(121.4903, 31.2400)


def load(name: str) -> dict:
    return amap_fixture(name)


class FakeOffline:
    """Stands in for core.geo.offline.OfflineProvider (name "offline", estimates "offline_estimate")."""

    name = "offline"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def geocode(self, address, *, city=None):
        self.calls.append("geocode")
        return [Place(name=f"offline {address}", lon=A.lon, lat=A.lat, source="offline", level="fuzzy")]

    def search(self, keywords, *, city=None, near=None, limit=10):
        self.calls.append("search")
        return [Place(name=f"offline {keywords}", lon=B.lon, lat=B.lat, source="offline")]

    def detail(self, poi_id):
        self.calls.append("detail")
        return None

    def matrix(self, points, *, mode):
        self.calls.append("matrix")
        n = len(points)
        d = [[0.0 if i == j else 777.0 for j in range(n)] for i in range(n)]
        t = [[0.0 if i == j else 77.0 for j in range(n)] for i in range(n)]
        return TravelMatrix(distances_m=d, durations_s=t, source="offline_estimate", mode=mode)

    def route(self, origin, destination, *, mode):
        self.calls.append("route")
        return Leg(
            distance_m=999.0,
            duration_s=99.0,
            geometry=[tuple(origin), tuple(destination)],
            source="offline_estimate",
            mode=mode,
        )


class Server:
    """MockTransport handler: answers from a queue (dicts, Responses or exceptions to raise)."""

    def __init__(self, *answers, default=None):
        self.answers = list(answers)
        self.default = default
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if self.answers else self.default
        if callable(answer):
            answer = answer(request)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, json=answer)


def connect_error(request: httpx.Request) -> BaseException:
    return httpx.ConnectError("connection refused", request=request)


def build(server: Server, *, fallback=None, retries=3, fail_max=5, **kwargs):
    slept: list[float] = []
    inner = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(server)))
    rp = ResilientProvider(
        inner,
        fallback=fallback,
        retries=retries,
        fail_max=fail_max,
        wait=tenacity.wait_none(),
        sleep=slept.append,
        **kwargs,
    )
    return rp, slept


def test_is_a_map_provider_named_like_inner():
    rp, _ = build(Server())
    assert isinstance(rp, Geocoder) and isinstance(rp, Router)
    assert rp.name == "amap"


def test_retry_on_rate_limit_then_success():
    server = Server(load("error_cuqps_limit.json"), load("geocode_geo_v3.json"))
    rp, slept = build(server, fallback=FakeOffline())
    places = rp.geocode("上海市黄浦区人民大道200号", city="310000")
    assert len(server.requests) == 2
    assert places[0].source == "amap"
    assert rp.stats.retries == 1 and rp.stats.fallbacks == 0 and rp.stats.calls == 1
    assert len(slept) == 1  # one (zero-length, injected) pause between the attempts
    assert rp.drain_warnings() == []


def test_rate_limited_after_all_retries_degrades_with_warning():
    fallback = FakeOffline()
    server = Server(default=load("error_cuqps_limit.json"))
    rp, _ = build(server, fallback=fallback, retries=2)
    leg = rp.route(A, B, mode="driving")
    assert len(server.requests) == 3  # 1 + 2 retries
    assert leg.source == "offline_estimate"
    assert fallback.calls == ["route"]
    (warning,) = rp.drain_warnings()
    assert warning.startswith("AMap route unavailable (rate-limited after 3 attempt(s))")
    assert warning.endswith("used offline_estimate instead")


def test_breaker_opens_after_failures_then_fails_fast():
    fallback = FakeOffline()
    server = Server(default=connect_error)
    rp, _ = build(server, fallback=fallback, retries=0, fail_max=3)
    for _ in range(3):
        m = rp.matrix([A, B], mode="driving")
        assert m.source == "offline_estimate"
    sent = len(server.requests)
    assert sent == 3  # one /v3/distance call per attempt (the 2nd column never got its turn)
    assert rp.breakers["matrix"].current_state == "open"
    m = rp.matrix([A, C], mode="driving")
    assert len(server.requests) == sent  # breaker open: no request sent
    assert m.source == "offline_estimate"
    warnings = rp.drain_warnings()
    assert "AMap matrix unavailable (circuit open); used offline_estimate instead" in warnings
    assert rp.stats.fallbacks == 4
    # breakers are per service: geocode still goes out
    server.default = load("geocode_geo_v3.json")
    assert rp.geocode("人民大道200号")[0].source == "amap"
    assert len(server.requests) == sent + 1


def test_breaker_counts_each_failed_attempt_and_stops_retrying_when_open():
    server = Server(default=connect_error)
    rp, _ = build(server, fallback=FakeOffline(), retries=5, fail_max=2)
    rp.route(A, B, mode="walking")
    assert len(server.requests) == 2  # the breaker tripped on the 2nd attempt; no further retries
    assert rp.stats.retries == 1


def test_cached_second_call_sends_no_request():
    server = Server(load("place_text_v3.json"))
    rp, _ = build(server, fallback=FakeOffline())
    services = services_over(rp)
    first = services.search("咖啡", city="310101", limit=2)
    second = services.search("咖啡", city="310101", limit=2)
    assert len(server.requests) == 1
    assert first == second
    assert services.cache_hits == 1 and services.snapshot().search == 1 and rp.stats.calls == 1
    # different arguments are a different cache entry
    server.default = load("place_text_v3.json")
    services.search("咖啡", city="310000", limit=2)
    assert len(server.requests) == 2


def services_over(rp) -> MapServices:
    return MapServices(geocoder=rp, router=rp, region=load_region("shanghai", ROOT / "data"), warnings=rp.warnings)


def test_cached_matrix_and_route_are_copies():
    pts = [A, B]
    server = Server(default=load("distance_v3.json"))
    rp, _ = build(server)
    rp = services_over(rp)
    m1 = rp.matrix(pts, mode="driving")
    m1.distances_m[0][1] = -1.0  # a caller mutating its answer must not poison the cache
    m2 = rp.matrix(pts, mode="driving")
    assert len(server.requests) == 2  # 2 columns, once
    assert m2.distances_m[0][1] == 4240.0
    server.default = load("direction_driving_v3.json")
    r1 = rp.route(A, C, mode="driving")
    r1.geometry.clear()
    assert rp.route(A, C, mode="driving").geometry
    assert len(server.requests) == 3


def test_failures_and_fallback_answers_are_not_cached():
    fallback = FakeOffline()
    server = Server(connect_error, default=load("geocode_geo_v3.json"))
    rp, _ = build(server, fallback=fallback, retries=0)
    rp = services_over(rp)
    assert rp.geocode("人民大道200号")[0].source == "offline"
    assert rp.geocode("人民大道200号")[0].source == "amap"
    assert len(server.requests) == 2
    assert rp.geocode("人民大道200号")[0].source == "amap"
    assert len(server.requests) == 2


@pytest.mark.parametrize("service", ["matrix", "route", "geocode", "search"])
def test_connect_error_falls_back_with_warning(service):
    fallback = FakeOffline()
    server = Server(default=connect_error)
    rp, slept = build(server, fallback=fallback, retries=2)
    call = {
        "matrix": lambda: rp.matrix([A, B, C], mode="driving"),
        "route": lambda: rp.route(A, B, mode="driving"),
        "geocode": lambda: rp.geocode("人民广场", city="310000"),
        "search": lambda: rp.search("咖啡", city="310000"),
    }[service]
    result = call()
    assert fallback.calls == [service]
    assert len(server.requests) == 2  # a dropped connection is asked again once (server_error_retries), not twice
    assert rp.stats.retries == 1 and rp.stats.fallbacks == 1
    assert slept == [0.25]  # after the short fixed pause, not the rate limit's backoff
    if service in ("matrix", "route"):
        assert result.source == "offline_estimate"
    else:
        assert result[0].source == "offline"
    warnings = rp.drain_warnings()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"AMap {service} unavailable (unavailable after 2 attempt(s)")
    used = "offline_estimate" if service in ("matrix", "route") else "offline"
    assert warnings[0].endswith(f"; used {used} instead")
    assert KEY not in warnings[0]
    assert rp.drain_warnings() == []  # drained


def test_repeated_identical_warnings_are_listed_once():
    server = Server(default=connect_error)
    rp, _ = build(server, fallback=FakeOffline(), retries=0, fail_max=100)
    rp.route(A, B, mode="driving")
    rp.route(A, B, mode="driving")
    assert len(rp.drain_warnings()) == 1
    assert rp.stats.fallbacks == 2


def test_auth_error_degrades_without_retries_and_names_the_cause(caplog):
    caplog.set_level(logging.DEBUG)
    fallback = FakeOffline()
    server = Server(default=load("error_invalid_key.json"))
    rp, slept = build(server, fallback=fallback, retries=3)
    leg = rp.route(A, B, mode="driving")
    assert leg.source == "offline_estimate"
    assert len(server.requests) == 1 and rp.stats.retries == 0 and slept == []
    (warning,) = rp.drain_warnings()
    assert "AMap route unavailable (key refused" in warning and "INVALID_USER_KEY" in warning
    assert warning.endswith("used offline_estimate instead")
    assert KEY not in warning and KEY not in caplog.text
    # the service is now fused: the next call goes straight to the fallback
    rp.route(A, C, mode="driving")
    assert len(server.requests) == 1
    (warning,) = rp.drain_warnings()
    assert "circuit open after: key refused" in warning


def test_quota_error_degrades_without_retries():
    server = Server(default=load("error_daily_quota.json"))
    rp, _ = build(server, fallback=FakeOffline())
    assert rp.geocode("人民广场")[0].source == "offline"
    assert len(server.requests) == 1
    (warning,) = rp.drain_warnings()
    assert "quota exhausted" in warning and "DAILY_QUERY_OVER_LIMIT" in warning
    assert warning.endswith("used offline instead")


def test_route_not_found_is_an_answer_not_a_failure():
    fallback = FakeOffline()
    server = Server(default=load("error_no_roads_nearby.json"))
    rp, _ = build(server, fallback=fallback, fail_max=1)
    for _ in range(2):
        with pytest.raises(RouteNotFound):
            rp.route(A, B, mode="driving")
    assert len(server.requests) == 2  # not retried, breaker not tripped
    assert fallback.calls == [] and rp.drain_warnings() == []
    assert rp.breakers["route"].current_state == "closed"


def test_a_refused_request_degrades_with_a_warning_and_is_not_retried():
    server = Server(default=load("error_invalid_params.json"))
    rp, _ = build(server, fallback=FakeOffline())
    leg = rp.route(A, B, mode="driving")
    assert leg.source == "offline_estimate" and len(server.requests) == 1
    (warning,) = rp.drain_warnings()
    assert (
        warning.startswith("AMap route unavailable (failed: AMap refused the request parameters")
        and "client bug" in warning
    )


def test_without_fallback_the_error_is_raised():
    server = Server(default=connect_error)
    rp, _ = build(server, retries=1)
    with pytest.raises(ProviderUnavailable) as info:
        rp.matrix([A, B], mode="driving")
    assert isinstance(info.value, ConnectionError)
    assert len(server.requests) == 2
    server2 = Server(default=load("error_invalid_key.json"))
    rp2, _ = build(server2)
    with pytest.raises(ProviderAuthError):
        rp2.geocode("x")
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        rp2.geocode("y")
    assert len(server2.requests) == 1


def test_matrix_item_failures_are_patched_from_fallback():
    fallback = FakeOffline()
    server = Server(default=load("distance_v3_item_failure.json"))
    rp, _ = build(server, fallback=fallback)
    rp = services_over(rp)
    m = rp.matrix([A, B, C], mode="driving")
    assert m.source == "mixed"  # some figures are the estimate's: never labelled as AMap's alone
    assert m.estimated_pairs == [(1, 2), (2, 0), (2, 1)]
    assert m.distances_m[0][1] == 4240.0
    assert m.distances_m[2][1] == 777.0 and m.durations_s[2][1] == 77.0  # from the estimate
    assert all(math.isfinite(v) for row in m.distances_m for v in row)
    assert any("estimated by offline_estimate" in n for n in m.notes)
    (warning,) = rp.drain_warnings()
    assert warning == "AMap could not answer 3 of 6 driving matrix pairs; used offline_estimate for those"
    # a partly estimated answer is not cached: the next plan asks AMap for the failed pairs again
    rp.matrix([A, B, C], mode="driving")
    assert len(server.requests) == 6 and rp.cache_hits == 0


def test_make_amap_provider_requires_a_key():
    with pytest.raises(ProviderAuthError, match="set OMNI_AMAP_KEY"):
        make_amap_provider(Settings(amap_key=None), fallback=FakeOffline())
    with pytest.raises(ProviderAuthError, match="set OMNI_AMAP_KEY"):
        make_amap_provider(Settings(amap_key=SecretStr(" ")), fallback=FakeOffline())


def test_make_amap_provider_uses_settings():
    settings = Settings(
        amap_key=SecretStr(KEY),
        amap_base_url="http://amap.test",
        http_retries=1,
        breaker_fail_max=4,
        breaker_reset_s=30.0,
    )
    server = Server(load("error_cuqps_limit.json"), load("error_cuqps_limit.json"))
    client = httpx.Client(transport=httpx.MockTransport(server))
    rp = make_amap_provider(
        settings, fallback=FakeOffline(), client=client, wait=tenacity.wait_none(), sleep=lambda s: None
    )
    assert isinstance(rp.inner, AMapProvider) and rp.name == "amap"
    assert rp.breakers["geocode"].fail_max == 4 and rp.breakers["geocode"].reset_timeout == 30.0
    assert rp.geocode("x")[0].source == "offline"
    assert len(server.requests) == 2  # http_retries=1
    assert str(server.requests[0].url).startswith("http://amap.test/v3/geocode/geo?")
    assert KEY not in repr(rp)


def test_two_requests_call_one_remote_service_at_the_same_time():
    """The breaker guards each call without holding a lock across it: a second request's call to the same service
    runs while the first one is still waiting for its answer (both reach the barrier together)."""
    import threading

    barrier = threading.Barrier(2, timeout=10)

    class SlowRemote(FakeOffline):
        name = "remote"

        def route(self, origin, destination, *, mode):
            barrier.wait()  # raises BrokenBarrierError if the other call cannot start until this one ends
            return Leg(distance_m=1200.0, duration_s=300.0, geometry=[], source="amap", mode=mode)

    provider = ResilientProvider(SlowRemote(), fallback=FakeOffline(), retries=0)
    legs: list[Leg] = []
    threads = [threading.Thread(target=lambda: legs.append(provider.route(A, B, mode="driving"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert [leg.source for leg in legs] == ["amap", "amap"]


class _PartlyAnswering:
    """A router whose matrix leaves the pair (0, 2) to the estimate, as a router that cannot join one pair does."""

    name = "partly"

    def __init__(self) -> None:
        self.calls = 0

    def matrix(self, points, *, mode):
        self.calls += 1
        n = len(points)
        dist = [[0.0 if i == j else 1000.0 * (i + j) for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else 100.0 * (i + j) for j in range(n)] for i in range(n)]
        if n < 3:
            return TravelMatrix(distances_m=dist, durations_s=dur, source=self.name, mode=mode)
        dist[0][2], dur[0][2] = 9999.0, 999.0  # the estimate
        return TravelMatrix(distances_m=dist, durations_s=dur, source="mixed", mode=mode, estimated_pairs=[(0, 2)])

    def route(self, origin, destination, *, mode):
        raise RouteNotFound("not asked here")


def test_the_answered_cells_of_a_partly_estimated_matrix_are_kept_and_the_estimate_is_not():
    """Issue 20 §2: every answer is kept, even when another figure of the same call was estimated; the estimated
    pair is asked again next time."""
    router = _PartlyAnswering()
    pack = load_region("shanghai", ROOT / "data")
    services = MapServices(geocoder=router, router=router, region=pack)
    a, b, c = LonLat(121.49, 31.24), LonLat(121.47, 31.23), LonLat(121.44, 31.19)
    services.matrix([a, b, c], mode="driving")
    assert router.calls == 1
    kept = services.matrix([b, c], mode="driving")  # (1, 2) of the first call: answered, so kept
    assert router.calls == 1 and kept.distances_m[0][1] == 3000.0
    services.matrix([a, c], mode="driving")  # (0, 2) was the estimate: asked again
    assert router.calls == 2
    again = services.matrix([a, b, c], mode="driving")  # every pair now answered once: from the kept cells
    assert router.calls == 2 and again.distances_m[0][2] == 1000.0 and not again.estimated_pairs  # not the 9999
