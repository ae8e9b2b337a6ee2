"""Fixtures of the page and browser tests: a real ``streamlit run app.py`` on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.support.paths import ROOT
from tests.ui.test_browser import STARTUP_LIMIT_S, free_port


@pytest.fixture(scope="module", autouse=True)
def _own_database(tmp_path_factory):
    """The page tests of a module keep their reservations (and trips) in their own SQLite file, never in the
    project's; module-scoped so that it is in place before a module's shared AppTest first runs."""
    from core.config import get_settings

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path_factory.mktemp('db') / 'dashboard.db'}")
        get_settings.cache_clear()
        yield
    get_settings.cache_clear()


@pytest.fixture
def streamlit_server(leaflet_static, tmp_path):
    port = free_port()
    log = (tmp_path / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while True:
            assert proc.poll() is None, "streamlit exited:\n" + (tmp_path / "streamlit.log").read_text()
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            assert time.monotonic() < deadline, "streamlit did not start:\n" + (tmp_path / "streamlit.log").read_text()
            time.sleep(0.3)
        # Leaflet is served by the app itself.
        with urllib.request.urlopen(f"{base}/app/static/leaflet/leaflet.js", timeout=10) as resp:
            assert resp.status == 200
            assert "javascript" in resp.headers.get("Content-Type", "")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
