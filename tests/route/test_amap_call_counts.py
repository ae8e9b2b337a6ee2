"""The calls a 10-place plan makes of AMap, by service (issue 20: the live path within its quota). The counts are
derived from the trip's shape, not read off a run:

- geocode: one batch of up to 10 addresses a call;
- distance: one call per distinct point a leg can end at (AMap answers one destination a call, up to 100 origins):
  an open path never ends a leg at its start, a round trip's return ends at the start's point;
- directions: the best route's legs once each (the drawing asks nothing again). The stand-in's directions equal its
  matrix, so the lower bound of orders 2 and 3 cannot outrank the best and nothing more is asked.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from bench.amap_cache import AMapShapedServer
from bench.amap_live import by_service, trip_request
from core.geo.coords import gcj02_to_wgs84, haversine_m
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from core.route.planner import plan_route
from tests.support.amap_settings import amap_settings


class CountingServer(AMapShapedServer):
    """The AMap-shaped stand-in, keeping each request's path and its query (who asked what)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[tuple[str, dict[str, str]]] = []

    def handle(self, path: str, query: dict[str, str]) -> dict[str, Any]:
        self.queries.append((path, dict(query)))
        return super().handle(path, query)

    def asked(self, prefix: str, *fields: str) -> list[tuple[str, ...]]:
        return [tuple(q.get(f, "") for f in fields) for p, q in self.queries if p.startswith(prefix)]


def plan(request: dict[str, Any]) -> tuple[Any, CountingServer]:
    with CountingServer() as amap:
        settings = amap_settings(amap.base_url, key="call-counts-key-0123", cache_dir=None)  # a cold plan each
        result = plan_route(
            RoutePlanRequest.model_validate(request),
            provider=make_provider("amap", settings=settings),
            settings=settings,
        )
    return result, amap


def metres_to_nearest_destination(amap: CountingServer, point: Any) -> float:
    """How far ``point`` (a resolved point, WGS-84) is from the nearest destination the distance service was asked
    for (GCJ-02 on the wire)."""
    nearest = math.inf
    for (wire,) in amap.asked("/v3/distance", "destination"):
        lon, lat = gcj02_to_wgs84(*(float(x) for x in wire.split(",")))
        nearest = min(nearest, haversine_m(point.lon, point.lat, lon, lat))
    return nearest


def no_pair_asked_twice(amap: CountingServer) -> None:
    destinations = amap.asked("/v3/distance", "destination")
    assert len(destinations) == len(set(destinations)), Counter(destinations).most_common(3)
    legs = amap.asked("/v3/direction/", "origin", "destination")
    assert len(legs) == len(set(legs)), Counter(legs).most_common(3)


def test_an_open_path_of_ten_places_asks_nine_distance_columns_and_nine_direction_legs():
    request = trip_request(10)  # origin, 8 stops, destination
    result, amap = plan(request)
    assert by_service(amap.requests) == {"geocode": 1, "matrix": 9, "route": 9}
    no_pair_asked_twice(amap)
    # the start is never a destination: every column asked is a stop or the destination
    assert metres_to_nearest_destination(amap, result.resolved_origin) > 100
    assert metres_to_nearest_destination(amap, result.resolved_destination) < 1
    assert all(leg.measured_by == "directions" and leg.source == "amap" for leg in result.best_route.legs)
    assert len(result.best_route.legs) == 9


def test_a_round_trip_of_ten_places_asks_the_starts_column_for_the_way_back():
    base = trip_request(11)
    request = {**base, "round_trip": True, "destination_name": None, "destination_city": None}
    request["stops"] = [*base["stops"], {"name": base["destination_name"], "city": "上海"}][:9]
    result, amap = plan(request)  # the origin and 9 stops: 10 places, 10 legs
    # directions: the best tour's 10 legs, and the same tour driven the other way: on the symmetric stand-in its
    # totals tie with the best's (a tie the directions may break), so it is re-measured too, every leg reversed
    best, second = result.candidates[:2]
    assert second.full_order_labels == best.full_order_labels[::-1]
    assert second.measured_by == "directions"
    assert by_service(amap.requests) == {"geocode": 1, "matrix": 10, "route": 20}
    no_pair_asked_twice(amap)
    assert metres_to_nearest_destination(amap, result.resolved_origin) < 1
    assert len(result.best_route.legs) == 10


