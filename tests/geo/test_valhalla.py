"""Valhalla as the router: recorded bodies through the parsers, the embedded engine on the helsinki pack's tiles
(built at install from the OpenStreetMap extract), and valhalla_service over HTTP giving the same answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import pytest

from core.config import get_settings
from core.errors import OutsideCoverage, ProviderError, RouteNotFound
from core.geo.base import LonLat
from core.geo.coords import haversine_m
from core.geo.registry import available_providers, make_provider, parse_provider
from core.geo.valhalla import (
    EmbeddedValhalla,
    HttpValhalla,
    ValhallaRouter,
    matrix_params,
    parse_locate,
    parse_matrix,
    parse_route,
    route_params,
)
from core.geo.valhalla_server import ValhallaServer
from core.packs.loader import load_region
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "valhalla"
CATHEDRAL = LonLat(24.952159, 60.170378)  # Helsinki Cathedral (OSM way 419479428)
STATION = LonLat(24.941197, 60.171204)  # Helsinki Central Railway Station (OSM way 122595198)
ATENEUM = LonLat(24.944219, 60.170018)  # Ateneum (OSM way 8033120)
KIASMA = LonLat(24.93667, 60.172032)
OLD_MARKET_HALL = LonLat(24.9531, 60.1671)
PORVOO_ROAD = LonLat(25.2, 60.3)  # 19 km north-east: outside the extract


def recorded(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tiles() -> Path:
    tile_dir = load_region("helsinki").tile_dir
    assert tile_dir is not None, "the helsinki pack is built by `make install` (scripts/build_packs.py)"
    return tile_dir


@pytest.fixture(scope="module")
def embedded(tiles: Path) -> ValhallaRouter:
    return ValhallaRouter(EmbeddedValhalla(tiles))


# ---- params builders and parsers on recorded bodies -----------------------------------------------------
def test_the_route_body_asks_for_six_decimal_shapes_without_directions():
    body = route_params(CATHEDRAL, STATION, costing="pedestrian")
    assert body == recorded("route_cathedral_station_pedestrian.json")["request"]
    assert body["shape_format"] == "polyline6" and body["directions_type"] == "none"
    assert body["locations"][0] == {"lon": 24.952159, "lat": 60.170378}
    assert route_params(CATHEDRAL, STATION, costing="auto", radius_m=100)["locations"][1]["radius"] == 100


def test_a_recorded_walk_parses_into_metres_seconds_and_a_street_shaped_line():
    leg = parse_route(
        recorded("route_cathedral_station_pedestrian.json")["response"], mode="walking", source="valhalla"
    )
    straight = haversine_m(*CATHEDRAL, *STATION)
    assert leg.distance_m == pytest.approx(777.0)  # the body says length 0.777 km
    assert 1.0 < leg.distance_m / straight < 1.5
    assert 1.3 < leg.distance_m / leg.duration_s < 1.5  # Valhalla's pedestrian pace, 5.1 km/h
    assert len(leg.geometry) > 10
    first, last = leg.geometry[0], leg.geometry[-1]
    assert haversine_m(*first, *CATHEDRAL) < 60 and haversine_m(*last, *STATION) < 120
    assert all(24.93 < lon < 24.96 and 60.16 < lat < 60.18 for lon, lat in leg.geometry)  # (lon, lat), not swapped


def test_a_recorded_matrix_keeps_unanswered_pairs_as_nan_never_zero():
    rec = recorded("matrix_auto_3.json")
    assert rec["request"] == matrix_params([CATHEDRAL, STATION, ATENEUM], [CATHEDRAL, STATION, ATENEUM], costing="auto")
    dist, dur = parse_matrix(rec["response"], sources=3, targets=3)
    assert dur[0][1] == 237 and dist[0][1] == pytest.approx(1904.0)  # 1.904 km in the body
    assert math.isnan(dur[1][0]) and math.isnan(dist[1][2])  # a clipped one-way street at the station
    with pytest.raises(ProviderError):
        parse_matrix(rec["response"], sources=2, targets=3)


def test_locate_measures_how_far_each_point_is_from_a_road():
    rec = recorded("locate_inside_outside.json")
    gaps = parse_locate(rec["response"], [CATHEDRAL, PORVOO_ROAD])
    assert gaps[0] < 60
    assert 15_000 < gaps[1] < 25_000  # Valhalla would have snapped it to a street 19 km away


def test_http_errors_map_to_outside_coverage_and_no_route():
    answers = {
        "/locate": httpx.Response(
            200,
            json=[
                {"edges": [{"correlated_lon": p.lon, "correlated_lat": p.lat}], "nodes": []}
                for p in (CATHEDRAL, STATION)
            ],
        ),
        "/route": httpx.Response(
            400, json={"error_code": 442, "error": "No path could be found for input", "status_code": 400}
        ),
        "/sources_to_targets": httpx.Response(
            400, json={"error_code": 171, "error": "No suitable edges near location", "status_code": 400}
        ),
    }
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        return answers[request.url.path]

    router = ValhallaRouter(
        HttpValhalla(base_url="http://valhalla.test", client=httpx.Client(transport=httpx.MockTransport(server)))
    )
    with pytest.raises(RouteNotFound):
        router.route(CATHEDRAL, STATION, mode="driving")
    assert seen == ["POST /locate", "POST /route", "POST /route"]  # the second try widens the pick-up radius
    with pytest.raises(OutsideCoverage):
        router.matrix([CATHEDRAL, STATION], mode="driving")


# ---- the embedded engine on real tiles ------------------------------------------------------------------
def test_driving_respects_one_way_streets_and_walking_does_not(embedded: ValhallaRouter):
    pts = [CATHEDRAL, STATION, ATENEUM, KIASMA, OLD_MARKET_HALL]
    drive = embedded.matrix(pts, mode="driving")
    walk = embedded.matrix(pts, mode="walking")
    n = len(pts)
    pairs = [(i, j) for i in range(n) for j in range(n) if i < j]
    assert all(math.isfinite(walk.durations_s[i][j]) for i in range(n) for j in range(n))
    walk_asym = max(abs(walk.distances_m[i][j] - walk.distances_m[j][i]) for i, j in pairs)
    drive_asym = max(
        abs(drive.distances_m[i][j] - drive.distances_m[j][i])
        for i, j in pairs
        if math.isfinite(drive.distances_m[i][j]) and math.isfinite(drive.distances_m[j][i])
    )
    assert walk_asym < 60  # a walker goes both ways along the same streets
    assert drive_asym > 300  # a driver does not: one-way streets in the centre
    for i, j in pairs:
        straight = haversine_m(*pts[i], *pts[j])
        assert walk.distances_m[i][j] >= straight * 0.95


def test_chunked_matrices_equal_one_request(tiles: Path):
    pts = [CATHEDRAL, STATION, ATENEUM, KIASMA, OLD_MARKET_HALL]
    calls: list[int] = []

    class Counting(EmbeddedValhalla):
        def call(self, action, body):
            if action == "sources_to_targets":
                calls.append(len(body["sources"]) * len(body["targets"]))
            return super().call(action, body)

    whole = ValhallaRouter(EmbeddedValhalla(tiles)).matrix(pts, mode="walking")
    chunked = ValhallaRouter(Counting(tiles), max_matrix_pairs=10).matrix(pts, mode="walking")
    assert chunked.durations_s == whole.durations_s and chunked.distances_m == whole.distances_m
    assert len(calls) == 3 and max(calls) <= 10


def test_a_point_outside_the_network_is_left_for_the_estimate_and_named(embedded: ValhallaRouter):
    m = embedded.matrix([CATHEDRAL, STATION, PORVOO_ROAD], mode="walking")
    assert m.off_network == [2]
    assert math.isnan(m.durations_s[0][2]) and math.isnan(m.durations_s[2][1])
    assert math.isfinite(m.durations_s[0][1])
    assert any("point 2" in note and "km from the road network" in note for note in m.notes)
    with pytest.raises(OutsideCoverage, match="19.2 km"):
        embedded.route(CATHEDRAL, PORVOO_ROAD, mode="walking")


# ---- the registry --------------------------------------------------------------------------------------
def test_offline_on_a_pack_with_roads_routes_on_them_and_elsewhere_estimates():
    helsinki = make_provider("offline", region="helsinki", settings=get_settings())
    assert helsinki.router.name == "valhalla"
    assert helsinki.route(CATHEDRAL, STATION, mode="walking").source == "valhalla"
    shanghai = make_provider("offline", region="shanghai", settings=get_settings())
    assert shanghai.router.name == "offline"
    assert "pack+valhalla" in available_providers(region="helsinki", settings=get_settings())
    assert "pack+valhalla" not in available_providers(region="shanghai", settings=get_settings())
    assert parse_provider("offline", pack=load_region("helsinki"), settings=helsinki_settings()) == ("pack", "valhalla")


def helsinki_settings():
    from core.config import get_settings

    return get_settings()


def test_the_pack_router_degrades_a_leg_outside_coverage_with_a_warning():
    services = make_provider("pack+valhalla", region="helsinki", settings=get_settings())
    leg = services.route(CATHEDRAL, PORVOO_ROAD, mode="driving")
    assert leg.source == "offline_estimate"
    warnings = services.drain_warnings()
    assert any("Valhalla route unavailable" in w and "19.2 km" in w for w in warnings), warnings


# ---- valhalla_service over HTTP ------------------------------------------------------------------------
@pytest.mark.slow
def test_valhalla_service_answers_exactly_as_the_embedded_engine(tiles: Path, embedded: ValhallaRouter):
    pts = [CATHEDRAL, STATION, ATENEUM, KIASMA, OLD_MARKET_HALL, PORVOO_ROAD]
    with ValhallaServer(tiles) as server:
        remote = ValhallaRouter(HttpValhalla(base_url=server.url))
        for mode in ("driving", "walking"):
            a, b = remote.matrix(pts, mode=mode), embedded.matrix(pts, mode=mode)
            assert json.dumps(a.durations_s) == json.dumps(b.durations_s)
            assert json.dumps(a.distances_m) == json.dumps(b.distances_m)
            assert a.off_network == b.off_network == [5]
            assert remote.route(STATION, KIASMA, mode=mode) == embedded.route(STATION, KIASMA, mode=mode)
