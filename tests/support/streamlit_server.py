"""A real ``streamlit run app.py`` on a free local port, for the browser tests and scripts/screenshots.py.

``running_app(log_path=...)`` starts the server with the given extra environment, waits for its health check and
for Leaflet to be served by the app itself, yields the base URL, and stops the server afterwards. ``ServerPool`` keeps
such servers for a whole run, one per distinct extra environment: the browser tests (tests/ui/conftest.py) share
them, each in its own browser context.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.support.paths import ROOT

STARTUP_LIMIT_S = 90  # an upper bound to give up waiting, not a performance assertion
STOP_GRACE_S = 1.0


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
            stop(proc)


def _answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=5) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def stop(proc: subprocess.Popen) -> None:
    """Ask the server to stop; after a short grace, stop it. Streamlit's own shutdown waits for its sessions' script
    threads (seconds per server), and a test's server holds nothing that must be flushed: its database commits as
    it goes."""
    proc.terminate()
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ServerPool:
    """Streamlit servers shared by the tests of a run, one per distinct extra environment: a test that needs its own
    database or settings asks with them and gets a server started with them; tests that ask alike share one (each
    with its own browser context, so its own session and identity cookie). A server's first page pays its imports
    once, not once per test. At most ``keep`` run at once: starting another stops the one least recently asked for
    (a test's own server is not kept for the rest of the run). ``close()`` stops them all."""

    def __init__(self, root: Path, *, keep: int = 2) -> None:
        self._root = root
        self._keep = keep
        self._started = itertools.count()
        #: least recently asked first
        self._servers: OrderedDict[tuple[tuple[str, str], ...], tuple[str, ExitStack]] = OrderedDict()

    def serve(self, env: Mapping[str, str]) -> str:
        key = tuple(sorted(env.items()))
        if key in self._servers and not _answers(self._servers[key][0]):
            self._servers.pop(key)[1].close()  # it went away (a crash): the next test gets a new one
        if key not in self._servers:
            while len(self._servers) >= self._keep:
                self._servers.popitem(last=False)[1][1].close()
            stack = ExitStack()
            log_path = self._root / f"server-{next(self._started)}" / "streamlit.log"
            base = stack.enter_context(running_app(log_path=log_path, env=env))
            self._servers[key] = (base, stack)
        self._servers.move_to_end(key)
        return self._servers[key][0]

    def close(self) -> None:
        while self._servers:
            self._servers.popitem(last=False)[1][1].close()


def open_expander(page, summary) -> None:
    """Open an expander as a person does: click its summary, then wait for it to stop sliding open (Streamlit
    animates its height for 0.5 s; a button pressed while it still moves is released elsewhere and gets no click)."""
    summary.click()
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
