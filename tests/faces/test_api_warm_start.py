"""The API warms its process before it answers (api.py's lifespan, issue 33): the first requests after a start no
longer pay for the packs, the gazetteer and the database; ``OMNI_WARM_UP_ON_START=0`` turns it off."""

from __future__ import annotations

import pytest

from core.config import BUNDLED_DATA
from tests.support.api_client import api_test_client


@pytest.fixture
def api_app(tmp_path, monkeypatch):
    """api.py on the bundled packs, with services of its own (the module's may be warm from another test)."""
    import api
    from core.app import AppServices

    clients = api_test_client(tmp_path, monkeypatch, data_dir=BUNDLED_DATA, region="shanghai")
    client = next(clients)
    monkeypatch.setattr(api, "SERVICES", AppServices())
    yield api, client
    next(clients, None)  # the settings read afresh after the test


def test_the_api_answers_only_once_its_process_is_warm(api_app):
    from fastapi.testclient import TestClient

    from core.packs import coverage

    api, _ = api_app
    with TestClient(api.app) as started:  # runs the lifespan, as uvicorn does before it serves
        state = api.SERVICES.once("warm_up", lambda: None)
        assert state is not None and state.done.is_set()
        assert state.failed == {}
        assert {label.split(":")[0] for label in state.seconds} >= {"packs_and_geocoder", "place_scope", "database"}
        pack = api.SERVICES.context().region
        assert id(pack) in coverage._pack_masks._held  # the scope check's words of the pack, built before serving
        assert started.get("/health").status_code == 200


def test_no_warm_up_when_the_settings_turn_it_off(api_app, monkeypatch):
    from fastapi.testclient import TestClient

    from core.config import get_settings

    api, _ = api_app
    monkeypatch.setenv("OMNI_WARM_UP_ON_START", "0")
    get_settings.cache_clear()
    with TestClient(api.app) as started:
        assert started.get("/health").status_code == 200
    assert api.SERVICES.once("warm_up", lambda: "never started") == "never started"
