"""``python -m bench team``: what Redis costs and what it saves a team on one key (issue 33).

1. The cost of a paced call: each repeat a new key (a new bucket, as a new process's first call is), unpaced rate, so
   the time is Redis's round trip and the Lua script, not a wait; the process's own bucket beside it.
2. Three processes plan the same trip at once on one AMap key against the stand-in that refuses over its QPS
   (10021), each with its own cache: without Redis and with it. Refusals, calls, the slowest process's seconds.

The machine's load is printed with the figures; the first call after Redis starts is reported apart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--calls", type=int, default=2000, help="paced calls timed (default 2000)")
    ap.add_argument("--places", type=int, default=6, help="places of the trip the three processes plan (default 6)")
    ap.add_argument("--qps", type=float, default=3.0, help="the key's QPS at the stand-in (default 3)")
    ap.add_argument("--pace", type=float, default=2.5, help="each process's OMNI_AMAP_QPS (default 2.5)")


def _quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {
        "p50_ms": round(pick(0.5) * 1000, 3),
        "p95_ms": round(pick(0.95) * 1000, 3),
        "p99_ms": round(pick(0.99) * 1000, 3),
    }


def paced_call_cost(url: str, calls: int) -> dict[str, Any]:
    from core.geo.ratelimit import TokenBucket
    from core.geo.redis_limits import RedisBucket, RedisLink

    link = RedisLink(url)
    first_t0 = time.perf_counter()
    RedisBucket(link, "bench:first", TokenBucket(1e6)).acquire()
    first = time.perf_counter() - first_t0
    shared, local = [], []
    for n in range(calls):
        bucket = RedisBucket(link, f"bench:{n}", TokenBucket(1e6))
        t0 = time.perf_counter()
        bucket.acquire()
        shared.append(time.perf_counter() - t0)
        own = TokenBucket(1e6)
        t0 = time.perf_counter()
        own.acquire()
        local.append(time.perf_counter() - t0)
    return {
        "first_call_ms": round(first * 1000, 3),
        "redis": _quantiles(shared),
        "process_alone": _quantiles(local),
        "mean_extra_ms": round((statistics.fmean(shared) - statistics.fmean(local)) * 1000, 3),
    }


def three_processes(places: int, qps: float, pace: float, redis_url: str | None) -> dict[str, Any]:
    from bench.amap_live import by_service, plan_in_new_process, trip_request
    from standins.amap import AMapLimitedStandIn

    with (
        tempfile.TemporaryDirectory(prefix="omni-bench-team-") as tmp,
        AMapLimitedStandIn(qps=qps, daily=50_000) as amap,
    ):
        request = Path(tmp) / "request.json"
        request.write_text(json.dumps(trip_request(places), ensure_ascii=False), encoding="utf-8")
        saved = os.environ.get("OMNI_REDIS_URL")
        if redis_url:
            os.environ["OMNI_REDIS_URL"] = redis_url
        else:
            os.environ.pop("OMNI_REDIS_URL", None)
        results: list[dict[str, Any]] = []
        try:
            threads = [
                threading.Thread(
                    target=lambda n=n: results.append(plan_in_new_process(amap.base_url, f"{tmp}/c{n}", request, pace))
                )
                for n in range(3)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            if saved is None:
                os.environ.pop("OMNI_REDIS_URL", None)
            else:
                os.environ["OMNI_REDIS_URL"] = saved
        return {
            "redis": bool(redis_url),
            "calls": len(amap.requests),
            "by_service": by_service(amap.requests),
            "refused": dict(amap.refused),
            "slowest_s": max(r["elapsed_s"] for r in results),
            "legs_from_amap": sum(r["legs_from_amap"] for r in results),
            "legs": sum(r["legs"] for r in results),
        }


def run(args: argparse.Namespace) -> int:
    from tests.support.redis_server import RedisServer

    with tempfile.TemporaryDirectory(prefix="omni-bench-redis-") as folder, RedisServer(Path(folder)) as redis:
        print(json.dumps({"load_before": os.getloadavg()}))
        print(json.dumps({"paced_call": paced_call_cost(redis.url, args.calls), "load": os.getloadavg()}))
        for url in (None, redis.url):
            row = three_processes(args.places, args.qps, args.pace, url)
            print(json.dumps({"three_processes": row, "load": os.getloadavg()}, ensure_ascii=False))
    return 0
