"""A trip in a link (core/share.py, issue 12 §4): real requests from data/scenarios and data/trips go into a token and
come back equal; damaged, truncated, oversized, foreign and old-version tokens are refused with their own code
before anything is trusted."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from core import share
from core.models.itinerary import TripRequest
from core.models.route import RoutePlanRequest
from tests.support.paths import ROOT

SCENARIOS = sorted((ROOT / "data" / "scenarios").glob("*.json"))
TRIPS = sorted((ROOT / "data" / "trips").glob("*.json"))


def scenario(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    return RoutePlanRequest.model_validate(data["request"]), data.get("region")


def trip(path) -> TripRequest:
    return TripRequest.model_validate(json.loads(path.read_text(encoding="utf-8")))


def raw_token(envelope, *, version: str = share.VERSION) -> str:
    """A token made by hand (what a tamperer could send)."""
    packed = zlib.compress(json.dumps(envelope).encode("utf-8"))
    return version + "." + base64.urlsafe_b64encode(packed).rstrip(b"=").decode("ascii")


def code_of(token, kind="route") -> str:
    with pytest.raises(share.ShareError) as caught:
        share.decode(token, kind=kind)
    return caught.value.code


# --- round trips of real requests ----------------------------------------------------------------------------
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_comes_back_equal_with_its_region(path):
    request, region = scenario(path)
    token = share.route_token(request, region=region)
    assert token.startswith("1.")
    assert len(token) < share.MAX_TOKEN_CHARS
    assert all(ch.isalnum() or ch in "._-" for ch in token)  # nothing a URL has to escape
    back, back_region = share.route_from_token(token)
    assert back == request
    assert back_region == region


def test_chosen_poi_ids_travel_with_the_route():
    request, region = scenario(ROOT / "data" / "scenarios" / "delivery-round.json")
    chosen = request.model_copy(
        update={
            "origin_poi_id": "sh-citic-square",
            "stops": [request.stops[0].model_copy(update={"poi_id": "sh-shangjia"}), *request.stops[1:]],
        }
    )
    back, _ = share.route_from_token(share.route_token(chosen, region=region))
    assert back.origin_poi_id == "sh-citic-square"
    assert back.stops[0].poi_id == "sh-shangjia"
    assert back.stops[1].poi_id is None


@pytest.mark.parametrize("path", TRIPS, ids=lambda p: p.stem)
def test_every_demo_trip_comes_back_equal_with_its_edits_in_order(path):
    request = trip(path)
    first, second = request.places[0].key, request.places[1].key
    edits = [
        {"kind": "lock", "key": first, "day_index": 0, "start_time": "10:30"},
        {"kind": "remove", "key": second},
        {"kind": "unlock", "key": first},
    ]
    back, back_edits, orders = share.trip_from_token(share.trip_token(request, edits))
    assert back == request
    assert back_edits == edits  # as the page keeps them: a lock's time as HH:MM, no empty fields
    assert orders is None  # no day orders given (a link made before links carried them reads the same)


def test_a_trip_link_carries_its_day_orders_as_place_keys():
    request = trip(TRIPS[0])
    keys = [p.key for p in request.places]
    orders = [keys[:2][::-1], *([[]] * (len(request.days) - 1))]
    back, _, back_orders = share.trip_from_token(share.trip_token(request, [], orders=orders))
    assert back == request and back_orders == orders
    assert share.trip_data(request, orders=orders)["o"] == orders
    with pytest.raises(share.ShareError) as info:  # one order a day, or the link is refused
        share.trip_from_token(raw_token({"k": "trip", "d": {"t": share.trip_data(request)["t"], "o": [[]] * 99}}))
    assert info.value.code == "SHARE_INVALID"


def test_the_same_trip_always_gives_the_same_token():
    request = trip(TRIPS[0])
    again = TripRequest.model_validate(json.loads(TRIPS[0].read_text(encoding="utf-8")))
    assert share.trip_token(request) == share.trip_token(again)
    assert share.cache_key("trip", share.trip_data(request)) == share.cache_key("trip", share.trip_data(again))
    moved = share.trip_data(request, [{"kind": "remove", "key": request.places[0].key}])
    assert share.cache_key("trip", moved) != share.cache_key("trip", share.trip_data(request))


# --- hostile or damaged tokens ---------------------------------------------------------------------------------
@pytest.fixture
def route_token():
    request, region = scenario(ROOT / "data" / "scenarios" / "delivery-round.json")
    return share.route_token(request, region=region)


def test_a_truncated_token_is_corrupt(route_token):
    assert code_of(route_token[: len(route_token) // 2]) == "SHARE_CORRUPT"
    assert code_of(route_token[:-3]) == "SHARE_CORRUPT"


def test_a_changed_character_is_caught_by_the_checksum(route_token):
    i = len(route_token) // 2
    flipped = route_token[:i] + ("A" if route_token[i] != "A" else "B") + route_token[i + 1 :]
    assert code_of(flipped) == "SHARE_CORRUPT"


@pytest.mark.parametrize(
    "token",
    ["", "   ", None, 42, "no-dot-here", "x.abc", "1.", "1.abc$def", "1.abc def", "1.////", "1." + "A" * 40],
)
def test_what_is_not_a_token_is_corrupt(token):
    assert code_of(token) == "SHARE_CORRUPT"


@pytest.mark.parametrize("version", ["0", "2", "17"])
def test_another_format_version_is_named(route_token, version):
    assert code_of(version + route_token[1:]) == "SHARE_VERSION"


def test_an_overlong_token_is_refused_before_decoding():
    assert code_of("1." + "A" * share.MAX_TOKEN_CHARS) == "SHARE_TOO_LONG"


def test_a_small_token_that_inflates_past_the_cap_is_refused():
    bomb = {"k": "route", "d": {"q": {"task_name": " " * (share.MAX_PAYLOAD_BYTES * 20)}}}
    token = raw_token(bomb)
    assert len(token) < share.MAX_TOKEN_CHARS  # it would pass the length check: the inflated size stops it
    assert code_of(token) == "SHARE_TOO_LARGE"


def test_extra_bytes_after_the_compressed_trip_are_corrupt():
    packed = zlib.compress(json.dumps({"k": "route", "d": {}}).encode()) + b"junk"
    token = "1." + base64.urlsafe_b64encode(packed).rstrip(b"=").decode("ascii")
    assert code_of(token) == "SHARE_CORRUPT"


@pytest.mark.parametrize("envelope", [[1, 2], {"k": "route"}, {"k": "route", "d": [1]}, "text", None])
def test_json_of_the_wrong_shape_is_corrupt(envelope):
    assert code_of(raw_token(envelope)) == "SHARE_CORRUPT"


@pytest.mark.parametrize("depth", [share.MAX_NESTING + 1, 30_000])
def test_deeply_nested_json_is_refused_before_it_is_parsed(depth):
    text = '{"k":"route","d":{"q":' + "[" * depth  # a few hundred bytes once compressed
    token = "1." + base64.urlsafe_b64encode(zlib.compress(text.encode())).rstrip(b"=").decode("ascii")
    assert len(token) < share.MAX_TOKEN_CHARS
    assert code_of(token) == "SHARE_CORRUPT"


def test_brackets_inside_names_do_not_count_as_nesting(route_token):
    request, region = share.route_from_token(route_token)
    named = request.model_copy(update={"task_name": '[[[[{{{{"\\' * 10})
    assert share.route_from_token(share.route_token(named, region=region))[0].task_name == named.task_name


@pytest.mark.parametrize("version", ["١", "0001", "1" * 50])
def test_versions_are_ascii_digits_and_short(version):
    assert code_of(version + ".eJwDAAAAAAE") == "SHARE_CORRUPT"


def test_not_utf8_is_corrupt():
    token = "1." + base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe{}")).rstrip(b"=").decode("ascii")
    assert code_of(token) == "SHARE_CORRUPT"


def test_another_pages_link_is_named(route_token):
    assert code_of(route_token, kind="trip") == "SHARE_KIND"
    with pytest.raises(share.ShareError) as caught:
        share.trip_from_token(route_token)
    assert caught.value.code == "SHARE_KIND"


@pytest.mark.parametrize(
    "data",
    [
        {"q": {"origin_mode": "fixed", "stops": []}},  # no origin, no destination, no stop
        {"q": {"origin_mode": "teleport", "destination_address": "外滩", "stops": ["豫园"]}},
        {"q": {"origin_mode": "fixed", "origin_address": "外滩", "destination_address": "豫园", "stops": ["豫园"]}},
        {"q": {"origin_mode": "fixed", "origin_address": "a", "destination_address": "b", "stops": ["c"]}, "r": "../x"},
        {"q": "外滩"},
    ],
)
def test_a_route_the_request_model_refuses_is_invalid(data):
    with pytest.raises(share.ShareError) as caught:
        share.route_from_token(raw_token({"k": "route", "d": data}))
    assert caught.value.code == "SHARE_INVALID"


def test_a_trip_the_request_model_refuses_is_invalid():
    request = trip(TRIPS[0]).model_dump(mode="json")
    backwards = {**request, "days": [{**request["days"][0], "start_time": "20:00", "end_time": "09:00"}]}
    for data in ({"t": backwards}, {"t": request, "e": [{"kind": "teleport", "key": "x"}]}, {"t": request, "e": "x"}):
        with pytest.raises(share.ShareError) as caught:
            share.trip_from_token(raw_token({"k": "trip", "d": data}))
        assert caught.value.code == "SHARE_INVALID"
    too_many = [{"kind": "remove", "key": "sh-bund"}] * (share.MAX_SHARED_EDITS + 1)
    with pytest.raises(share.ShareError) as caught:
        share.trip_from_token(raw_token({"k": "trip", "d": {"t": request, "e": too_many}}))
    assert caught.value.code == "SHARE_TOO_LARGE"


def test_a_trip_too_large_for_a_link_is_not_written():
    import random

    rng = random.Random(7)
    noise = ["".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(60)) for _ in range(100)]
    request = RoutePlanRequest.model_validate(
        {"origin_mode": "fixed", "origin_address": "起点", "destination_address": "终点", "stops": noise}
    )
    with pytest.raises(share.ShareError) as caught:
        share.route_token(request, region="shanghai")
    assert caught.value.code == "SHARE_TOO_LONG"


# --- the half-day goal -----------------------------------------------------------------------------------------
def test_a_half_day_goal_comes_back_with_its_start_region_and_window():
    from datetime import date, time

    from core.models.halfday.goal import ExactWindow

    window = ExactWindow(date=date(2027, 1, 9), start=time(13, 0), end=time(18, 0))
    token = share.halfday_token(goal="周六下午带5岁的孩子去博物馆", origin="人民广场", region="shanghai", window=window)
    assert share.halfday_from_token(token) == share.HalfDayLink(
        goal="周六下午带5岁的孩子去博物馆", origin="人民广场", region="shanghai", window=window
    )
    bare = share.halfday_token(goal="Saturday afternoon, art", origin=None, region=None, window=None)
    assert share.halfday_from_token(bare) == share.HalfDayLink(goal="Saturday afternoon, art")
    assert code_of(token, kind="route") == "SHARE_KIND"


@pytest.mark.parametrize(
    "data",
    [
        {"g": ""},
        {"g": "x" * 5000},
        {"g": "museum", "r": "../etc"},
        {"g": "museum", "d": "someday"},
        {"g": "a", "d": 7},
        {"g": "a", "d": "2027-W01"},
        {"g": "a", "d": "20270101"},
    ],
    ids=["empty", "too-long", "region-path", "bad-day", "day-number", "iso-week", "basic-format"],
)
def test_a_half_day_goal_the_request_refuses_is_invalid(data):
    with pytest.raises(share.ShareError) as caught:
        share.halfday_from_token(raw_token({"k": "halfday", "d": data}))
    assert caught.value.code == "SHARE_INVALID"
