"""The reservation endpoints: dry run, consent, confirmation with the dry run's token, list and cancel, all bound
to the API key's user (another user's reservation is "not found")."""

from __future__ import annotations

from tests.conftest import auth

BOOK = {"item_id": "a-peace-hotel", "date": "2030-01-05", "time": "19:00", "party_size": 2, "contact": "Li"}


def test_reserve_confirm_list_and_cancel_through_the_api(client):
    dry = client.post("/reservations", json=BOOK, headers=auth("alice"))
    assert dry.status_code == 200, dry.text
    body = dry.json()
    rid, token = body["reservation"]["id"], body["token"]
    assert body["reservation"]["status"] == "quoted" and body["reservation"]["quote"]["total"] == 3000.0
    assert body["reservation"]["transitions"] == []
    assert client.get("/reservations", headers=auth("alice")).json() == []  # a quote is not a reservation
    confirm = f"/reservations/{rid}/confirm"
    no_consent = client.post(confirm, json={"token": token, "idempotency_key": "k1", "consent": False},
                             headers=auth("alice"))  # fmt: skip
    assert no_consent.status_code == 403 and no_consent.json()["error"]["code"] == "CONSENT_REQUIRED"
    stolen = client.post(confirm, json={"token": token, "idempotency_key": "k1", "consent": True}, headers=auth("bob"))
    assert stolen.status_code == 409 and stolen.json()["error"]["code"] == "TOKEN_INVALID"
    done = client.post(confirm, json={"token": token, "idempotency_key": "k1", "consent": True}, headers=auth("alice"))
    assert done.status_code == 200 and done.json()["reservation"]["status"] == "confirmed"
    moves = [(t["from_status"], t["to_status"]) for t in done.json()["reservation"]["transitions"]]
    assert moves == [(None, "pending"), ("pending", "confirmed")]  # made pending by the confirmation, then accepted
    retry = client.post(confirm, json={"token": token, "idempotency_key": "k1", "consent": True}, headers=auth("alice"))
    assert retry.json()["replayed"] is True

    assert [r["id"] for r in client.get("/reservations", headers=auth("alice")).json()] == [rid]
    assert client.get("/reservations", headers=auth("bob")).json() == []
    theirs = client.post(f"/reservations/{rid}/cancel", json={}, headers=auth("bob"))
    assert theirs.status_code == 404 and theirs.json()["error"]["code"] == "NOT_FOUND"

    cancel_dry = client.post(f"/reservations/{rid}/cancel", json={}, headers=auth("alice")).json()
    assert cancel_dry["action"] == "cancel" and cancel_dry["fee"] == 0.0
    cancelled = client.post(f"/reservations/{rid}/cancel", json={"token": cancel_dry["token"], "consent": True},
                            headers=auth("alice"))  # fmt: skip
    assert cancelled.status_code == 200 and cancelled.json()["reservation"]["status"] == "cancelled"


def test_refusals_have_their_own_statuses_and_nothing_works_without_a_key(client):
    unknown = client.post("/reservations", json={**BOOK, "item_id": "a-bund"}, headers=auth("alice"))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "NOT_BOOKABLE"
    off_slot = client.post("/reservations", json={**BOOK, "time": "19:10"}, headers=auth("alice"))
    assert off_slot.status_code == 409 and off_slot.json()["error"]["field"] == "time"
    past = client.post("/reservations", json={**BOOK, "date": "2020-01-05"}, headers=auth("alice"))
    assert past.status_code == 409 and past.json()["error"]["code"] == "TOO_LATE"
    keyless = {"Authorization": ""}  # the client sends alice's key unless told otherwise
    assert client.post("/reservations", json=BOOK, headers=keyless).status_code == 401
    assert client.get("/reservations", headers=keyless).status_code == 401


def test_a_half_day_step_is_reserved_through_stage_7_under_the_plans_trace_id(client, caplog):
    import logging

    step = {"place_id": "a-peace-hotel", "date": "2030-01-05", "time": "19:00", "party_size": 2, "trace_id": "plan-42"}
    with caplog.at_level(logging.INFO, logger="omni.halfday.tools"):
        dry = client.post("/halfday/reserve", json=step, headers=auth("alice"))
    assert dry.status_code == 200, dry.text
    [logged] = [r.halfday for r in caplog.records if getattr(r, "halfday", {}).get("tool") == "mock_reserve"]
    assert (logged["trace_id"], logged["stage"], logged["outcome"]) == ("plan-42", 7, "ok")
    body = dry.json()
    assert body["reservation"]["status"] == "quoted" and body["reservation"]["user_id"] == "alice"
    assert client.get("/reservations", headers=auth("alice")).json() == []
    rid, token = body["reservation"]["id"], body["token"]
    confirm = {"token": token, "idempotency_key": "hd-1", "consent": True}
    assert client.post(f"/reservations/{rid}/confirm", json=confirm, headers=auth("bob")).status_code == 409
    done = client.post(f"/reservations/{rid}/confirm", json=confirm, headers=auth("alice"))
    assert done.status_code == 200 and done.json()["reservation"]["status"] == "confirmed"
    gone = client.post("/halfday/reserve", json={**step, "region": "atlantis"}, headers=auth("alice"))
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "REGION_NOT_FOUND"
    late = client.post("/halfday/reserve", json={**step, "date": "2020-01-05"}, headers=auth("alice"))
    assert late.status_code == 409 and late.json()["error"]["code"] == "TOO_LATE"


def test_the_openapi_models_say_a_dry_run_is_a_quote(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    status = schemas["Reservation"]["properties"]["status"]
    assert status["enum"] == ["quoted", "pending", "confirmed", "failed", "cancelled"]
    assert "quote" in schemas["DryRun"]["description"]


def test_bookings_need_no_map_provider_one_that_cannot_be_built_fails_only_what_plans(client, monkeypatch):
    from core.config import get_settings

    monkeypatch.setenv("OMNI_PROVIDER", "amap")  # chosen, but no key: the map provider cannot be built
    monkeypatch.delenv("OMNI_AMAP_KEY", raising=False)
    get_settings.cache_clear()
    assert client.get("/reservations", headers=auth("alice")).json() == []
    dry = client.post("/reservations", json=BOOK, headers=auth("alice"))
    assert dry.status_code == 200 and dry.json()["token"], dry.text
    memory = client.get("/halfday/memory", headers=auth("alice"))
    assert memory.status_code == 200, memory.text
    planned = client.post("/agent/route_and_run", json={"message": "从外滩到豫园要多久"}, headers=auth("alice"))
    assert planned.status_code == 502 and planned.json()["error"]["code"] == "PROVIDER_AUTH_FAILED"
