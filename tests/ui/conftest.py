"""Fixtures of the page and browser tests: a real ``streamlit run app.py`` on a free port."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.streamlit_server import ServerPool

#: the settings every server inherits anyway (OMNI_NOW, set when the run starts); a test's own changes are compared
#: with them
_SESSION_START_ENV = {k: v for k, v in os.environ.items() if k.startswith("OMNI_")}


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


@pytest.fixture(scope="session")
def app_servers(leaflet_static, tmp_path_factory) -> Iterator[ServerPool]:
    """The run's Streamlit servers, one per distinct extra environment (tests/support/streamlit_server.py)."""
    pool = ServerPool(tmp_path_factory.mktemp("servers"))
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def shared_app_env(tmp_path_factory) -> dict[str, str]:
    """The shared server's own database and response cache: never the project's, never a module's."""
    root = tmp_path_factory.mktemp("shared-app")
    return {"OMNI_DB_URL": f"sqlite:///{root / 'dashboard.db'}", "OMNI_CACHE_DIR": str(root / "cache")}


@pytest.fixture
def streamlit_server(app_servers, shared_app_env) -> str:
    """A ``streamlit run app.py`` shared by the browser tests that need nothing of their own; each opens its own
    browser context, so its own session and identity. A test that set other ``OMNI_`` settings gets a server
    started with them (a test that needs its own database asks ``app_servers.serve`` with it)."""
    own = {k: v for k, v in os.environ.items() if k.startswith("OMNI_") and k not in shared_app_env}
    changed = {k: v for k, v in own.items() if _SESSION_START_ENV.get(k) != v}
    return app_servers.serve({**changed, **shared_app_env})
