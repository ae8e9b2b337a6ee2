"""The independent critic: optimiser output passes; hand-made bad timelines fail with the right codes."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.geo.base import LonLat
from core.itinerary.critic import check_itinerary
from core.itinerary.pipeline import plan_itinerary
from core.itinerary.travel import robustness_policy_for
from core.models.itinerary import TripRequest
from core.models.itinerary_result import (
    DayTimeline,
    DayTotals,
    ItineraryResult,
    ItineraryTotals,
    RobustnessScore,
    TimelineEntry,
)
from tests.support.itinerary_packs import MONDAY, TUESDAY, independent_robust_minutes, trip

TZ = ZoneInfo("Asia/Shanghai")


@pytest.fixture(scope="module")
def good(provider, settings):
    payload = trip(["i-bund", "i-pearl", "i-museum", "i-xintiandi", "i-jingan", "i-yuyuan"], days=[MONDAY, TUESDAY])
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


@pytest.fixture(scope="module")
def with_wait(provider, settings):
    payload = trip(
        [
            {"place_id": "i-grid-0", "priority": "must", "opening_hours": "Mo-Su 10:00-21:00", "visit_minutes": 60},
            {"place_id": "i-grid-1", "priority": "must", "opening_hours": "Mo-Su 16:00-18:00", "visit_minutes": 60},
        ]
    )
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def codes(result, settings, request=None):
    return check_itinerary(result, request=request, settings=settings).codes()


def copy(result):
    return result.model_copy(deep=True)


def shift(entry, minutes):
    d = timedelta(minutes=minutes)
    entry.arrival += d
    entry.start += d
    entry.end += d
    entry.departure += d


def first(result, kind, day=None):
    for d in result.days:
        if day is not None and d.day_index != day:
            continue
        for i, e in enumerate(d.entries):
            if e.kind == kind:
                return d, i, e
    raise AssertionError(f"no {kind} entry")


# ---------------------------------------------------------------------------------------------
def test_optimiser_output_passes(good, with_wait, settings):
    for result in (good, with_wait):
        report = check_itinerary(result, settings=settings)
        assert report.passed, report.violations
        assert set(report.checks) >= {"time_windows", "lunch", "robust_travel", "explicit_waits", "overlap", "totals"}


def test_visit_outside_opening_hours(good, settings):
    day, i, visit = first(good, "visit", day=1)
    request = good.request.model_copy(deep=True)
    place = request.place(visit.key)
    place.opening_hours = "Mo-Su 20:00-21:00"  # the recorded visit is now outside its hours
    assert "TIME_WINDOW_VIOLATION" in codes(good, settings, request)


def test_day_bounds(good, settings):
    bad = copy(good)
    for e in bad.days[0].entries:
        shift(e, -3 * 60)  # the whole day two hours too early: leaves before 10:00
    assert "DAY_BOUNDS_VIOLATION" in codes(bad, settings)
    late = copy(good)
    last = late.days[0].entries[-1]
    last.end += timedelta(hours=12)
    last.departure = last.end
    assert "DAY_BOUNDS_VIOLATION" in codes(late, settings)


def test_lunch_missing_duplicate_outside_and_short(good, settings):
    missing = copy(good)
    d, i, lunch = first(missing, "lunch")
    missing.days[d.day_index].entries[i] = lunch.model_copy(update={"kind": "wait", "name": "Wait"})
    got = codes(missing, settings)
    assert "LUNCH_MISSING" in got

    double = copy(good)
    d, i, lunch = first(double, "lunch")
    double.days[d.day_index].entries[i + 1 : i + 1] = []
    visit_day, j, visit = first(double, "visit", day=d.day_index)
    double.days[d.day_index].entries[j] = visit.model_copy(update={"kind": "lunch", "key": None})
    assert "LUNCH_DUPLICATE" in codes(double, settings)

    request = good.request.model_copy(deep=True)
    request.lunch = request.lunch.model_copy(
        update={"window_start": datetime(2000, 1, 1, 14).time(), "window_end": datetime(2000, 1, 1, 16).time()}
    )
    assert "LUNCH_OUTSIDE_WINDOW" in codes(good, settings, request)

    longer = good.request.model_copy(deep=True)
    longer.lunch = longer.lunch.model_copy(update={"duration_min": 90})
    assert "LUNCH_TOO_SHORT" in codes(good, settings, longer)


def test_raw_api_time_instead_of_robust_time(good, settings):
    bad = copy(good)
    d, i, travel = first(bad, "travel")
    raw = int(round(travel.nominal_min))
    travel.robust_min = raw
    travel.end = travel.start + timedelta(minutes=raw)
    assert "ROBUST_TIME_NOT_USED" in codes(bad, settings)

    optimistic = copy(good)
    optimistic.policy = optimistic.policy.model_copy(update={"factor": 1.0, "buffer_min": 0})
    assert "ROBUST_TIME_NOT_USED" in codes(optimistic, settings)


def test_hidden_wait(with_wait, settings):
    bad = copy(with_wait)
    day = bad.days[0]
    i = next(i for i, e in enumerate(day.entries) if e.kind == "wait")
    wait = day.entries.pop(i)
    day.entries[i].arrival = wait.start  # the wait now hides inside the next entry
    got = codes(bad, settings)
    assert "WAIT_NOT_SHOWN" in got

    hole = copy(with_wait)
    day = hole.days[0]
    i = next(i for i, e in enumerate(day.entries) if e.kind == "wait")
    day.entries.pop(i)  # a silent hole in the chain
    assert "WAIT_NOT_SHOWN" in codes(hole, settings)


def test_overlap_and_invalid_times(good, settings):
    bad = copy(good)
    d, i, visit = first(bad, "visit")
    shift(visit, -5)  # starts before the travel that brings us there has ended
    assert "TIMELINE_OVERLAP" in codes(bad, settings)

    broken = copy(good)
    d, i, visit = first(broken, "visit")
    visit.end = visit.start - timedelta(minutes=1)
    assert "ENTRY_TIMES_INVALID" in codes(broken, settings)


def test_totals(good, settings):
    bad = copy(good)
    bad.days[0].totals.visit_min += 10
    assert "TOTALS_INCONSISTENT" in codes(bad, settings)
    trip_bad = copy(good)
    trip_bad.totals.travel_robust_min += 1
    assert "TOTALS_INCONSISTENT" in codes(trip_bad, settings)


def test_locks_coverage_and_continuity(good, provider, settings):
    d, i, visit = first(good, "visit", day=0)
    request = good.request.model_copy(deep=True)
    place = request.place(visit.key)
    place.fixed_day = 1
    assert "LOCK_VIOLATED" in codes(good, settings, request)

    extra = good.request.model_copy(deep=True)
    extra.places.append(extra.places[0].model_copy(update={"key": "i-never-planned", "place_id": "i-tianzifang"}))
    assert "PLACE_UNACCOUNTED" in codes(good, settings, extra)

    jumped = copy(good)
    d, i, travel = first(jumped, "travel")
    travel.from_key = "i-somewhere-else"
    assert "ROUTE_DISCONTINUOUS" in codes(jumped, settings)


def test_a_dropped_must_cannot_be_called_ready(provider, settings):
    payload = trip(["i-bund", {"place_id": "i-yuyuan", "priority": "must"}])  # Yu Garden closed on Mondays
    result = plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)
    assert result.status == "infeasible"
    lying = copy(result)
    lying.status = "ready"
    assert "MUST_DROPPED_SILENTLY" in codes(lying, settings)


# ---------------------------------------------------------------------------------------------
# A timeline written entirely by hand (no optimiser involved)
# ---------------------------------------------------------------------------------------------
def hand_made(provider, settings, *, lunch_at=(11, 30), lunch_min=60):
    request = TripRequest.model_validate(trip([{"place_id": "i-bund", "visit_minutes": 60}], days=[TUESDAY]))
    policy = robustness_policy_for("driving", "normal", settings=settings)
    hotel, bund = provider.region.place_by_id("i-hotel"), provider.region.place_by_id("i-bund")
    m = provider.matrix([LonLat(hotel.lon, hotel.lat), LonLat(bund.lon, bund.lat)], mode="driving")
    out_s, back_s = m.durations_s[0][1], m.durations_s[1][0]
    out_r = independent_robust_minutes(out_s, factor=policy.factor, buffer_min=policy.buffer_min)
    back_r = independent_robust_minutes(back_s, factor=policy.factor, buffer_min=policy.buffer_min)

    def at(h, mi):
        return datetime(2025, 6, 3, h, mi, tzinfo=TZ)

    t0 = at(10, 0)
    t1 = t0 + timedelta(minutes=out_r)
    t2 = t1 + timedelta(minutes=60)
    ls = at(*lunch_at)
    le = ls + timedelta(minutes=lunch_min)
    t3 = le + timedelta(minutes=back_r)
    travel = dict(kind="travel", nominal_s=out_s, nominal_min=round(out_s / 60, 1), source="offline_estimate")
    entries = [
        TimelineEntry(
            **travel,
            name="hotel → bund",
            from_key="anchor:i-hotel",
            to_key="i-bund",
            robust_min=out_r,
            arrival=t0,
            start=t0,
            end=t1,
            departure=t1,
            distance_m=m.distances_m[0][1],
        ),
        TimelineEntry(kind="visit", key="i-bund", name="The Bund", arrival=t1, start=t1, end=t2, departure=t2),
        TimelineEntry(kind="wait", name="wait", arrival=t2, start=t2, end=ls, departure=ls),
        TimelineEntry(kind="lunch", name="lunch", arrival=ls, start=ls, end=le, departure=le),
        TimelineEntry(
            kind="travel",
            nominal_s=back_s,
            nominal_min=round(back_s / 60, 1),
            source="offline_estimate",
            name="bund → hotel",
            from_key="i-bund",
            to_key="anchor:i-hotel",
            robust_min=back_r,
            arrival=le,
            start=le,
            end=t3,
            departure=t3,
            distance_m=m.distances_m[1][0],
        ),
    ]
    if (ls - t2) <= timedelta(0):
        entries.pop(2)
    mins = lambda a, b: int((b - a).total_seconds() // 60)  # noqa: E731
    totals = DayTotals(
        visits=1,
        visit_min=60,
        travel_nominal_min=round(out_s / 60, 1) + round(back_s / 60, 1),
        travel_robust_min=out_r + back_r,
        wait_min=max(0, mins(t2, ls)),
        lunch_min=lunch_min,
        distance_m=m.distances_m[0][1] + m.distances_m[1][0],
        span_min=mins(t0, t3),
    )
    day = DayTimeline(
        day_index=0,
        date=TUESDAY,
        day_start=at(10, 0),
        day_end=at(22, 0),
        start_key="anchor:i-hotel",
        end_key="anchor:i-hotel",
        lunch_required=True,
        entries=entries,
        totals=totals,
    )
    return ItineraryResult(
        status="ready",
        trip_name="hand",
        timezone="Asia/Shanghai",
        mode="driving",
        pacing="normal",
        policy=policy,
        lunch=request.lunch,
        days=[day],
        dropped_items=[],
        totals=ItineraryTotals(
            days=1,
            places_requested=1,
            visits=1,
            dropped=0,
            must_dropped=0,
            visit_min=60,
            travel_nominal_min=totals.travel_nominal_min,
            travel_robust_min=out_r + back_r,
            wait_min=totals.wait_min,
            lunch_min=lunch_min,
            distance_m=totals.distance_m,
        ),
        robustness=RobustnessScore(
            score=1, tolerance=0.5, legs=2, legs_fully_covered=2, min_slack_min=0, mean_slack_min=0
        ),
        decision_log=[],
        variant="per_day",
        matrix_source="offline_estimate",
        request=request,
    )


def test_hand_made_good_timeline_passes(provider, settings):
    report = check_itinerary(hand_made(provider, settings), settings=settings)
    assert report.passed, report.violations


def test_hand_made_late_lunch_fails_with_the_right_code(provider, settings):
    report = check_itinerary(hand_made(provider, settings, lunch_at=(13, 0)), settings=settings)
    assert not report.passed
    assert "LUNCH_OUTSIDE_WINDOW" in report.codes()
    short = check_itinerary(hand_made(provider, settings, lunch_min=30), settings=settings)
    assert short.codes() == {"LUNCH_TOO_SHORT"}
