"""The half-day map breaker counts what happens on the path the product uses (issue 31 §3): on the AMap provider a
failing service is answered by the provider's own fallback (the pack's estimate) behind its retries and breaker, so
nothing is raised to the half-day planner. Each such call is still a failure of the map service: the breaker counts
it, opens at ``halfday_breaker_map_fail_max`` and later plans no longer ask AMap. The AMap stand-in answers HTTP 503
to everything; the plans go through the half-day use case, as every face's do."""

from __future__ import annotations

import pytest

from core.app import AppServices
from core.app.halfday import plan_half_day
from core.models.halfday.plans import HalfDayRequest
from tests.halfday.conftest import NOW
from tests.support.amap_settings import amap_settings
from tests.support.amap_standin import AMapStandIn

GOAL = "周六下午带孩子去公园散步，四点前回来"
MATRIX_PATHS = ("/v3/distance", "/v3/direction/")


def _warnings(events) -> list[str]:
    return [e.data.code for e in events if e.type == "observation" and e.data.type == "warning"]


def _matrix_requests(standin: AMapStandIn) -> int:
    return sum(1 for path in standin.requests if path.startswith(MATRIX_PATHS))


@pytest.mark.parametrize("fail_max", [3, 5])
def test_amap_failures_answered_by_the_provider_s_fallback_open_the_half_day_map_breaker(tmp_path, fail_max):
    with AMapStandIn("http503") as standin:
        settings = amap_settings(
            standin.base_url,
            db_url=f"sqlite:///{tmp_path / 'breaker.db'}",
            cache_dir=None,
            halfday_breaker_map_fail_max=fail_max,
            halfday_breaker_map_reset_s=3600,
        )
        services = AppServices(settings)
        breaker = services.halfday_breakers.breaker("map", "amap@shanghai", settings=settings)
        request = HalfDayRequest(goal=GOAL, now=NOW, on_degraded="continue")
        # each plan asks for its first leg's column, which fails and counts; the plan asks nothing more of a service
        # that failed it (its other legs stay estimated), so each plan counts one failure
        for plan in range(1, fail_max + 1):
            asked = _matrix_requests(standin)
            events = list(plan_half_day(services.context(user="carol", region="shanghai"), request))
            assert _matrix_requests(standin) > asked  # AMap was asked, and failed
            assert "TRAVEL_SERVICE_FAILED" in _warnings(events) and "TRAVEL_FROM_LOCAL_ESTIMATE" in _warnings(events)
            expected = ("open", fail_max) if plan == fail_max else ("closed", plan)
            assert (breaker.state, breaker.failures) == expected
        asked = _matrix_requests(standin)
        events = list(plan_half_day(services.context(user="carol", region="shanghai"), request))
        assert "TRAVEL_BREAKER_OPEN" in _warnings(events)
        assert _matrix_requests(standin) == asked  # the open breaker kept the next plan off AMap
        assert events[-1].data.type == "plans" and events[-1].data.result.travel_source == "offline_estimate"
