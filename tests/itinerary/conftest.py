"""The itinerary tests' test pack (tests/support/itinerary_packs.py) and the offline provider over it, once per
module; a module that needs another pack defines its own ``settings`` or ``provider``."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.geo.registry import make_provider
from tests.support.itinerary_packs import write_itinerary_pack


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")


@pytest.fixture(scope="module")
def provider(settings):
    return make_provider("offline", settings=settings)