def test_a_live_start_is_an_origin_only_and_an_unknown_start_leaves_every_stop_a_destination():
    pack = load_region("shanghai")
    base = trip_request(10)
    places = [base["origin_name"], *(s["name"] for s in base["stops"])]  # 9 places besides the destination
    live = {
        **base,
        "origin_mode": "current_location",
        "origin_name": None,
        "origin_city": None,
        "origin_lon": pack.center[0],
        "origin_lat": pack.center[1],
        "stops": [{"name": n, "city": "上海"} for n in places],
    }
    _, amap = plan(live)  # the live start, 9 stops, the destination: 10 columns a leg can end at, 10 legs
    assert by_service(amap.requests) == {"geocode": 1, "matrix": 10, "route": 10}
    no_pair_asked_twice(amap)
    unknown = {k: v for k, v in live.items() if k not in ("origin_lon", "origin_lat")}
    _, amap = plan(unknown)  # no start: 9 stops and the destination, each may be where a leg ends; 9 legs
    assert by_service(amap.requests) == {"geocode": 1, "matrix": 10, "route": 9}
    no_pair_asked_twice(amap)


def test_two_stops_at_one_place_are_one_destination_asked_once():
    request = trip_request(10)
    twin = request["stops"][0]["name"]
    request["stops"] = [*request["stops"], {"name": twin, "city": "上海"}]  # 9 stops, 8 places among them
    result, amap = plan(request)
    assert "SAME_PLACE_STOPS" in {n.code for n in result.notices}
    assert by_service(amap.requests)["matrix"] == 9  # 8 distinct stop places and the destination
    no_pair_asked_twice(amap)


def test_a_warm_replan_asks_nothing_and_a_wider_plan_asks_only_its_new_columns(tmp_path):
    request = trip_request(10)
    with CountingServer() as amap:
        settings = amap_settings(amap.base_url, key="call-counts-key-0123", cache_dir=tmp_path / "cache")
        provider = make_provider("amap", settings=settings)
        plan_route(RoutePlanRequest.model_validate(request), provider=provider, settings=settings)
        cold = len(amap.requests)
        plan_route(RoutePlanRequest.model_validate(request), provider=provider, settings=settings)
        assert len(amap.requests) == cold
        # the same places as a round trip: the way back ends at the start, the one column not asked before
        round_trip = {
            **request,
            "round_trip": True,
            "destination_name": None,
            "destination_city": None,
            "stops": [*request["stops"], {"name": request["destination_name"], "city": "上海"}],
        }
        plan_route(RoutePlanRequest.model_validate(round_trip), provider=provider, settings=settings)
        assert by_service(amap.requests[cold:]).get("matrix") == 1
        assert by_service(amap.requests[cold:]).get("geocode") is None


def test_where_directions_differ_from_the_matrix_each_leg_is_still_asked_once_and_the_best_is_all_directions():
    """A stand-in whose directions differ from its distances by up to 5 % a leg, as AMap's two services do: the
    re-measure may ask for legs of orders 2 and 3, never a leg twice, and the best route is all directions."""
    with CountingServer() as amap:
        amap.directions_spread = 0.05
        settings = amap_settings(amap.base_url, key="call-counts-key-0123", cache_dir=None)
        result = plan_route(
            RoutePlanRequest.model_validate(trip_request(10)),
            provider=make_provider("amap", settings=settings),
            settings=settings,
        )
    calls = by_service(amap.requests)
    assert (calls["geocode"], calls["matrix"]) == (1, 9) and 9 <= calls["route"] <= 9 + 2 * 8
    no_pair_asked_twice(amap)
    best = result.best_route
    assert best.measured_by == "directions" and all(leg.source == "amap" for leg in best.legs)


def test_the_stand_in_s_directions_differ_from_its_distances_by_at_most_the_spread_fixed_per_leg():
    from standins.amap import AMapLimitedStandIn

    origin, destination = "121.490000,31.240000", "121.500000,31.230000"
    with AMapLimitedStandIn(directions_spread=0.05) as standin:
        distance = standin.answer("/v3/distance", {"origins": origin, "destination": destination, "type": "1"})
        route = standin.answer("/v3/direction/driving", {"origin": origin, "destination": destination})
        again = standin.answer("/v3/direction/driving", {"origin": origin, "destination": destination})
    matrix_m = float(distance["results"][0]["distance"])
    directions_m = float(route["route"]["paths"][0]["distance"])
    assert directions_m != matrix_m and abs(directions_m / matrix_m - 1) <= 0.05 + 1 / matrix_m
    assert again == route  # the same leg always differs alike
