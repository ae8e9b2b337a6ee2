"""Shared fixtures of the dashboard tests (kept small).

- the suite's moment: ``OMNI_NOW`` is ``tests.support.clock.SUITE_NOW`` for every test (and the servers they start).

- ``project_root``: the repository root (where app.py is).
- ``leaflet_static``: makes sure Leaflet is in ./static/leaflet (what scripts/install_leaflet.py does).
- ``planner_app``: an AppTest of app.py (default_timeout 60 s) already switched to the route-planner page.
- ``client``: a FastAPI TestClient of api.py on a temporary agent pack, store and event log.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

from tests.support.api_client import API_KEYS, api_test_client, auth  # noqa: F401  (tests import them from here)
from tests.support.cli import core_cli  # noqa: F401  (a fixture: python -m core in the test process)
from tests.support.clock import SUITE_NOW

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """The product's clock stands still at the suite's moment, in this process and in every server a test starts
    (they inherit the environment): no test leans on the day it runs (tests/support/clock.py)."""
    os.environ["OMNI_NOW"] = SUITE_NOW.isoformat()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run's Chromium (tests/support/chromium.py), if a test started it, stops with the run."""
    from tests.support.chromium import SHARED_CHROMIUM

    SHARED_CHROMIUM.close()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Once Streamlit is loaded: its component scan runs once for the run, not once per AppTest."""
    if "streamlit" in sys.modules:
        _scan_installed_components_once()


def _scan_installed_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for Streamlit components (streamlit 1.67,
    ``BidiComponentManager.discover_and_register_components``): about 0.4 s of CPU, a third of the page tests' CPU.
    The packages installed do not change during a run, so the first scan's answer serves every later AppTest."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "scanned_once", False):
        return
    first = functools.cache(scan)

    @functools.wraps(scan)
    def scanned_once(max_workers: int | None = None) -> list:
        return list(first(max_workers))

    scanned_once.scanned_once = True  # type: ignore[attr-defined]
    manifest_scanner.scan_component_manifests = scanned_once


APP = ROOT / "app.py"
PLANNER_PAGE = "pages/route_planner.py"


@pytest.fixture(autouse=True)
def _no_held_keys():
    """A key held by one test's refusal (AMap 10004 until the minute's end, 10003 until midnight) is the process's,
    as in production: each test starts with none held, and with no call of the day counted (the daily quota)."""
    from core.geo import daily_quota, ratelimit

    ratelimit._HOLDS.clear()
    daily_quota._TEAM.clear()
    yield
    ratelimit._HOLDS.clear()
    daily_quota._TEAM.clear()


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path, monkeypatch):
    """Each test keeps remote answers in its own folder: nothing leaks between tests or into the project."""
    from core.config import get_settings

    monkeypatch.setenv("OMNI_CACHE_DIR", str(tmp_path / "response-cache"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def leaflet_static() -> Path:
    from components.static_assets import LEAFLET_DIR, install_leaflet, leaflet_installed

    install_leaflet()
    assert leaflet_installed(), f"Leaflet could not be installed into {LEAFLET_DIR}"
    return LEAFLET_DIR


@pytest.fixture
def planner_app(leaflet_static):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    at.switch_page(PLANNER_PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def client(tmp_path, monkeypatch):
    """FastAPI TestClient of api.py on a temp agent pack, store and event log."""
    from tests.support.agent_packs import write_agent_pack

    write_agent_pack(tmp_path / "data")
    yield from api_test_client(
        tmp_path, monkeypatch, data_dir=tmp_path / "data", region="agentcity", OMNI_BROWSE_ALLOWLIST='["127.0.0.1:*"]'
    )
