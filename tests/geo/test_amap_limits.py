"""AMap at its real limits (issue 20): the shared token bucket, pacing outside the provider budget, QPS refusals
asked again, batch geocoding with a per-address cache, calls the budget never reached said as such, and the
stand-in that keeps AMap's QPS and daily quota. No timing assertions: the figures are the bench's
(``python -m core bench amap-live``)."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import tenacity

from core.errors import ProviderMalformed, ProviderNotRequested, ProviderQuotaExceeded, ProviderRateLimited
from core.geo.amap import AMapProvider
from core.geo.base import WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.ratelimit import TokenBucket, shared_bucket
from core.geo.registry import make_provider
from core.geo.resilience import ResilientProvider
from core.geo.scope import CallScope
from core.packs.loader import load_region
from standins.amap import AMapLimitedStandIn
from tests.support.amap_settings import amap_settings
from tests.support.paths import amap_fixture

KEY = "limits-test-key-0123456789abcdef"


class FakeTime:
    """A clock that only moves when slept on (thread-safe)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []
        self._lock = threading.Lock()

    def clock(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)


# ---- the token bucket ------------------------------------------------------------------------------------


def test_the_bucket_spaces_calls_at_its_rate_and_lets_a_burst_through():
    t = FakeTime()
    bucket = TokenBucket(2.0, clock=t.clock, sleep=t.sleep)
    waits = [bucket.acquire() for _ in range(4)]
    assert waits == [0.0, 0.5, 1.0, 1.5]  # the clock stood still: each caller's slot is 1/rate after the last
    burst = TokenBucket(3.0, burst=3, clock=t.clock, sleep=t.sleep)
    assert [burst.acquire() for _ in range(4)][:3] == [0.0, 0.0, 0.0]
    assert burst.stats().acquired == 4 and burst.stats().waited_s > 0


def test_the_bucket_gives_every_thread_its_own_slot():
    t = FakeTime()
    bucket = TokenBucket(4.0, clock=t.clock, sleep=t.sleep)
    waits: list[float] = []
    lock = threading.Lock()

    def call() -> None:
        w = bucket.acquire()
        with lock:
            waits.append(w)

    threads = [threading.Thread(target=call) for _ in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(waits) == [k / 4 for k in range(16)]  # no two threads share a slot


def test_a_penalty_holds_every_caller_back_and_no_rate_means_no_pacing():
    t = FakeTime()
    bucket = TokenBucket(1.0, clock=t.clock, sleep=t.sleep)
    bucket.acquire()
    bucket.penalize(4.0)
    assert bucket.acquire() == 4.0 and bucket.stats().penalties == 1
    free = TokenBucket(0, clock=t.clock, sleep=t.sleep)
    assert [free.acquire() for _ in range(3)] == [0.0, 0.0, 0.0]


def test_every_amap_service_of_a_key_shares_one_bucket():
    a = shared_bucket("amap", KEY, rate=1.0)
    assert shared_bucket("amap", KEY, rate=1.0) is a
    assert shared_bucket("amap", "another-key-0123", rate=1.0) is not a
    with AMapLimitedStandIn() as amap:
        settings = amap_settings(amap.base_url, key=KEY, amap_qps=2.5)
        one, two = (make_provider("amap", settings=settings) for _ in range(2))
        limiters = {id(p.geocoder.inner.limiter) for p in (one, two)} | {id(p.router.inner.limiter) for p in (one, two)}
        assert len(limiters) == 1 and one.geocoder.inner.limiter.rate == 2.5


# ---- pacing is not waiting for an answer -----------------------------------------------------------------


class _ClaimsToWait:
    """A limiter that reports a long wait without sleeping (what a paced queue would have cost)."""

    rate = 1.0

    def acquire(self) -> float:
        return 100.0

    def penalize(self, seconds: float) -> None:
        pass


def test_time_in_the_rate_limiter_is_not_counted_against_the_provider_budget():
    scope = CallScope.detached().with_budget(1.0)
    scope.exclude_from_budget(50.0)
    left = scope.budget_left()
    assert left is not None and left > 40
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, json=amap_fixture("geocode_geo_v3.json"))

    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(server)))
    amap.limiter = _ClaimsToWait()  # type: ignore[assignment]
    scope = CallScope.detached().with_budget(2.0)
    amap.bound(scope).geocode("上海市黄浦区人民大道200号")
    amap.bound(scope).geocode("上海市黄浦区人民大道200号")
    left = scope.budget_left()
    assert left is not None and left > 150  # 200 s of pacing moved the deadline back
    assert len(seen) == 2


