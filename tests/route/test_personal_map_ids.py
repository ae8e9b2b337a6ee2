"""A real plan on AMap's MCP gets a personal-map link (issue 31, "links that work"): a point ``maps_geo`` found
carries no POI id, so the resolver looks it up with a text search of the same service (matched by name and
distance, never invented); ``auto`` then picks the personal map. A geocode names a place once, not as a doubled
address (``上海市上海市黄浦区…``)."""

from __future__ import annotations

import re

import pytest
from pydantic import SecretStr

from bench.amap_cache import AMapShapedServer
from core.config import Settings
from core.geo.amap_mcp import parse_geo
from core.geo.base import Place
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.planner import plan_route
from core.route.poi_ids import with_poi_id
from core.route.resolver import resolve_point
from tests.support.amap_mcp_standin import AMapMcpStandIn, recorded_text

KEY = "mcp-ids-key-4b9a01"


@pytest.fixture(scope="module")
def mcp_server():
    with AMapMcpStandIn(key=KEY, amap_ids=True) as server:
        yield server


def _plan(mcp_server, mode: str, stops: list[str], *, origin: str, destination: str):
    request = RoutePlanRequest(
        origin_mode="fixed",
        origin_name=origin,
        destination_name=destination,
        stops=[RawStop(name=s) for s in stops],
        transport_mode="walking",
        need_deep_link=True,
        deep_link_mode=mode,
    )
    with AMapShapedServer() as rest_server:
        settings = Settings(
            region="shanghai", amap_key=SecretStr(KEY), amap_base_url=rest_server.base_url, amap_qps=0,
            amap_mcp_url=mcp_server.url, amap_mcp_timeout_s=30, http_retries=0, cache_dir=None, provider_budget_s=120,
        )  # fmt: skip
        return plan_route(request, provider=make_provider("amap-mcp", settings=settings), settings=settings)


def test_the_recorded_geocode_names_shanghai_once():
    [place] = parse_geo(recorded_text("call_maps_geo.json"))
    assert place.name == "上海市黄浦区人民大道200号"
    assert place.poi_id is None


@pytest.mark.parametrize("mode", ["personal_map", "auto"])
def test_a_plan_on_mcp_gets_poi_ids_from_a_search_and_a_personal_map_link(mcp_server, mode):
    mcp_server.calls.clear()
    result = _plan(mcp_server, mode, ["豫园", "上海博物馆"], origin="外滩", destination="人民广场")
    points = [result.resolved_origin, *result.resolved_stops, result.resolved_destination]
    assert all(p.source == "geo" for p in points)  # each was found by maps_geo, which gives no id
    assert "maps_text_search" in mcp_server.calls and "maps_schema_personal_map" in mcp_server.calls
    # the ids are those the stand-in's search answered (shaped like AMap's), and the map was sent them
    assert all(re.fullmatch(r"B0[0-9A-F]{10}", p.poi_id or "") for p in points)
    assert all("found by a text search" in p.confidence_note for p in points)
    sent = mcp_server.personal_map_args["lineList"][0]["pointInfoList"]
    assert [s["poiId"] for s in sent] == [p.poi_id for ref, p in result.visiting() if p is not None]
    assert result.deep_links.personal_map and result.deep_links.personal_map.startswith("amapuri://workInAmap/")
    codes = {n.code for n in result.notices}
    assert not codes & {"PERSONAL_MAP_NO_IDS", "AUTO_ROUTE_PLAN_NO_IDS"}
    if mode == "auto":
        assert "AUTO_PERSONAL_MAP" in codes
    # names are place names, never the geocode's doubled address
    assert not any("上海市上海市" in (p.resolved_name or "") for p in points)
    assert "上海市上海市" not in result.model_dump_json()


def test_route_plan_links_do_not_spend_searches_on_ids(mcp_server):
    mcp_server.calls.clear()
    result = _plan(mcp_server, "route_plan", ["豫园"], origin="外滩", destination="人民广场")
    assert "maps_text_search" not in mcp_server.calls
    assert result.deep_links.personal_map is None


class _GeocodeOnly:
    """A geocoder whose geocode gives an address point without an id and whose search gives ``found``."""

    name = "amap-mcp"

    def __init__(self, found: list[Place]) -> None:
        self.found = found

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        return [Place(name="北京市东城区景山前街4号", address="北京市东城区景山前街4号", lon=116.3972, lat=39.9163,
                      level="house_number", source="amap")]  # fmt: skip

    def search(self, keywords: str, *, city: str | None = None, near=None, limit: int = 10) -> list[Place]:
        return self.found[:limit]

    def detail(self, poi_id: str) -> Place | None:
        return None


def _resolved(found: list[Place]):
    point = resolve_point(
        RawStop(name="故宫博物院"), role="stop", index=0, provider=_GeocodeOnly(found), settings=Settings()
    ).point
    assert point.poi_id is None  # maps_geo gives none
    return with_poi_id(point, provider=_GeocodeOnly(found), city="北京")


def test_a_search_answer_far_from_the_point_or_of_another_name_or_service_gives_no_id():
    far = Place(name="故宫博物院", lon=116.45, lat=39.95, poi_id="B000A8UIN8", source="amap")  # ~6 km away
    other = Place(name="景山公园", lon=116.3970, lat=39.9165, poi_id="B000A7BM4H", source="amap")
    pack = Place(name="故宫博物院", lon=116.3971, lat=39.9164, poi_id="bj-palace", source="offline")
    for answer in (far, other, pack):  # too far, another place, the pack's id (not the geocoder's service)
        assert _resolved([answer]).poi_id is None
    point = _resolved([far])
    assert point.resolved_name == "故宫博物院"  # the person's name for an address point, not the address
    assert "北京市东城区景山前街4号" in point.confidence_note and "no POI id" in point.confidence_note
    near = Place(name="故宫博物院", lon=116.3969, lat=39.9170, poi_id="B000A8UIN8", source="amap")
    point = _resolved([near, far])
    assert point.poi_id == "B000A8UIN8" and point.resolved_name == "故宫博物院"
    assert "text search" in point.confidence_note
