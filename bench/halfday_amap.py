"""``python -m bench halfday-amap``: what a half-day plan costs on AMap (issue 33), through the half-day use case as
every face runs it, against the AMap stand-in that keeps AMap's QPS (refusing over it with 10021) at the shipped
pacing (``amap_qps`` 1 unless ``--qps``).

Several goals in both languages, each from its own start, each a new request. Per goal: a cold plan (a new key, so
a new rate bucket, quota and cache: nothing known) and then ``--warm`` warm ones (the same services: their cache).
Reported per plan: the requests that reached the stand-in (by service), its refusals, the wall seconds, the legs of
the plans shown and how many are AMap's, the plans dropped on measured legs, and how many times stage 6 composed
(a relaxed search composes again). The very first plan after the process starts (it also loads the pack, the
parser's tables and OR-Tools) is reported apart; the machine's load is printed before and after.

The stand-in answers distances from the pack's straight-line estimate (``--traffic`` multiplies its driving
durations, as AMap's traffic-aware distances differ from an estimate): what is measured is the traffic.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

#: a Friday morning in Shanghai: "Saturday", "tomorrow", "this Sunday" mean the same days on every run
NOW = datetime(2026, 11, 27, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
#: (goal, start): phrasings of our own, not the issue's or the tests'
GOALS: tuple[tuple[str, str], ...] = (
    ("周六下午两点到六点，和朋友逛美术馆，再找家咖啡馆坐坐", "静安寺"),
    ("Sunday 9am to 1pm with our kids aged 6 and 9: a science museum, a park, and lunch nearby", "人民广场"),
    ("明天上午带爸妈在老城厢走走，中午吃本帮菜，人均150以内", "豫园"),
    ("Saturday 3pm-8pm, a walk by the river and dinner, vegetarian please", "外滩"),
    ("这周日下午一个人去看展，四点以后想喝杯咖啡", "徐家汇天主教堂"),
    ("Saturday afternoon: two museums, then tea somewhere, walking at most 20 minutes", "新天地"),
)
SERVICES = {"/v3/geocode/geo": "geocode", "/v3/place/text": "search", "/v3/distance": "matrix"}


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--qps", type=float, default=1.0, help="the key's QPS at the stand-in and the pacing (default 1)")
    ap.add_argument("--warm", type=int, default=1, help="warm plans after each cold one (default 1)")
    ap.add_argument("--traffic", type=float, default=1.0, help="the stand-in's driving durations x this (default 1)")
    ap.add_argument("--latency-ms", type=float, default=0.0, help="time each stand-in answer takes (default 0)")


def _services(base_url: str, key: str, qps: float, db: str) -> Any:
    from pydantic import SecretStr

    from core.app import AppServices
    from core.config import Settings

    settings = Settings(
        region="shanghai",
        provider="amap",
        amap_key=SecretStr(key),
        amap_base_url=base_url,
        amap_qps=qps,
        cache_dir=None,
        db_url=db,
    )
    return AppServices(settings)


def plan_once(services: Any, goal: str, origin: str, amap: Any) -> dict[str, Any]:
    """One plan through the use case; what it cost and what it showed."""
    from core.app.halfday import plan_half_day
    from core.models.halfday.plans import HalfDayRequest

    before, refused = len(amap.requests), sum(amap.refused.values())
    request = HalfDayRequest(goal=goal, origin=origin, now=NOW, on_degraded="continue")
    t0 = time.perf_counter()
    events = list(plan_half_day(services.context(user="bench", region="shanghai"), request))
    seconds = time.perf_counter() - t0
    done = events[-1].data
    result = done.result if done.type == "plans" else None
    legs = [s.travel for p in (result.plans if result else []) for s in p.steps]
    legs = [leg for leg in legs if leg is not None and leg.mode != "none"]
    composed = sum(1 for e in events if e.type == "skill_call" and e.data.tool == "rank_places_for_plan")
    return {
        "seconds": round(seconds, 2),
        "requests": len(amap.requests) - before,
        "by_service": dict(Counter(SERVICES.get(p, p) for p in amap.requests[before:])),
        "refused": sum(amap.refused.values()) - refused,
        "outcome": done.type if result is None else "plans",
        "plans": len(result.plans) if result else 0,
        "legs": len(legs),
        "legs_from_amap": sum(1 for leg in legs if leg.source == "amap"),
        # getattr: the same bench runs on the code before issue 33 (no dropped plans) for the "before" figures
        "dropped": len(getattr(result, "dropped_plans", [])) if result else 0,
        "composed": composed,
        "warnings": list(result.warnings) if result else [],
    }


def bench_halfday_amap(
    *, qps: float, warm: int, traffic: float, latency_s: float, progress: Any = None
) -> dict[str, Any]:
    from standins.amap import AMapLimitedStandIn

    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    kwargs: dict[str, Any] = {"qps": qps, "daily": 100_000, "latency_s": latency_s}
    if traffic != 1.0:
        kwargs["traffic"] = traffic
    with tempfile.TemporaryDirectory(prefix="omni-bench-halfday-amap-") as tmp, AMapLimitedStandIn(**kwargs) as amap:
        db = f"sqlite:///{Path(tmp) / 'halfday.db'}"
        first = _services(amap.base_url, "bench-first-plan-key-0", qps, db)
        goal, origin = GOALS[0]
        rows.append({"goal": goal, "run": "first after start", **plan_once(first, goal, origin, amap)})
        if progress is not None:
            progress(json.dumps(rows[-1], ensure_ascii=False))
        for n, (goal, origin) in enumerate(GOALS):
            services = _services(amap.base_url, f"bench-halfday-key-{n:02d}", qps, db)  # a new key: nothing known
            for run in ["cold"] + ["warm"] * warm:
                row = {"goal": goal, "run": run, **plan_once(services, goal, origin, amap)}
                rows.append(row)
                if progress is not None:
                    progress(json.dumps(row, ensure_ascii=False))
    cold = [r for r in rows if r["run"] == "cold"]
    warm_rows = [r for r in rows if r["run"] == "warm"]
    return {
        "benchmark": "halfday-amap",
        "qps": qps,
        "traffic": traffic,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cold": _summary(cold),
        "warm": _summary(warm_rows),
        "rows": rows,
    }


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {}
    seconds = [r["seconds"] for r in rows]
    return {
        "plans": len(rows),
        "median_s": round(statistics.median(seconds), 2),
        "max_s": max(seconds),
        "requests_median": statistics.median(r["requests"] for r in rows),
        "requests_max": max(r["requests"] for r in rows),
        "refused": sum(r["refused"] for r in rows),
        "legs_from_amap": f"{sum(r['legs_from_amap'] for r in rows)}/{sum(r['legs'] for r in rows)}",
    }


def run(args: argparse.Namespace) -> int:
    from core.errors import InputError

    if not args.qps > 0:
        raise InputError(f"--qps must be a positive number, not {args.qps:g}", field="qps")
    if args.warm < 0:
        raise InputError(f"--warm must be 0 or more, not {args.warm}", field="warm")
    if not args.traffic > 0:
        raise InputError(f"--traffic must be a positive number, not {args.traffic:g}", field="traffic")
    out = bench_halfday_amap(
        qps=args.qps,
        warm=args.warm,
        traffic=args.traffic,
        latency_s=args.latency_ms / 1000,
        progress=lambda line: print(line, flush=True),
    )
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, ensure_ascii=False))
    return 0
