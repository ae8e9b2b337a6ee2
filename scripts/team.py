"""A team's deployment on one machine (issue 33, ``make team``): Redis, PostgreSQL, the API with N workers, two
dashboard processes, a Dask scheduler and two Dask workers, every process pointed at the same Redis, database and
scheduler. Ctrl-C (or SIGTERM) stops them all.

To spread it over machines, run the same pieces elsewhere and change only the addresses: ``OMNI_REDIS_URL``,
``OMNI_DB_URL`` and ``OMNI_DASK_SCHEDULER`` (README, "A team deployment").

    python scripts/team.py [--api-workers 2] [--api-port 8000] [--dashboard-ports 8501,8502] [--check]

``--check`` starts everything, checks that each piece answers (the API's /health says the limits are shared, both
dashboards serve their page, the scheduler has its two workers), prints what it found as JSON, and stops.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / ".omni" / "team"
PG_URL = "postgresql+psycopg://omni:omni@127.0.0.1:5432/omni_team"


def free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def wait_for(what: str, ready: object, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if ready():  # type: ignore[operator]
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.3)
    raise SystemExit(f"{what} did not start within {timeout_s:.0f} s")


def start_postgres(state: Path) -> str:
    """Debian's cluster on 127.0.0.1 (as the tests start it), with the team's database; else SQLite, said so."""
    if shutil.which("pg_lsclusters") is None:
        print("PostgreSQL is not installed (apt-get install -y postgresql): the team shares a SQLite file", flush=True)
        return f"sqlite:///{state / 'team.db'}"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "test_postgres.py")], capture_output=True, text=True, check=False
    )
    if not done.stdout.strip():
        return f"sqlite:///{state / 'team.db'}"
    as_postgres = "runuser -u postgres -- " if os.geteuid() == 0 else ""
    listed = subprocess.run(f"{as_postgres}psql -lqt", shell=True, capture_output=True, text=True, check=False)
    if "omni_team" not in listed.stdout:
        subprocess.run(f"{as_postgres}createdb -O omni omni_team", shell=True, capture_output=True, check=False)
    return PG_URL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api-workers", type=int, default=2)
    parser.add_argument("--api-port", type=int, default=8000)
    parser.add_argument("--dashboard-ports", default="8501,8502")
    parser.add_argument("--redis-port", type=int, default=6379)
    parser.add_argument("--scheduler-port", type=int, default=8786)
    parser.add_argument("--state", type=Path, default=STATE, help="where the logs and Redis's files go")
    parser.add_argument("--check", action="store_true", help="start, check every piece answers, print, stop")
    args = parser.parse_args(argv)
    state: Path = args.state
    state.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    logs = state / "logs"
    logs.mkdir(exist_ok=True)

    def spawn(name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        out = (logs / f"{name}.log").open("wb")
        procs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
        print(f"started {name}: {' '.join(command[:4])} … (log {logs / (name + '.log')})", flush=True)

    try:
        redis_url = f"redis://127.0.0.1:{args.redis_port}/0"
        if free(args.redis_port):
            redis = shutil.which("redis-server")
            if redis is None:
                raise SystemExit("Redis is required for a team: apt-get install -y redis-server")
            spawn("redis", [redis, "--bind", "127.0.0.1", "--port", str(args.redis_port), "--dir", str(state)])
        wait_for("Redis", lambda: not free(args.redis_port), 30)
        env = {
            **os.environ,
            "OMNI_REDIS_URL": redis_url,
            "OMNI_DB_URL": os.environ.get("OMNI_DB_URL") or start_postgres(state),
            "OMNI_DASK_SCHEDULER": f"tcp://127.0.0.1:{args.scheduler_port}",
        }
        spawn("dask-scheduler", [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                 "--port", str(args.scheduler_port), "--dashboard-address", ":0"], env)  # fmt: skip
        wait_for("the Dask scheduler", lambda: not free(args.scheduler_port))
        for n in (1, 2):
            spawn(f"dask-worker-{n}", [sys.executable, "-m", "distributed.cli.dask_worker", env["OMNI_DASK_SCHEDULER"],
                                       "--nworkers", "1", "--nthreads", "1", "--dashboard-address", ":0"], env)  # fmt: skip
        spawn("api", [sys.executable, "-m", "uvicorn", "api:app", "--host", "127.0.0.1", "--port",
                      str(args.api_port), "--workers", str(args.api_workers)], env)  # fmt: skip
        ports = [int(p) for p in args.dashboard_ports.split(",") if p.strip()]
        for n, port in enumerate(ports, 1):
            spawn(f"dashboard-{n}", [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                     "--server.port", str(port), "--browser.gatherUsageStats", "false"], env)  # fmt: skip
        api = f"http://127.0.0.1:{args.api_port}"
        wait_for("the API", lambda: httpx.get(f"{api}/health", timeout=2).status_code == 200)
        for port in ports:
            wait_for(
                f"the dashboard on {port}",
                lambda port=port: httpx.get(f"http://127.0.0.1:{port}/", timeout=2).is_success,
            )

        from distributed import Client

        with Client(env["OMNI_DASK_SCHEDULER"], timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            workers = len(client.scheduler_info()["workers"])
        found = {
            "api": httpx.get(f"{api}/health", timeout=5).json(),
            "dashboards": [f"http://127.0.0.1:{p}" for p in ports],
            "dask_workers": workers,
            "redis": redis_url,
            "database": env["OMNI_DB_URL"].split("@")[-1],
        }
        print(json.dumps(found), flush=True)
        if args.check:
            return 0
        print(f"the team is up: API {api} ({args.api_workers} workers), dashboards {found['dashboards']}; Ctrl-C stops")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while all(p.poll() is None for p in procs):
            time.sleep(1)
        return 1  # a piece stopped on its own: stop the others
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(main())
