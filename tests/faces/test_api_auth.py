"""Who the API caller is: an API key (stored hashed), never the body. A second user's key can neither read,
edit, confirm nor learn of the first user's trips; every refusal is a structured error."""

from __future__ import annotations

import json

import pytest

from core.auth import key_digest, user_for_key
from core.config import Settings
from tests.conftest import auth


def route(client, message, *, as_user="alice", **kw):
    return client.post("/agent/route_and_run", json={"message": message, **kw}, headers=auth(as_user))


def test_no_key_or_a_wrong_key_is_401_with_a_structured_error(client):
    for headers in ({"Authorization": ""}, {"Authorization": "Bearer not-a-key"}, {"X-API-Key": "nope"}):
        r = client.post("/agent/route_and_run", json={"message": "明天天气"}, headers=headers)
        assert r.status_code == 401
        assert r.json()["error"]["code"] == "UNAUTHORIZED" and r.json()["error"]["field"] == "authorization"
    assert client.get("/agent/metrics", headers={"Authorization": ""}).status_code == 401
    assert (
        client.post(
            "/agent/route_and_run", json={"message": "明天天气"}, headers={"X-API-Key": "key-bob-0123456789"}
        ).status_code
        == 200
    )


def test_keys_are_stored_as_digests_and_compared_whole():
    settings = Settings(api_keys={"alice": key_digest("k-1234567890")})
    assert user_for_key("k-1234567890", settings) == "alice"
    assert user_for_key("k-123456789", settings) is None and user_for_key(key_digest("k-1234567890"), settings) is None
    assert user_for_key("k-1234567890", Settings(api_keys={})) is None


def test_an_issued_key_lets_its_user_in_and_keeps_the_others(client, monkeypatch, capsys):
    from core.__main__ import main
    from core.config import get_settings

    assert main(["apikey", "new", "carol@example.org"]) == 0
    issued = json.loads(capsys.readouterr().out)
    stored = json.loads(issued["OMNI_API_KEYS"])
    assert set(stored) == {"alice", "bob", "mallory", "carol@example.org"}
    assert issued["key"] not in issued["OMNI_API_KEYS"]  # only the digest is stored
    monkeypatch.setenv("OMNI_API_KEYS", issued["OMNI_API_KEYS"])
    get_settings.cache_clear()
    as_carol = {"X-API-Key": issued["key"]}
    r = client.post(
        "/agent/route_and_run", json={"message": "明天天气", "user_id": "carol@example.org"}, headers=as_carol
    )
    assert r.status_code == 200
    r = client.post("/agent/route_and_run", json={"message": "明天天气", "user_id": "alice"}, headers=as_carol)
    assert r.status_code == 403
    assert route(client, "明天天气", as_user="bob").status_code == 200

    assert main(["apikey", "new", "../carol"]) == 2
    assert json.loads(capsys.readouterr().err.splitlines()[-1])["error"]["field"] == "user"


def test_a_body_cannot_name_another_user(client):
    r = route(client, "加上外滩", as_user="mallory", user_id="alice")
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "FORBIDDEN",
        "message": "user_id names another user than the API key's",
        "field": "user_id",
    }
    assert route(client, "加上外滩", user_id="alice").status_code == 200  # naming yourself is fine


def test_another_users_trip_is_as_absent_as_a_trip_that_never_existed(client):
    made = route(client, "加上外滩").json()
    trip_id = made["result"]["payload"]["trip"]["trip_id"]
    assert trip_id.startswith("trip-")
    theirs = route(client, "删除外滩", as_user="mallory", trip_id=trip_id).json()
    never = route(client, "删除外滩", as_user="mallory", trip_id="trip-0000000000000000").json()
    assert theirs["result"]["status"] == never["result"]["status"] == "NEED_MORE_INFO"
    assert theirs["result"]["answer_text"] == never["result"]["answer_text"]  # nothing tells the two apart
    assert "外滩" not in str(theirs["result"]["payload"]) and "nodes" not in str(theirs["result"]["payload"])
    still = route(client, "加上豫园", trip_id=trip_id).json()  # alice's trip kept its place
    assert [n["name"] for n in still["result"]["payload"]["trip"]["nodes"]] == ["外滩", "豫园"]


def test_a_client_cannot_choose_the_id_of_a_new_trip(client):
    r = route(client, "加上外滩", as_user="bob", trip_id="trip-chosen-by-client").json()
    assert r["result"]["status"] == "NEED_MORE_INFO"  # an id that is not the caller's trip is not created
    fresh = route(client, "加上外滩", as_user="bob").json()["result"]["payload"]["trip"]["trip_id"]
    assert fresh != "trip-chosen-by-client" and fresh.startswith("trip-")


def test_another_user_cannot_confirm_a_dry_run(client):
    body = route(client, "和平饭店的房费帮我退款").json()  # a commit the gate holds
    dr_id = body["result"]["payload"]["dry_run"]["dry_run_id"]
    stolen = route(client, "确认", as_user="mallory", options={"confirm_dry_run_id": dr_id}).json()
    assert stolen["result"]["status"] == "FAILED" and stolen["result"]["error_code"] == "CONFIRMATION_INVALID"
    assert route(client, "确认", options={"confirm_dry_run_id": dr_id}).json()["result"]["status"] == "OK"


def test_bad_bodies_are_structured_4xx(client):
    r = client.post("/agent/route_and_run", json={"message": ""})
    assert r.status_code == 422 and r.json()["error"]["field"] == "message"
    r = client.post("/agent/route_and_run", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_INPUT"
    r = client.post("/agent/route_and_run", content=b"x" * 300_000, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "BODY_TOO_LARGE"


@pytest.mark.parametrize("message", ["\ud800 外滩", "明天天气 \udfff", "加上\x00外滩"])
def test_lone_surrogates_and_control_characters_never_break_the_answer(client, message):
    body = json.dumps({"message": message}).encode("ascii")  # JSON escapes: \\ud800 arrives as a lone surrogate
    r = client.post("/agent/route_and_run", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    r.json()  # valid UTF-8 JSON


def test_accept_language_names_the_first_language_the_api_speaks(client):
    from tests.conftest import auth as _auth

    body = {"message": "What's the weather tomorrow?"}
    for header, expected in (("fr-FR, zh;q=0.9", "没有可用的实时天气数据源"), ("fr, de", "No live weather source")):
        r = client.post("/agent/route_and_run", json=body, headers={**_auth("alice"), "Accept-Language": header})
        assert expected in r.json()["result"]["answer_text"], (header, r.json()["result"]["answer_text"])
