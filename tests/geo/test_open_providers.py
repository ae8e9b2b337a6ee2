"""Nominatim and OSRM on recorded bodies (written from each service's documented format) through
httpx.MockTransport: the requests sent, the parsing, chunked tables, unanswered pairs and errors."""

from __future__ import annotations

import json
import math

import httpx
import pytest

from core.config import Settings
from core.errors import InputError, ProviderError, ProviderRateLimited, ProviderUnavailable, RouteNotFound
from core.geo.base import LonLat
from core.geo.coords import haversine_m
from core.geo.nominatim import NominatimGeocoder
from core.geo.osrm import OsrmRouter
from core.geo.registry import available_providers, make_provider
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
CATHEDRAL = LonLat(24.952159, 60.170378)
STATION = LonLat(24.941197, 60.171204)


def body(name: str):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def mock(handler) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


# ---- Nominatim ---------------------------------------------------------------------------------------------
def test_a_search_sends_the_documented_parameters_and_names_the_application():
    seen: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=body("nominatim/search_cathedral.json"))

    nominatim = NominatimGeocoder(base_url="http://nominatim.test", client=mock(server), min_interval_s=0)
    places = nominatim.search("tuomiokirkko", city="Helsinki", near=STATION, limit=3)
    q = seen[0].url.params
    assert seen[0].url.path == "/search"
    assert q["q"] == "tuomiokirkko, Helsinki" and q["format"] == "jsonv2" and q["limit"] == "3"
    assert q["addressdetails"] == "1" and q["namedetails"] == "1" and q["bounded"] == "0"
    west, north, east, south = (float(x) for x in q["viewbox"].split(","))
    assert west < STATION.lon < east and south < STATION.lat < north
    assert seen[0].headers["User-Agent"].startswith("omni-travel-planner/")
    cathedral = places[0]
    assert (cathedral.lon, cathedral.lat) == (24.9521587, 60.1703781)  # lon, lat: not swapped
    assert cathedral.poi_id == "W419479428" and cathedral.category == "amenity:place_of_worship"
    assert cathedral.name == "Helsingin tuomiokirkko" and cathedral.city == "Helsinki"
    assert cathedral.source == "nominatim" and cathedral.level == "poi"
    assert places[1].district == "Punavuori"


