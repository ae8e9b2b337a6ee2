"""A server that trickles one byte a second defeats a per-read timeout; the whole-request deadline does not."""

from __future__ import annotations

import pytest

from bench.faults import BlackHole
from core.errors import ProviderTimeout
from core.geo.amap import AMapProvider


@pytest.mark.parametrize("mode", ["silent", "trickle"])
def test_a_server_that_never_finishes_its_answer_times_out(mode: str) -> None:
    with BlackHole(mode) as hole, AMapProvider(key="k" * 32, base_url=hole.base_url, timeout_s=1.5) as amap:
        with pytest.raises(ProviderTimeout) as caught:
            amap.geocode("外滩", city="上海")
    assert caught.value.details["endpoint"].endswith("/geocode/geo")
    assert hole.connections == 1
    assert "k" * 32 not in str(caught.value)
