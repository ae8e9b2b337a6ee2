"""``python -m core bench halfday [--repeats N] [--pg URL]``: the half-day planner's targets (issue 11).

- time to the first event and to ``done`` for a set of goals in both languages (offline, the bundled packs), over
  ``repeats`` runs each, in one process after a warm-up plan (the first plan also loads the pack and the solver);
- 50 concurrent confirmations of one planned step's dry run → exactly one reservation, on SQLite and PostgreSQL
  (the reservation benchmark's race, on a step the planner chose).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tests.support.db import db_at

GOALS = [
    "周六下午带5岁的孩子去博物馆，人均200以内",
    "明天上午想去公园散步，然后吃本帮菜",
    "Saturday afternoon with my wife, art galleries and coffee, under 300 yuan each",
    "tomorrow 2pm to 6pm, vegetarian lunch is not needed, just history and a quiet walk",
    "下周日中午和爸妈吃饭然后逛逛老城厢，不想走太多路",
    "this Sunday 10am-4pm, rainy day, kids aged 4 and 9, indoor fun",
]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def bench_halfday(*, repeats: int = 3, pg_url: str | None = None) -> dict[str, Any]:
    from core.config import get_settings
    from core.geo.registry import make_provider
    from core.models.halfday.plans import HalfDayRequest

    settings = get_settings()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="omni-bench-halfday-") as tmp:
        url = f"sqlite:///{tmp}/halfday.db"
        provider = make_provider("offline", region="shanghai", settings=settings)
        planner = _planner(provider, settings, url)
        # plan at 09:00 today, local: relative goals ("tomorrow morning") then mean the same hours in every run
        now = datetime.now(ZoneInfo(provider.region.timezone)).replace(hour=9, minute=0, second=0, microsecond=0)
        planner.plan(HalfDayRequest(goal=GOALS[0], now=now))  # warm-up: pack, parser tables, OR-Tools
        first_ms: list[float] = []
        total_ms: list[float] = []
        for goal in GOALS:
            outcomes = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                first = None
                done: Any = None
                for ev in planner.events(HalfDayRequest(goal=goal, now=now)):
                    if first is None:
                        first = time.perf_counter() - t0
                    done = ev
                total = time.perf_counter() - t0
                first_ms.append(1000 * (first or 0.0))
                total_ms.append(1000 * total)
                outcomes.append(done.data.type)
            result = done.data.result.model_dump(mode="json") if done.data.type == "plans" else {}
            rows.append(
                {
                    "goal": goal,
                    "outcome": outcomes[-1],
                    "plans": len(result.get("plans", [])),
                    "solvers": [p["solver"] for p in result.get("plans", [])],
                    "best_feasibility": (result.get("plans") or [{}])[0].get("feasibility"),
                    "median_total_ms": round(statistics.median(total_ms[-repeats:]), 1),
                }
            )
        race = _race_on_a_planned_step(planner, now, "sqlite")
        races = [race]
        if pg_url:
            races.append(_race_on_a_planned_step(_planner(provider, settings, pg_url), now, "postgresql"))
    http_first_ms = _first_event_over_http(GOALS[0], now, repeats=repeats)
    return {
        "benchmark": "halfday",
        "http_first_event_ms": http_first_ms,
        "repeats": repeats,
        "first_event_ms": {"median": round(statistics.median(first_ms), 2), "max": round(max(first_ms), 2)},
        "full_plan_ms": {
            "median": round(statistics.median(total_ms), 1),
            "p90": round(_percentile(total_ms, 0.9), 1),
            "max": round(max(total_ms), 1),
        },
        "goals": rows,
        "confirmations": races,
    }


def _planner(provider: Any, settings: Any, url: str) -> Any:
    from core.agent.llm import make_llm
    from core.clock import clock_from_settings
    from core.halfday.breaker import HalfDayBreakers
    from core.halfday.memory import MemoryStore
    from core.halfday.service import HalfDayPlanner
    from core.reservations import store
    from core.reservations.service import ReservationService

    engine = store.engine_for(db_at(url))
    clock = clock_from_settings(settings)
    reservations = ReservationService(pack=provider.region, engine=engine, clock=clock)
    return HalfDayPlanner(
        provider=provider,
        settings=settings,
        memory=MemoryStore(engine, clock=clock),
        open_reservations=lambda: reservations,
        breakers=HalfDayBreakers(),
        llm=lambda: make_llm(settings),
        clock=clock,
    )


def _race_on_a_planned_step(planner: Any, now: datetime, label: str) -> dict[str, Any]:
    from bench.reservations import _race
    from core.models.halfday.plans import HalfDayRequest, ReserveInput

    step, result = None, None
    for goal in GOALS:  # the first bookable step the planner chose
        result, _ = planner.plan(HalfDayRequest(goal=goal, now=now))
        step = next((s for p in (result.plans if result else []) for s in p.steps if s.bookable), None)
        if step is not None:
            break
    if step is None or result is None:
        return {"database": label, "skipped": "no planned step can be booked"}
    service = planner.reservations
    day = result.slots.date + timedelta(days=int(time.time()) % 200)  # a fresh day per run on a shared database
    dry = planner.reserve_dry_run(
        ReserveInput(
            user_id="bench", region=result.region, place_id=step.place_id, date=day, time=step.start, party_size=2
        )
    )
    # a double click fifty times over: one idempotency key, so every other request replays the first outcome
    outcomes, seconds = _race(
        [
            lambda: service.confirm(
                "bench", dry.reservation.id, token=dry.token, idempotency_key=f"hd-{dry.token[:8]}", consent=True
            )
            for _ in range(50)
        ]
    )
    # fifty different requests carrying the same token: the token is single-use, so one wins and the rest are refused
    second = planner.reserve_dry_run(
        ReserveInput(
            user_id="bench", region=result.region, place_id=step.place_id, date=day, time=step.start, party_size=1
        )
    )
    keys, keys_s = _race(
        [
            (
                lambda k=k: service.confirm(
                    "bench",
                    second.reservation.id,
                    token=second.token,
                    idempotency_key=f"hd-{k}-{second.token[:8]}",
                    consent=True,
                )
            )  # fmt: skip
            for k in range(50)
        ]
    )
    return {
        "database": label,
        "place_id": step.place_id,
        "one_key_50_confirmations": dict(outcomes),
        "one_key_seconds": round(seconds, 3),
        "fifty_keys_one_token": dict(keys),
        "fifty_keys_seconds": round(keys_s, 3),
    }


def _first_event_over_http(goal: str, now: datetime, *, repeats: int) -> dict[str, float]:
    """POST /halfday/plan through the ASGI stack (FastAPI's test client, in this process): from sending the request
    to reading the first server-sent event, and to the last."""
    import json
    import os

    from fastapi.testclient import TestClient

    from api import app
    from core.auth import key_digest
    from core.config import get_settings

    key = "bench-halfday-key-0123456789"
    saved = os.environ.get("OMNI_API_KEYS")
    os.environ["OMNI_API_KEYS"] = json.dumps({"bench": key_digest(key)})
    get_settings.cache_clear()
    first: list[float] = []
    last: list[float] = []
    try:
        with TestClient(app) as client:
            for _ in range(repeats + 1):
                t0 = time.perf_counter()
                got_first = None
                with client.stream(
                    "POST", "/halfday/plan", json={"goal": goal, "now": now.isoformat()}, headers={"X-API-Key": key}
                ) as response:
                    for line in response.iter_lines():
                        if got_first is None and line.startswith("data:"):
                            got_first = time.perf_counter() - t0
                first.append(1000 * (got_first or 0.0))
                last.append(1000 * (time.perf_counter() - t0))
    finally:
        if saved is None:
            os.environ.pop("OMNI_API_KEYS", None)
        else:
            os.environ["OMNI_API_KEYS"] = saved
        get_settings.cache_clear()
    first, last = first[1:], last[1:]  # the first request also builds the planner's engines
    return {
        "first_median": round(statistics.median(first), 1),
        "first_max": round(max(first), 1),
        "done_median": round(statistics.median(last), 1),
    }
