"""core.route.compare: which legs of a candidate order the best order does not have."""

from __future__ import annotations

from core.config import get_settings
from core.geo.registry import make_provider
from core.route.compare import compare_orders, compare_with_best, order_keys
from core.route.planner import plan_route
from core.route.scenarios import load_scenario


def test_identical_orders_share_every_leg():
    cmp = compare_orders(["S", "A", "B", "E"], ["S", "A", "B", "E"])
    assert cmp.changed == () and cmp.shared == (0, 1, 2)
    assert cmp.same_as_best


def test_swapping_two_stops_changes_the_legs_around_them_only():
    # best S A B C E, candidate S B A C E: S-B, A-C are new; B-A is A-B reversed; C-E is shared.
    cmp = compare_orders(["S", "A", "B", "C", "E"], ["S", "B", "A", "C", "E"])
    assert cmp.changed == (0, 2)
    assert [leg.status for leg in cmp.legs] == ["changed", "reversed", "changed", "shared"]
    assert (cmp.legs[0].from_key, cmp.legs[0].to_key) == ("S", "B")
    assert not cmp.same_as_best


def test_a_round_trip_travelled_backwards_draws_no_new_segment():
    cmp = compare_orders(["H", "A", "B", "C", "H"], ["H", "C", "B", "A", "H"])
    assert cmp.changed == ()
    assert {leg.status for leg in cmp.legs} == {"reversed"}


def test_a_repeated_leg_is_matched_once():
    # The candidate goes A-B twice (two stops at place B... and back), the best once.
    cmp = compare_orders(["A", "B", "C"], ["A", "B", "A", "B"])
    assert [leg.status for leg in cmp.legs] == ["shared", "changed", "changed"]


def test_orders_of_different_lengths_and_empty_orders():
    assert compare_orders([], []).legs == ()
    assert compare_orders(["A"], ["A"]).legs == ()
    cmp = compare_orders(["A", "B"], ["A", "C", "B"])
    assert cmp.changed == (0, 1)


def test_candidates_of_a_real_plan_against_its_best():
    request = load_scenario("delivery-round").request
    result = plan_route(
        request, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )
    best_keys = order_keys(result, result.best_route)
    assert len(best_keys) == len(result.resolved_stops) + 2  # a fixed start, 8 stops, the destination
    assert compare_with_best(result, result.best_route).same_as_best
    others = [c for i, c in enumerate(result.candidates) if i != result.best_index]
    assert others
    for cand in others:
        cmp = compare_with_best(result, cand)
        assert len(cmp.legs) == len(best_keys) - 1
        keys = order_keys(result, cand)
        best_pairs = {frozenset(p) for p in zip(best_keys, best_keys[1:], strict=False)}
        for leg in cmp.legs:
            assert (leg.from_key, leg.to_key) == (keys[leg.index], keys[leg.index + 1])
            assert (leg.status == "changed") == (frozenset((leg.from_key, leg.to_key)) not in best_pairs)
        if keys != best_keys and keys != best_keys[::-1]:
            assert cmp.changed  # a different order of places adds at least one segment
