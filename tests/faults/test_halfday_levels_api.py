"""Levels 2 and 3 of the half-day planner over HTTP: POST /halfday/plan (server-sent events) with a routing service
that fails. The stream pauses at the level-2 question until POST /halfday/plan/{trace_id}/resume answers it (a real
server in a thread: the test client would hold the whole stream before returning it), or goes on with the request's
``on_degraded``, or with the default when nobody answers in time. Level 3 carries the conversation offer and the
support contact in done(error)."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest
import uvicorn

from tests.conftest import API_KEYS, auth
from tests.faults.test_halfday_levels import CONTACT, broken_planner
from tests.halfday.conftest import NOW

BODY = {"goal": "周六下午去公园", "now": NOW.isoformat()}


@pytest.fixture
def settings(tmp_path, monkeypatch):
    import api
    from core.auth import key_digest
    from core.config import get_settings
    from core.halfday.breaker import HalfDayBreakers

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.delenv("OMNI_HALFDAY_MOCK_TOOLS", raising=False)
    monkeypatch.setenv("OMNI_REGION", "shanghai")
    monkeypatch.setenv("OMNI_PROVIDER", "offline")
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'api.db'}")
    monkeypatch.setenv("OMNI_WARM_UP_ON_START", "0")  # the server below serves at once (no warm-up to wait for)
    monkeypatch.setenv("OMNI_HALFDAY_SUPPORT_CONTACT", CONTACT)
    monkeypatch.setenv("OMNI_API_KEYS", json.dumps({u: key_digest(k) for u, k in API_KEYS.items()}))
    get_settings.cache_clear()
    monkeypatch.setattr(api.SERVICES, "halfday_breakers", HalfDayBreakers())  # the API root's breakers, closed
    yield get_settings()
    get_settings.cache_clear()


@pytest.fixture
def broken(settings, monkeypatch):
    """Every half-day plan of the API on a routing service that fails (the planner the use case builds)."""
    from core.app import halfday as halfday_app

    monkeypatch.setattr(halfday_app, "planner", lambda ctx: broken_planner(ctx.settings))


@pytest.fixture
def server(settings):
    from api import app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.started, "the API server did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def _events(lines) -> list[dict]:
    """Each SSE message's data, parsed, as the lines arrive."""
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line.partition(":")[2].strip())


def _stream_answering(server: str, answer: str | None, body: dict) -> tuple[list[dict], list[int]]:
    """Read the stream; at the level-2 question, answer it (None: do not) from a second connection."""
    seen, statuses = [], []
    with httpx.Client(base_url=server, timeout=60) as client:
        with client.stream("POST", "/halfday/plan", json=body, headers=auth("alice")) as response:
            assert response.status_code == 200
            for event in _events(response.iter_lines()):
                seen.append(event)
                data = event["data"]
                if answer and data.get("type") == "warning" and data.get("choice"):
                    with httpx.Client(base_url=server, timeout=30) as other:
                        # another user cannot answer it; the owner can, once
                        refused = other.post(
                            f"/halfday/plan/{event['trace_id']}/resume", json={"choice": answer}, headers=auth("bob")
                        )
                        statuses.append(refused.status_code)
                        given = other.post(
                            f"/halfday/plan/{event['trace_id']}/resume", json={"choice": answer}, headers=auth("alice")
                        )
                        statuses.append(given.status_code)
    return seen, statuses


def _chosen(events: list[dict]) -> list[tuple[str, str]]:
    return [(e["data"]["choice"], e["data"]["by"]) for e in events if e["data"].get("type") == "choice"]


@pytest.mark.parametrize("answer", ["continue", "stop"])
def test_level2_the_stream_pauses_until_the_person_answers(server, broken, answer):
    events, statuses = _stream_answering(server, answer, BODY)
    assert statuses == [404, 200]
    ask = next(e for e in events if e["data"].get("choice"))
    assert ask["data"]["code"] == "DEGRADED_DATA" and ask["data"]["choice"]["options"] == ["continue", "stop"]
    assert _chosen(events) == [(answer, "person")]
    done = events[-1]["data"]
    if answer == "continue":
        assert done["type"] == "plans" and done["result"]["travel_source"] == "offline_estimate"
    else:
        assert done["type"] == "error" and done["error"]["code"] == "DEGRADED_DECLINED"


def test_level2_unanswered_the_default_applies_after_the_wait(server, broken, monkeypatch):
    from core.config import get_settings

    monkeypatch.setenv("OMNI_HALFDAY_DEGRADED_WAIT_S", "0.3")
    monkeypatch.setenv("OMNI_HALFDAY_DEGRADED_DEFAULT", "stop")
    get_settings.cache_clear()
    events, _ = _stream_answering(server, None, BODY)
    ask = next(e for e in events if e["data"].get("choice"))
    assert ask["data"]["choice"]["wait_s"] == 0.3 and ask["data"]["choice"]["default"] == "stop"
    assert _chosen(events) == [("stop", "default")]
    assert events[-1]["data"]["error"]["code"] == "DEGRADED_DECLINED"


@pytest.mark.parametrize("decided", ["continue", "stop"])
def test_level2_a_client_that_decided_beforehand_is_not_asked(server, broken, decided):
    events, _ = _stream_answering(server, None, {**BODY, "on_degraded": decided})
    assert not any(e["data"].get("choice") and e["data"].get("type") == "warning" for e in events)
    assert _chosen(events) == [(decided, "request")]
    assert events[-1]["data"]["type"] == ("plans" if decided == "continue" else "error")


def test_resume_names_no_waiting_stream(server, settings):
    with httpx.Client(base_url=server, timeout=30) as client:
        r = client.post("/halfday/plan/nope/resume", json={"choice": "continue"}, headers=auth("alice"))
        assert r.status_code == 404 and r.json()["error"]["code"] == "NOT_WAITING"
        r = client.post("/halfday/plan/nope/resume", json={"choice": "maybe"}, headers=auth("alice"))
        assert r.status_code == 422


def test_level3_done_error_carries_the_conversation_offer_and_the_contact(server, settings, monkeypatch):
    from core.app import halfday as halfday_app

    real = halfday_app.planner

    def schema_breaking(ctx):
        planner = real(ctx)
        planner.registry.replace("plan_time_slots", lambda _inp: {"slots": "none"})
        return planner

    monkeypatch.setattr(halfday_app, "planner", schema_breaking)
    events, _ = _stream_answering(server, None, BODY)
    error = events[-1]["data"]["error"]
    assert error["code"] == "TOOL_OUTPUT_INVALID" and error["tool"] == "plan_time_slots"
    assert error["fallback"] == "conversation" and error["contact"] == CONTACT
    assert error["trace_id"] == events[0]["trace_id"]
