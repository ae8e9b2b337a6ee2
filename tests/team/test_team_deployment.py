"""``make team`` (scripts/team.py) starts a team on one machine: Redis, the database, the API on two workers sharing
the key's limits through Redis, the dashboards, a Dask scheduler with its two workers; ``--check`` proves each piece
answers and stops them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.paths import ROOT
from tests.support.redis_server import free_port

pytestmark = pytest.mark.slow


def test_the_team_starts_every_piece_and_they_answer(tmp_path):
    # one dashboard here (each is a Streamlit server: the second would only cost the suite time)
    ports = {name: free_port() for name in ("api", "redis", "scheduler", "dash1")}
    env = {**os.environ, "OMNI_DB_URL": f"sqlite:///{tmp_path / 'team.db'}"}
    done = subprocess.run(
        [sys.executable, "scripts/team.py", "--check", "--state", str(tmp_path / "team"),
         "--api-port", str(ports["api"]), "--redis-port", str(ports["redis"]),
         "--scheduler-port", str(ports["scheduler"]), "--dashboard-ports", str(ports["dash1"])],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["api"] == {"status": "ok", "shared_limits": "up", "amap_calls_today": []}  # no AMap key here
    assert found["dask_workers"] == 2
    assert found["dashboards"] == [f"http://127.0.0.1:{ports['dash1']}"]
    assert found["redis"] == f"redis://127.0.0.1:{ports['redis']}/0"
