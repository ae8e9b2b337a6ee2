"""Edits that shape the plan on screen (issue 32, X8; core/itinerary/shaping.py through core.app.itinerary): a stop
put at a position of its day or of another day, a place added to a chosen day. Each keeps every earlier edit, lock
and removal, says what it changed per day and overall, and a refusal names the constraint it breaks."""

from __future__ import annotations

import pytest

from core.app import AppServices
from core.app.itinerary import edit_itinerary, plan_itinerary, visited_keys
from core.itinerary.shaping import plan_orders
from core.models.itinerary import AddEdit, LockEdit, RemoveEdit, ReorderEdit, TripPlace, TripRequest
from tests.support.clock import SUITE_NOW
from tests.support.itinerary_packs import MONDAY, TUESDAY, trip

PLACES = ["i-bund", "i-pearl", "i-xintiandi", "i-jingan", "i-tianzifang", "i-grid-0", "i-grid-7"]


@pytest.fixture(scope="module")
def ctx(settings):
    services = AppServices(settings.model_copy(update={"provider": "offline", "cache_dir": None}))
    return services.context(region="itintest", lang="en", clock=lambda: SUITE_NOW)


def _plan(ctx, places, days):
    request = TripRequest.model_validate(trip(places, days=days))
    return request, plan_itinerary(ctx, request)


def test_an_added_place_goes_to_the_chosen_day_and_a_removed_place_stays_removed(ctx):
    base, first = _plan(ctx, PLACES, [MONDAY, TUESDAY])
    edits = [RemoveEdit(key="i-jingan")]
    removed = edit_itinerary(ctx, first, edits, base=base)
    assert removed.status == "applied" and "i-jingan" not in visited_keys(removed.result)
    before = plan_orders(removed.result)
    added_place = TripPlace(place_id="i-century")
    edits = [*edits, AddEdit(place=added_place, day_index=1)]
    added = edit_itinerary(ctx, removed.result, edits, base=base)
    assert added.status == "applied", added.reason_code
    after = plan_orders(added.result)
    assert "i-century" in after[1] and [k for k in after[1] if k != "i-century"] == before[1]
    assert after[0] == before[0]  # the other day is not touched
    assert "i-jingan" not in visited_keys(added.result)  # the earlier removal holds: nothing came back
    assert [d.key for d in added.result.dropped_items if d.reason_code == "REMOVED_BY_USER"] == ["i-jingan"]
    diff = added.difference
    assert diff is not None
    assert [d.before.stops for d in diff.days] == [len(before[0]), len(before[1])]
    assert [d.after.stops for d in diff.days] == [len(before[0]), len(before[1]) + 1]
    assert diff.after.travel_min == added.result.totals.travel_robust_min
    assert diff.before.travel_min == removed.result.totals.travel_robust_min
    assert diff.days[0].before == diff.days[0].after  # day 1 (index 0) unchanged
    assert diff.after.distance_m == pytest.approx(added.result.totals.distance_m, abs=0.2)


def test_a_reorder_puts_the_stop_where_asked_and_keeps_the_locks(ctx):
    base, first = _plan(ctx, PLACES, [MONDAY, TUESDAY])
    day0 = plan_orders(first)[0]
    assert len(day0) >= 3
    locked = day0[0]
    edits = [LockEdit(key=locked, day_index=0)]
    locked_plan = edit_itinerary(ctx, first, edits, base=base)
    assert locked_plan.status == "applied"
    day0 = plan_orders(locked_plan.result)[0]
    mover = day0[-1]
    edits = [*edits, ReorderEdit(key=mover, position=0)]
    shaped = edit_itinerary(ctx, locked_plan.result, edits, base=base)
    assert shaped.status == "applied", (shaped.reason_code, shaped.reason_facts)
    new0 = plan_orders(shaped.result)[0]
    assert new0 == [mover, *day0[:-1]]
    assert plan_orders(shaped.result)[1] == plan_orders(locked_plan.result)[1]
    assert shaped.result.request.place(locked).fixed_day == 0  # the lock is still on the request
    assert shaped.result.request.place(mover).fixed_day == 0  # placed by hand: it stays on its day
    changed = shaped.difference.days[0]
    assert changed.before.stops == changed.after.stops == len(day0)
    assert changed.after.travel_min == shaped.result.days[0].totals.travel_robust_min
    # a reorder to another day's position: a move to exactly that place
    moved = edit_itinerary(ctx, shaped.result, [*edits, ReorderEdit(key=mover, day_index=1, position=1)], base=base)
    assert moved.status == "applied"
    assert plan_orders(moved.result)[1][1] == mover and mover not in plan_orders(moved.result)[0]
    assert moved.difference.days[0].after.stops == len(day0) - 1


def test_a_reorder_that_pushes_a_stop_past_its_closing_names_that_stop_and_its_hours(ctx):
    # an afternoon from 15:00: Jing'an Temple (closes 17:00) only fits first
    afternoon = {"date": MONDAY.isoformat(), "start_time": "15:00", "end_time": "22:00"}
    base, first = _plan(ctx, ["i-jingan", "i-pearl", "i-xintiandi"], [afternoon])
    order = plan_orders(first)[0]
    assert order[0] == "i-jingan" and len(order) == 3
    refused = edit_itinerary(ctx, first, [ReorderEdit(key="i-jingan", position=2)], base=base)
    assert refused.status == "refused" and refused.refusal == "DOES_NOT_FIT"
    assert refused.reason_code == "OUTSIDE_OPENING_HOURS" and refused.conflict.key == "i-jingan"
    assert refused.reason_facts["open_hours"] == "07:30-17:00"
    assert refused.reason_facts["arrival"] > "17:00"
    assert refused.result is first  # the plan on screen stays


