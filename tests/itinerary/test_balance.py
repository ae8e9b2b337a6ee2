"""Even days (core/itinerary/balance.py) on the bundled Shanghai pack: real trips get days whose visit counts differ
by at most one (the one rule of the page and the agent) without losing a place, and a trip that cannot be even says
why."""

from __future__ import annotations

import json

import pytest

from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.balance import MAX_VISIT_SPREAD, measure_balance, rebalance_days
from core.itinerary.pipeline import plan_itinerary, solve_multi_vehicle
from core.itinerary.problem import prepare_problem
from core.models.itinerary import TripRequest
from tests.support.paths import ROOT

pytestmark = pytest.mark.slow

MONDAY, TUESDAY, WEDNESDAY, THURSDAY = "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12"
#: Twelve central sights over four days: the all-days solver alone packs them into two or three days.
SPARSE = [
    "sh-bund", "sh-yuyuan-garden", "sh-xintiandi", "sh-tianzifang", "sh-jingan-temple", "sh-wukang-mansion",
    "sh-peoples-square", "sh-city-god-temple", "sh-fuxing-park", "sh-nanjing-road", "sh-shanghai-tower",
    "sh-jade-buddha-temple",
]  # fmt: skip


def request(places, days, **extra) -> TripRequest:
    return TripRequest.model_validate(
        {
            "trip_name": "balance",
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [{"date": d, "start_time": "09:00", "end_time": "21:00", **extra.get(d, {})} for d in days],
            "pacing": "normal",
            "mode": "driving",
            "places": places,
        }
    )


@pytest.fixture(scope="module")
def provider():
    return make_provider(None, region="shanghai", settings=get_settings())


def visits_by_day(result) -> list[int]:
    return [d.totals.visits for d in result.days]


def visited(result) -> set[str]:
    return {e.key for d in result.days for e in d.entries if e.kind == "visit"}


def bundled(stem: str) -> TripRequest:
    return TripRequest.model_validate(json.loads((ROOT / "data" / "trips" / f"{stem}.json").read_text()))


def test_a_bundled_trip_whose_days_are_full_says_the_light_day_has_no_room(provider):
    """Thirty places over three 09:00–22:00 days (720 free minutes each, less the hour's lunch): every place is
    kept, and when the counts differ by more than one the lighter day is too full for any of the busier day's
    visits."""
    result = plan_itinerary(bundled("shanghai_3day_30places"), provider=provider, settings=get_settings())
    balance = result.balance
    assert balance is not None and result.totals.dropped == 0 and result.totals.must_dropped == 0
    assert [d.visits for d in balance.days] == visits_by_day(result)
    assert balance.visit_spread == max(visits_by_day(result)) - min(visits_by_day(result))
    assert balance.max_visit_spread == MAX_VISIT_SPREAD == 1
    assert [d.free_min for d in balance.days] == [13 * 60 - 60] * 3
    if balance.visit_spread <= 1:
        assert balance.balanced and balance.reasons == []
        return
    assert not balance.balanced
    [reason] = balance.reasons
    assert reason.code == "LIGHT_DAY_FULL"
    room = reason.facts["light_free_min"] - reason.facts["light_busy_min"]
    heavy_visits = [
        (e.end - e.start).total_seconds() // 60
        for e in result.days[reason.heavy_day].entries
        if e.kind == "visit" and e.part is None
    ]
    assert 0 <= room < min(heavy_visits)  # not one of the busier day's visits fits in what is left


def test_a_bundled_trip_with_a_shorter_second_day_says_so(provider):
    """Monday 10:00–22:00 and Tuesday 10:00–18:00 (660 and 420 free minutes after lunch): the Tuesday takes fewer
    places, nothing is dropped, and the reason is the shorter day with both days' minutes."""
    result = plan_itinerary(bundled("shanghai_2day_monday_museum"), provider=provider, settings=get_settings())
    balance = result.balance
    assert balance is not None and result.totals.dropped == 0
    assert [d.free_min for d in balance.days] == [660, 420]
    visits = visits_by_day(result)
    assert visits[0] > visits[1]
    if balance.visit_spread <= 1:
        assert balance.balanced
        return
    assert not balance.balanced
    [reason] = balance.reasons
    assert (reason.code, reason.heavy_day, reason.light_day) == ("SHORTER_DAY", 0, 1)
    assert (reason.facts["heavy_free_min"], reason.facts["light_free_min"]) == (660, 420)


