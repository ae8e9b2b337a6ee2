"""Route plans on the helsinki pack's OpenStreetMap streets (embedded Valhalla): strategies that differ, legs
drawn along streets, and a start outside the network estimated with a warning that names it."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.amap_cache import AMapShapedServer
from core.config import get_settings
from core.geo.registry import make_provider
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from tests.support.amap_settings import amap_settings
from tests.support.paths import ROOT


def test_fastest_and_shortest_differ_on_real_streets():
    request = load_scenario("helsinki-museums").request
    result = plan_route(
        request, provider=make_provider("offline", region="helsinki", settings=get_settings()), settings=get_settings()
    )
    assert result.success and result.metric_source == "valhalla"
    assert result.warnings == []
    by = {s: next(c for c in result.candidates if s in c.best_for) for s in ("fastest_time", "shortest_distance")}
    fastest, shortest = by["fastest_time"], by["shortest_distance"]
    assert fastest.stop_order_labels != shortest.stop_order_labels
    assert fastest.total_duration_s < shortest.total_duration_s
    assert fastest.total_distance_m > shortest.total_distance_m
    assert all(leg.source == "valhalla" for c in result.candidates for leg in c.legs)
    assert result.geometry_source == "valhalla"
    assert len(result.best_geometry) == len(result.best_route.legs)
    assert all(len(line) > 5 for line in result.best_geometry)  # along streets, not straight lines
    kiasma = next(p for p in result.resolved_stops if p.poi_id == "hel-w8042215")
    # found by its English name, an OSM id, not invented; its name is the pack's curated Chinese one (data/names)
    assert kiasma.resolved_name == "奇亚斯玛当代艺术博物馆"


def test_a_start_outside_the_network_is_estimated_and_named():
    request = load_scenario("helsinki-museums").request.model_copy(
        update={"origin_mode": "current_location", "origin_name": None, "origin_lon": 25.2, "origin_lat": 60.3}
    )
    result = plan_route(
        request, provider=make_provider("offline", region="helsinki", settings=get_settings()), settings=get_settings()
    )
    assert result.success and result.metric_source == "mixed"
    [off] = [n for n in result.notices if n.code == "OFF_NETWORK"]
    assert off.params["region"] == "helsinki"
    assert any("outside the road network of Helsinki" in w for w in result.warnings), result.warnings
    first = result.best_route.legs[0]
    assert first.source == "offline_estimate"
    assert all(leg.source == "valhalla" for leg in result.best_route.legs[1:])


def test_the_command_line_plans_on_helsinki_streets_for_walking(tmp_path):
    request = load_scenario("helsinki-museums").request.model_copy(update={"transport_mode": "walking"})
    path = tmp_path / "walk.json"
    path.write_text(request.model_dump_json(), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "core",
            "plan",
            "--region",
            "helsinki",
            "--request",
            str(path),
            "--html",
            str(tmp_path / "r.html"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["transport_mode"] == "walking" and result["metric_source"] == "valhalla"
    legs = result["best_route"]["legs"]
    assert all(1.3 < leg["distance_m"] / leg["duration_s"] < 1.5 for leg in legs if leg["duration_s"] > 60)


def test_exact_legs_come_from_the_direction_service_and_the_totals_follow():
    request = load_scenario("family-day").request.model_copy(update={"exact_legs": True})
    with AMapShapedServer() as amap:
        settings = amap_settings(amap.base_url, key="exact-legs-key")
        exact = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
        directions = [p for p in amap.requests if p.startswith("/v3/direction/")]
    best = exact.best_route
    asked = {
        (l.origin_location, l.destination_location)
        for c in exact.candidates
        for l in c.legs
        if l.measured_by == "directions"
    }
    # one direction call per distinct re-measured leg (the drawing of the best asks nothing again); the stand-in's
    # directions equal its matrix, so no other order's lower bound can outrank the best: only its legs are asked
    assert len(directions) == len(asked) == len(best.legs)
    assert best.measured_by == "directions"
    assert all(c.measured_by != "directions" for c in exact.candidates if c is not best)
    assert all(leg.source == "amap" and leg.measured_by == "directions" for leg in best.legs)
    assert best.total_distance_m == sum(leg.distance_m for leg in best.legs)
    matrix_plan = plan_route(
        request.model_copy(update={"exact_legs": False}),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    assert best.stop_order_labels == matrix_plan.best_route.stop_order_labels


def test_a_region_outside_china_gets_no_amap_links_even_when_asked():
    request = load_scenario("helsinki-museums").request.model_copy(update={"need_deep_link": True})
    result = plan_route(
        request, provider=make_provider("offline", region="helsinki", settings=get_settings()), settings=get_settings()
    )
    assert result.deep_links is None
    assert not any("uri.amap.com" in w for w in result.warnings)
