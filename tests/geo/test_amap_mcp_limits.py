"""AMap's MCP tools within AMap's limits (issue 20 §6): every tool call paced through the key's one bucket with the
REST fills, a QPS tool error asked again, a held key asking nothing, and the MCP stand-in that keeps the limits.
No timing assertions: the figures are the bench's (``python -m core bench amap-mcp``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from bench.amap_live import trip_request
from core.config import Settings
from core.errors import ProviderQuotaExceeded, ProviderRateLimited
from core.geo.amap import AMapProvider
from core.geo.amap_mcp import AMapMcpProvider
from core.geo.base import LonLat
from core.geo.ratelimit import ServiceHold, TokenBucket, shared_bucket, shared_hold
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route
from standins.amap import AMapKeyLimits, AMapLimitedStandIn
from standins.amap_mcp import FAILED, INVALID_KEY_BODY, PERSONAL_MAP_LINK, AMapMcpStandIn
from tests.support.amap_mcp_standin import MCP_FIXTURES, recorded_text

BUND = LonLat(121.4880, 31.2402)
YUYUAN = LonLat(121.4872, 31.2282)
PEOPLES_SQUARE = LonLat(121.4737, 31.2304)


class FakeTime:
    """A clock that only moves when the test moves it; sleeps are recorded, not slept (thread-safe)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.slept: list[float] = []
        self._lock = threading.Lock()

    def clock(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)


class Seconds:
    """The stand-in's wall clock: the given readings in turn, then the last one for ever."""

    def __init__(self, *readings: float) -> None:
        self._readings: Iterator[float] = iter(readings)
        self._last = readings[-1]

    def __call__(self) -> float:
        self._last = next(self._readings, self._last)
        return self._last


def _mcp(server: AMapMcpStandIn, **options: object) -> AMapMcpProvider:
    return AMapMcpProvider(key=server.key, url=server.url, timeout_s=10, **options)  # type: ignore[arg-type]


# ---- the stand-in's shapes are the recorded ones -------------------------------------------------------------


def test_the_standins_inlined_shapes_are_the_recorded_ones():
    assert PERSONAL_MAP_LINK == recorded_text("call_maps_schema_personal_map.json")
    assert json.loads(INVALID_KEY_BODY) == json.loads((MCP_FIXTURES / "invalid_key_raw_body.json").read_text())
    assert recorded_text("call_tool_error.json").startswith(FAILED["maps_geo"] + ": ")


# ---- pacing: one bucket for the MCP tools and the REST fills of a key ----------------------------------------


def test_mcp_calls_and_rest_fills_are_paced_by_one_bucket():
    key = "mcp-paced-key-0123456789"
    t = FakeTime()
    bucket = TokenBucket(2.0, clock=t.clock, sleep=t.sleep)
    with AMapLimitedStandIn() as rest_server, AMapMcpStandIn(key=key) as mcp_server:
        rest = AMapProvider(key=key, base_url=rest_server.base_url, limiter=bucket)
        mcp = _mcp(mcp_server, rest=rest, limiter=bucket)
        first = mcp.route(BUND, YUYUAN, mode="driving")  # an MCP direction, then REST draws its path
        mcp.route(YUYUAN, PEOPLES_SQUARE, mode="driving")
    # the clock stood still: four calls at 2 a second, each slot 0.5 s after the last, MCP and REST alike
    assert t.slept == [0.5, 1.0, 1.5]
    assert bucket.stats().acquired == 4
    assert mcp_server.calls_by_tool() == {"maps_direction_driving": 2}
    assert [p for p in rest_server.requests if p.startswith("/v3/direction/")] == ["/v3/direction/driving"] * 2
    assert first.source == "amap" and len(first.geometry) >= 2


def test_the_registry_gives_mcp_the_rest_providers_bucket_and_hold():
    key = "mcp-registry-key-0123456789"
    settings = Settings(
        region="shanghai", amap_key=SecretStr(key), amap_base_url="http://127.0.0.1:9", amap_qps=2.5,
        amap_mcp_url="http://127.0.0.1:9/mcp", http_retries=2, cache_dir=None,
    )  # fmt: skip
    services = make_provider("amap-mcp", settings=settings)
    mcp = services.router.inner
    assert isinstance(mcp, AMapMcpProvider)
    assert mcp.limiter is shared_bucket("amap", key, rate=2.5) and mcp.limiter is mcp.rest.limiter
    assert mcp.hold is shared_hold("amap", key) and mcp.hold is mcp.rest.hold
    assert mcp.rate_limit_retries == 2 and mcp.limiter.rate == 2.5


# ---- QPS refusals --------------------------------------------------------------------------------------------