def test_a_call_after_the_budget_is_not_requested_and_never_sent():
    seen: list[str] = []
    amap = AMapProvider(
        key=KEY, client=httpx.Client(transport=httpx.MockTransport(lambda r: seen.append(r.url.path) or None))
    )
    with pytest.raises(ProviderNotRequested):
        amap.bound(CallScope.detached().with_budget(0.0)).geocode("上海博物馆")
    assert seen == []


# ---- QPS refusals ------------------------------------------------------------------------------------------


def test_a_qps_refusal_is_asked_again_after_a_pause_through_the_shared_bucket():
    answers = [amap_fixture("error_cuqps_limit.json"), amap_fixture("error_cuqps_limit.json")]
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, json=answers.pop(0) if answers else amap_fixture("geocode_geo_v3.json"))

    t = FakeTime()
    bucket = TokenBucket(0, clock=t.clock, sleep=t.sleep)
    amap = AMapProvider(
        key=KEY, client=httpx.Client(transport=httpx.MockTransport(server)), limiter=bucket, rate_limit_retries=3
    )
    bucket.configure(1000.0)  # a fast key: the pauses are the back-off's
    places = amap.geocode("上海市黄浦区人民大道200号")
    assert places and len(seen) == 3 and bucket.stats().penalties == 2


def test_qps_refusals_past_the_retries_are_rate_limited_and_not_asked_again_by_the_wrapper():
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, json=amap_fixture("error_cuqps_limit.json"))

    t = FakeTime()
    amap = AMapProvider(
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(server)),
        limiter=TokenBucket(1000.0, clock=t.clock, sleep=t.sleep),
        rate_limit_retries=2,
    )
    with pytest.raises(ProviderRateLimited):
        amap.geocode("上海博物馆")
    assert len(seen) == 3
    seen.clear()
    wrapped = ResilientProvider(amap, fallback=None, retries=3, wait=tenacity.wait_none(), sleep=lambda s: None)
    with pytest.raises(ProviderRateLimited):
        wrapped.geocode("上海博物馆")
    assert len(seen) == 3  # the provider's own paced retries only, not 3 x 4


# ---- batch geocoding ---------------------------------------------------------------------------------------


def _batch_server(seen: list[dict[str, str]]) -> Any:
    row = amap_fixture("geocode_geo_v3.json")["geocodes"][0]

    def server(request: httpx.Request) -> httpx.Response:
        q = {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}
        seen.append(q)
        addresses = q["address"].split("|")
        rows = [
            {**row, "location": []} if a.startswith("无") else {**row, "level": "道路"} if a.startswith("路") else row
            for a in addresses
        ]
        return httpx.Response(
            200, json={"status": "1", "info": "OK", "infocode": "10000", "count": str(len(rows)), "geocodes": rows}
        )

    return server


def test_batch_params_join_up_to_ten_addresses():
    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(lambda r: None)))
    params = amap.get_geocode_batch_params(["上海博物馆", "外滩"], city="上海")
    assert params["address"] == "上海博物馆|外滩" and params["batch"] == "true" and params["city"] == "上海"
    with pytest.raises(ValueError):
        amap.get_geocode_batch_params([f"地址{i}" for i in range(11)])
    with pytest.raises(ValueError):
        amap.get_geocode_batch_params(["a|b"])


def test_a_batch_answer_gives_one_list_per_address_and_an_unmatched_address_none():
    seen: list[dict[str, str]] = []
    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(_batch_server(seen))))
    answers = amap.geocode_batch([f"地址{i}" for i in range(12)] + ["无此地"])
    assert len(seen) == 2 and len(seen[0]["address"].split("|")) == 10
    assert len(answers) == 13 and all(len(a) == 1 for a in answers[:12]) and answers[12] == []
    with pytest.raises(ProviderMalformed):
        AMapProvider.parse_geocode_batch_json({"status": "1", "geocodes": []}, n_addresses=2)


def test_map_services_geocode_in_batches_and_ask_only_for_what_is_not_cached():
    seen: list[dict[str, str]] = []
    pack = load_region("shanghai")
    offline = OfflineProvider(pack)
    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(_batch_server(seen))))
    wrapped = ResilientProvider(amap, fallback=offline, retries=0, warnings=WarningLog())
    services = MapServices(geocoder=wrapped, router=wrapped, region=pack)
    assert services.geocode_many([(f"地址{i}", "上海") for i in range(9)]) == 1
    assert services.geocode_many([(f"地址{i}", "上海") for i in range(12)]) == 1  # only the 3 new ones
    assert seen[1]["address"].split("|") == ["地址9", "地址10", "地址11"]
    services.geocode("地址4", city="上海")  # the resolver's call: answered from the cache
    assert len(seen) == 2 and services.snapshot().geocode == 2


