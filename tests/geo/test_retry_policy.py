"""The retry policy per kind of failure (core/geo/retry_policy.py's docstring; issue 21 §2), counted at the server:
a timeout is not asked again and the request remembers it, a broken schema or a body that is not JSON is not asked
again, a 5xx once after a short pause, a rate refusal up to ``retries``, a refused key never. Every attempt counts
against the breaker as before. Waits are injected (nothing sleeps); calls are counted, never timed."""

from __future__ import annotations

import time

import httpx
import pytest
import tenacity

from core.errors import ProviderTimeout
from core.geo.amap import AMapProvider
from core.geo.base import LonLat, WarningLog
from core.geo.resilience import ResilientProvider
from core.geo.retry_policy import cause_code, failure_kind
from core.geo.scope import CallScope
from tests.geo.test_resilience import FakeOffline
from tests.support.paths import amap_fixture

KEY = "0123456789abcdef0123456789abcdef"
A = LonLat(121.4737, 31.2304)
B = LonLat(121.4852, 31.2380)
GEOCODE_OK = {"status": "1", "info": "OK", "infocode": "10000", "count": "0", "geocodes": []}


def answer_for(kind: str):
    """What the server does for every request, per failure kind."""

    def respond(request: httpx.Request) -> httpx.Response:
        if kind == "timeout":
            raise httpx.ReadTimeout("no answer", request=request)
        if kind == "http500":
            return httpx.Response(500, text="<html>Internal Server Error</html>")
        if kind == "http503":
            return httpx.Response(503, text="busy")
        if kind == "reset":
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        if kind == "not_json":
            return httpx.Response(200, text="<html>维护中 maintenance</html>")
        if kind == "malformed":
            return httpx.Response(200, json={**GEOCODE_OK, "count": "1", "geocodes": "nope"})
        if kind == "http429":
            return httpx.Response(429, text="slow down")
        if kind == "key_refused":
            return httpx.Response(200, json=amap_fixture("error_invalid_key.json"))
        if kind == "quota":
            return httpx.Response(200, json=amap_fixture("error_daily_quota.json"))
        raise AssertionError(kind)

    return respond


def build(kind: str, *, retries: int = 3, fail_max: int = 100) -> tuple[ResilientProvider, list[str], list[float]]:
    sent: list[str] = []
    slept: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return answer_for(kind)(request)

    inner = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(handler)))
    rp = ResilientProvider(
        inner,
        fallback=FakeOffline(),
        retries=retries,
        fail_max=fail_max,
        wait=tenacity.wait_none(),
        sleep=slept.append,
        warnings=WarningLog(),
    )
    return rp, sent, slept


#: requests one call sends per kind with the shipped ``http_retries`` 3 and ``http_server_error_retries`` 1
SHIPPED_CALLS = {
    "timeout": 1,
    "not_json": 1,
    "malformed": 1,
    "http500": 2,
    "http503": 2,
    "reset": 2,
    "http429": 4,
    "key_refused": 1,
    "quota": 1,
}
CAUSES = {
    "timeout": "timeout",
    "not_json": "malformed",
    "malformed": "malformed",
    "http500": "unavailable",
    "http503": "unavailable",
    "reset": "unavailable",
    "http429": "rate_limited",
    "key_refused": "key_refused",
    "quota": "daily_quota",  # AMap's 10003: the day's quota, worded with its reset at 00:00 Beijing time
}


@pytest.mark.parametrize("kind", sorted(SHIPPED_CALLS))
def test_each_kind_of_failure_is_asked_as_often_as_the_policy_says(kind: str) -> None:
    rp, sent, slept = build(kind)
    [place] = rp.geocode("外滩", city="上海")
    assert place.source == "offline"  # the fallback answered
    assert len(sent) == SHIPPED_CALLS[kind], sent
    assert rp.stats.retries == SHIPPED_CALLS[kind] - 1
    (entry,) = rp.warnings.entries()
    assert entry.code == "PROVIDER_FALLBACK" and entry.params["cause"] == CAUSES[kind]
    if kind in ("http500", "http503", "reset"):
        assert slept == [0.25]  # the short fixed pause, not the rate limit's exponential backoff


@pytest.mark.parametrize("kind", ["timeout", "not_json", "malformed", "http500", "http429"])
def test_every_attempt_counts_against_the_breaker_but_a_rate_refusal(kind: str) -> None:
    rp, sent, _ = build(kind)
    rp.geocode("外滩", city="上海")
    expected = 0 if kind == "http429" else len(sent)
    assert rp.breakers["geocode"].fail_counter == expected


def test_server_errors_are_asked_again_at_most_http_retries_times() -> None:
    rp, sent, _ = build("http500", retries=0)
    rp.geocode("外滩", city="上海")
    assert len(sent) == 1  # retries 0: nothing is asked again, whatever the kind


def test_a_body_that_is_not_json_is_a_malformed_answer() -> None:
    rp, _, _ = build("not_json")
    rp.geocode("外滩", city="上海")
    (message,) = rp.drain_warnings()
    assert "not JSON" in message and "AMap geocode unavailable" in message
    assert failure_kind(ProviderTimeout("x")) == "timeout" and cause_code(ProviderTimeout("x")) == "timeout"


