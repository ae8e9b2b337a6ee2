"""AMap through its MCP server: the recorded JSON-RPC answers through the parsers, and a stand-in MCP server
(the SDK's own) for whole plans: positions and drawn paths filled from REST, the personal-map and navigation
links only MCP makes, and a wrong key that makes the server hang ends at the total timeout, key-free."""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from bench.amap_cache import AMapShapedServer
from core.config import Settings
from core.errors import ProviderAuthError, ProviderQuotaExceeded, ProviderTimeout
from core.geo.amap_mcp import (
    AMapMcpProvider,
    parse_detail,
    parse_distance,
    parse_geo,
    parse_link,
    parse_text_search,
    tool_error,
)
from core.geo.base import LonLat, Place
from core.geo.coords import haversine_m
from core.geo.registry import make_provider
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from tests.support.amap_mcp_standin import MCP_FIXTURES, AMapMcpStandIn, recorded_text

KEY = "mcp-test-key-7f3e2d1c"


# ---- recorded answers ------------------------------------------------------------------------------------
def test_the_tools_we_call_are_in_the_hosted_servers_list():
    listed = {t["name"] for t in json.loads((MCP_FIXTURES / "tools_list.json").read_text())["result"]["tools"]}
    called = {
        "maps_geo", "maps_text_search", "maps_search_detail", "maps_distance", "maps_direction_driving",
        "maps_direction_walking", "maps_schema_personal_map", "maps_schema_navi",
    }  # fmt: skip
    assert called <= listed


def test_recorded_geocode_is_turned_from_gcj02_into_wgs84():
    [people_square] = parse_geo(recorded_text("call_maps_geo.json"))
    assert (people_square.lon, people_square.lat) == pytest.approx((121.469163, 31.232345), abs=1e-6)
    assert people_square.district == "黄浦区" and people_square.level == "house_number"
    assert "人民大道" in people_square.name


def test_recorded_search_has_no_positions_and_detail_has_one():
    pois = parse_text_search(recorded_text("call_maps_text_search.json"))
    assert pois and all("location" not in p for p in pois) and all(p["id"] for p in pois)
    detail = parse_detail(recorded_text("call_maps_search_detail.json"))
    assert detail is not None and detail.poi_id and detail.source == "amap"


def test_recorded_distances_links_and_errors():
    cells = parse_distance(recorded_text("call_maps_distance.json"), 2)
    assert cells == [(4240.0, 853.0), (2611.0, 612.0)]
    link = parse_link(recorded_text("call_maps_schema_personal_map.json"), tool="maps_schema_personal_map")
    assert link.startswith("amapuri://workInAmap/createWithToken?polymericId=mcp_")
    navi = parse_link(recorded_text("call_maps_schema_navi.json"), tool="maps_schema_navi")
    assert "dev=1" in navi and "lon=121.499809" in navi
    assert isinstance(tool_error(recorded_text("call_tool_error.json"), tool="maps_geo"), ProviderQuotaExceeded)
    assert isinstance(tool_error("Geocoding failed: INVALID_USER_KEY", tool="maps_geo"), ProviderAuthError)


# ---- a stand-in server -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mcp_server():
    with AMapMcpStandIn(key=KEY) as server:
        yield server


def test_search_fills_positions_and_route_fills_its_path_from_rest(mcp_server):
    with AMapShapedServer() as rest_server:
        settings = Settings(
            region="shanghai", amap_key=SecretStr(KEY), amap_base_url=rest_server.base_url, amap_qps=0,
            amap_mcp_url=mcp_server.url, amap_mcp_timeout_s=10, http_retries=0,
        )  # fmt: skip
        services = make_provider("amap-mcp", settings=settings)
        [yuyuan, *_] = services.search("豫园", city="上海")
        assert yuyuan.poi_id and (yuyuan.lon, yuyuan.lat) == pytest.approx((121.4872, 31.2282), abs=1e-4)
        leg = services.route(LonLat(121.4880, 31.2402), yuyuan.lonlat, mode="walking")
        assert leg.source == "amap" and len(leg.geometry) >= 2  # MCP gives no polyline: REST drew it
        assert any(p.startswith("/v3/direction/walking") for p in rest_server.requests)
    assert "maps_direction_walking" in mcp_server.calls


def test_a_plan_through_mcp_has_amap_figures_and_a_navigation_link(mcp_server):
    request = load_scenario("family-day").request
    with AMapShapedServer() as rest_server:
        settings = Settings(
            region="shanghai", amap_key=SecretStr(KEY), amap_base_url=rest_server.base_url, amap_qps=0,
            amap_mcp_url=mcp_server.url, amap_mcp_timeout_s=10, http_retries=0, cache_dir=None,
        )  # fmt: skip
        result = plan_route(request, provider=make_provider("amap-mcp", settings=settings), settings=settings)
    assert result.metric_source == "amap"
    # nothing degraded (a note on which links could be made is not a degradation)
    assert not [n.code for n in result.notices if n.code.startswith("PROVIDER_")], result.warnings
    assert all(leg.source == "amap" for leg in result.best_route.legs)
    navi = urlsplit(result.deep_links.navigation)
    assert navi.scheme == "amapuri" and navi.netloc == "navi"
    q = parse_qs(navi.query)
    destination = result.resolved_destination
    # the tool marks its link dev=1 (WGS-84): it was given our WGS-84 position, not a shifted one
    assert (
        q["dev"] == ["1"] and haversine_m(float(q["lon"][0]), float(q["lat"][0]), destination.lon, destination.lat) < 1
    )


def test_the_personal_map_sends_amap_coordinates_and_ids(mcp_server):
    mcp = AMapMcpProvider(key=KEY, url=mcp_server.url, timeout_s=10)
    points = [
        Place(name="外滩", lon=121.4880, lat=31.2402, poi_id="B00155L3GZ"),
        Place(name="豫园", lon=121.4872, lat=31.2282, poi_id="B00155G7X6"),
    ]
    link = mcp.personal_map_link("一日游", points)
    assert link.startswith("amapuri://workInAmap/createWithToken?polymericId=mcp_")
    sent = mcp_server.personal_map_args["lineList"][0]["pointInfoList"]
    assert [p["poiId"] for p in sent] == ["B00155L3GZ", "B00155G7X6"]
    assert isinstance(sent[0]["lon"], float) and sent[0]["lon"] != 121.4880  # shifted to GCJ-02, a JSON number


def test_a_wrong_key_ends_at_the_timeout_and_never_shows_the_key(mcp_server, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-key-0a9b8c7d6e5f"
    mcp = AMapMcpProvider(key=wrong, url=mcp_server.url, timeout_s=1.5)
    with pytest.raises(ProviderTimeout) as caught:
        mcp.geocode("外滩")
    assert wrong not in str(caught.value)
    assert wrong not in caplog.text and "key=" in caplog.text  # the URL was logged, its key redacted