def test_a_batch_match_stands_for_the_single_geocode_only_when_precise():
    """A batch gives one match per address; AMap's single geocode may give several for a road or an area, and the
    resolver asks "which one?" from those: an imprecise batch match is not kept, the resolver asks singly."""
    seen: list[dict[str, str]] = []
    pack = load_region("shanghai")
    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(_batch_server(seen))))
    wrapped = ResilientProvider(amap, fallback=OfflineProvider(pack), retries=0, warnings=WarningLog())
    services = MapServices(geocoder=wrapped, router=wrapped, region=pack)
    services.geocode_many([("地址1", "上海"), ("路一", "上海")])
    assert services.cache.get(("geocode", "amap", "地址1", "上海"))[0]
    assert not services.cache.get(("geocode", "amap", "路一", "上海"))[0]
    with pytest.raises(ProviderMalformed):  # a location AMap cannot have meant is a broken answer, not "no match"
        AMapProvider.parse_geocode_batch_json(
            {"status": "1", "geocodes": [{"location": "abc", "formatted_address": "x"}]}, n_addresses=1
        )


def test_a_batch_that_degraded_keeps_nothing():
    pack = load_region("shanghai")
    amap = AMapProvider(
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(503))),
    )
    wrapped = ResilientProvider(amap, fallback=OfflineProvider(pack), retries=0, warnings=WarningLog())
    services = MapServices(geocoder=wrapped, router=wrapped, region=pack)
    services.geocode_many([("上海博物馆", "上海")])
    assert not services.cache.get(("geocode", "amap", "上海博物馆", "上海"))[0]
    [entry] = services.warnings.drain_entries()
    assert entry.code == "PROVIDER_FALLBACK"


# ---- not requested is not failed ---------------------------------------------------------------------------


def test_a_service_the_budget_did_not_reach_says_not_requested_and_its_breaker_stays_closed():
    pack = load_region("shanghai")
    amap = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500))))
    log = WarningLog()
    wrapped = ResilientProvider(amap, fallback=OfflineProvider(pack), retries=2, fail_max=1, warnings=log)
    spent = wrapped.bound(CallScope.detached(log).with_budget(0.0))
    for _ in range(3):
        spent.route((121.47, 31.23), (121.49, 31.24), mode="driving")
    [entry] = log.drain_entries()
    assert entry.code == "PROVIDER_NOT_REQUESTED" and entry.params["service"] == "route"
    assert "not requested: the time for providers ran out" in entry.message
    assert "failed" not in entry.message and "unavailable" not in entry.message
    assert wrapped.breakers["route"].current_state == "closed"


# ---- the stand-in keeps AMap's limits -----------------------------------------------------------------------


def test_the_standin_refuses_past_its_qps_and_quota_with_amaps_bodies():
    with AMapLimitedStandIn(qps=2, daily=5, clock=lambda: 1_800_000_000.2) as amap:  # one calendar second
        client = httpx.Client(base_url=amap.base_url)
        bodies = [client.get("/v3/geocode/geo", params={"key": KEY, "address": "上海博物馆"}).json() for _ in range(4)]
        # four calls in one second at 2 per second: two answered, two refused with AMap's own body
        assert [b["status"] for b in bodies[:2]] == ["1", "1"]
        assert bodies[2:] == [amap_fixture("error_cuqps_limit.json")] * 2
        amap.qps = None
        more = [client.get("/v3/geocode/geo", params={"key": KEY, "address": "上海博物馆"}).json() for _ in range(2)]
        assert more[-1] == amap_fixture("error_daily_quota.json")  # the 6th call of the day
        other = client.get("/v3/geocode/geo", params={"key": "another-key-0123", "address": "上海博物馆"}).json()
        assert other["status"] == "1"  # the quota is the key's
        amap.reset_day()
        assert client.get("/v3/geocode/geo", params={"key": KEY, "address": "上海博物馆"}).json()["status"] == "1"


def test_the_standin_refuses_a_burst_with_cuqps():
    second = [1_800_000_000.0]
    with AMapLimitedStandIn(qps=1, clock=lambda: second[0]) as amap:
        results = [amap.handle("/v3/geocode/geo", {"key": KEY, "address": "上海博物馆"}) for _ in range(5)]
        second[0] += 1.0  # the next calendar second: one more is answered
        results.append(amap.handle("/v3/geocode/geo", {"key": KEY, "address": "上海博物馆"}))
    assert [r.get("infocode") for r in results] == ["10000", "10021", "10021", "10021", "10021", "10000"]
    assert amap.refused["10021"] == 4


def test_the_standin_answers_a_batch_in_order_with_empty_rows_for_misses():
    with AMapLimitedStandIn() as amap:
        body = amap.handle("/v3/geocode/geo", {"key": KEY, "address": "上海博物馆|无此地点xyz|外滩", "batch": "true"})
    assert body["count"] == "3" and body["geocodes"][1]["location"] == []
    assert AMapProvider.parse_geocode_batch_json(body, n_addresses=3)[1] == []


