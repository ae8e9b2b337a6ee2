"""The half-day planner on AMap (issue 21): it runs under its provider budget, so a map service that answers slowly
or fails ends the plan with the pack's estimate and a warning that says what was estimated; on a service that
answers, it asks only for what its plans need. Real HTTP servers on 127.0.0.1 (the AMap stand-in, a failing one);
what is asserted is calls counted, events, sources and the budget configured, never the time taken."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import SecretStr

from core.config import Settings
from core.geo.registry import make_provider
from core.halfday.service import HalfDayPlanner
from core.models.halfday.events import DonePlans, ObservationEvent, WarningObservation
from core.models.halfday.plans import HalfDayRequest
from standins.amap import AMapLimitedStandIn
from tests.halfday.conftest import NOW, planner_on

GOAL = "周六下午和老婆带5岁的女儿去看博物馆，人均200以内"


class Failing:
    """A map service that answers every request with HTTP 500, counting them."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append(self.path.split("?")[0])
                body = b'{"status": "0", "info": "SERVICE_ERROR"}'
                self.send_response(500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Failing:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def amap_planner(base_url: str, tmp_path, key: str, **overrides: object) -> tuple[HalfDayPlanner, Settings]:
    values: dict[str, object] = {
        "region": "shanghai",
        "provider": "amap",
        "amap_key": SecretStr(key),
        "amap_base_url": base_url,
        "amap_qps": 0,  # unpaced: the stand-in keeps no QPS here, and the tests count calls, not seconds
        "cache_dir": None,
        "db_url": f"sqlite:///{tmp_path / 'halfday.db'}",
        **overrides,
    }
    settings = Settings(**values)  # type: ignore[arg-type]
    provider = make_provider("amap", settings=settings).for_request()
    return planner_on(provider, settings), settings


def plan(planner: HalfDayPlanner):
    result, events = planner.plan(HalfDayRequest(goal=GOAL, now=NOW, origin="人民广场"))
    warnings = [e.data for e in events if isinstance(e, ObservationEvent) and isinstance(e.data, WarningObservation)]
    return result, events, {w.code: w.facts for w in warnings}


def legs(result) -> list:
    return [s.travel for p in result.plans for s in p.steps if s.travel is not None and s.travel.mode != "none"]


def test_the_half_day_budget_is_a_setting_of_its_own_under_ten_seconds():
    assert 0 < Settings().halfday_provider_budget_s < 10


def test_a_slow_map_service_ends_the_plan_at_its_budget_with_estimated_legs_and_a_warning(tmp_path):
    with AMapLimitedStandIn(latency_s=1.5) as amap:
        planner, _ = amap_planner(amap.base_url, tmp_path, "slow-key-0123456789", halfday_provider_budget_s=0.5)
        result, events, warned = plan(planner)
        asked = len(amap.requests)
    assert isinstance(events[-1].data, DonePlans) and result is not None
    # the first call (the start's geocode) outlived the budget; nothing was asked after it
    assert asked == 1
    facts = warned["TRAVEL_FROM_LOCAL_ESTIMATE"]
    assert facts.legs == len(legs(result)) > 0 and facts.estimated_legs == facts.legs
    assert set(facts.services) == {"geocode", "matrix"}
    assert {leg.source for leg in legs(result)} == {"offline_estimate"}
    assert "ORIGIN_FROM_LOCAL_GAZETTEER" in warned and result.origin is not None
    assert result.origin.source.startswith("offline")  # the pack's gazetteer, not amap
    assert {"TRAVEL_FROM_LOCAL_ESTIMATE", "ORIGIN_FROM_LOCAL_GAZETTEER"} <= set(result.warnings)


def test_a_failing_map_service_is_asked_a_bounded_number_of_times_and_the_plan_says_what_it_estimated(tmp_path):
    with Failing() as down:
        planner, settings = amap_planner(down.base_url, tmp_path, "down-key-0123456789", halfday_provider_budget_s=2)
        result, events, warned = plan(planner)
    assert isinstance(events[-1].data, DonePlans) and result is not None
    # retries stop at the breaker (breaker_fail_max failures) or the budget: never one call per pair
    assert 1 <= len(down.requests) <= (settings.http_retries + 1) * 2
    facts = warned["TRAVEL_FROM_LOCAL_ESTIMATE"]
    assert facts.estimated_legs == facts.legs == len(legs(result)) > 0
    assert "matrix" in facts.services
    assert {leg.source for leg in legs(result)} == {"offline_estimate"}
