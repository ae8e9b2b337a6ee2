"""POST /agent/route_and_run through FastAPI's TestClient: the contract, the QA set, and attempts
to skip the consent and commit gates (all refused)."""

from __future__ import annotations

import pytest

from tests.conftest import auth
from tests.support.agent_packs import FixtureSite


def post(client, message, *, as_user="alice", **kw):
    """A request as ``as_user`` (the API key says who the caller is; the body names no user)."""
    return client.post("/agent/route_and_run", json={"message": message, **kw}, headers=auth(as_user))


QA = [
    ("明天天气", "SYSTEM1_API", "OK"),
    ("推荐新宿拉面", "SYSTEM1_RAG", "OK"),
    ("删除清水寺", "SYSTEM1_API", "NEED_MORE_INFO"),
    ("规划 5 天游+冷门+还能订到", "SYSTEM2_REASONING", "OK"),
    ("官网查房", "SYSTEM2_WEBBROWSE", "NEED_CONSENT"),
    ("赶不上日落就改横滨", "SYSTEM2_REASONING", "NEED_MORE_INFO"),  # no sunset place named; 横滨 is not covered
]


@pytest.mark.parametrize("message,route,status", QA)
def test_qa_set_through_the_api(client, message, route, status):
    r = post(client, message)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"request_id", "route", "result", "explain", "observability"}
    assert (body["route"]["route"], body["result"]["status"]) == (route, status)
    assert set(body["observability"]) >= {
        "latency_ms",
        "router_ms",
        "system_mode",
        "tool_calls",
        "browser_steps",
        "tokens_est",
        "cost_est_usd",
        "fallback_used",
    }
    assert set(body["result"]["payload"]) >= {"timeline", "dropped_items", "candidates", "evidence", "robustness"}


def test_api_timeout_and_captcha(client):
    body = post(client, "规划3天上海行程", options={"max_steps": 1}).json()
    assert body["result"]["status"] == "TIMEOUT" and body["observability"]["fallback_used"] is True
    steps = body["result"]["next_steps"]  # objects: a code and its facts, no words
    assert [s["code"] for s in steps] == ["retry_more_time", "plan_less", "ask_one_by_one"]
    assert all(set(s) == {"code", "args"} for s in steps)
    with FixtureSite() as site:
        body = post(client, f"官网查房 {site.url('captcha.html')}", options={"allow_webbrowse": True}).json()
    assert body["result"]["error_code"] == "BROWSER_BLOCKED_CAPTCHA"
    takeover = [s for s in body["result"]["next_steps"] if s["code"] == "takeover"]
    assert takeover and takeover[0]["args"]["url"].endswith("captcha.html")
    assert {"code": "downgrade", "args": {"to": "knowledge_base"}} in body["result"]["next_steps"]


@pytest.mark.parametrize(
    "smuggled",
    [
        {"consent": True},
        {"consent_granted": True},
        {"status": "OK"},
        {"confirmed": True},
        {"options": {"allow_webbrowse": False, "consent": True}},
        {"options": {"skip_confirmation": True}},
        {"result": {"status": "OK"}},
        {"route": {"route": "SYSTEM1_API"}},
    ],
)
def test_clients_cannot_smuggle_gate_flags(client, smuggled):
    payload = {"message": "官网查房 http://127.0.0.1:9/x", "user_id": "alice", **smuggled}
    r = client.post("/agent/route_and_run", json=payload)
    assert r.status_code == 422


def test_consent_cannot_be_skipped_through_the_api(client):
    with FixtureSite() as site:
        before = len(site.hits)
        body = post(client, f"官网查房 {site.url('availability.html')}").json()
        assert body["result"]["status"] == "NEED_CONSENT"
        body = post(
            client, f"官网查房 {site.url('availability.html')}", options={"dry_run": True, "max_browser_steps": 99}
        ).json()
        assert body["result"]["status"] == "NEED_CONSENT"
        assert len(site.hits) == before
        body = post(client, f"官网查房 {site.url('availability.html')}", options={"allow_webbrowse": True}).json()
        assert body["result"]["status"] == "OK" and len(site.hits) == before + 1


def test_confirmation_cannot_be_skipped_through_the_api(client):
    body = post(client, "和平饭店的房费帮我退款").json()  # a commit the gate holds (bookings: tests/agent)
    assert body["result"]["status"] == "NEED_CONFIRMATION"
    dr_id = body["result"]["payload"]["dry_run"]["dry_run_id"]
    # a made-up id, another user's use of the id, and the id with dry_run on: all refused
    assert (
        post(client, "确认", options={"confirm_dry_run_id": "dr-forged"}).json()["result"]["error_code"]
        == "CONFIRMATION_INVALID"
    )
    assert (
        post(client, "确认", as_user="mallory", options={"confirm_dry_run_id": dr_id}).json()["result"]["status"]
        == "FAILED"
    )
    assert (
        post(client, "确认", options={"confirm_dry_run_id": dr_id, "dry_run": True}).json()["result"]["status"]
        == "FAILED"
    )
    ok = post(client, "确认", options={"confirm_dry_run_id": dr_id}).json()
    assert ok["result"]["status"] == "OK"
    assert post(client, "确认", options={"confirm_dry_run_id": dr_id}).json()["result"]["status"] == "FAILED"