def test_what_counts_against_a_breaker():
    from core.errors import ProviderNotRequested, ProviderRateLimited, ProviderTimeout, ProviderUnavailable
    from core.geo.retry_policy import is_breaker_failure

    assert is_breaker_failure(ProviderUnavailable("down")) and is_breaker_failure(ProviderTimeout("slow"))
    # a refusal for going too fast slows every caller through the shared bucket; a call never made is no answer
    assert not is_breaker_failure(ProviderRateLimited("CUQPS_HAS_EXCEEDED_THE_LIMIT"))
    assert not is_breaker_failure(ProviderNotRequested("provider budget spent"))


# ---- refusals that last: the minute's volume (10004) and the day's quota (10003) ---------------------------


class WallClock:
    """A wall clock the test moves (epoch seconds), shared by the stand-in and the client's hold."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _held_client(base_url: str, clock: WallClock) -> AMapProvider:
    from core.geo.ratelimit import ServiceHold

    return AMapProvider(key=KEY, base_url=base_url, hold=ServiceHold(clock=clock))


def test_past_the_minutes_volume_no_call_is_sent_until_the_next_minute():
    # 2026-11-27 15:30:20 UTC: the minute ends 40 s later
    clock = WallClock(1795793420.0)
    with AMapLimitedStandIn(per_minute=2, clock=clock) as amap:
        client = _held_client(amap.base_url, clock)
        assert client.geocode("外滩", city="上海") and client.geocode("豫园", city="上海")
        with pytest.raises(ProviderRateLimited) as refused:
            client.geocode("静安寺", city="上海")  # the third of the minute: AMap answers 10004
        assert refused.value.details["infocode"] == "10004" and amap.refused["10004"] == 1
        sent = len(amap.requests)
        clock.now += 30  # the same minute: asking again would only be refused (and counted)
        with pytest.raises(ProviderRateLimited) as held:
            client.geocode("静安寺", city="上海")
        assert held.value.details["not_sent"] is True and held.value.details["held_until"] == "23:31:00"
        assert len(amap.requests) == sent
        clock.now += 10  # 15:31:00 UTC, 23:31 in Shanghai: the next minute
        assert client.geocode("静安寺", city="上海")[0].lat > 31
        assert len(amap.requests) == sent + 1


def test_past_the_days_quota_no_call_is_sent_until_midnight_in_shanghai():
    clock = WallClock(1795793420.0)  # 23:30:20 in Shanghai
    with AMapLimitedStandIn(daily=1, clock=clock) as amap:
        client = _held_client(amap.base_url, clock)
        client.geocode("外滩", city="上海")
        with pytest.raises(ProviderQuotaExceeded):
            client.geocode("豫园", city="上海")
        sent = len(amap.requests)
        clock.now += 60 * 29  # 23:59:20: still the same day in Shanghai
        with pytest.raises(ProviderQuotaExceeded) as held:
            client.geocode("豫园", city="上海")
        assert held.value.details["not_sent"] is True and "2026-11-28T00:00:00+08:00" in held.value.message
        assert len(amap.requests) == sent
        clock.now += 40  # 00:00 in Shanghai: the day's quota is back
        amap.reset_day()
        assert client.geocode("豫园", city="上海")
        assert len(amap.requests) == sent + 1


def test_a_plan_meeting_a_held_key_says_until_when_and_asks_nothing(tmp_path):
    from core.geo.ratelimit import shared_hold

    settings = amap_settings("http://127.0.0.1:9", key="held-plan-key-0123456789")
    shared_hold("amap", "held-plan-key-0123456789").hold(4102444800.0, "10004")  # 2100-01-01: held all test
    provider = make_provider("amap", settings=settings)
    provider.geocode("外滩", city="上海")
    entries = provider.warnings.entries()
    assert [e.code for e in entries] == ["PROVIDER_FALLBACK"]
    assert "Not asked: AMap refuses this key's calls until 2100-01-01T08:00:00+08:00" in entries[0].message


def test_a_held_key_is_not_asked_again_after_a_pause_either():
    """A refusal the hold gives without sending is certain until the hold ends: the resilient wrapper does not
    pause and try again (it would only wait seconds for the same refusal)."""
    from core.geo.ratelimit import shared_hold

    slept: list[float] = []
    settings = amap_settings("http://127.0.0.1:9", key="held-retry-key-0123456789", http_retries=3)
    shared_hold("amap", "held-retry-key-0123456789").hold(4102444800.0, "10004")
    from core.geo.resilience import make_amap_provider

    amap = make_amap_provider(settings, fallback=OfflineProvider(load_region("shanghai")), sleep=slept.append)
    assert amap.geocode("外滩", city="上海")[0].source.startswith("offline")
    assert slept == [] and amap.stats.retries == 0