def test_a_cuqps_tool_error_is_asked_again_through_the_bucket_and_then_answered():
    t = FakeTime()
    bucket = TokenBucket(1000.0, clock=t.clock, sleep=t.sleep)  # a fast key: the pause is the back-off's
    # the stand-in's calendar seconds: two calls in second 1000 (the second one refused at QPS 1), then 1001
    with AMapMcpStandIn(key="mcp-cuqps-key-0123456789", qps=1, clock=Seconds(1000.1, 1000.2, 1001.3)) as server:
        mcp = _mcp(server, limiter=bucket, rate_limit_retries=3)
        assert mcp.geocode("外滩")
        [place] = mcp.geocode("豫园")
    assert server.refused == {"CUQPS_HAS_EXCEEDED_THE_LIMIT": 1}
    assert server.calls == ["maps_geo"] * 3 and bucket.stats().penalties == 1
    assert place.source == "amap" and place.lat == pytest.approx(31.228, abs=0.01)


def test_cuqps_past_the_retries_is_rate_limited_and_marked_as_asked_again():
    t = FakeTime()
    bucket = TokenBucket(1000.0, clock=t.clock, sleep=t.sleep)
    with AMapMcpStandIn(key="mcp-cuqps2-key-0123456789", qps=1, clock=lambda: 2000.5) as server:  # one second
        mcp = _mcp(server, limiter=bucket, rate_limit_retries=2)
        mcp.geocode("外滩")
        with pytest.raises(ProviderRateLimited) as refused:
            mcp.geocode("豫园")
    assert refused.value.details["infocode"] == "10021" and refused.value.details["paced_retries"] == 2
    assert len(server.calls) == 4 and server.refused == {"CUQPS_HAS_EXCEEDED_THE_LIMIT": 3}


# ---- refusals that last: the hold -----------------------------------------------------------------------------


def test_a_held_key_sends_no_tool_call():
    wall = FakeTime(1795793420.0)  # 23:30:20 in Shanghai
    hold = ServiceHold(clock=wall.clock)
    hold.hold(1795795200.0, "10003")  # 00:00 in Shanghai
    with AMapMcpStandIn(key="mcp-held-key-0123456789") as server:
        mcp = _mcp(server, hold=hold)
        with pytest.raises(ProviderQuotaExceeded) as held:
            mcp.route(BUND, YUYUAN, mode="driving")
    assert held.value.details["not_sent"] is True and "2026-11-28T00:00:00+08:00" in held.value.message
    assert server.calls == []


def test_the_days_quota_spent_over_mcp_holds_the_key_for_rest_too():
    key = "mcp-daily-key-0123456789"
    wall = FakeTime(1795793420.0)
    hold = ServiceHold(clock=wall.clock)
    with AMapLimitedStandIn() as rest_server, AMapMcpStandIn(key=key, daily=1) as server:
        rest = AMapProvider(key=key, base_url=rest_server.base_url, hold=hold)
        mcp = _mcp(server, rest=rest, hold=hold)
        mcp.geocode("外滩")
        with pytest.raises(ProviderQuotaExceeded):
            mcp.geocode("豫园")  # the tool error names DAILY_QUERY_OVER_LIMIT
        with pytest.raises(ProviderQuotaExceeded) as held:
            rest.geocode("豫园")
    assert server.refused == {"DAILY_QUERY_OVER_LIMIT": 1} and len(server.calls) == 2
    assert held.value.details["not_sent"] is True and rest_server.requests == []


# ---- a plan within AMap's limits ------------------------------------------------------------------------------


def test_a_ten_place_plan_through_the_mcp_standin_at_qps_3_gets_every_leg_from_amap():
    key = "mcp-plan-key-0123456789"
    limits = AMapKeyLimits(qps=3, daily=5000)  # one key: MCP tool calls and REST fills spend the same limits
    request = RoutePlanRequest.model_validate(trip_request(10))
    with AMapLimitedStandIn(limits=limits) as rest_server, AMapMcpStandIn(key=key, limits=limits) as mcp_server:
        settings = Settings(
            region="shanghai", provider="amap-mcp", amap_key=SecretStr(key), amap_base_url=rest_server.base_url,
            amap_mcp_url=mcp_server.url, amap_qps=3, cache_dir=None,
        )  # fmt: skip
        result = plan_route(request, provider=make_provider("amap-mcp", settings=settings), settings=settings)
    legs = result.best_route.legs
    assert len(legs) == 9 and [leg.source for leg in legs] == ["amap"] * 9
    assert result.metric_source == "amap"
    # one column of the matrix a call, and only the 9 a leg can end at (8 stops and the destination, not the start)
    assert mcp_server.answered["maps_distance"] == 9
    assert mcp_server.answered["maps_geo"] + mcp_server.answered["maps_text_search"] >= 10  # every place asked
