"""The person's own order beside the best (issue 32, X8 "keep my order"): planned as given on the plan's own
figures, compared with the best order in total and leg by leg, and planned again without a provider call when only
the order changed.

The figures are a matrix written by hand (tests/support/hand_route.py), served by a router that knows nothing; every
expected value below is summed by hand from it:

    O = 人民广场 (start), A = 外滩, B = 豫园, C = 新天地 (stops 0, 1, 2), D = 上海博物馆 (destination)
    metres:  O→A 1000  O→B 2000  O→C 3000   A→B 1500  A→C 2500  A→D 4000
             B→A 1500  B→C 1000  B→D 3000   C→A 2500  C→B 1000  C→D 1000
    seconds: O→A 120   O→B 200   O→C 260    A→B 150   A→C 300   A→D 420
             B→A 150   B→C 90    B→D 330    C→A 300   C→B 90    C→D 100

The shortest order is A B C (1000 + 1500 + 1000 + 1000 = 4500 m; 120 + 150 + 90 + 100 = 460 s); the order
C A B costs 3000 + 2500 + 1500 + 3000 = 10000 m and 260 + 300 + 150 + 330 = 1040 s.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.app import route as route_app
from core.app.context import AppServices
from core.config import Settings
from core.errors import InputError
from core.geo.composite import MapServices
from core.route.own_order import own_order_again
from core.route.planner import plan_route
from tests.support.hand_route import HandRouter, hand_request, hand_services
from tests.support.region_packs import write_pack


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=write_pack(tmp_path_factory.mktemp("data")), region="testcity")


@pytest.fixture()
def hand(settings: Settings) -> tuple[MapServices, HandRouter]:
    return hand_services(settings.data_dir)


def test_the_own_order_is_planned_as_given_beside_the_best(hand, settings):
    services, _ = hand
    result = plan_route(hand_request(own_order=[2, 0, 1]), provider=services, settings=settings)
    assert result.best_route.stop_order == [0, 1, 2]
    assert (result.best_route.total_distance_m, result.best_route.total_duration_s) == (4500, 460)
    own = result.own_route
    assert own is not None and own.chosen_by == "person" and result.best_route.chosen_by == "planner"
    assert own.stop_order == [2, 0, 1]
    assert [p.id for p in own.points] == ["origin", "stops.2", "stops.0", "stops.1", "destination"]
    assert [leg.distance_m for leg in own.legs] == [3000, 2500, 1500, 3000]
    assert (own.total_distance_m, own.total_duration_s) == (10000, 1040)
    assert {leg.source for leg in own.legs} == {"osrm"}
    diff = result.own_difference
    assert diff is not None and diff.strategy == "shortest_distance"
    assert (diff.delta_distance_m, diff.delta_duration_s) == (5500, 580)
    assert [leg.delta_distance_m for leg in diff.legs] == [2000, 1000, 500, 2000]
    assert [leg.delta_duration_s for leg in diff.legs] == [140, 150, 60, 230]
    assert [leg.shared for leg in diff.legs] == [False, False, True, False]  # A → B is in both orders
    assert (diff.legs[0].own_from, diff.legs[0].own_to, diff.legs[0].best_to) == ("origin", "stops.2", "stops.0")
    assert not diff.same_as_best and diff.measured_alike and not diff.straight_line_estimate


def test_keep_order_plans_the_stops_as_listed(hand, settings):
    services, _ = hand
    result = plan_route(hand_request("CAB", keep_order=True), provider=services, settings=settings)
    assert result.own_route is not None and result.own_route.stop_order == [0, 1, 2]
    assert [p.index for p in result.best_route.points[1:-1]] == [1, 2, 0]  # A B C, listed as stops 1, 2, 0
    assert result.own_difference is not None
    assert (result.own_difference.delta_distance_m, result.own_difference.delta_duration_s) == (5500, 580)


def test_the_best_order_as_own_order_differs_by_nothing(hand, settings):
    services, _ = hand
    result = plan_route(hand_request(keep_order=True), provider=services, settings=settings)
    diff = result.own_difference
    assert diff is not None and diff.same_as_best
    assert (diff.delta_distance_m, diff.delta_duration_s) == (0, 0) and all(leg.shared for leg in diff.legs)


def test_no_own_order_asked_none_given(hand, settings):
    result = plan_route(hand_request(), provider=hand[0], settings=settings)
    assert result.own_route is None and result.own_difference is None
    assert "own_route" in result.model_dump(mode="json")  # the field is there, null


@pytest.mark.parametrize(
    ("order", "said"),
    [
        ([0, 1], "leaves out stop index 2"),
        ([0, 1, 1], "stop index 1 more than once"),
        ([0, 1, 3], "names stop index 3, but the stops are numbered 0 to 2"),
        ([0, -1, 2], "names stop index -1"),
    ],
)
def test_an_own_order_that_is_not_an_order_of_the_stops_is_refused_by_its_reason(order, said):
    with pytest.raises(ValidationError) as caught:
        hand_request(own_order=order)
    error = caught.value.errors()[0]["ctx"]["error"]
    assert isinstance(error, InputError) and error.field == "own_order" and said in error.message


def test_a_new_order_of_the_same_stops_makes_no_provider_call(hand, settings):
    services, router = hand
    first = plan_route(hand_request(keep_order=True), provider=services, settings=settings)
    calls, snapshot = router.calls, services.snapshot()
    # the person lists the stops as C A B: the same stops, only the order changed
    again = own_order_again(first, hand_request("CAB", keep_order=True))
    assert again is not None
    assert router.calls == calls and MapServices.diff(services.snapshot(), snapshot).total == 0
    assert MapServices.diff(services.snapshot(), snapshot).cache_hits == 0  # not even the cache was asked
    # the result keeps the first plan's stop numbering: C A B are its stops 2, 0, 1
    assert again.own_route is not None and again.own_route.stop_order == [2, 0, 1]
    assert again.own_difference is not None
    assert (again.own_difference.delta_distance_m, again.own_difference.delta_duration_s) == (5500, 580)
    assert again.best_route == first.best_route
    # and an explicit own order on the same list of stops
    swapped = own_order_again(first, hand_request(own_order=[1, 0, 2]))  # B A C: 2000 + 1500 + 2500 + 1000 m
    assert swapped is not None and swapped.own_difference is not None
    assert swapped.own_difference.own_distance_m == 7000 and router.calls == calls


def test_other_changes_need_a_new_plan(hand, settings):
    services, _ = hand
    first = plan_route(hand_request(keep_order=True), provider=services, settings=settings)
    assert own_order_again(first, hand_request("AB", keep_order=True)) is None  # a stop fewer
    assert own_order_again(first, hand_request(keep_order=True, transport_mode="walking")) is None
    stored = type(first).model_validate_json(first.model_dump_json())  # a stored result keeps no matrix
    assert own_order_again(stored, hand_request("CAB", keep_order=True)) is None


def test_the_use_case_replans_the_own_order_on_the_kept_matrix(settings):
    services = AppServices(settings=settings)
    ctx = services.context(lang="en")
    first = route_app.plan_route(ctx, hand_request(keep_order=True))
    before = ctx.providers.snapshot()
    assert route_app.order_only_changed(hand_request(keep_order=True), hand_request("BCA", keep_order=True))
    again = route_app.replan_own_order(ctx, hand_request("BCA", keep_order=True), first)
    assert MapServices.diff(ctx.providers.snapshot(), before).total == 0
    assert again.own_route is not None and again.own_route.stop_order == [1, 2, 0]
    assert again.optimizer == first.optimizer  # no new order search
    assert not route_app.order_only_changed(hand_request(keep_order=True), hand_request("AB", keep_order=True))
