"""Malformed is not empty (issue 21 §3): an AMap answer with the right envelope but fields of the wrong shape is the
service failing (retried, counted by the breaker, answered by the fallback with a warning naming AMap), never "no
such place"."""

from __future__ import annotations

import httpx
import pytest
import tenacity

from core.errors import ProviderMalformed
from core.geo.amap import AMapProvider
from core.geo.base import WarningLog
from core.geo.offline import OfflineProvider
from core.geo.resilience import ResilientProvider
from core.packs.loader import load_region

OK = {"status": "1", "info": "OK", "infocode": "10000"}
KEY = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("parse", "body"),
    [
        (AMapProvider.parse_geocode_json, {**OK, "count": "1", "geocodes": "nope"}),
        (AMapProvider.parse_geocode_json, {**OK, "count": "1", "geocodes": ["nope"]}),
        (AMapProvider.parse_geocode_json, {**OK, "count": "1", "geocodes": [{"formatted_address": "外滩"}]}),
        (AMapProvider.parse_geocode_json, {**OK, "count": "1", "geocodes": [{"location": "east,north"}]}),
        (AMapProvider.parse_search_json, {**OK, "count": "1", "pois": {"id": "B0"}}),
        (AMapProvider.parse_detail_json, {**OK, "pois": 42}),
        (lambda d: AMapProvider.parse_distance_json(d, 2), {**OK, "results": "0,0"}),
    ],
)
def test_a_body_that_breaks_the_schema_is_a_failure(parse, body):
    with pytest.raises(ProviderMalformed) as caught:
        parse(body)
    assert caught.value.code == "PROVIDER_MALFORMED" and "breaks its schema" in caught.value.message


@pytest.mark.parametrize("empty", [None, "", []])
def test_an_empty_list_is_still_an_empty_answer(empty):
    assert AMapProvider.parse_geocode_json({**OK, "count": "0", "geocodes": empty}) == []
    assert AMapProvider.parse_search_json({**OK, "count": "0", "pois": empty}) == []


def test_a_malformed_geocode_is_answered_by_the_fallback_with_amap_named():
    calls: list[str] = []

    def amap(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        return httpx.Response(200, json={**OK, "count": "1", "geocodes": "nope"})

    pack = load_region("shanghai")
    log = WarningLog()
    provider = ResilientProvider(
        AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(amap)), min_interval_s=0),
        fallback=OfflineProvider(pack),
        retries=1,
        wait=tenacity.wait_none(),
        warnings=log,
    )
    [place, *_] = provider.geocode("外滩", city="上海")
    assert place.source == "offline:shanghai" and place.name == "外滩"  # the pack knows it: the plan goes on
    assert len(calls) == 1  # a broken schema is not asked again: the same server answers the same 200 ms later
    [warning] = log.drain_entries()
    assert warning.code == "PROVIDER_FALLBACK" and warning.params["provider"] == "AMap"
    assert warning.params["cause"] == "malformed"  # the warning says how AMap failed, not only that it did
    assert "breaks its schema" in warning.message
    assert provider.breakers["geocode"].fail_counter == len(calls)  # the breaker counts every failed attempt
