"""The half-day planner's faces: POST /halfday/plan as server-sent events read with httpx's streaming client, the
reservation endpoints on a planned step (no consent, no token: refused), and ``python -m core halfday``."""

from __future__ import annotations

import json

import pytest

from tests.conftest import API_KEYS, auth
from tests.halfday.conftest import NOW

GOAL = "周六下午和老婆带5岁的女儿去看博物馆，人均200以内"
LUNCH_GOAL = "周六上午11点到下午5点，和老婆带5岁的女儿，吃午饭再看博物馆"


@pytest.fixture
def api(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from core.auth import key_digest
    from core.config import get_settings
    from core.halfday.breaker import HalfDayBreakers

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.setenv("OMNI_REGION", "shanghai")
    monkeypatch.setenv("OMNI_PROVIDER", "offline")
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'api.db'}")
    monkeypatch.setenv("OMNI_AGENT_EVENT_LOG", str(tmp_path / "ev.jsonl"))
    monkeypatch.setenv("OMNI_API_KEYS", json.dumps({u: key_digest(k) for u, k in API_KEYS.items()}))
    get_settings.cache_clear()
    import api
    from api import app

    monkeypatch.setattr(api.SERVICES, "halfday_breakers", HalfDayBreakers())  # the API root's breakers, closed

    yield TestClient(app)
    get_settings.cache_clear()


def read_sse(response, comments: list[str] | None = None) -> list[dict]:
    """Server-sent events as (event, id, data) dicts, in the order they arrived; comment lines (keep-alive pings)
    go to ``comments`` when given."""
    events, current = [], {}
    for line in response.iter_lines():
        if line.startswith(":"):
            if comments is not None:
                comments.append(line[1:].strip())
            continue
        if not line:
            if current:
                events.append(current)
                current = {}
            continue
        field, _, value = line.partition(":")
        current[field] = value.lstrip(" ")
    if current:
        events.append(current)
    return events


def test_plan_streams_the_five_event_types_in_order(api):
    body = {"goal": GOAL, "now": NOW.isoformat()}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = read_sse(response)
    events = [json.loads(e["data"]) for e in raw]
    assert [e["event"] for e in raw] == [e["type"] for e in events]
    assert [int(e["id"]) for e in raw] == list(range(len(raw)))
    types = [e["type"] for e in events]
    assert types[0] == "status" and types[-1] == "done"
    assert {"status", "intent", "skill_call", "observation", "done"} <= set(types)
    assert len({e["trace_id"] for e in events}) == 1
    done = events[-1]["data"]
    assert done["type"] == "plans", done
    result = done["result"]
    assert result["goal"]["party"]["children_ages"] == [5]
    assert result["goal"]["constraints"]["budget_per_person"] == 200
    assert result["goal"]["window"]["date"] == "2026-11-28"
    assert 2 <= len(result["plans"]) <= 3


def test_every_sse_event_reads_back_as_its_typed_variant(api):
    from core.models.halfday.events import HALF_DAY_EVENT, DoneEvent, DonePlans, ObservationEvent, ResultObservation

    body = {"goal": GOAL, "now": NOW.isoformat()}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
        raw = read_sse(response)
    events = [HALF_DAY_EVENT.validate_json(e["data"]) for e in raw]
    assert [type(e).__name__ for e in events][0] == "StatusEvent" and isinstance(events[-1], DoneEvent)
    for sent, event in zip(raw, events, strict=True):  # what a client reads is what the core sent
        assert json.loads(event.model_dump_json()) == json.loads(sent["data"]) and event.type == sent["event"]
    results = [e.data for e in events if isinstance(e, ObservationEvent) and isinstance(e.data, ResultObservation)]
    facts = {r.tool: r.facts for r in results}
    assert facts["search_places"].kind == "candidates" and facts["search_places"].candidates > 0
    assert facts["plan_time_slots"].kind == "slots" and facts["plan_time_slots"].date.isoformat() == "2026-11-28"
    assert isinstance(events[-1].data, DonePlans)
    assert facts["score_plans"].plan_ids == [p.plan_id for p in events[-1].data.result.plans]


@pytest.mark.parametrize(
    "window,start",
    [({"choice": "saturday_afternoon"}, "13:00"), ({"date": "2026-11-28", "start": "10:00", "end": "16:00"}, "10:00")],
)
def test_a_window_beside_the_goal_plans_without_touching_its_words(api, window, start):
    body = {"goal": "和老婆带5岁的女儿去看博物馆", "now": NOW.isoformat(), "window": window}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
        done = json.loads(read_sse(response)[-1]["data"])["data"]
    assert done["type"] == "plans", done
    goal = done["result"]["goal"]
    assert goal["text"] == body["goal"] and goal["missing"] == []
    assert goal["window"]["date"] == "2026-11-28" and goal["window"]["start"].startswith(start)


