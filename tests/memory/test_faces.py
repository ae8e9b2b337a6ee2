"""The memory's faces: the API lists, recalls and forgets the key's user's memory and opens their conversations
only; the command line lists and forgets."""

from __future__ import annotations

import json

import pytest

from tests.conftest import API_KEYS, auth
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at

ALICE, BOB = sorted(API_KEYS)[:2]


@pytest.fixture
def api(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from core.auth import key_digest
    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.setenv("OMNI_REGION", "shanghai")
    monkeypatch.setenv("OMNI_PROVIDER", "offline")
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'api.db'}")
    monkeypatch.setenv("OMNI_AGENT_EVENT_LOG", str(tmp_path / "ev.jsonl"))
    monkeypatch.setenv("OMNI_API_KEYS", json.dumps({u: key_digest(k) for u, k in API_KEYS.items()}))
    get_settings.cache_clear()
    from api import app

    yield TestClient(app)
    get_settings.cache_clear()


def test_the_api_lists_recalls_and_forgets_the_keys_user_memory(api):
    said = api.post("/agent/route_and_run", json={"message": "我不吃辣，也讨厌排队"}, headers=auth(ALICE))
    assert said.status_code == 200 and said.json()["result"]["answer_text"] == "我记住了：不吃辣、不想排队。"
    api.post("/agent/route_and_run", json={"message": "帮我订老吉士，周六18:00，4位"}, headers=auth(ALICE))
    mine = api.get("/memory", headers=auth(ALICE)).json()
    assert [r["code"] for r in mine["rules"]] == ["no_queues", "no_spicy"]
    assert api.get("/memory", headers=auth(BOB)).json()["rules"] == []
    recalled = api.get("/memory/recall", params={"q": "老吉士"}, headers=auth(ALICE)).json()
    assert recalled[0]["text"].startswith("帮我订老吉士")
    assert api.get("/memory/recall", params={"q": "老吉士"}, headers=auth(BOB)).json() == []
    assert api.delete("/memory/rules/no_spicy", headers=auth(ALICE)).json() == {"forgotten": "no_spicy"}
    again = api.delete("/memory/rules/no_spicy", headers=auth(ALICE))
    assert again.status_code == 404 and again.json()["error"]["code"] == "RULE_NOT_REMEMBERED"
    assert api.delete("/memory", headers=auth(ALICE)).json()["rules"] == 1
    assert api.get("/memory", headers=auth(ALICE)).json() == {"user_id": ALICE, "rules": [], "episodes": []}


def test_the_cli_lists_and_forgets(tmp_path, core_cli):
    env = {"OMNI_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    from core.memory.store import UserMemory
    from core.models.rules import Rule

    UserMemory(database=db_at(env["OMNI_DB_URL"]), clock=lambda: SUITE_NOW).remember(
        "ann", [Rule(code="vegetarian"), Rule(code="no_spicy")]
    )

    def cli(*args):
        done = core_cli("memory", *args, env=env)  # python -m core memory ..., in this process
        return done.returncode, done.stdout, done.stderr

    code, out, _ = cli("list", "--user", "ann")
    assert code == 0 and [r["code"] for r in json.loads(out)["rules"]] == ["no_spicy", "vegetarian"]
    assert json.loads(cli("forget", "--user", "ann", "--rule", "vegetarian")[1]) == {
        "rule": "vegetarian",
        "forgotten": True,
    }
    code, _, err = cli("forget", "--user", "ann", "--rule", "spicy")
    assert code == 2 and json.loads(err)["error"]["code"] == "UNKNOWN_RULE"
    assert json.loads(cli("forget", "--user", "ann", "--all")[1])["rules"] == 1
    assert json.loads(cli("list", "--user", "bob")[1])["rules"] == []
