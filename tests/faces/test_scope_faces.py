"""Scope before answer (issue 31) on the faces: the API's agent and the CLI's ``run`` answer a city no installed
region covers with REGION_NOT_COVERED and a sentence, and plan a Helsinki trip asked from Shanghai in Helsinki."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from core.auth import key_digest
from tests.conftest import API_KEYS, auth
from tests.support.paths import ROOT


@pytest.fixture
def env(tmp_path):
    return {
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'scope.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
        "OMNI_API_KEYS": json.dumps({user: key_digest(key) for user, key in API_KEYS.items()}),
    }


@pytest.fixture
def api(env, monkeypatch):
    from fastapi.testclient import TestClient

    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)  # the installed packs: shanghai and helsinki
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    from api import app

    yield TestClient(app, headers=auth("alice"))
    get_settings.cache_clear()


def test_api_refuses_a_city_no_region_covers_in_the_callers_language(api):
    r = api.post(
        "/agent/route_and_run", json={"message": "大阪周末两天，帮我排一下"}, headers={"Accept-Language": "en"}
    )
    assert r.status_code == 200
    result = r.json()["result"]
    assert (result["status"], result["error_code"]) == ("FAILED", "REGION_NOT_COVERED")
    assert result["answer_text"].startswith("You named 大阪, which no installed region covers")
    assert "Helsinki, Shanghai" in result["answer_text"] and result["payload"]["timeline"] == []


def test_api_plans_helsinki_asked_from_shanghai(api):
    r = api.post("/agent/route_and_run", json={"message": "Plan a two-day trip in Helsinki, museums and cafes"})
    body = r.json()
    assert r.status_code == 200 and body["result"]["status"] == "OK"
    first = body["result"]["answer_text"].splitlines()[0]
    assert (
        first
        == "You named Helsinki, which the Helsinki region covers, so this is planned in Helsinki instead of Shanghai."
    )
    assert "REGION_SWITCHED" in [e["reason_code"] for e in body["explain"]["decision_log"]]


def test_cli_run_refuses_a_city_no_region_covers(env):
    run_env = {k: v for k, v in {**os.environ, **env}.items() if k != "OMNI_DATA_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "core", "run", "--message", "帮我规划首尔三天的行程"],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads(done.stdout)["result"]
    assert (result["status"], result["error_code"]) == ("FAILED", "REGION_NOT_COVERED")
    assert result["answer_text"].startswith("您提到了首尔，目前安装的地区都不包含它")
    assert result["payload"]["timeline"] == []


def test_api_half_day_goal_in_a_city_no_region_covers_ends_with_its_error(api):
    r = api.post(
        "/halfday/plan",
        json={"goal": "周六下午在维也纳喝咖啡看展"},
        headers={"Accept": "application/json", "Accept-Language": "zh"},
    )
    assert r.status_code == 200
    done = r.json()
    assert done["type"] == "done" and done["data"]["type"] == "error"
    error = done["data"]["error"]
    assert (error["code"], error["named"], error["regions"]) == (
        "REGION_NOT_COVERED",
        "维也纳",
        ["helsinki", "shanghai"],
    )


def test_cli_plan_of_a_helsinki_route_from_shanghai_switches_and_says_so(env, tmp_path):
    request = {
        "origin_mode": "fixed",
        "origin_name": "Old Market Hall",
        "origin_city": "Helsinki",
        "destination_name": "Helsinki Cathedral",
        "stops": [{"name": "Museum of Modern Art Kiasma", "address": ""}, {"name": "Swedish Theatre", "address": ""}],
    }
    path = tmp_path / "route.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    run_env = {k: v for k, v in {**os.environ, **env}.items() if k != "OMNI_DATA_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "core", "plan", "--request", str(path)],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-800:]
    result = json.loads(done.stdout)
    assert result["region"] == "helsinki"
    assert result["notices"][0]["code"] == "REGION_SWITCHED"
    assert result["warnings"][0].startswith("You named Helsinki, which the region")


def test_api_error_body_of_a_place_no_region_covers_carries_its_facts(api):
    # the API's answer to a RegionNotCovered a use case raises (the route's and the itinerary's entries raise it)
    import asyncio

    from api import _omni_error
    from core.app.scope import RegionNotCovered, refuse_uncovered
    from core.packs.coverage import scope_of
    from core.packs.loader import list_regions, load_region

    packs = [load_region(name) for name in list_regions()]
    shanghai = next(p for p in packs if p.name == "shanghai")
    scope = scope_of("Rijksmuseum, Amsterdam", active=shanghai, packs=packs)
    with pytest.raises(RegionNotCovered) as refused:
        refuse_uncovered(scope, "en", field="stops.1")
    response = asyncio.run(_omni_error(None, refused.value))  # type: ignore[arg-type]
    error = json.loads(response.body)["error"]
    assert response.status_code == 422 and (error["code"], error["field"]) == ("REGION_NOT_COVERED", "stops.1")
    assert error["facts"]["named"] == "Amsterdam" and error["facts"]["place"] == "Amsterdam"
    assert error["facts"]["regions"] == "helsinki, shanghai" and error["facts"]["active"] == "shanghai"
    assert error["message"].startswith("You named Amsterdam, which no installed region covers")
