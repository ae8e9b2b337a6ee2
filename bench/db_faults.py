"""Database faults, timed per face, and a load run during a freeze (part of ``python -m core bench faults``).

Faults: a throwaway PostgreSQL (bench/throwaway_pg.py) frozen with SIGSTOP and stopped, and a read-only SQLite file.
For each, the seconds to answer on each face: the API's reservation (503 DATABASE_UNREACHABLE), the agent's trip edit
(FAILED DATABASE_UNREACHABLE), the agent's weather question (needs no database) and the CLI's reservation list
(exit 1). Then a load run on one uvicorn worker while PostgreSQL is frozen: 10 and 30 clients asking the weather (the
fast path) beside half as many asking for their reservations; p50/p95/p99 per kind and the server's RSS.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.throwaway_pg import ThrowawayCluster
from core.config import PROJECT_ROOT
from tests.support.db import db_at

KEY = "bench-db-faults-key-0123456789"
BOOK = {"item_id": "sh-jiajia-tangbao", "date": "2030-01-05", "time": "19:00", "party_size": 2, "contact": "Li"}


def _env(db_url: str, folder: Path) -> dict[str, str]:
    from core.auth import key_digest

    return {
        "OMNI_DB_URL": db_url,
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "offline",
        "OMNI_DATA_DIR": str(PROJECT_ROOT / "data"),
        "OMNI_AGENT_EVENT_LOG": str(folder / "events.jsonl"),
        "OMNI_KB_DIR": str(folder / "kb"),
        "OMNI_CACHE_DIR": "",
        "OMNI_API_KEYS": json.dumps({"bench": key_digest(KEY)}),
    }


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    from core.config import get_settings
    from core.stores import guard

    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    get_settings.cache_clear()
    guard.BREAKERS.reset()
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()
        guard.BREAKERS.reset()


def _timed(fn: Callable[[], str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    answer = fn()
    return {"seconds": round(time.perf_counter() - t0, 3), "answer": answer}


def _faces(client: Any, env: dict[str, str], trip_id: str) -> dict[str, dict[str, Any]]:
    def api_reservation() -> str:
        r = client.post("/reservations", json=BOOK)
        return (
            f"{r.status_code} {r.json().get('error', {}).get('code', 'ok')} Retry-After={r.headers.get('Retry-After')}"
        )

    def agent(message: str, **extra: Any) -> Callable[[], str]:
        def ask() -> str:
            result = client.post("/agent/route_and_run", json={"message": message, **extra}).json()["result"]
            return f"{result['status']} {result['error_code']}"

        return ask

    def cli() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "core", "reservations", "list", "--user", "bench"],
            capture_output=True, text=True, cwd=PROJECT_ROOT, env={**os.environ, **env}, timeout=120,
        )  # fmt: skip
        last = (done.stderr.strip().splitlines() or [""])[-1]
        code = json.loads(last)["error"]["code"] if last.startswith("{") else "ok"
        return f"exit {done.returncode} {code}"

    return {
        "api reservation": _timed(api_reservation),
        "agent trip edit": _timed(agent("加上豫园", trip_id=trip_id)),
        "agent weather (no database)": _timed(agent("明天天气")),
        "cli reservations list": _timed(cli),
    }


def _client(env: dict[str, str]) -> Any:
    from fastapi.testclient import TestClient

    from api import app

    return TestClient(app, headers={"Authorization": f"Bearer {KEY}"})


def _seed(client: Any) -> str:
    made = client.post("/agent/route_and_run", json={"message": "加上外滩"}).json()["result"]
    return str(made["payload"]["trip"]["trip_id"])


def _fault_rows(cluster: ThrowawayCluster, folder: Path) -> list[dict[str, Any]]:
    from core.stores import db

    rows: list[dict[str, Any]] = []
    env = _env(cluster.url, folder)
    with _environment(env):
        client = _client(env)
        trip_id = _seed(client)
        for fault, on, off in (
            ("postgres frozen (SIGSTOP)", cluster.freeze, cluster.thaw),
            ("postgres stopped", cluster.stop, cluster.start),
        ):
            on()
            try:
                rows.append({"fault": fault, "faces": _faces(client, env, trip_id)})
            finally:
                off()
    sqlite = folder / "ro" / "omni.db"
    sqlite.parent.mkdir()
    env = _env(f"sqlite:///{sqlite}", folder)
    with _environment(env):
        client = _client(env)
        trip_id = _seed(client)
        db.engine_for(db_at(env["OMNI_DB_URL"])).dispose()
        _read_only(sqlite, True)
        try:
            rows.append({"fault": "sqlite read-only", "faces": _faces(client, env, trip_id)})
        finally:
            _read_only(sqlite, False)
    return rows


def _read_only(path: Path, on: bool) -> None:
    if os.geteuid() == 0:  # root ignores modes
        subprocess.run(["chattr", "+i" if on else "-i", str(path), str(path.parent)], check=True)
    else:
        path.chmod(0o444 if on else 0o644)
        path.parent.chmod(0o555 if on else 0o755)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    cut = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {"n": len(ordered), "p50": round(cut[49], 3), "p95": round(cut[94], 3), "p99": round(cut[98], 3)}


@contextmanager
def api_server(env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """The HTTP API on one uvicorn worker on a free loopback port, with ``env`` over this process's environment:
    its base URL and process id once it answers (stopped on leaving)."""
    import httpx

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "api:app", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        cwd=PROJECT_ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{base}/agent/actions", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield base, server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


def _load(cluster: ThrowawayCluster, folder: Path, clients: int, rounds: int) -> dict[str, Any]:

    headers = {"Authorization": f"Bearer {KEY}"}
    with api_server(_env(cluster.url, folder)) as (base, pid):
        try:
            return _load_frozen(cluster, base, headers, clients, rounds, pid)
        finally:
            cluster.thaw()


def _load_frozen(
    cluster: ThrowawayCluster, base: str, headers: dict[str, str], clients: int, rounds: int, pid: int
) -> dict[str, Any]:
    import httpx

    httpx.post(f"{base}/agent/route_and_run", json={"message": "明天天气"}, headers=headers, timeout=30)
    httpx.get(f"{base}/reservations", headers=headers, timeout=30)  # the pool has connections to freeze
    cluster.freeze()
    fast: list[float] = []
    slow: list[float] = []
    codes: dict[str, int] = {}
    lock = threading.Lock()

    def worker(kind: str) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for _ in range(rounds):
                t0 = time.perf_counter()
                if kind == "fast":
                    r = http.post("/agent/route_and_run", json={"message": "明天天气"})
                    label = f"weather {r.status_code} {r.json()['result']['status']}"
                else:
                    r = http.get("/reservations")
                    label = f"reservations {r.status_code} {r.json().get('error', {}).get('code', 'ok')}"
                seconds = time.perf_counter() - t0
                with lock:
                    (fast if kind == "fast" else slow).append(seconds)
                    codes[label] = codes.get(label, 0) + 1

    threads = [threading.Thread(target=worker, args=("fast",)) for _ in range(clients)]
    threads += [threading.Thread(target=worker, args=("db",)) for _ in range(max(1, clients // 2))]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {
        "clients_fast_path": clients,
        "clients_database": max(1, clients // 2),
        "rounds_each": rounds,
        "wall_seconds": round(wall, 2),
        "weather_seconds": _percentiles(fast),
        "reservations_seconds": _percentiles(slow),
        "answers": codes,
        "server_rss_mb": _rss_mb(pid),
    }


def bench_db_faults(*, rounds: int = 10) -> dict[str, Any]:
    cluster = ThrowawayCluster().start()
    try:
        with tempfile.TemporaryDirectory(prefix="omni-dbfaults-") as tmp:
            folder = Path(tmp)
            (folder / "kb").mkdir()
            faults = _fault_rows(cluster, folder)
            load = [_load(cluster, folder, clients, rounds) for clients in (10, 30)]
    finally:
        cluster.destroy()
    from core.config import get_settings

    s = get_settings()
    return {
        "limits": {
            "db_connect_timeout_s": s.db_connect_timeout_s,
            "db_statement_timeout_s": s.db_statement_timeout_s,
            "db_pool_timeout_s": s.db_pool_timeout_s,
            "db_breaker_fail_max": s.db_breaker_fail_max,
            "db_breaker_reset_s": s.db_breaker_reset_s,
        },
        "faults": faults,
        "load_during_freeze": load,
    }
