"""GET /health says whether the process shares its key's limits with the team (issue 33): off without Redis, up with
it, and degraded (still 200, never a 5xx) when Redis stops answering; planning goes on meanwhile."""

from __future__ import annotations

import pytest

from tests.support.api_client import api_test_client
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer


@pytest.fixture
def api(tmp_path, monkeypatch):
    yield from api_test_client(tmp_path, monkeypatch, data_dir=ROOT / "data", region="shanghai")


def test_health_without_redis_is_a_process_alone_by_choice(api):
    answer = api.get("/health", headers={})
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "shared_limits": "off", "amap_calls_today": []}


def test_health_follows_redis_up_and_down_and_the_api_keeps_answering(tmp_path, monkeypatch):
    with RedisServer(tmp_path / "redis") as redis:
        clients = api_test_client(tmp_path, monkeypatch, data_dir=ROOT / "data", region="shanghai",
                                  OMNI_REDIS_URL=redis.url)  # fmt: skip
        api = next(clients)
        assert api.get("/health").json() == {"status": "ok", "shared_limits": "up", "amap_calls_today": []}
        redis.stop()
        down = api.get("/health")
        assert (
            down.status_code == 200 and down.json()["status"] == "degraded" and down.json()["shared_limits"] == "down"
        )
        made = api.post("/agent/route_and_run", json={"message": "从外滩到豫园开车要多久"})
        assert made.status_code == 200 and made.json()["result"]["status"] == "OK"