def test_a_window_is_a_choice_or_a_whole_window(api):
    for window in ({"choice": "next_year"}, {"date": "2026-11-28"}, {"choice": "this_afternoon", "start": "13:00"}):
        r = api.post("/halfday/plan", json={"goal": GOAL, "window": window}, headers=auth("alice"))
        assert r.status_code == 422 and r.json()["error"]["field"].startswith("window"), (window, r.json())


def test_plan_needs_a_key_and_the_keys_user(api):
    assert api.post("/halfday/plan", json={"goal": GOAL}).status_code == 401
    other = api.post("/halfday/plan", json={"goal": GOAL, "user_id": "bob"}, headers=auth("alice"))
    assert other.status_code == 403 and other.json()["error"]["field"] == "user_id"
    empty = api.post("/halfday/plan", json={"goal": ""}, headers=auth("alice"))
    assert empty.status_code == 422 and empty.json()["error"]["field"] == "goal"
    nowhere = api.post("/halfday/plan", json={"goal": GOAL, "region": "atlantis"}, headers=auth("alice"))
    assert nowhere.status_code == 404 and nowhere.json()["error"]["code"] == "REGION_NOT_FOUND"
    long = api.post("/halfday/plan", json={"goal": "下午" * 501}, headers=auth("alice"))
    assert long.status_code == 422 and long.json()["error"]["field"] == "goal"


def test_a_planned_step_is_reserved_only_with_consent_and_the_token(api):
    body = {"goal": LUNCH_GOAL, "now": NOW.isoformat()}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as r:
        result = json.loads(read_sse(r)[-1]["data"])["data"]["result"]
    step = next(s for p in result["plans"] for s in p["steps"] if s["bookable"] and s["kind"] == "meal")
    from datetime import time

    from core.packs.loader import load_region
    from core.reservations.catalog import item_for

    item = item_for(load_region("shanghai"), step["place_id"])
    slot = next(t for t in item.slots() if t >= time.fromisoformat(step["start"]))  # the venue's next slot
    ask = {"item_id": step["place_id"], "date": "2026-11-28", "time": slot.strftime("%H:%M"), "party_size": 3}
    dry = api.post("/reservations", json=ask, headers=auth("alice"))
    assert dry.status_code == 200, dry.json()
    rid, token = dry.json()["reservation"]["id"], dry.json()["token"]
    confirm = f"/reservations/{rid}/confirm"
    no_consent = api.post(
        confirm, json={"token": token, "idempotency_key": "k", "consent": False}, headers=auth("alice")
    )
    assert no_consent.status_code == 403
    no_token = api.post(
        confirm, json={"token": "forged", "idempotency_key": "k2", "consent": True}, headers=auth("alice")
    )
    assert no_token.status_code == 409
    ok = api.post(confirm, json={"token": token, "idempotency_key": "k3", "consent": True}, headers=auth("alice"))
    assert ok.status_code == 200 and ok.json()["reservation"]["status"] == "confirmed"
    assert [x["id"] for x in api.get("/reservations", headers=auth("alice")).json()] == [rid]
    assert api.get("/reservations", headers=auth("bob")).json() == []


