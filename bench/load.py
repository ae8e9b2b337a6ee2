"""``python -m bench load``: the API under many clients (issue 33): requests/s and p50/p95/p99 of the agent's fast
path (a realistic zh/en mix of travel-time questions, each a new request) for 1 and 2 uvicorn workers at 10, 30 and
100 clients, with each worker's RSS and the machine's load. The clients are threads of this process, on the same
cores as the server: the figures are what one machine can serve *and* drive, as in the issue's own table.

The first request after the server starts is timed apart (its imports and warm-up), then each run lasts
``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

MESSAGES = [
    ("从外滩到豫园开车要多久", "zh"),
    ("How long does it take to drive from the Bund to Yu Garden?", "en"),
    ("人民广场到静安寺步行多久", "zh"),
    ("How far is Xintiandi from People's Square on foot?", "en"),
    ("从东方明珠到南京路步行街怎么走", "zh"),
    ("Drive time from Jing'an Temple to the Bund", "en"),
]


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--clients", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--seconds", type=float, default=20.0, help="each run's length (default 20)")


def _server(workers: int, port: int, folder: Path) -> subprocess.Popen[bytes]:
    from core.auth import key_digest

    env = {
        **os.environ,
        "OMNI_REGION": "shanghai",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{folder / 'load.db'}",
        "OMNI_AGENT_EVENT_LOG": str(folder / "events.jsonl"),
        "OMNI_API_KEYS": json.dumps({"load": key_digest("load-key-0123456789")}),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "api:app", "--host", "127.0.0.1", "--port", str(port), "--workers",
         str(workers), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _rss_mb(server: subprocess.Popen[bytes]) -> list[float]:
    import psutil

    parent = psutil.Process(server.pid)
    procs = parent.children(recursive=True) or [parent]
    return [round(p.memory_info().rss / 2**20) for p in procs if "python" in p.name()]


def _run(base: str, clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    headers = {"Authorization": "Bearer load-key-0123456789"}

    def client(n: int) -> None:
        nonlocal errors
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            i = n
            while time.monotonic() < stop:
                message, lang = MESSAGES[i % len(MESSAGES)]
                i += 1
                t0 = time.perf_counter()
                try:
                    answer = http.post(
                        "/agent/route_and_run", json={"message": message}, headers={"Accept-Language": lang}
                    )
                    ok = answer.status_code == 200
                except httpx.HTTPError:
                    ok = False
                spent = time.perf_counter() - t0
                with lock:
                    latencies.append(spent)
                    errors += not ok

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    ordered = sorted(latencies)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {
        "clients": clients,
        "requests": len(ordered),
        "errors": errors,
        "rps": round(len(ordered) / wall, 1),
        "p50_s": round(pick(0.5), 3),
        "p95_s": round(pick(0.95), 3),
        "p99_s": round(pick(0.99), 3),
        "mean_s": round(statistics.fmean(ordered), 3),
    }


def run(args: argparse.Namespace) -> int:
    from tests.support.redis_server import free_port

    rows = []
    for workers in args.workers:
        with tempfile.TemporaryDirectory(prefix="omni-bench-load-") as folder:
            port = free_port()
            server = _server(workers, port, Path(folder))
            base = f"http://127.0.0.1:{port}"
            try:
                t0 = time.perf_counter()
                while True:  # up when it answers (its start is not what is measured)
                    try:
                        if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                            break
                    except httpx.HTTPError:
                        time.sleep(0.2)
                    if time.perf_counter() - t0 > 180:
                        raise SystemExit("the API did not start")
                t1 = time.perf_counter()  # one request: the first after the start, apart
                httpx.post(f"{base}/agent/route_and_run", json={"message": MESSAGES[0][0]},
                           headers={"Authorization": "Bearer load-key-0123456789"}, timeout=120)  # fmt: skip
                first = round(time.perf_counter() - t1, 3)
                print(json.dumps({"workers": workers, "first_request_s": first, "load": os.getloadavg()}))
                for clients in args.clients:
                    row = {"workers": workers, **_run(base, clients, args.seconds), "rss_mb": _rss_mb(server),
                           "load": [round(x, 1) for x in os.getloadavg()]}  # fmt: skip
                    rows.append(row)
                    print(json.dumps(row), flush=True)
            finally:
                server.terminate()
                server.wait(timeout=30)
    print("| workers | clients | requests/s | p50 | p95 | p99 | errors | RSS per process (MB) | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        print(f"| {r['workers']} | {r['clients']} | {r['rps']} | {r['p50_s']} s | {r['p95_s']} s | {r['p99_s']} s | "
              f"{r['errors']} | {r['rss_mb']} | {r['load']} |")  # fmt: skip
    return 0