def test_within_one_request_a_provider_that_timed_out_is_not_waited_on_again() -> None:
    rp, sent, _ = build("timeout")
    request = rp.bound(CallScope.detached(rp.warnings).with_budget(60))
    request.geocode("外滩", city="上海")
    request.matrix([A, B], mode="driving")
    request.route(A, B, mode="driving")
    request.search("咖啡", city="上海")
    assert sent == ["/v3/geocode/geo"]  # one wait, then every service of AMap went to the fallback at once
    entries = rp.warnings.entries()
    assert [e.params["service"] for e in entries] == ["geocode", "matrix", "route", "search"]
    assert {e.params["cause"] for e in entries} == {"timeout"}
    assert "timed out earlier in this request (geocode); not asked again" in entries[1].message
    assert rp.breakers["matrix"].fail_counter == 0  # a call not made is no failure of the service


def test_a_call_refused_after_a_timeout_that_spent_the_budget_names_the_timeout() -> None:
    """The wait on a service that never answered is what spent the request's time: the calls after it say so (a
    fallback caused by the timeout), not merely that they were not asked."""
    rp, sent, _ = build("timeout")
    scope = CallScope.detached(rp.warnings).with_budget(60)
    request = rp.bound(scope)
    request.geocode("外滩", city="上海")
    assert scope.budget is not None
    scope.budget.deadline = time.monotonic() - 1  # the request's time is spent
    request.matrix([A, B], mode="driving")
    assert sent == ["/v3/geocode/geo"]
    entries = rp.warnings.entries()
    assert [(e.code, e.params["service"], e.params.get("cause")) for e in entries] == [
        ("PROVIDER_FALLBACK", "geocode", "timeout"),
        ("PROVIDER_FALLBACK", "matrix", "timeout"),
    ]


def test_the_next_request_asks_a_provider_that_timed_out_afresh() -> None:
    rp, sent, _ = build("timeout")
    rp.bound(CallScope.detached(rp.warnings).with_budget(60)).geocode("外滩", city="上海")
    rp.bound(CallScope.detached(rp.warnings).with_budget(60)).geocode("豫园", city="上海")
    assert len(sent) == 2
    rp.geocode("新天地", city="上海")  # without a request's budget nothing is remembered either
    rp.geocode("人民广场", city="上海")
    assert len(sent) == 4


def test_a_nested_budget_tells_its_request_what_timed_out() -> None:
    rp, sent, _ = build("timeout")
    outer = CallScope.detached(rp.warnings).with_budget(60)
    rp.bound(outer.with_budget(30)).geocode("外滩", city="上海")
    rp.bound(outer).route(A, B, mode="driving")
    assert len(sent) == 1


def test_one_call_waits_at_most_the_budgets_call_wait_however_large_the_budget() -> None:
    assert CallScope.detached().call_wait_left() is None
    capped = CallScope.detached().with_budget(35, call_wait_s=8)
    left = capped.call_wait_left()
    assert left is not None and left == pytest.approx(8, abs=0.5)
    inner = capped.with_budget(35).call_wait_left()  # a nested budget keeps its request's cap
    assert inner is not None and inner <= 8
    small = CallScope.detached().with_budget(3, call_wait_s=8).call_wait_left()
    assert small is not None and small <= 3  # the time left, when it is less


def test_a_black_hole_call_times_out_at_the_budgets_call_wait_not_the_service_timeout() -> None:
    from bench.faults import BlackHole

    with BlackHole("silent") as hole, AMapProvider(key=KEY, base_url=hole.base_url, timeout_s=10) as amap:
        with pytest.raises(ProviderTimeout) as caught:
            amap.bound(CallScope.detached().with_budget(30, call_wait_s=0.5)).geocode("外滩", city="上海")
    assert "within 0.5 s" in caught.value.message


@pytest.mark.parametrize(("kind", "first_call"), [("http500", 2), ("malformed", 1), ("not_json", 1)])
def test_within_one_request_a_service_that_failed_is_not_asked_again_but_the_others_are(kind, first_call) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path == "/v3/geocode/geo":
            return answer_for(kind)(request)
        return httpx.Response(200, json=amap_fixture("direction_driving_v3.json"))

    rp = ResilientProvider(
        AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(handler))),
        fallback=FakeOffline(),
        wait=tenacity.wait_none(),
        sleep=lambda s: None,
        warnings=WarningLog(),
    )
    request = rp.bound(CallScope.detached(rp.warnings).with_budget(60))
    request.geocode("外滩", city="上海")
    request.geocode("豫园", city="上海")  # the same service: the estimate at once
    leg = request.route(A, B, mode="driving")  # another service of the provider: still asked
    assert sent == ["/v3/geocode/geo"] * first_call + ["/v3/direction/driving"]
    assert leg.source == "amap"
    entries = rp.warnings.entries()
    assert len(entries) == 2 and {e.params["cause"] for e in entries} == {CAUSES[kind]}
    assert "failed earlier in this request" in entries[1].message
    rp.bound(CallScope.detached(rp.warnings).with_budget(60)).geocode("新天地", city="上海")  # the next request
    assert sent.count("/v3/geocode/geo") == 2 * first_call
