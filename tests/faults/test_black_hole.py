"""A black-hole AMap (a loopback socket that accepts every connection and never answers) with the shipped timeouts,
retries, budget and QPS (issue 21, the last parts §1): a route plan, an itinerary, the agent's travel-time question
and the half-day plan each wait on it once, at most the budget's call wait, then answer from the region pack's
estimates with a warning that says AMap did not answer in time.

Counted at the socket, never timed: one connection per face is one wait of at most ``provider_budget_s`` (half-day:
``halfday_provider_budget_s``), where before each call waited its full timeout until a budget sized from the plan's
calls at the key's QPS was spent (35 s on a route plan at QPS 1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bench.faults import BlackHole
from core.config import PROJECT_ROOT, Settings, get_settings
from core.halfday.breaker import HalfDayBreakers
from tests.conftest import API_KEYS, auth

pytestmark = pytest.mark.slow

KEY = "black-hole-amap-key-0123456789"
GOAL = "周六下午和老婆带5岁的女儿去看博物馆，人均200以内"
NOW = datetime(2030, 1, 5, 13, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
#: the limits this suite is about: their shipped values, checked below so a changed default is seen here
SHIPPED = ("http_timeout_s", "http_retries", "breaker_fail_max", "provider_budget_s", "halfday_provider_budget_s",
           "amap_qps")  # fmt: skip


@pytest.fixture(scope="module")
def hole() -> Iterator[BlackHole]:
    with BlackHole("silent") as server:
        yield server


@pytest.fixture
def env(hole, tmp_path, monkeypatch) -> Iterator[Settings]:
    """AMap at the black hole with every limit as shipped; its own database, event log and no disk cache."""
    from core.auth import key_digest

    (tmp_path / "kb").mkdir()
    values = {
        "OMNI_DATA_DIR": str(PROJECT_ROOT / "data"),
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "amap",
        "OMNI_AMAP_KEY": KEY,
        "OMNI_AMAP_BASE_URL": hole.base_url,
        "OMNI_CACHE_DIR": "",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'omni.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
        "OMNI_API_KEYS": json.dumps({user: key_digest(key) for user, key in API_KEYS.items()}),
    }
    for name in SHIPPED:
        monkeypatch.delenv(f"OMNI_{name.upper()}", raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    import api

    monkeypatch.setattr(api.SERVICES, "halfday_breakers", HalfDayBreakers())  # the API root's breakers, closed
    settings = get_settings()
    for name in SHIPPED:
        assert getattr(settings, name) == Settings.model_fields[name].default, name
    yield settings
    get_settings.cache_clear()


@pytest.fixture
def client(env) -> Any:
    from fastapi.testclient import TestClient

    import api
    from core.geo.registry import make_provider

    # a provider on this module's black hole, its breakers closed
    api.SERVICES.use_provider("amap", "shanghai", make_provider("amap", region="shanghai", settings=env))
    return TestClient(api.app, headers=auth("alice"))


def connections(hole: BlackHole, run: Any) -> tuple[Any, int]:
    before = hole.connections
    out = run()
    return out, hole.connections - before


def test_a_route_plan_waits_on_a_black_hole_once_and_says_amap_did_not_answer_in_time(hole, client, env):
    from core.app import route as route_app
    from core.app.context import AppServices
    from core.route.scenarios import load_scenario

    request = load_scenario("family-day", data_dir=PROJECT_ROOT / "data").request
    result, asked = connections(hole, lambda: route_app.plan_route(AppServices().context(user="alice"), request))
    assert asked == 1  # the first call waited; every later call of the plan went to the estimate at once
    assert result.success and {leg.source for leg in result.best_route.legs} == {"offline_estimate"}
    assert {p.provider for p in [*result.resolved_stops, result.resolved_destination]} == {"offline"}
    late = [w for w in result.warnings if "AMap did not answer" in w]
    assert late and all("it did not answer in time" in w for w in late), result.warnings


def test_an_itinerary_waits_on_a_black_hole_once(hole, client, env):
    from core.app import itinerary as itinerary_app
    from core.app.context import AppServices
    from core.models.itinerary import TripRequest

    trip = TripRequest.model_validate_json((PROJECT_ROOT / "data/trips/shanghai_family_day.json").read_text())
    result, asked = connections(hole, lambda: itinerary_app.plan_itinerary(AppServices().context(user="alice"), trip))
    assert asked == 1
    assert result.status != "infeasible" and result.matrix_source == "offline_estimate"
    assert any("AMap matrix unavailable (timed out" in w for w in result.warnings), result.warnings


def test_the_agent_waits_on_a_black_hole_once_and_answers_the_estimate(hole, client, env):
    body, asked = connections(
        hole,
        lambda: client.post(
            "/agent/route_and_run", json={"message": "从外滩到豫园开车要多久"}, headers={"Accept-Language": "zh"}
        ).json(),
    )
    assert asked == 1
    result = body["result"]
    assert result["status"] == "OK" and "在线路线服务暂不可用" in result["answer_text"], result
    assert body["observability"]["fallback_used"] is True


def test_a_half_day_plan_waits_on_a_black_hole_once_and_names_the_cause(hole, client, env):
    body = {"goal": GOAL, "now": NOW.isoformat(), "origin": "人民广场", "on_degraded": "continue"}
    answer, asked = connections(
        hole, lambda: client.post("/halfday/plan", json=body, headers={"Accept": "text/event-stream"})
    )
    assert asked == 1
    events = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    done = events[-1]["data"]
    assert done["type"] == "plans", done
    legs = {s["travel"]["source"] for p in done["result"]["plans"] for s in p["steps"] if s.get("travel")}
    assert legs <= {"offline_estimate", "none"} and "offline_estimate" in legs
    warned = [e["data"] for e in events if e["type"] == "observation" and e["data"]["type"] == "warning"]
    travel = [w for w in warned if w["code"] == "TRAVEL_FROM_LOCAL_ESTIMATE"]
    assert travel and travel[0]["facts"]["causes"] == ["timeout"], warned
