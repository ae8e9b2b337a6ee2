"""A real ``streamlit run app.py`` on a free local port, for the browser tests and scripts/screenshots.py.

``running_app(log_path=...)`` starts the server with the given extra environment, waits for its health check and
for Leaflet to be served by the app itself, yields the base URL, and stops the server afterwards. The fixtures in
tests/ui/conftest.py and the sweep (tests/ui/test_sweep_browser.py) share it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tests.support.paths import ROOT

STARTUP_LIMIT_S = 90  # an upper bound to give up waiting, not a performance assertion


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_healthy(proc: subprocess.Popen, base: str, log_path: Path) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT_S
    while True:
        if proc.poll() is not None:
            raise RuntimeError("streamlit exited:\n" + log_path.read_text(errors="replace"))
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("streamlit did not start:\n" + log_path.read_text(errors="replace"))
        time.sleep(0.3)


@contextmanager
def running_app(*, log_path: Path, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``streamlit run app.py`` (headless, 127.0.0.1, a free port) with ``env`` added to this process's
    environment; yields ``http://127.0.0.1:<port>`` once it answers and serves Leaflet."""
    from components.static_assets import install_leaflet

    install_leaflet()  # idempotent: ./static/leaflet, what scripts/install_leaflet.py does
    port = free_port()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as log:
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
                # a file saved while the app runs must not re-import modules under a running flow
                "--server.fileWatcherType",
                "none",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_healthy(proc, base, log_path)
            with urllib.request.urlopen(f"{base}/app/static/leaflet/leaflet.js", timeout=10) as resp:
                if resp.status != 200 or "javascript" not in resp.headers.get("Content-Type", ""):
                    raise RuntimeError(f"the app does not serve Leaflet: {resp.status} {resp.headers}")
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def open_expander(page, summary) -> None:
    """Open an expander as a person does: click its summary, then wait for it to stop sliding open (Streamlit
    animates its height for 0.5 s; a button pressed while it still moves is released elsewhere and gets no click)."""
    summary.click()
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