def test_reverse_and_lookup():
    def server(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/reverse":
            lat = float(request.url.params["lat"])
            return httpx.Response(
                200, json=body("nominatim/reverse_station.json" if lat > 60 else "nominatim/reverse_sea.json")
            )
        assert request.url.params["osm_ids"] == "W419479428"
        return httpx.Response(200, json=body("nominatim/search_cathedral.json")[:1])

    nominatim = NominatimGeocoder(base_url="http://nominatim.test", client=mock(server), min_interval_s=0)
    station = nominatim.reverse(STATION)
    assert station is not None and station.poi_id == "W122595198"
    assert haversine_m(station.lon, station.lat, *STATION) < 1
    assert nominatim.reverse(LonLat(24.9, 59.9)) is None  # "Unable to geocode": nothing there, not an error
    assert nominatim.detail("W419479428").name == "Helsingin tuomiokirkko"
    assert nominatim.detail("hel-w419479428") is None  # not an OSM id: never sent


def test_nominatim_errors_map_to_provider_errors():
    answers = iter([httpx.Response(429), httpx.Response(200, text="<html>busy</html>"), httpx.Response(200, json={})])
    nominatim = NominatimGeocoder(
        base_url="http://nominatim.test", client=mock(lambda r: next(answers)), min_interval_s=0
    )
    with pytest.raises(ProviderRateLimited):
        nominatim.geocode("Kamppi")
    with pytest.raises(ProviderUnavailable):
        nominatim.geocode("Kamppi")
    with pytest.raises(ProviderError):
        nominatim.geocode("Kamppi")


def test_nominatim_waits_a_second_between_calls_by_default():
    waits: list[float] = []
    nominatim = NominatimGeocoder(
        base_url="http://nominatim.test", client=mock(lambda r: httpx.Response(200, json=[])), sleep=waits.append
    )
    nominatim.geocode("Kamppi")
    nominatim.geocode("Kallio")
    assert len(waits) == 1 and 0.9 < waits[0] <= 1.0


# ---- OSRM --------------------------------------------------------------------------------------------------
def table_server(points: list[LonLat], seen: list[httpx.Request], *, unreachable=frozenset()):
    """Answers /table like OSRM from a known matrix: distance = 1,000 x i + j, duration = distance / 10."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        coords = [tuple(map(float, c.split(","))) for c in request.url.path.split("/")[-1].split(";")]
        ids = [
            min(range(len(points)), key=lambda k: abs(points[k].lon - c[0]) + abs(points[k].lat - c[1])) for c in coords
        ]
        sources = [ids[int(s)] for s in request.url.params["sources"].split(";")]
        destinations = [ids[int(d)] for d in request.url.params["destinations"].split(";")]

        def value(i, j, scale):
            return None if (i, j) in unreachable else (0.0 if i == j else (1000.0 * i + j) / scale)

        return httpx.Response(
            200,
            json={
                "code": "Ok",
                "distances": [[value(i, j, 1) for j in destinations] for i in sources],
                "durations": [[value(i, j, 10) for j in destinations] for i in sources],
            },
        )

    return handler


def test_a_table_larger_than_the_server_allows_is_asked_in_blocks_and_stitched():
    points = [LonLat(24.93 + 0.003 * k, 60.165 + 0.002 * k) for k in range(7)]
    seen: list[httpx.Request] = []
    osrm = OsrmRouter(base_url="http://osrm.test", client=mock(table_server(points, seen)), max_table_size=4)
    m = osrm.matrix(points, mode="walking")
    assert all(r.url.path.startswith("/table/v1/foot/") for r in seen)  # walking is OSRM's foot profile
    assert max(len(r.url.path.split("/")[-1].split(";")) for r in seen) <= 4
    assert len(seen) == 16  # 4 blocks of sources x 4 of destinations
    for i in range(7):
        for j in range(7):
            expected = 0.0 if i == j else 1000.0 * i + j
            assert m.distances_m[i][j] == expected and m.durations_s[i][j] == expected / 10
    assert m.source == "osrm" and m.notes == []


def test_a_pair_osrm_cannot_join_stays_unanswered_for_the_wrapper_to_estimate_and_name():
    points = [CATHEDRAL, STATION, LonLat(24.9445, 60.1700)]
    seen: list[httpx.Request] = []
    osrm = OsrmRouter(base_url="http://osrm.test", client=mock(table_server(points, seen, unreachable={(1, 2)})))
    m = osrm.matrix(points, mode="driving")
    assert math.isinf(m.durations_s[1][2]) and math.isfinite(m.durations_s[2][1])
    assert m.notes == ["OSRM found no route for 1 of 6 driving pairs"]
    assert seen[0].url.path.startswith("/table/v1/driving/")


def test_a_route_decodes_its_six_decimal_line_and_no_route_is_an_answer():
    def server(request: httpx.Request) -> httpx.Response:
        if "/foot/" in request.url.path:
            assert request.url.params["geometries"] == "polyline6" and request.url.params["overview"] == "full"
            return httpx.Response(200, json=body("osrm/route_cathedral_station_foot.json"))
        return httpx.Response(400, json=body("osrm/route_no_route.json"))

    osrm = OsrmRouter(base_url="http://osrm.test", client=mock(server))
    leg = osrm.route(CATHEDRAL, STATION, mode="walking")
    assert leg.distance_m == 783.4 and leg.duration_s == 571.2 and leg.source == "osrm"
    assert haversine_m(*leg.geometry[0], *CATHEDRAL) < 60 and haversine_m(*leg.geometry[-1], *STATION) < 120
    with pytest.raises(RouteNotFound):
        osrm.route(CATHEDRAL, STATION, mode="driving")


def test_a_refused_table_is_a_provider_error():
    osrm = OsrmRouter(
        base_url="http://osrm.test", client=mock(lambda r: httpx.Response(400, json=body("osrm/table_invalid.json")))
    )
    with pytest.raises(ProviderError, match="Too many table coordinates"):
        osrm.matrix([CATHEDRAL, STATION], mode="driving")


# ---- the registry: offered only when configured, paired with any geocoder -------------------------------------
def test_open_services_are_offered_only_when_their_address_is_set():
    bare = Settings(region="helsinki")
    assert not any("nominatim" in p or "osrm" in p for p in available_providers(region="helsinki", settings=bare))
    configured = Settings(region="helsinki", nominatim_url="http://nominatim.test", osrm_url="http://osrm.test")
    offered = available_providers(region="helsinki", settings=configured)
    assert {"nominatim+osrm", "nominatim+valhalla", "pack+osrm"} <= set(offered)
    services = make_provider("nominatim+valhalla", region="helsinki", settings=configured)
    assert services.geocoder.name == "nominatim" and services.router.name == "valhalla"
    with pytest.raises(InputError, match="OMNI_OSRM_URL"):
        make_provider("pack+osrm", region="helsinki", settings=bare)
