"""``python -m bench load``: the API under many clients (issue 33): requests/s, p50/p95/p99 and errors of the agent's
fast path for 1 and 2 uvicorn workers at 10, 30 and 100 clients, with each worker's RSS, the server's CPU per request
and the machine's load (the load average, and how busy both cores were during the run).

Each request is new: questions drawn from ``bench/load_mix.py`` over the pack's places (travel times, opening hours
and tickets, what is near a place, the weather; half Chinese, half English), a seed per client and run. The clients
(``bench/load_client.py``) run in this process, on the same two cores as the server: the figures are what one
machine can serve *and* drive. The server is SQLite-backed, offline provider, one API key per client (20 at most).

After the server answers its health check, the first request is timed alone (``first_request_s``), then a first run
(``--first-seconds`` at the smallest client count) is reported apart as ``first run after start``: the second
worker's first requests and the caches' first fills land there, not in the measured rows.

``--tree DIR`` serves the API of another checkout (a before/after on the same machine moment, with the same clients
and questions); ``--http h11 --loop asyncio`` serves it as uvicorn does without ``httptools`` and ``uvloop``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.load_client import Outcome, drive, percentile
from bench.load_mix import LoadRequest, kinds_of, requests

KEYS = [f"load-key-{n:02d}-0123456789" for n in range(20)]


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--clients", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--seconds", type=float, default=45.0, help="each measured run's length (default 45)")
    ap.add_argument("--first-seconds", type=float, default=10.0, help="the first run after a start (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="the questions' seed (each client and run draws its own)")
    ap.add_argument("--tree", type=Path, default=None, help="serve api.py from this checkout (default: this one)")
    ap.add_argument("--http", default="auto", help="uvicorn's --http (auto: httptools when installed)")
    ap.add_argument("--loop", default="auto", help="uvicorn's --loop (auto: uvloop when installed)")
    ap.add_argument("--region", default="shanghai")


def _server(args: argparse.Namespace, workers: int, port: int, folder: Path) -> subprocess.Popen[bytes]:
    from core.auth import key_digest

    tree = (args.tree or Path.cwd()).resolve()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p),
        "OMNI_REGION": args.region,
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{folder / 'load.db'}",
        "OMNI_AGENT_EVENT_LOG": str(folder / "events.jsonl"),
        "OMNI_API_KEYS": json.dumps({f"load{n:02d}": key_digest(k) for n, k in enumerate(KEYS)}),
    }
    command = [sys.executable, "-m", "uvicorn", "api:app", "--host", "127.0.0.1", "--port", str(port), "--workers",
               str(workers), "--log-level", "warning", "--http", args.http, "--loop", args.loop]  # fmt: skip
    return subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def server_processes(pid: int) -> list[int]:
    """The processes serving requests: the workers under uvicorn's supervisor, else the one process."""
    try:
        import psutil

        children = [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except ImportError:
        found = Path(f"/proc/{pid}/task/{pid}/children")
        children = [int(c) for c in found.read_text().split()] if found.exists() else []
    # uvicorn's supervisor also starts a resource tracker when it spawns workers; a worker is a python serving api
    return [c for c in children if "resource_tracker" not in _cmdline(c)] or [pid]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB (psutil when installed, else /proc)."""
    try:
        import psutil

        return round(float(psutil.Process(pid).memory_info().rss) / 2**20, 1)
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def cpu_s(pid: int) -> float:
    """The CPU seconds a process has used (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of every core since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def measure(port: int, pids: list[int], *, clients: int, seconds: float, seed: int) -> dict[str, Any]:
    """One run of ``clients`` for ``seconds``: the answers' figures, the server's CPU per request and the load."""
    pack_requests = _pack_requests()

    def draws_for(n: int) -> Iterator[LoadRequest]:
        return pack_requests(seed * 100_000 + clients * 1_000 + n)

    load_before = os.getloadavg()[0]
    busy0, cpu0 = machine_busy(), sum(cpu_s(p) for p in pids)
    outcome = drive(port, clients=clients, seconds=seconds, keys=KEYS, draws_for=draws_for)
    busy1, cpu1 = machine_busy(), sum(cpu_s(p) for p in pids)
    return {
        "clients": clients,
        **summary(outcome),
        "server_cpu_ms_per_request": round(1000 * (cpu1 - cpu0) / max(1, len(outcome.seconds)), 2),
        "rss_mb": [rss_mb(p) for p in pids],
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "machine_busy": round((busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]), 2),
    }


def summary(outcome: Outcome) -> dict[str, Any]:
    """requests/s, p50/p95/p99 (s), errors by status and the fast path's share of one run."""
    ordered = sorted(outcome.seconds)
    return {
        "requests": len(ordered),
        "rps": round(len(ordered) / outcome.wall_s, 1) if outcome.wall_s else 0.0,
        "p50_s": round(percentile(ordered, 0.50), 3),
        "p95_s": round(percentile(ordered, 0.95), 3),
        "p99_s": round(percentile(ordered, 0.99), 3),
        "max_s": round(ordered[-1], 3) if ordered else 0.0,
        "errors": outcome.errors,
        "statuses": {str(k): v for k, v in sorted(outcome.statuses.items())},
        "fast_path_share": round(outcome.fast / len(ordered), 3) if ordered else 0.0,
        "mix": kinds_of(outcome.sent),
    }


def _pack_requests() -> Callable[[int], Iterator[LoadRequest]]:
    from core.packs.loader import load_region

    pack = load_region(os.environ.get("OMNI_BENCH_LOAD_REGION", "shanghai"))
    return lambda seed: requests(pack, seed=seed)


def _start(args: argparse.Namespace, workers: int, folder: Path) -> tuple[subprocess.Popen[bytes], int, float]:
    """The server, once it answers its health check; its port and the seconds that took."""
    from tests.support.redis_server import free_port

    port = free_port()
    server = _server(args, workers, port, folder)
    t0 = time.perf_counter()
    while True:  # up when it answers (its start is not what is measured)
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return server, port, round(time.perf_counter() - t0, 2)
        except httpx.HTTPError:
            time.sleep(0.2)
        if server.poll() is not None or time.perf_counter() - t0 > 180:
            server.kill()
            raise SystemExit("the API did not start")


def run_workers(args: argparse.Namespace, workers: int) -> list[dict[str, Any]]:
    """A server of ``workers`` workers: its first request and first run apart, then each client count."""
    rows: list[dict[str, Any]] = []
    os.environ["OMNI_BENCH_LOAD_REGION"] = args.region
    with tempfile.TemporaryDirectory(prefix="omni-bench-load-") as folder:
        server, port, start_s = _start(args, workers, Path(folder))
        try:
            pids = server_processes(server.pid)
            first = measure(port, pids, clients=1, seconds=0.0, seed=args.seed + 7)  # one request: the first
            first_run = measure(port, pids, clients=min(args.clients), seconds=args.first_seconds, seed=args.seed + 9)
            head = {"workers": workers, "health_after_s": start_s, "first_request_s": first["max_s"]}
            rows.append({**head, "run": "first run after start", **first_run})
            print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
            for clients in args.clients:
                rows.append({"workers": workers, "run": "measured", **measure(port, pids, clients=clients,
                             seconds=args.seconds, seed=args.seed)})  # fmt: skip
                print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the Markdown table of docs/BENCHMARKS.md."""
    lines = [
        "| workers | clients | run | requests/s | p50 | p95 | p99 | errors | fast path | server CPU ms/request | "
        "RSS per worker (MB) | load before → after | cores busy |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for r in rows:
        run = r["run"] + (f" (first request {r['first_request_s']} s)" if "first_request_s" in r else "")
        lines.append(
            f"| {r['workers']} | {r['clients']} | {run} | {r['rps']} | {r['p50_s']} s | {r['p95_s']} s | "
            f"{r['p99_s']} s | {r['errors']} | {100 * r['fast_path_share']:.0f} % | {r['server_cpu_ms_per_request']} | "
            f"{', '.join(f'{m:.0f}' for m in r['rss_mb'])} | {r['load'][0]} → {r['load'][1]} | "
            f"{100 * r['machine_busy']:.0f} % |"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    rows = [row for workers in args.workers for row in run_workers(args, workers)]
    print(table(rows))
    return 0
