"""Worst-case wait under a provider that never answers: ``python -m core bench faults`` (then the database's faults:
bench/db_faults.py).

A local "black hole" accepts every connection to the AMap base URL and never replies (or trickles one byte a
second, which defeats a plain read timeout). With the shipped timeouts, retries and ``provider_budget_s``, a
route plan, an itinerary and an agent question are timed end to end; each must come back degraded (with a
warning naming AMap) within the budget plus the solver's own time.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

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


def _cases(settings: Settings) -> dict[str, Any]:
    from core.agent import route_and_run
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
            {"message": "从外滩到豫园开车要多久", "user_id": "bench"}, settings=settings, provider=provider()
        )
        return response.result.status == "OK", [response.result.answer_text]

    return {
        "route plan (family day)": route_plan,
        "itinerary (family day)": itinerary,
        "agent travel time": agent_question,
    }


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
                t0 = time.perf_counter()
                answered, warnings = run()
                seconds = time.perf_counter() - t0
                rows.append(
                    {
                        "provider": f"AMap {mode}",
                        "case": name,
                        "seconds": round(seconds, 2),
                        "answered": answered,
                        "degraded_warning": any(mark in w for w in warnings for mark in ("AMap", "高德", "不可用")),
                        "connections": hole.connections,
                    }
                )
    return {
        "benchmark": "faults",
        "provider_budget_s": shipped.provider_budget_s,
        "http_timeout_s": shipped.http_timeout_s,
        "http_retries": shipped.http_retries,
        "worst_seconds": max(r["seconds"] for r in rows),
        "rows": rows,
    }
