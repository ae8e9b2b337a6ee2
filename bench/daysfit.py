"""``python -m core bench daysfit``: what a person sees in the agent's two-day plans (issue 23), and how long it takes.

For each message (a Saturday-evening clock in Shanghai, so the days are Sunday and Monday; offline provider, the
bundled pack): seconds per plan (median of ``repeats``, a new request each time, the first run reported apart),
visits per day, each day's first event (visit or lunch), the places dropped and the suggestions swapped. The
machine's load average is reported before and after, as the machine is shared.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.app.agent import agent_deps

#: The agent's trip days are Sunday 29 and Monday 30 November 2026.
SATURDAY_EVENING = datetime(2026, 11, 28, 18, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
MESSAGES = [
    "Plan a 2-day trip in Shanghai",
    "规划2天上海行程",
    "plan 2 days in Shanghai with kids",
    "规划2天上海亲子行程",
    "plan 2 days in Shanghai with kids, including Shanghai Circus World",
]


def _plan_facts(response: Any) -> dict[str, Any]:
    timeline = response.result.payload.timeline
    days = sorted({e["day"] for e in timeline})
    firsts = {}
    for e in timeline:
        if e["kind"] not in ("travel", "wait"):
            firsts.setdefault(e["day"], e["kind"])
    visits = [e for e in timeline if e["kind"] == "visit" and e.get("part") != 2]
    return {
        "status": response.result.status,
        "visits_by_day": [sum(1 for e in visits if e["day"] == d) for d in days],
        "first_event_by_day": [firsts.get(d) for d in days],
        "dropped": [d["key"] for d in response.result.payload.dropped_items],
    }


def bench_daysfit(*, repeats: int = 3) -> dict[str, Any]:
    from core.agent import route_and_run
    from core.config import Settings, get_settings
    from core.geo.registry import make_provider

    rows = []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        settings = Settings(
            data_dir=get_settings().data_dir,
            region="shanghai",
            provider="offline",
            db_url=f"sqlite:///{tmp / 'trips.db'}",
            agent_event_log=tmp / "events.jsonl",
            kb_dir=tmp,
            browse_evidence_dir=tmp / "browse",
        )
        for n, message in enumerate(MESSAGES):
            wall: list[float] = []
            response = None
            for i in range(repeats + 1):
                provider = make_provider("offline", region="shanghai", settings=settings)
                request = {"message": message, "user_id": f"bench-{n}-{i}"}
                t0 = time.perf_counter()
                response = route_and_run(request, agent_deps(settings, provider), now=SATURDAY_EVENING)
                wall.append(time.perf_counter() - t0)
            assert response is not None
            rows.append(
                {
                    "message": message,
                    "first_run_s": round(wall[0], 4),
                    "median_s": round(statistics.median(wall[1:]), 4),
                    "max_s": round(max(wall[1:]), 4),
                    **_plan_facts(response),
                }
            )
    return {
        "benchmark": "daysfit",
        "repeats": repeats,
        "rows": rows,
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
    }
