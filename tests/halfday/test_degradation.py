"""The three levels of half_day_planner.md §4, each caused on purpose: a tool that fails once is retried (level 1),
a routing service that fails opens its breaker and the plan comes from local data with a warning (level 2), a tool
that breaks its schema twice or a database that cannot be reached ends the stream with done(type=error) and the
trace id (level 3). Plus the registry's contract: inputs checked before, outputs after, mocks by configuration."""

from __future__ import annotations

import pytest

from core.config import get_settings
from core.errors import ProviderUnavailable
from core.halfday.tools import ToolInvalid, Trace
from core.models.halfday.plans import HalfDayRequest
from tests.halfday.conftest import NOW, goal, planner_on, with_goal


def _request() -> HalfDayRequest:
    return HalfDayRequest(goal="test goal", now=NOW)


def test_level1_a_timeout_is_retried_with_backoff(planner):
    with_goal(planner, goal(preferences=["museum"]))
    real = planner.registry.spec("search_places").fn
    calls = {"n": 0}

    def flaky(filters):
        calls["n"] += 1
        if calls["n"] == 1:
            raise TimeoutError("the places table did not answer")
        return real(filters)

    planner.registry.replace("search_places", flaky)
    result, _ = planner.plan(_request())
    assert result is not None and calls["n"] == 2
    search = next(c for c in result.tool_log if c["tool"] == "search_places")
    assert search["attempts"] == 2 and search["outcome"] == "ok"


class FailingRouter:
    name = "broken-router"

    def __init__(self):
        self.calls = 0

    def matrix(self, points, *, mode):
        self.calls += 1
        raise ProviderUnavailable("routing service unreachable")

    def route(self, origin, destination, *, mode):
        raise ProviderUnavailable("routing service unreachable")


def test_level2_a_failing_router_opens_the_breaker_and_plans_from_local_data(planner):
    from core.geo.composite import MapServices

    router = FailingRouter()
    services = MapServices(geocoder=planner.provider.geocoder, router=router, region=planner.provider.region)
    broken = with_goal(
        planner_on(services, planner.settings, memory=planner.memory),
        goal(preferences=["park"]),
    )
    for _attempt in range(3):
        result, events = broken.plan(_request())
        assert result is not None, events[-1].data
        warnings = [e.data.code for e in events if e.type == "observation" and e.data.type == "warning"]
        assert "TRAVEL_FROM_LOCAL_ESTIMATE" in warnings
        assert result.travel_source == "offline_estimate"
        assert "TRAVEL_FROM_LOCAL_ESTIMATE" in result.warnings
    # the breaker opened after three failures (settings): later plans no longer wait on the broken service
    assert "TRAVEL_BREAKER_OPEN" in warnings
    assert router.calls == planner.settings.halfday_breaker_map_fail_max


def test_level3_a_tool_that_breaks_its_schema_twice_ends_with_an_error(planner):
    with_goal(planner, goal(preferences=["museum"]))
    planner.registry.replace("analyze_user_profile", lambda _inp: {"party": "not a party"})
    result, events = planner.plan(_request())
    assert result is None
    done = events[-1]
    assert done.type == "done" and done.data.type == "error"
    assert done.data.error.model_dump(exclude_defaults=True) == {
        "code": "TOOL_OUTPUT_INVALID",
        "trace_id": done.trace_id,
        "tool": "analyze_user_profile",
        "fallback": "conversation",  # level 3: a conversation with the agent instead (no contact configured here)
    }
    log = [e for e in events if e.type == "skill_call"]
    assert log[-1].data.tool == "analyze_user_profile"  # nothing invalid went downstream


def test_level3_an_unreachable_database_ends_with_an_error(planner, monkeypatch):

    # OMNI_DB_URL names a PostgreSQL server on a port nobody listens on: the planner is still built, and the stream
    # ends with the structured error when stage 2 first needs the database
    monkeypatch.setenv("OMNI_DB_URL", "postgresql+psycopg://omni@127.0.0.1:9/omni")
    get_settings.cache_clear()
    unreachable = with_goal(
        planner_on(planner.provider, get_settings()),
        goal(preferences=["park"]),
    )
    result, events = unreachable.plan(_request())
    assert result is None
    error = events[-1].data.error
    assert events[0].type == "status" and events[-1].data.type == "error"
    assert error.code == "DATABASE_UNREACHABLE" and error.tool == "get_memory" and error.trace_id == events[0].trace_id


