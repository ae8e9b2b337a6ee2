"""Fixtures of the page and browser tests: a real ``streamlit run app.py`` on a free port."""

from __future__ import annotations

import pytest

from tests.support.streamlit_server import running_app


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
    """``streamlit run app.py`` for one test (tests/support/streamlit_server.py; the sweep shares one per module)."""
    with running_app(log_path=tmp_path / "streamlit.log") as base:
        yield base
