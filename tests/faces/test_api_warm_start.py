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
    import api_routes.shared
    from core.app import AppServices
    from core.packs import coverage
    from core.packs.derived import PerPack

    clients = api_test_client(
        tmp_path, monkeypatch, data_dir=BUNDLED_DATA, region="shanghai", OMNI_WARM_UP_ON_START="1"
    )
    client = next(clients)
    services = AppServices()
    monkeypatch.setattr(api, "SERVICES", services)  # the lifespan's
    monkeypatch.setattr(api_routes.shared, "SERVICES", services)  # the routers'
    # the scope check's words of a pack, held by no earlier test of this process (the pack object is shared)
    monkeypatch.setattr(coverage, "_pack_masks", PerPack(coverage._mask_index))
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
        assert coverage._pack_masks.holds(pack)  # the scope check's words of the pack, built before serving
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
