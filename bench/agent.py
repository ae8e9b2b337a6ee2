"""``python -m core bench agent``: the agent's targets, measured offline on the bundled pack.

Router P95 (ms) over a bilingual message set; System 1 end-to-end P95 (ms, route_and_run of
fast-path messages); a 3-day plan through System 2 with the default budget (seconds).
Uses a throw-away SQLite file and event log, so it never touches the user's data.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from core.config import get_settings

ROUTER_MESSAGES = [
    "明天天气",
    "推荐新宿拉面",
    "删除清水寺",
    "规划 5 天游+冷门+还能订到",
    "官网查房",
    "赶不上日落就改横滨",
    "从外滩到豫园要多久",
    "豫园几点开门",
    "上海博物馆门票多少钱",
    "把外滩移到第二天",
    "第一天和第二天对调",
    "帮我订和平饭店",
    "退款",
    "清空行程",
    "你好",
    "What's the weather tomorrow?",
    "Recommend ramen in Shinjuku",
    "Remove Kiyomizu-dera from my trip",
    "Plan a 5-day trip with hidden gems that I can still book",
    "Check room availability on the official website",
    "If we miss the sunset, switch to Yokohama",
    "How long from the Bund to Yu Garden on foot?",
    "rename trip to Honeymoon",
    "swap day 1 and day 2",
]
SYSTEM1_MESSAGES = [
    "明天天气",
    "推荐新宿拉面",
    "豫园几点开门",
    "从外滩到豫园要多久",
    "加上豫园",
    "把豫园移到第二天",
    "删除清水寺",
    "上海博物馆门票多少钱",
    "Recommend a museum with free entry",
    "What's the weather tomorrow?",
]


def _p95(xs: list[float]) -> float:
    return round(float(np.percentile(xs, 95)), 3)


def bench_agent(*, repeats: int = 20) -> dict:
    from bench.slots import bench_slots
    from core.agent.router import route_message
    from core.app.agent import ask
    from core.app.context import AppServices

    base = get_settings()
    tmp = Path(tempfile.mkdtemp(prefix="omni-bench-"))
    settings = base.model_copy(
        update={"db_url": f"sqlite:///{tmp / 'bench.db'}", "agent_event_log": tmp / "events.jsonl"}
    )
    for m in ROUTER_MESSAGES:  # warm-up (imports, regex compilation)
        route_message(m, settings=get_settings())
    router_ms = []
    for _ in range(repeats):
        for m in ROUTER_MESSAGES:
            router_ms.append(route_message(m, settings=get_settings()).router_ms)
    services = AppServices(settings)  # the process's root, as a face builds it; each message is a new request

    def route_and_run(request: dict[str, str]) -> Any:
        return ask(services.context(user=request["user_id"]), request)

    route_and_run({"message": "豫园几点开门", "user_id": "bench"})  # warm-up: provider, KB
    s1 = []
    for _ in range(max(1, repeats // 4)):
        for m in SYSTEM1_MESSAGES:
            t0 = time.perf_counter()
            r = route_and_run({"message": m, "user_id": "bench"})
            s1.append((time.perf_counter() - t0) * 1000)
            assert r.observability.system_mode == "SYSTEM1", m
    plans = []
    status = None
    for _ in range(3):
        t0 = time.perf_counter()
        r = route_and_run({"message": "规划3天上海行程", "user_id": "bench"})
        plans.append(time.perf_counter() - t0)
        status = r.result.status
    return {
        "router_p95_ms": _p95(router_ms),
        "router_messages": len(router_ms),
        "system1_p95_ms": _p95(s1),
        "system1_requests": len(s1),
        "system2_3day_plan_s": round(statistics.median(plans), 3),
        "system2_3day_plan_status": status,
        "slots": {
            k: v for k, v in bench_slots().items() if k != "failures"
        },  # issue 22 §1: tests/agent/data/slots_eval.jsonl
        "targets": {"router_p95_ms": 5, "system1_p95_ms": 300, "system2_3day_plan_s": 5, "slots_overall": 0.95},
    }