def test_cli_prints_events_and_the_result(tmp_path, monkeypatch, capsys):
    from core.__main__ import main
    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_settings.cache_clear()
    assert main(["halfday", "--goal", GOAL, "--now", NOW.isoformat(), "--region", "shanghai", "--events"]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [json.loads(x) for x in out]
    assert lines[0]["type"] == "status" and lines[-1]["type"] == "done"
    assert lines[-1]["data"]["type"] == "plans"
    from core.models.halfday.events import HALF_DAY_EVENT, DonePlans

    typed = [HALF_DAY_EVENT.validate_json(x) for x in out]  # every line reads back as its event
    assert isinstance(typed[-1].data, DonePlans) and typed[-1].data.result.goal.text == GOAL

    assert main(["halfday", "--goal", "带孩子出去玩", "--now", NOW.isoformat(), "--region", "shanghai"]) == 2
    err = json.loads(capsys.readouterr().err)
    assert err["done"] == {"type": "clarify", "goal": err["done"]["goal"], "missing": ["time_window"]}

    assert main(["halfday", "--region", "shanghai"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["field"] == "goal"
    get_settings.cache_clear()


def test_feedback_and_memory_are_the_keys_users_own(api):
    liked = api.post("/halfday/feedback", json={"place_id": "sh-shanghai-museum", "liked": True}, headers=auth("alice"))
    assert liked.status_code == 200
    assert liked.json()["preferences"]["museum"] > 0 and liked.json()["events"] == 1
    disliked = api.post(
        "/halfday/feedback", json={"place_id": "sh-yuyuan-garden", "liked": False}, headers=auth("alice")
    )
    assert disliked.json()["disliked"] == ["sh-yuyuan-garden"]
    assert api.get("/halfday/memory", headers=auth("bob")).json()["events"] == 0  # nobody reads another's
    unknown = api.post("/halfday/feedback", json={"place_id": "sh-atlantis", "liked": True}, headers=auth("alice"))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "PLACE_NOT_FOUND"
    assert (
        api.post("/halfday/feedback", json={"place_id": "sh-bund", "liked": "yes"}, headers=auth("alice")).status_code
        == 422
    )
    assert api.delete("/halfday/memory", headers=auth("alice")).json() == {"forgotten_events": 2}
    assert api.get("/halfday/memory", headers=auth("alice")).json()["events"] == 0


def test_the_stream_sends_keep_alive_comments_while_a_stage_waits(api, monkeypatch):
    import time

    from core.app import halfday as halfday_app
    from core.config import get_settings

    monkeypatch.setenv("OMNI_SSE_PING_S", "0.05")
    get_settings.cache_clear()
    planned = halfday_app.plan_half_day

    def slow_stage(ctx, request, **options):  # the real stream, a stage waiting 20 ping intervals after its first event
        events = planned(ctx, request, **options)
        yield next(events)
        time.sleep(1.0)
        yield from events

    monkeypatch.setattr(halfday_app, "plan_half_day", slow_stage)
    comments: list[str] = []
    with api.stream("POST", "/halfday/plan", json={"goal": GOAL, "now": NOW.isoformat()}, headers=auth("alice")) as r:
        raw = read_sse(r, comments)
    assert comments and all(c.startswith("ping") for c in comments)
    assert json.loads(raw[-1]["data"])["data"]["type"] == "plans"  # the pings did not disturb the events


WISHFUL = "周六下午1点到5点想吃韩国料理，再去做陶艺"  # a cuisine the data cannot serve, a phrase it cannot read


def test_the_api_and_the_cli_say_every_wish_of_the_goal_in_codes_and_in_words(api, tmp_path, monkeypatch, capsys):
    body = {"goal": WISHFUL, "now": NOW.isoformat(), "lang": "en"}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
        done = json.loads(read_sse(response)[-1]["data"])["data"]
    assert done["type"] == "plans", done
    for plan in done["result"]["plans"]:
        got = [(w["wish"]["kind"], w["wish"]["code"] or w["wish"]["phrase"], w["status"]) for w in plan["wishes"]]
        assert got == [("cuisine", "korean", "not_met"), ("unread", "做陶艺", "unread")]
    said = done["words"]["plans"][0]["wishes"]
    assert said == ["✗ Korean food: not met — no place in the data serves it",
                    "? “做陶艺”: not understood, not counted as met"]  # fmt: skip

    from core.__main__ import main

    assert main(["halfday", "--goal", WISHFUL, "--now", NOW.isoformat(), "--region", "shanghai"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["words"]["plans"][0]["wishes"][0] == "✗ 韩国料理:未满足——数据里没有提供它的地方"


def test_a_client_that_reconnects_with_last_event_id_gets_the_rest_of_its_stream_and_nobody_else_does(api):
    """Issue 33: a dropped connection is not a lost plan: GET /halfday/plan/{id}/events after the last event seen
    gives the events that followed, the same ones, ending with done."""
    body = {"goal": GOAL, "now": NOW.isoformat()}
    with api.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
        sent = read_sse(response)
    trace_id = json.loads(sent[0]["data"])["trace_id"]
    seen = 3  # the client had read events 0..3 when its connection dropped
    headers = {**auth("alice"), "Last-Event-ID": str(seen)}
    with api.stream("GET", f"/halfday/plan/{trace_id}/events", headers=headers) as response:
        assert response.status_code == 200
        rest = read_sse(response)
    assert [e["id"] for e in rest] == [e["id"] for e in sent[seen + 1 :]]
    assert [json.loads(e["data"])["type"] for e in rest] == [json.loads(e["data"])["type"] for e in sent[seen + 1 :]]
    assert json.loads(rest[-1]["data"])["type"] == "done"
    other = api.get(f"/halfday/plan/{trace_id}/events", headers=auth("bob"))
    assert other.status_code == 404 and other.json()["error"]["code"] == "NOT_FOUND"
