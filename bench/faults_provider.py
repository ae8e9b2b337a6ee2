"""Provider faults, timed per face, and a load run on a faulted AMap (part of ``python -m core bench faults``).

Each fault of bench/faults_amap.py (slow, 500, not JSON, malformed, 10003, 10044, 10004), with the shipped timeouts,
retries, breaker and budget: the seconds to answer and the requests AMap received on the route plan and itinerary
use cases, the agent's travel-time question through the API, and the half-day plan through the API (JSON). Then a
load run on one uvicorn worker with AMap answering 500: 10 and 30 clients asking the agent a travel time (the fast
path); p50/p95/p99 and the server's RSS.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.db_faults import _environment, _percentiles, _rss_mb, api_server
from bench.faults_amap import FAULTS, SwitchableAMap
from core.config import PROJECT_ROOT

KEY = "bench-provider-faults-key-0123456789"
AMAP_KEY = "bench-provider-faults-amap-0123"
TRAVEL = "从外滩到豫园开车要多久"
GOAL = "周六下午和老婆带5岁的女儿去看博物馆，人均200以内"


def _env(base_url: str, folder: Path) -> dict[str, str]:
    from core.auth import key_digest

    return {
        "OMNI_DATA_DIR": str(PROJECT_ROOT / "data"),
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "amap",
        "OMNI_AMAP_KEY": AMAP_KEY,
        "OMNI_AMAP_BASE_URL": base_url,
        "OMNI_AMAP_QPS": "0",  # the stand-in keeps no QPS; pacing would measure the bucket, not the fault
        "OMNI_CACHE_DIR": "",
        "OMNI_DB_URL": f"sqlite:///{folder / 'omni.db'}",
        "OMNI_AGENT_EVENT_LOG": str(folder / "events.jsonl"),
        "OMNI_KB_DIR": str(folder / "kb"),
        "OMNI_API_KEYS": json.dumps({"bench": key_digest(KEY)}),
    }


def _timed(amap: SwitchableAMap, fn: Callable[[], str]) -> dict[str, Any]:
    before = amap.count()
    t0 = time.perf_counter()
    answer = fn()
    return {"seconds": round(time.perf_counter() - t0, 3), "amap_requests": amap.count() - before, "answer": answer}


def _faces(amap: SwitchableAMap, client: Any) -> dict[str, dict[str, Any]]:
    from core.app import itinerary as itinerary_app
    from core.app import route as route_app
    from core.app.context import AppServices
    from core.models.itinerary import TripRequest
    from core.route.scenarios import load_scenario

    def route() -> str:
        result = route_app.plan_route(
            AppServices().context(user="bench"), load_scenario("family-day", data_dir=PROJECT_ROOT / "data").request
        )
        return f"success={result.success} metric_source={result.metric_source}"

    def itinerary() -> str:
        trip = TripRequest.model_validate_json((PROJECT_ROOT / "data/trips/shanghai_family_day.json").read_text())
        result = itinerary_app.plan_itinerary(AppServices().context(user="bench"), trip)
        return f"status={result.status} matrix_source={result.matrix_source}"

    def agent() -> str:
        r = client.post("/agent/route_and_run", json={"message": TRAVEL}).json()["result"]
        return f"{r['status']} {'amap' if '（高德）' in r['answer_text'] else 'estimate'}"

    def halfday() -> str:
        body = {"goal": GOAL, "origin": "人民广场", "on_degraded": "continue"}
        done = client.post("/halfday/plan", json=body, headers={"Accept": "application/json"}).json()["data"]
        return f"{done['type']} {','.join(done.get('result', {}).get('warnings', [])) or done.get('error', {})}"

    return {
        "use case route plan": _timed(amap, route),
        "use case itinerary": _timed(amap, itinerary),
        "api agent travel time": _timed(amap, agent),
        "api half-day (json)": _timed(amap, halfday),
    }


def _client() -> Any:
    from fastapi.testclient import TestClient

    import api
    from core.config import get_settings
    from core.geo.registry import make_provider

    api.SERVICES.use_provider("amap", "shanghai", make_provider("amap", region="shanghai", settings=get_settings()))
    return TestClient(api.app, headers={"Authorization": f"Bearer {KEY}"})


def _fault_rows(amap: SwitchableAMap, folder: Path) -> list[dict[str, Any]]:
    import api
    from core.geo import ratelimit
    from core.halfday.breaker import HalfDayBreakers

    rows = []
    for fault in (None, *FAULTS):
        with _environment(_env(amap.base_url, folder)):
            ratelimit._HOLDS.clear()  # each fault on a fresh process's state: a held key would hide the next fault
            api.SERVICES.halfday_breakers = HalfDayBreakers()  # and the API root's half-day breakers closed
            client = _client()
            amap.set(fault)
            try:
                rows.append({"fault": fault or "none (healthy)", "faces": _faces(amap, client)})
            finally:
                amap.set(None)
    return rows


def _load(amap: SwitchableAMap, folder: Path, clients: int, rounds: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {KEY}"}
    amap.set("http500")
    try:
        with api_server(_env(amap.base_url, folder)) as (base, pid):
            return _load_failing(amap, base, headers, clients, rounds, pid)
    finally:
        amap.set(None)


def _load_failing(
    amap: SwitchableAMap, base: str, headers: dict[str, str], clients: int, rounds: int, pid: int
) -> dict[str, Any]:
    import httpx

    httpx.post(f"{base}/agent/route_and_run", json={"message": TRAVEL}, headers=headers, timeout=60)
    seconds: list[float] = []
    answers: dict[str, int] = {}
    lock = threading.Lock()
    before = amap.count()

    def worker() -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for _ in range(rounds):
                t0 = time.perf_counter()
                r = http.post("/agent/route_and_run", json={"message": TRAVEL})
                took = time.perf_counter() - t0
                label = f"{r.status_code} {r.json()['result']['status']}"
                with lock:
                    seconds.append(took)
                    answers[label] = answers.get(label, 0) + 1

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "clients": clients,
        "rounds_each": rounds,
        "wall_seconds": round(time.perf_counter() - t0, 2),
        "agent_travel_time_seconds": _percentiles(seconds),
        "answers": answers,
        "amap_requests": amap.count() - before,
        "server_rss_mb": _rss_mb(pid),
    }


def bench_provider_faults(*, rounds: int = 10) -> dict[str, Any]:
    from core.config import get_settings

    s = get_settings()
    with SwitchableAMap() as amap, tempfile.TemporaryDirectory(prefix="omni-provfaults-") as tmp:
        folder = Path(tmp)
        (folder / "kb").mkdir()
        faults = _fault_rows(amap, folder)
        load = [_load(amap, folder, clients, rounds) for clients in (10, 30)]
    return {
        "limits": {
            "http_timeout_s": s.http_timeout_s,
            "http_retries": s.http_retries,
            "breaker_fail_max": s.breaker_fail_max,
            "breaker_reset_s": s.breaker_reset_s,
            "provider_budget_s": s.provider_budget_s,
            "halfday_provider_budget_s": s.halfday_provider_budget_s,
            "slow_fault_s": 5.0,
        },
        "faults": faults,
        "load_amap_500": load,
    }
