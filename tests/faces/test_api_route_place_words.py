"""A place not settled, in the request's language (issue 31): POST /route/plan whose stop's name and address are two
places answers AMBIGUOUS_PLACE with its message from the catalog in the Accept-Language's language, naming both."""

from __future__ import annotations

import json
import re

import pytest

from core.auth import key_digest
from tests.conftest import API_KEYS, auth

HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def client(tmp_path, monkeypatch):
    """The API on the installed Shanghai pack (offline provider)."""
    from fastapi.testclient import TestClient

    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    env = {
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'ambiguous.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
        "OMNI_API_KEYS": json.dumps({user: key_digest(key) for user, key in API_KEYS.items()}),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    from api import app

    yield TestClient(app)
    get_settings.cache_clear()


def _body() -> dict:
    return {
        "origin_mode": "fixed",
        "origin_address": "静安寺",
        "destination_address": "上海博物馆",
        "stops": [{"name": "豫园", "address": "南京东路"}, "新天地"],
        "need_deep_link": False,
    }


def test_the_name_address_ambiguity_is_worded_in_chinese_for_a_chinese_reader(client):
    answer = client.post("/route/plan", json=_body(), headers={**auth("alice"), "Accept-Language": "zh-CN"})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "AMBIGUOUS_PLACE" and error["field"] == "stops.0"
    assert not re.search(r"[A-Za-z]{4,}", error["message"]), error["message"]
    assert "豫园" in error["message"] and "南京" in error["message"]
    assert error["candidates"]["stops.0"]["reason"] == "name_address"


@pytest.mark.parametrize("lang", ["en", None])
def test_the_name_address_ambiguity_is_worded_in_english_for_an_english_reader(client, lang):
    headers = {**auth("alice"), **({"Accept-Language": lang} if lang else {})}
    error = client.post("/route/plan", json=_body(), headers=headers).json()["error"]
    assert error["code"] == "AMBIGUOUS_PLACE"
    message = error["message"]
    assert message.startswith("Stop 1 '豫园': The name points to Yu Garden and the address to Nanjing Road"), message
    # the places by their English names, the district too; only what was typed stays as typed
    assert "(Huangpu)" in message and not HAN.search(message.replace("'豫园'", "")), message


def test_the_cli_words_the_ambiguity_in_its_lang(tmp_path):
    import os
    import subprocess
    import sys

    from tests.support.paths import ROOT

    request = tmp_path / "request.json"
    request.write_text(json.dumps(_body(), ensure_ascii=False), encoding="utf-8")
    env = {**os.environ, "OMNI_REGION": "shanghai", "OMNI_PROVIDER": "offline", "OMNI_CACHE_DIR": "",
           "OMNI_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}"}  # fmt: skip
    env.pop("OMNI_DATA_DIR", None)
    said = {}
    for lang in ("zh", "en"):
        run = subprocess.run([sys.executable, "-m", "core", "plan", "--request", str(request), "--lang", lang],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert run.returncode == 2, run.stderr
        said[lang] = json.loads(run.stderr.strip().splitlines()[-1])["error"]["message"]
    assert said["zh"].startswith("第 1 个途经点“豫园”：名称指向豫园，地址却指向南京路步行街"), said["zh"]
    assert "Nanjing Road Pedestrian Street" in said["en"] and not HAN.search(said["en"].replace("'豫园'", ""))


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-CN", "在赫尔辛基地图数据中找不到：起点“赫尔辛基西站”。请检查拼写"),
        ("en", "Not found in the Helsinki map data: The start '赫尔辛基西站'. Check the spelling"),
    ],
)
def test_a_place_not_found_is_said_in_the_callers_language(client, lang, said):
    body = {"origin_mode": "fixed", "origin_address": "赫尔辛基西站", "destination_address": "Ateneum",
            "stops": ["Kiasma"], "need_deep_link": False}  # fmt: skip
    answer = client.post("/route/plan?region=helsinki", json=body, headers={**auth("alice"), "Accept-Language": lang})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["field"]) == ("UNRESOLVED_POINT", "origin_address")
    assert error["message"].startswith(said), error["message"]
