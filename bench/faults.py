"""Worst-case wait under a provider that never answers: ``python -m core bench faults`` (then the database's faults:
bench/db_faults.py).

A local "black hole" accepts every connection to the AMap base URL and never replies (or trickles one byte a
second, which defeats a plain read timeout). With the shipped timeouts, retries, ``provider_budget_s`` and QPS, a
route plan, an itinerary, an agent question and a half-day plan are timed end to end, with the connections AMap
received; each must come back degraded (saying AMap did not answer in time) within the budget plus the solver's
own time: the first call waits at most the budget, and the request does not wait on AMap again.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import SecretStr

from core.app.agent import agent_deps
from core.config import PROJECT_ROOT, Settings, get_settings


class BlackHole:
    """A TCP server on 127.0.0.1 that reads requests and never answers (``mode="silent"``) or sends an HTTP
    status line and then one header byte per second forever (``mode="trickle"``)."""

    def __init__(self, mode: str = "silent") -> None:
        self.mode = mode
        self.connections = 0
        self._stop = threading.Event()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(0.5)
            try:
                conn.recv(65536)
                if self.mode == "trickle":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                while not self._stop.wait(1.0):
                    if self.mode == "trickle":
                        conn.sendall(b"a")
            except OSError:
                return

    def __enter__(self) -> BlackHole:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join(timeout=2)


def _settings(base_url: str, folder: Path, shipped: Settings) -> Settings:
    """The shipped timeouts, retries and budget; only the AMap address, a key and throwaway stores change."""
    return shipped.model_copy(
        update={
            "data_dir": PROJECT_ROOT / "data",
            "region": "shanghai",
            "provider": "amap",
            "amap_key": SecretStr("bench-faults-key"),
            "amap_base_url": base_url,
            "db_url": f"sqlite:///{folder / 'trips.db'}",
            "agent_event_log": folder / "events.jsonl",
            "kb_dir": folder / "kb",
        }
    )


#: what a degraded answer says of AMap's failure, in either language ("did not answer in time", the cause)
LATE_MARKS = ("did not answer in time", "timed out", "未能及时答复", "在线路线服务暂不可用")


def _cases(settings: Settings) -> dict[str, Any]:
    """Each face's question; each returns (answered, the words it says of the failure)."""
    from core.agent import route_and_run
    from core.clock import clock_from_settings
    from core.geo.registry import make_provider
    from core.itinerary.pipeline import plan_itinerary
    from core.models.itinerary import TripRequest
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    def provider() -> Any:
        return make_provider("amap", region="shanghai", settings=settings)

    def route_plan() -> tuple[bool, list[str]]:
        request = load_scenario("family-day", data_dir=settings.data_dir).request
        result = plan_route(request, provider=provider(), settings=settings)
        return result.success, result.warnings

    def itinerary() -> tuple[bool, list[str]]:
        path = settings.data_dir / "trips" / "shanghai_family_day.json"
        trip = TripRequest.model_validate(json.loads(path.read_text(encoding="utf-8")))
        result = plan_itinerary(trip, provider=provider(), settings=settings)
        return result.status != "infeasible", result.warnings

    def agent_question() -> tuple[bool, list[str]]:
        response = route_and_run(
            {"message": "从外滩到豫园开车要多久", "user_id": "bench"},
            agent_deps(settings, provider()),
            now=clock_from_settings(settings)(),
        )
        return response.result.status == "OK", [response.result.answer_text]

    def half_day() -> tuple[bool, list[str]]:
        from core.app import halfday as halfday_app
        from core.app.context import AppServices
        from core.models.halfday.events import DonePlans, WarningObservation
        from core.models.halfday.plans import HalfDayRequest
        from core.words.halfday import warning_words

        ctx = AppServices(settings).context(user="bench", lang="en")
        request = HalfDayRequest(goal=HALF_DAY_GOAL, origin="人民广场", on_degraded="continue", now=HALF_DAY_NOW)
        events = list(halfday_app.plan_half_day(ctx, request))
        said = [
            warning_words(e.data.code, e.data.facts.causes, "en")
            for e in events
            if e.type == "observation" and isinstance(e.data, WarningObservation)
        ]
        return isinstance(events[-1].data, DonePlans), said

    return {
        "route plan (family day)": route_plan,
        "itinerary (family day)": itinerary,
        "agent travel time": agent_question,
        "half-day plan": half_day,
    }


HALF_DAY_GOAL = "周六下午和老婆带5岁的女儿去看博物馆，人均200以内"
HALF_DAY_NOW = datetime(2030, 1, 5, 13, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def bench_faults(*, database: bool = True) -> dict[str, Any]:
    """The providers' worst waits, each AMap fault per face (bench/faults_provider.py), then (``database``) the
    database faults of bench/db_faults.py."""
    out = _provider_faults()
    from bench.faults_provider import bench_provider_faults

    out["providers"] = bench_provider_faults()  # each AMap fault per face, and a load run on a failing AMap
    if database:
        from bench.db_faults import bench_db_faults

        out["database"] = bench_db_faults()
    return out


def _provider_faults() -> dict[str, Any]:
    shipped = get_settings()
    rows = []
    for mode in ("silent", "trickle"):
        with BlackHole(mode) as hole, tempfile.TemporaryDirectory(prefix="omni-faults-") as tmp:
            settings = _settings(hole.base_url, Path(tmp), shipped)
            for name, run in _cases(settings).items():
                before = hole.connections
                t0 = time.perf_counter()
                answered, warnings = run()
                seconds = time.perf_counter() - t0
                rows.append(
                    {
                        "provider": f"AMap {mode}",
                        "case": name,
                        "seconds": round(seconds, 2),
                        "answered": answered,
                        "says_amap_was_late": any(mark in w for w in warnings for mark in LATE_MARKS),
                        "amap_connections": hole.connections - before,
                    }
                )
    return {
        "benchmark": "faults",
        "provider_budget_s": shipped.provider_budget_s,
        "halfday_provider_budget_s": shipped.halfday_provider_budget_s,
        "http_timeout_s": shipped.http_timeout_s,
        "http_retries": shipped.http_retries,
        "amap_qps": shipped.amap_qps,
        "worst_seconds": max(r["seconds"] for r in rows),
        "rows": rows,
    }
