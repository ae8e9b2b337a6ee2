"""The exact search over which day each must goes on (core/itinerary/must_assignment.reassign_musts): the plans it
is handed are built here by hand (each checked feasible by the layout), so each case is one call of the search."""

from __future__ import annotations

import pytest

from core.itinerary import must_assignment
from core.itinerary.layout import order_is_feasible
from core.itinerary.must_assignment import reassign_musts
from core.itinerary.problem import prepare_problem
from core.models.itinerary import TripRequest
from core.models.itinerary_problem import DayPlan
from tests.support.itinerary_packs import trip

TUESDAY_8_16 = {"date": "2025-06-03", "start_time": "08:00", "end_time": "16:00"}
WEDNESDAY_8_14 = {"date": "2025-06-04", "start_time": "08:00", "end_time": "14:00"}

# The chain of test_itinerary_properties.py's last @example: the 180-min park (216 relaxed) fits Tuesday only if
# Yu Garden goes to Wednesday, which has room for it only if the museum comes back to Tuesday. The Bund is open on
# Wednesday only; Far Water Town (here open at weekends only) is closed on both days of the trip.
CHAIN = [
    {"place_id": "i-century", "priority": "must", "visit_minutes": 180},
    {"place_id": "i-bund", "priority": "must", "visit_minutes": 60, "opening_hours": "Mo,We 10:00-17:00"},
    {"place_id": "i-museum", "priority": "must", "visit_minutes": 60},
    {"place_id": "i-yuyuan", "priority": "must", "visit_minutes": 90},
]
CLOSED = {"place_id": "i-far", "priority": "must", "visit_minutes": 30, "opening_hours": "Sa,Su 10:00-12:00"}


def problem_of(places, days, provider, settings, **extra):
    request = TripRequest.model_validate(trip(places, days=days, **extra))
    return prepare_problem(request, provider=provider, settings=settings)


def plans_of(problem, settings, *days: tuple[list[str], list[str]]) -> list[DayPlan]:
    """Day plans (order, dropped) as a heuristic could have left them: every order is checked feasible."""
    plans = [
        DayPlan(day_index=d, order=order, dropped=dropped, objective=None, solver_status="TEST")
        for d, (order, dropped) in enumerate(days)
    ]
    for p in plans:
        assert order_is_feasible(problem, p.day_index, p.order, settings=settings), p
    return plans


@pytest.fixture(scope="module")
def chain(provider, settings):
    problem = problem_of(
        [*CHAIN, CLOSED], [TUESDAY_8_16, WEDNESDAY_8_14], provider, settings, pacing="relaxed", lunch={"enabled": True}
    )
    assert problem.stop("i-far").windows_by_day == [[], []]  # closed on every day of the trip
    assert problem.stop("i-century").visit_min == 216
    # the park dropped, Yu Garden on Tuesday, the museum with the Bund on Wednesday
    plans = plans_of(problem, settings, (["i-yuyuan"], ["i-century", "i-far"]), (["i-museum", "i-bund"], []))
    return problem, plans


def visits(plans: list[DayPlan]) -> dict[str, int]:
    return {k: p.day_index for p in plans for k in p.order}


def test_a_must_closed_on_every_day_stays_dropped_and_the_others_are_still_searched(chain, settings):
    problem, plans = chain
    out, moves = reassign_musts(problem, plans, settings=settings)
    assert visits(out) == {"i-century": 0, "i-museum": 0, "i-yuyuan": 1, "i-bund": 1}
    assert [k for p in out for k in p.dropped] == ["i-far"]
    for p in out:
        assert order_is_feasible(problem, p.day_index, p.order, settings=settings), p
    assert sorted((m["key"], m["from_day"], m["to_day"]) for m in moves) == [
        ("i-century", None, 0),
        ("i-museum", 1, 0),
        ("i-yuyuan", 0, 1),
    ]
    assert plans[0].dropped == ["i-century", "i-far"]  # the input is not changed


def test_only_a_closed_must_dropped_leaves_the_plans_as_they_are(provider, settings):
    problem = problem_of([*CHAIN[1:], CLOSED], [TUESDAY_8_16, WEDNESDAY_8_14], provider, settings, pacing="relaxed")
    plans = plans_of(problem, settings, (["i-yuyuan"], ["i-far"]), (["i-museum", "i-bund"], []))
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])


def test_no_dropped_must_leaves_the_plans_as_they_are(provider, settings):
    # the dropped 'nice' would fit Tuesday (an eight-hour day holding one 108-min visit), but this search is for musts
    problem = problem_of(
        [*CHAIN[1:], {"place_id": "i-xintiandi", "priority": "nice", "visit_minutes": 30}],
        [TUESDAY_8_16, WEDNESDAY_8_14],
        provider,
        settings,
        pacing="relaxed",
    )
    plans = plans_of(problem, settings, (["i-yuyuan"], ["i-xintiandi"]), (["i-museum", "i-bund"], []))
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])


