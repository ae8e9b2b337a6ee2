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
        # each process asked for the whole trip (one geocode batch, a matrix column per place but the start, a
        # route per leg) and no call was asked twice
        assert len(amap.requests) == PROCESSES * (1 + (PLACES - 1) + (PLACES - 1))