def test_rebalancing_spreads_a_packed_plan_without_losing_a_place(provider):
    settings = get_settings()
    req = request([{"place_id": p, "priority": "should"} for p in SPARSE], [MONDAY, TUESDAY, WEDNESDAY, THURSDAY])
    problem = prepare_problem(req, provider=provider, settings=settings)
    packed = solve_multi_vehicle(problem, settings=settings)
    before = measure_balance(problem, packed, settings=settings)
    assert before.visit_spread > MAX_VISIT_SPREAD  # the travel-only optimum leaves a day (nearly) empty
    plans, moves = rebalance_days(problem, packed, settings=settings)
    after = measure_balance(problem, plans, settings=settings, moves=moves)
    assert after.balanced and after.visit_spread <= MAX_VISIT_SPREAD, after
    assert {k for p in plans for k in p.order} == {k for p in packed for k in p.order}  # no place lost
    assert sum(len(p.order) for p in plans) == sum(len(p.order) for p in packed)
    assert len(moves) == after.moves >= 1
    assert all(m["extra_travel_min"] <= 40 for m in moves)

    result = plan_itinerary(
        req, provider=provider, settings=get_settings()
    )  # the whole pipeline: even days, nothing dropped
    assert result.totals.dropped == 0 and result.balance is not None and result.balance.balanced
    assert max(visits_by_day(result)) - min(visits_by_day(result)) <= MAX_VISIT_SPREAD


def test_places_open_only_on_monday_keep_monday_busy_and_say_why(provider):
    monday_only = ["sh-bund", "sh-yuyuan-garden", "sh-xintiandi", "sh-tianzifang", "sh-jingan-temple", "sh-fuxing-park"]
    places = [
        *(
            {"place_id": p, "priority": "should", "visit_minutes": 45, "opening_hours": "Mo 09:00-21:00"}
            for p in monday_only
        ),
        {"place_id": "sh-peoples-square", "priority": "should", "visit_minutes": 45},
    ]
    result = plan_itinerary(request(places, [MONDAY, TUESDAY]), provider=provider, settings=get_settings())
    assert result.totals.dropped == 0
    balance = result.balance
    assert balance is not None and not balance.balanced
    assert [d.visits for d in balance.days] == visits_by_day(result) and balance.visit_spread >= 5
    [reason] = balance.reasons
    assert (reason.code, reason.heavy_day, reason.light_day) == ("ONLY_OPEN_THAT_DAY", 0, 1)
    assert set(reason.keys) == set(monday_only)
    assert reason.facts["places"] == len(monday_only)


def test_locked_places_keep_their_day_and_the_reason_names_them(provider):
    locked = ["sh-bund", "sh-yuyuan-garden", "sh-xintiandi", "sh-tianzifang", "sh-jingan-temple", "sh-fuxing-park"]
    places = [{"place_id": p, "priority": "should", "visit_minutes": 45, "fixed_day": 1} for p in locked]
    result = plan_itinerary(request(places, [MONDAY, TUESDAY]), provider=provider, settings=get_settings())
    assert visits_by_day(result) == [0, 6]
    balance = result.balance
    assert balance is not None and not balance.balanced
    [reason] = balance.reasons
    assert (reason.code, reason.heavy_day, reason.light_day) == ("LOCKED_TO_DAY", 1, 0)
    assert set(reason.keys) == set(locked)


def test_a_short_day_takes_what_fits_and_says_its_hours_are_shorter(provider):
    places = [{"place_id": p, "priority": "should", "visit_minutes": 60} for p in SPARSE[:8]]
    req = request(places, [MONDAY, TUESDAY], **{TUESDAY: {"start_time": "09:00", "end_time": "10:45"}})
    result = plan_itinerary(req, provider=provider, settings=get_settings())
    balance = result.balance
    assert balance is not None and not balance.balanced
    assert balance.days[1].free_min == 105 and balance.days[0].free_min > balance.days[1].free_min
    [reason] = balance.reasons
    assert (reason.code, reason.heavy_day, reason.light_day) == ("SHORTER_DAY", 0, 1)
    assert reason.facts["light_free_min"] == 105
    assert visited(result) | {d.key for d in result.dropped_items} == set(SPARSE[:8])


def test_the_edit_benchmark_re_plans_the_three_page_edits_and_says_why_days_stay_uneven():
    from bench.itinerary import bench_edits

    req = TripRequest.model_validate(json.loads((ROOT / "data" / "trips" / "shanghai_3day_30places.json").read_text()))
    rows = bench_edits("shanghai_3day_30places", req, repeats=1)
    assert [r["edit"] for r in rows] == ["remove", "move", "lock"]
    for r in rows:
        assert r["median_s"] > 0 and r["status"] == "ready"
        spread = max(r["visits_by_day"]) - min(r["visits_by_day"])
        assert r["balanced"] == (spread <= 1)
        assert r["balance_reasons"] == ([] if r["balanced"] else ["LIGHT_DAY_FULL"])  # three full 09:00–22:00 days
        assert sum(r["visits_by_day"]) == r["visits"] and r["visits"] + r["dropped"] == 30
    assert rows[0]["dropped"] >= 1  # the removed place is not on the plan
