"""Three processes plan the same trip at once on one AMap key, sharing its pacing through Redis (issue 33): the
stand-in keeps AMap's per-second limit for the key and refuses with 10021 above it, as AMap does. Together they never
exceed it: no refusal, every leg from AMap. (Each process paces at 2.5 calls a second against the key's 3: the
margin absorbs the moments between a slot and its request reaching the server on a loaded machine; without Redis
the three would send 7.5 a second.)"""

from __future__ import annotations

import json
import threading

import pytest

from bench.amap_live import by_service, plan_in_new_process, trip_request
from standins.amap import AMapLimitedStandIn
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.slow

PLACES = 6
PROCESSES = 3


def test_three_processes_on_one_key_share_its_qps_through_redis(tmp_path, monkeypatch):
    request = tmp_path / "request.json"
    request.write_text(json.dumps(trip_request(PLACES), ensure_ascii=False), encoding="utf-8")
    with RedisServer(tmp_path / "redis") as redis, AMapLimitedStandIn(qps=3, daily=5000) as amap:
        monkeypatch.setenv("OMNI_REDIS_URL", redis.url)
        results: list[dict[str, object]] = []

        def plan(n: int) -> None:  # each process its own cache: all three ask AMap for everything
            results.append(plan_in_new_process(amap.base_url, str(tmp_path / f"cache{n}"), request, 2.5))

        threads = [threading.Thread(target=plan, args=(n,)) for n in range(PROCESSES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(results) == PROCESSES
        assert dict(amap.refused) == {}, (dict(amap.refused), by_service(amap.requests))
        for result in results:
            assert result["legs_from_amap"] == result["legs"] == PLACES - 1, result
        # at most the whole trip per process (one geocode batch, a matrix column per place but the start, a route
        # per leg), fewer where one had already put an answer in the team's cache; nothing asked again after a refusal
        assert len(amap.requests) <= PROCESSES * (1 + (PLACES - 1) + (PLACES - 1))


def test_a_replan_in_another_process_without_its_own_cache_asks_amap_nothing_through_the_teams_redis(
    tmp_path, monkeypatch
):
    """The second process has no disk cache of its own (another machine): the answers the first fetched come from
    Redis, and it makes no AMap call at all."""
    request = tmp_path / "request.json"
    request.write_text(json.dumps(trip_request(PLACES), ensure_ascii=False), encoding="utf-8")
    with RedisServer(tmp_path / "redis") as redis, AMapLimitedStandIn(qps=3, daily=5000) as amap:
        monkeypatch.setenv("OMNI_REDIS_URL", redis.url)
        first = plan_in_new_process(amap.base_url, "", request, 3.0)
        cold = len(amap.requests)
        assert cold == 1 + (PLACES - 1) + (PLACES - 1) and first["legs_from_amap"] == PLACES - 1
        again = plan_in_new_process(amap.base_url, "", request, 3.0)
        assert len(amap.requests) == cold  # nothing asked again
        assert again["legs_from_amap"] == again["legs"] == PLACES - 1  # AMap's figures, from the team's cache
        calls = again["calls"]
        assert [calls[s] for s in ("geocode", "search", "detail", "matrix", "route")] == [0, 0, 0, 0, 0], calls
        assert calls["cache_hits"] > 0