def test_a_reorder_before_a_locked_time_names_the_locked_neighbour(ctx):
    morning = {"date": MONDAY.isoformat(), "start_time": "09:00", "end_time": "20:00"}
    base, first = _plan(ctx, ["i-bund", "i-pearl", "i-jingan"], [morning])
    locked = edit_itinerary(ctx, first, [LockEdit(key="i-bund", start_time="09:30")], base=base)
    assert locked.status == "applied" and plan_orders(locked.result)[0][0] == "i-bund"
    edits = [LockEdit(key="i-bund", start_time="09:30"), ReorderEdit(key="i-pearl", position=0)]
    refused = edit_itinerary(ctx, locked.result, edits, base=base)
    assert refused.status == "refused" and refused.reason_code == "LOCKED_TIME"
    assert refused.conflict.key == "i-bund" and refused.reason_facts["start"] == "09:30"


def test_an_add_to_a_day_it_is_closed_or_too_late_for_is_refused_for_that_reason(ctx):
    base, first = _plan(ctx, ["i-pearl", "i-xintiandi"], [MONDAY, TUESDAY])
    closed = edit_itinerary(ctx, first, [AddEdit(place=TripPlace(place_id="i-museum"), day_index=0)], base=base)
    assert closed.status == "refused" and closed.reason_code == "CLOSED_ON_DAY"  # Monday: the museum is shut
    # The Bund is open round the clock; a 60-minute visit from 21:30 does not end by the day's 22:00
    late = TripPlace(place_id="i-bund", fixed_start="21:30")
    past = edit_itinerary(ctx, first, [AddEdit(place=late, day_index=1)], base=base)
    assert past.status == "refused" and past.reason_code == "PAST_DAY_END"
    assert past.reason_facts["day_end"] == "22:00" and past.reason_facts["start"] == "21:30"
    # a grid sight closes at 21:00: the same time is refused for its opening hours, which are named
    shut = edit_itinerary(
        ctx, first, [AddEdit(place=TripPlace(place_id="i-grid-3", fixed_start="21:30"), day_index=1)], base=base
    )
    assert shut.reason_code == "OUTSIDE_OPENING_HOURS" and shut.reason_facts["open_hours"] == "09:00-21:00"
    museum = AddEdit(place=TripPlace(place_id="i-museum"), day_index=1, position=0)
    opened = edit_itinerary(ctx, first, [museum], base=base)
    assert opened.status == "applied" and plan_orders(opened.result)[1][0] == "i-museum"


def test_an_add_to_a_full_day_says_the_day_is_full_not_a_constraint_it_meets_alone(ctx):
    # a morning (10:00-13:30, no lunch) holds the Oriental Pearl and Xintiandi; a third place fits it alone
    short = {"date": MONDAY.isoformat(), "start_time": "10:00", "end_time": "13:30"}
    request = TripRequest.model_validate(trip(["i-pearl", "i-xintiandi"], days=[short], lunch={"enabled": False}))
    base, first = request, plan_itinerary(ctx, request)
    assert len(plan_orders(first)[0]) == 2
    full = edit_itinerary(ctx, first, [AddEdit(place=TripPlace(place_id="i-grid-0"), day_index=0)], base=base)
    assert full.status == "refused" and full.reason_code == "DAY_TOO_FULL"
    assert full.reason_facts["planned_on_day"] == 2


def _is_subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(k in it for k in short)


def test_a_removal_lays_out_its_day_again_and_offers_the_freed_room_to_the_dropped_places(ctx):
    """Issue 32: a removal needs only the day it touches: the other day is not solved again, the day keeps its order
    without the stop, and a place the plan had dropped takes the room when it now fits (and none that fits is left
    out)."""
    from core.itinerary.layout import best_insertion
    from core.itinerary.problem import prepare_problem

    places = [*PLACES, "i-century", *(f"i-grid-{i}" for i in range(8, 30))]  # more than two days hold
    base, first = _plan(ctx, places, [MONDAY, TUESDAY])
    orders = plan_orders(first)
    dropped_before = {d.key for d in first.dropped_items}
    assert dropped_before, "the trip must be too full for one of its places"
    day = max(orders, key=lambda d: len(orders[d]))
    spent = {e.key: (e.end - e.start).total_seconds() for d in first.days for e in d.entries if e.kind == "visit"}
    gone = max(orders[day], key=lambda k: spent.get(k, 0))  # the stop whose removal frees the most room
    edited = edit_itinerary(ctx, first, [RemoveEdit(key=gone)], base=base)
    assert edited.status == "applied"
    after = plan_orders(edited.result)
    assert all(after[d] == orders[d] for d in orders if d != day)  # the other day is as it was
    assert gone not in after[day] and _is_subsequence([k for k in orders[day] if k != gone], after[day])
    came_in = set(after[day]) - set(orders[day])
    assert came_in and came_in <= dropped_before  # a place the plan had dropped took the freed room
    assert [d.key for d in edited.result.dropped_items if d.reason_code == "REMOVED_BY_USER"] == [gone]
    problem = prepare_problem(edited.result.request, provider=ctx.providers, settings=ctx.settings, removed_keys=[gone])
    for item in edited.result.dropped_items:
        if item.key != gone and problem.stop(item.key).fixed_day in (None, day):  # left out: it does not fit
            assert best_insertion(problem, day, after[day], item.key, settings=ctx.settings) is None, item.key
    assert (
        edited.difference is not None
        and edited.difference.days[1 - day].before == edited.difference.days[1 - day].after
    )
