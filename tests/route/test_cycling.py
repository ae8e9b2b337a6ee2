"""Cycling as a travel mode: Valhalla's bicycle costing on real streets, the pack's estimate elsewhere, AMap's v4
bicycling directions (its distance matrix has no cycling, so the matrix is estimated and says so), ride links."""

from __future__ import annotations

import httpx
import pytest

from bench.amap_cache import AMapShapedServer
from core.config import get_settings
from core.geo.amap import AMapProvider
from core.geo.base import LonLat
from core.geo.registry import make_provider
from core.route.links import build_deep_links
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from tests.support.amap_settings import amap_settings
from tests.support.paths import amap_fixture


def test_cycling_on_helsinki_streets_is_between_walking_and_driving():
    request = load_scenario("helsinki-museums").request
    provider = make_provider("offline", region="helsinki", settings=get_settings())
    plans = {m: plan_route(request.model_copy(update={"transport_mode": m}), provider=provider, settings=get_settings()) for m in
             ("walking", "cycling", "driving")}  # fmt: skip
    cycling = plans["cycling"]
    assert cycling.metric_source == "valhalla" and cycling.transport_mode == "cycling"
    legs = [leg for leg in cycling.best_route.legs if leg.duration_s > 60]
    assert legs and all(3.0 < leg.distance_m / leg.duration_s < 7.0 for leg in legs)  # 11-25 km/h
    assert plans["walking"].best_route.total_duration_s > cycling.best_route.total_duration_s
    assert all(len(line) > 5 for line in cycling.best_geometry)


def test_cycling_offline_uses_the_packs_cycling_estimate():
    request = load_scenario("sightseeing-day").request.model_copy(update={"transport_mode": "cycling"})
    result = plan_route(
        request, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )
    assert result.metric_source == "offline_estimate"
    assert any("at 14 km/h" in w for w in result.warnings), result.warnings
    leg = result.best_route.legs[0]
    assert leg.distance_m / (leg.duration_s - 30) * 3.6 == pytest.approx(14.0, rel=0.02)


def test_amap_cycling_route_reads_the_v4_bicycling_answer():
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, json=amap_fixture("direction_bicycling_v4.json"))

    amap = AMapProvider(key="k" * 32, client=httpx.Client(transport=httpx.MockTransport(server)))
    leg = amap.route(LonLat(121.470, 31.231), LonLat(121.470, 31.221), mode="cycling")
    assert seen == ["/v4/direction/bicycling"]
    assert (leg.distance_m, leg.duration_s) == (1110.0, 266.0) and leg.source == "amap"
    assert len(leg.geometry) >= 3 and leg.mode == "cycling"


def test_an_amap_cycling_plan_estimates_the_matrix_and_says_why():
    request = load_scenario("family-day").request.model_copy(update={"transport_mode": "cycling"})
    with AMapShapedServer() as amap:
        settings = amap_settings(amap.base_url, key="cycling-key")
        result = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
        assert not any(p == "/v3/distance" for p in amap.requests)  # never asked what it cannot answer
    [matrix] = [n for n in result.notices if n.code == "PROVIDER_FALLBACK" and n.params["service"] == "matrix"]
    assert matrix.params["provider"] == "AMap" and "no cycling mode" in (matrix.detail or "")
    assert "AMap did not answer the distance matrix request" in " ".join(result.warnings), result.warnings
    assert all(leg.source == "offline_estimate" for leg in result.best_route.legs)


def test_cycling_links_use_amaps_ride_mode():
    result = plan_route(
        load_scenario("sightseeing-day").request.model_copy(update={"transport_mode": "cycling"}),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    links, warnings = build_deep_links(
        origin=result.resolved_origin,
        ordered_stops=result.resolved_stops,
        destination=result.resolved_destination,
        transport_mode="cycling",
        deep_link_mode="route_plan",
        provider="offline",
    )
    assert "&t=3" in links.android_route_plan and all("mode=ride" in u for u in links.web_navigation)
    assert "CYCLING_LINKS" in [n.code for n in warnings] and any("7.8.8" in w for w in result.warnings)