def test_level3_an_unreachable_database_is_an_event_over_http_and_the_cli(monkeypatch, capsys):
    import json

    from core.__main__ import main

    monkeypatch.setenv("OMNI_DB_URL", "postgresql+psycopg://omni@127.0.0.1:9/omni")
    get_settings.cache_clear()
    code = main(["halfday", "--goal", "周六下午去公园", "--region", "shanghai", "--now", NOW.isoformat(), "--events"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 2 and out[0]["type"] == "status"
    assert out[-1]["type"] == "done" and out[-1]["data"]["error"]["code"] == "DATABASE_UNREACHABLE"
    get_settings.cache_clear()


def test_registry_checks_inputs_before_running_a_tool(planner):
    ran = []
    planner.registry.replace("plan_time_slots", lambda inp: ran.append(inp))
    with pytest.raises(ToolInvalid) as caught:
        planner.registry.call("plan_time_slots", {"profile": {}, "window": {}, "now": "never"}, trace=Trace())
    assert caught.value.code == "TOOL_INPUT_INVALID" and ran == []


def test_a_tool_is_swapped_for_its_mock_by_configuration(planner, monkeypatch):

    monkeypatch.setenv("OMNI_HALFDAY_MOCK_TOOLS", '["decompose_goal"]')
    get_settings.cache_clear()
    mocked = planner_on(planner.provider, get_settings(), memory=planner.memory)
    result, events = mocked.plan(HalfDayRequest(goal="anything at all", now=NOW))
    assert result is not None
    call = next(e for e in events if e.type == "skill_call" and e.data.tool == "decompose_goal")
    assert call.data.mocked is True
    assert result.goal.window is not None and result.goal.window.date.isoformat() == "2026-11-28"


class FailingGeocoder:
    name = "broken-geocoder"

    def geocode(self, address, *, city=None):
        raise ProviderUnavailable("geocoder unreachable")

    def search(self, keywords, *, city=None, limit=10):
        raise ProviderUnavailable("geocoder unreachable")

    def detail(self, poi_id):
        return None


def test_a_failing_geocoder_for_the_start_is_a_warning_not_a_failure(planner):
    from core.geo.composite import MapServices

    services = MapServices(geocoder=FailingGeocoder(), router=planner.provider.router, region=planner.provider.region)
    broken = with_goal(
        planner_on(services, planner.settings, memory=planner.memory),
        goal(preferences=["park"]),
    )
    result, events = broken.plan(HalfDayRequest(goal="test goal", now=NOW, origin="人民广场"))
    assert result is not None and result.origin is None and "ORIGIN_UNRESOLVED" in result.warnings
    origin_call = next(c for c in result.tool_log if c["tool"] == "resolve_origin")
    assert origin_call["outcome"] == "ProviderUnavailable" and origin_call["attempts"] == 3  # retried, then gave up
    assert all(p.steps[0].travel is None for p in result.plans)


def test_an_empty_search_is_observed_with_its_reasons_and_not_retried(planner):
    from datetime import time

    # nothing is open at 03:00 in the shanghai pack but 24-hour places; none of those is a theatre
    with_goal(planner, goal(start=time(3, 0), end=time(5, 0), preferences=["theatre"]))
    result, events = planner.plan(_request())
    empty = [e for e in events if e.type == "observation" and e.data.type == "empty"]
    assert empty and empty[0].data.facts.excluded["closed_in_window"] > 0
    calls = [e for e in events if e.type == "skill_call" and e.data.tool == "search_places"]
    observed = [e for e in events if e.type == "observation" and getattr(e.data, "tool", None) == "search_places"]
    assert len(observed) == len(calls)  # every call is observed, empty or not
    if result is None:
        assert events[-1].data.error.code == "NO_FEASIBLE_PLAN"
        assert events[-1].data.error.excluded["closed_in_window"] > 0