def nine_grid_musts(provider, settings):
    """Nine 60-min musts (grid sights open 09:00-21:00, 12 robust minutes or more apart, 29 or more from the hotel):
    Tuesday 09:00-15:00 holds four (five take 300 + 2 x 29 + 4 x 12 > 360 min), Wednesday 09:00-18:00 holds four
    and has room for the ninth, dropped."""
    keys = [f"i-grid-{i}" for i in range(9)]
    problem = problem_of(
        [{"place_id": k, "priority": "must", "visit_minutes": 60} for k in keys],
        [
            {"date": "2025-06-03", "start_time": "09:00", "end_time": "15:00"},
            {"date": "2025-06-04", "start_time": "09:00", "end_time": "18:00"},
        ],
        provider,
        settings,
        lunch={"enabled": False},
    )
    assert all(problem.stop(k).visit_min == 60 for k in keys)
    return problem, plans_of(problem, settings, (keys[:4], []), (keys[4:8], keys[8:]))


def test_more_musts_than_the_cap_keep_the_heuristics_answer(provider, settings, monkeypatch):
    problem, plans = nine_grid_musts(provider, settings)
    assert must_assignment.MAX_MUSTS == 8
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])
    # the cap is what stopped it: one more allowed and the ninth must goes on Wednesday
    monkeypatch.setattr(must_assignment, "MAX_MUSTS", 9)
    out, moves = reassign_musts(problem, plans, settings=settings)
    assert moves == [{"key": "i-grid-8", "from_day": None, "to_day": 1}]
    assert not any(p.dropped for p in out)


def test_more_assignments_than_the_cap_keep_the_heuristics_answer(provider, settings, monkeypatch):
    # eight musts, each open on the three days: 3**8 = 6561 assignments
    keys = [f"i-grid-{i}" for i in range(8)]
    days = [{"date": f"2025-06-0{d}", "start_time": "09:00", "end_time": "18:00"} for d in (3, 4, 5)]
    problem = problem_of(
        [{"place_id": k, "priority": "must", "visit_minutes": 60} for k in keys],
        days,
        provider,
        settings,
        lunch={"enabled": False},
    )
    plans = plans_of(problem, settings, (keys[:4], []), (keys[4:7], keys[7:]), ([], []))
    assert 3**8 > must_assignment.MAX_ASSIGNMENTS
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])
    monkeypatch.setattr(must_assignment, "MAX_ASSIGNMENTS", 3**8)
    out, moves = reassign_musts(problem, plans, settings=settings)
    assert [m["key"] for m in moves] == ["i-grid-7"] and not any(p.dropped for p in out)


def test_an_infeasible_trip_keeps_the_plans(provider, settings):
    # eight 120-min musts on two six-hour days: three visits alone fill a day, so a day holds two at most
    keys = [f"i-grid-{i}" for i in range(8)]
    day = {"start_time": "09:00", "end_time": "15:00"}
    problem = problem_of(
        [{"place_id": k, "priority": "must", "visit_minutes": 120} for k in keys],
        [{"date": "2025-06-03", **day}, {"date": "2025-06-04", **day}],
        provider,
        settings,
        lunch={"enabled": False},
    )
    assert all(problem.stop(k).visit_min == 120 for k in keys)
    plans = plans_of(problem, settings, (keys[:2], keys[4:6]), (keys[2:4], keys[6:]))
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])


def test_the_same_input_gives_the_same_output(chain, settings):
    problem, plans = chain
    assert reassign_musts(problem, plans, settings=settings) == reassign_musts(problem, plans, settings=settings)


def test_the_search_stops_after_max_layout_calls(chain, settings, monkeypatch):
    problem, plans = chain
    calls: list[int] = []
    layout_day = must_assignment.layout_day

    def counted(*args, **kwargs):
        calls.append(1)
        return layout_day(*args, **kwargs)

    monkeypatch.setattr(must_assignment, "layout_day", counted)
    out, moves = reassign_musts(problem, plans, settings=settings)
    needed = len(calls)
    assert moves and needed <= must_assignment.MAX_LAYOUT_CALLS
    # one order fewer than the search needed: it stops there and keeps the plans it was given
    calls.clear()
    monkeypatch.setattr(must_assignment, "MAX_LAYOUT_CALLS", needed - 1)
    assert reassign_musts(problem, plans, settings=settings) == (plans, [])
    assert len(calls) == needed - 1
