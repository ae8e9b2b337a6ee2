import pytest
from pydantic import ValidationError

from core.errors import error_from_validation
from core.models.route import MAX_STOPS, RoutePlanRequest


def _req(**kw):
    base = dict(origin_mode="fixed", origin_address="人民广场", destination_address="外滩", stops=[{"address": "豫园"}])
    base.update(kw)
    return RoutePlanRequest.model_validate(base)


def _error(**kw):
    with pytest.raises(ValidationError) as info:
        _req(**kw)
    return error_from_validation(info.value)


def test_defaults_follow_the_specification():
    r = _req()
    assert r.route_strategy == "shortest_distance"
    assert r.transport_mode == "driving"
    assert r.deep_link_mode == "auto"
    assert r.max_permutations == 24
    assert r.need_deep_link is True and r.need_html is False


def test_fixed_origin_needs_an_address():
    err = _error(origin_address=None)
    assert err.field == "origin_address"
    assert "fixed origin needs an address" in err.message


def test_fixed_origin_name_alone_is_used_as_the_query():
    assert _req(origin_address=None, origin_name="人民广场").origin_address == "人民广场"


def test_current_location_must_not_carry_an_invented_origin():
    err = _error(origin_mode="current_location")
    assert err.field == "origin_address"
    assert "current_location" in err.message


def test_current_location_accepts_live_coordinates_in_pairs():
    r = _req(origin_mode="current_location", origin_address=None, origin_lon=121.47, origin_lat=31.23)
    assert (r.origin_lon, r.origin_lat) == (121.47, 31.23)
    err = _error(origin_mode="current_location", origin_address=None, origin_lon=121.47)
    assert err.field == "origin_lat"


def test_fixed_origin_rejects_live_coordinates():
    assert _error(origin_lon=121.4, origin_lat=31.2).field == "origin_lon"


def test_destination_is_required():
    err = _error(destination_address=None)
    assert err.field == "destination_address"
    assert "destination is required" in err.message


def test_at_least_one_stop():
    err = _error(stops=[])
    assert err.field == "stops" and "at least one stop" in err.message


def test_destination_must_not_also_be_a_stop():
    err = _error(stops=[{"address": "豫园"}, {"address": " 外滩 "}])
    assert err.field == "stops.1"
    assert "destination" in err.message


def test_upper_bound_on_stops_is_at_least_50():
    assert MAX_STOPS >= 50
    ok = _req(stops=[{"address": f"测试路{i}号"} for i in range(50)])
    assert len(ok.stops) == 50
    err = _error(stops=[{"address": f"测试路{i}号"} for i in range(MAX_STOPS + 1)])
    assert err.field == "stops" and str(MAX_STOPS) in err.message


def test_stop_needs_address_or_name():
    assert _req(stops=[{"name": "豫园"}]).stops[0].address == "豫园"
    assert _error(stops=[{"name": " ", "address": ""}]).field == "stops.0.address"


def test_round_trip_defaults_destination_to_origin():
    r = RoutePlanRequest(origin_mode="fixed", origin_address="人民广场", round_trip=True, stops=[{"address": "豫园"}])
    assert r.destination_address == "人民广场"
    err = _error(origin_mode="current_location", origin_address=None, round_trip=True, destination_address=None)
    assert err.field in {"round_trip", "destination_address"}


def test_unknown_strategy_is_rejected_with_the_field_name():
    err = _error(route_strategy="cheapest")
    assert err.field == "route_strategy"


def test_a_stop_given_as_a_plain_string_is_its_address():
    r = _req(stops=["豫园", {"name": "新天地"}])
    assert [s.address for s in r.stops] == ["豫园", "新天地"]
    assert _error(stops=["   "]).field == "stops.0.address"


def test_live_coordinates_must_be_finite_numbers():
    err = _error(origin_mode="current_location", origin_address=None, origin_lon=float("nan"), origin_lat=31.2)
    assert err.field == "origin_lon" and "finite" in err.message


def test_round_trip_stop_at_the_start_says_so():
    err = _error(destination_address=None, round_trip=True, stops=[{"address": "人民广场"}])
    assert err.field == "stops.0" and "round trip" in err.message