def test_bad_requests_are_422(client):
    assert client.post("/agent/route_and_run", json={"user_id": "a"}).status_code == 422
    assert client.post("/agent/route_and_run", json={"message": ""}).status_code == 422
    assert client.post("/agent/route_and_run", json={"message": "x", "options": {"max_steps": 0}}).status_code == 422


def test_the_agent_entry_needs_words_as_its_schema_says(client):
    # the published schema requires message; an id-only confirmation goes to POST /agent/confirm
    body = {"options": {"confirm_dry_run_id": "dr-1"}}
    answer = client.post("/agent/route_and_run", json=body, headers=auth("alice"))
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "INVALID_INPUT" and answer.json()["error"]["field"] == "message"


def test_http_level_errors_are_structured_too(client):
    broken = client.post(
        "/agent/route_and_run", content=b"\xff\xfe{not json", headers={"Content-Type": "application/json"}
    )
    assert broken.status_code == 400
    assert broken.json()["error"]["code"] == "BAD_REQUEST"
    assert broken.json()["error"]["message"] == "the body is not JSON in UTF-8"
    missing = client.get("/agent/nothing-here")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")
    wrong_method = client.delete("/agent/actions")
    assert (wrong_method.status_code, wrong_method.json()["error"]["code"]) == (405, "METHOD_NOT_ALLOWED")
    assert wrong_method.headers["allow"] == "GET"


def test_openapi_docs_and_registry(client):
    spec = client.get("/openapi.json").json()
    assert "/agent/route_and_run" in spec["paths"]
    assert "AgentRequest" in spec["components"]["schemas"] and "AgentResponse" in spec["components"]["schemas"]
    # Error answers are part of the contract, with their body schema.
    declared = spec["paths"]["/agent/route_and_run"]["post"]["responses"]
    assert set(declared) == {"200", "400", "401", "403", "413", "422"}
    assert declared["413"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    assert client.get("/docs").status_code == 200
    names = {a["name"] for a in client.get("/agent/actions").json()}
    assert "itinerary.optimize_day_vrptw" in names
    post(client, "明天天气")
    assert client.get("/agent/metrics").json()["requests"] >= 1


def test_a_message_over_the_limit_as_sent_is_refused_even_if_cleaning_would_shorten_it(client):
    # found by schemathesis: control characters are dropped by cleaning, so the length was checked too late
    too_long = post(client, "\x1e\x1c" + "*" * 3999)
    assert too_long.status_code == 422
    assert too_long.json()["error"]["field"] == "message"
    assert "at most 4000 characters" in too_long.json()["error"]["message"]
    assert post(client, "\x1e" + "明天天气" + " " * 3995).status_code == 200  # 4000 as sent is fine


def test_a_trip_plan_carries_its_wish_accounting(client):
    """Issue 31: the response's payload accounts for every wish, as codes and place ids (no sentences)."""
    body = post(client, "规划1天上海行程，带孩子去东方明珠，想吃清真菜，再学学剪纸").json()
    wishes = body["result"]["payload"]["wishes"]
    got = [(w["wish"]["kind"], w["wish"]["code"], w["status"], w["reason"]) for w in wishes]
    assert ("place", "a-pearl", "met", "served") in got
    assert ("diet", "halal", "not_met", "none_in_data") in got  # the test pack has no halal kitchen
    assert [w["wish"]["phrase"] for w in wishes if w["status"] == "unread"] == ["学学剪纸"]
    assert all(set(w) == {"wish", "status", "reason", "place_ids", "drop_reason", "meal"} for w in wishes)


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ("规划1天上海行程，去外滩，下午5点到3点", "END_NOT_AFTER_START"),
        ("one day in Shanghai, the Bund, 9pm to 8pm", "END_NOT_AFTER_START"),
    ],
)
def test_hours_that_cannot_be_the_day_are_no_ok_through_the_api(client, message, problem):
    """Issue 31: a plan on the default hours is not what was asked: NEED_MORE_INFO, the hours asked again."""
    result = post(client, message).json()["result"]
    assert result["status"] == "NEED_MORE_INFO"
    assert {"code": "missing", "args": {"field": "day_window", "problem": problem}} in result["next_steps"]
    window = next(e for e in result["payload"]["evidence"] if e["type"] == "day_window")
    assert (window["start"], window["end"], window["problem"]) == ("10:00", "20:00", problem)
