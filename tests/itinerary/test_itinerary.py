"""The multi-day itinerary optimiser: contracts, reasons, fixes, locks, robust times, variants."""

from __future__ import annotations

import json
from datetime import time

import pytest
from pydantic import ValidationError

from core.config import get_settings
from core.errors import InputError
from core.geo.base import LonLat
from core.itinerary.critic import check_itinerary
from core.itinerary.edits import itinerary_from_json, reoptimize
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import LockEdit, MoveEdit, RemoveEdit, TripRequest
from tests.support.itinerary_packs import MONDAY, TUESDAY, independent_robust_minutes, trip
from tests.support.paths import ROOT as PROJECT_ROOT

ROOT = PROJECT_ROOT


def plan(payload, provider, settings, **kw):
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings, **kw)


def visits(result):
    return {e.key: (d.day_index, e) for d in result.days for e in d.entries if e.kind == "visit"}


def dropped(result):
    return {x.key: x for x in result.dropped_items}


def assert_passes_critic(result, settings):
    report = check_itinerary(result, request=result.request, settings=settings)
    assert report.passed, [(v.code, v.message) for v in report.violations]
    assert result.critic is not None and result.critic.passed


# ---------------------------------------------------------------------------------------------
# A plain plan
# ---------------------------------------------------------------------------------------------
def test_two_day_plan_keeps_musts_moves_the_monday_closed_museum_and_passes_the_critic(provider, settings):
    payload = trip(
        [
            {"place_id": "i-museum", "priority": "must"},
            {"place_id": "i-bund", "priority": "must"},
            "i-pearl",
            "i-xintiandi",
            "i-jingan",
            "i-tianzifang",
            {"place_id": "i-century", "priority": "nice"},
        ],
        days=[MONDAY, TUESDAY],
    )
    result = plan(payload, provider, settings)
    assert result.status == "ready" and result.error_code is None
    assert_passes_critic(result, settings)
    seen = visits(result)
    assert seen["i-museum"][0] == 1  # closed on Monday (Mo off), so Tuesday
    assert "i-bund" in seen
    assert set(seen) | set(dropped(result)) == {p["place_id"] for p in payload["places"]}
    for day in result.days:
        assert sum(1 for e in day.entries if e.kind == "lunch") == 1
        assert day.entries[0].from_key == day.start_key and day.entries[-1].to_key == day.end_key


def test_every_travel_entry_uses_the_robust_time_from_settings(provider, settings):
    result = plan(trip(["i-bund", "i-pearl", "i-yuyuan", "i-xintiandi"], days=[TUESDAY]), provider, settings)
    factor = settings.robust_travel_factor["driving"] * settings.pacing_factor_multiplier["normal"]
    buffer = settings.robust_travel_buffer_min["driving"] + settings.pacing_buffer_extra_min["normal"]
    coords = {p.id: (p.lon, p.lat) for p in provider.region.places}
    coords_by_anchor = {"anchor:i-hotel": coords["i-hotel"]}
    travel = [e for d in result.days for e in d.entries if e.kind == "travel"]
    assert travel
    for e in travel:
        a = coords_by_anchor.get(e.from_key) or coords[e.from_key]
        b = coords_by_anchor.get(e.to_key) or coords[e.to_key]
        nominal = provider.matrix([LonLat(*a), LonLat(*b)], mode="driving").durations_s[0][1]
        expected = independent_robust_minutes(nominal, factor=factor, buffer_min=buffer)
        assert e.nominal_s == pytest.approx(nominal, abs=0.1)
        assert e.robust_min == expected > e.nominal_min
        assert e.minutes() == expected
        assert e.source == "offline_estimate"


def test_relaxed_pacing_stretches_visits_and_travel(provider, settings):
    normal = plan(trip([{"place_id": "i-grid-0", "visit_minutes": 60}]), provider, settings)
    relaxed = plan(trip([{"place_id": "i-grid-0", "visit_minutes": 60}], pacing="relaxed"), provider, settings)
    assert visits(normal)["i-grid-0"][1].minutes() == 60
    assert visits(relaxed)["i-grid-0"][1].minutes() == 72  # 60 x 1.2
    first_leg = [d.entries[0] for d in (normal.days[0], relaxed.days[0])]
    assert first_leg[1].robust_min > first_leg[0].robust_min
    assert relaxed.policy.factor == pytest.approx(1.3 * 1.15) and relaxed.policy.buffer_min == 10
    assert_passes_critic(relaxed, settings)


def test_runs_are_deterministic(provider, settings):
    payload = trip([f"i-grid-{i}" for i in range(12)], days=[MONDAY, TUESDAY])
    a, b = plan(payload, provider, settings), plan(payload, provider, settings)
    assert [d.model_dump() for d in a.days] == [d.model_dump() for d in b.days]
    assert [x.model_dump() for x in a.dropped_items] == [x.model_dump() for x in b.dropped_items]


def test_both_variants_are_measured_and_the_better_is_kept(provider, settings):
    payload = trip([f"i-grid-{i}" for i in range(20)], days=[MONDAY, TUESDAY])
    result = plan(payload, provider, settings)
    assert {v.variant for v in result.variants} == {"per_day", "multi_vehicle"}
    chosen = [v for v in result.variants if v.chosen]
    assert len(chosen) == 1 and chosen[0].variant == result.variant
    best = min(result.variants, key=lambda v: (v.must_dropped, v.dropped_penalty, v.travel_robust_min + v.wait_min))
    key = lambda v: (v.must_dropped, v.dropped_penalty, v.travel_robust_min + v.wait_min)  # noqa: E731
    assert key(chosen[0]) == key(best)
    assert_passes_critic(result, settings)
    log_actions = {e.action for e in result.decision_log}
    assert {
        "transport.build_time_matrix",
        "transport.apply_robustness_policy",
        "itinerary.cluster_days_balanced",
        "itinerary.optimize_day_vrptw",
        "policy.score_robustness",
        "critic.check_itinerary",
    } <= log_actions
    assert all(isinstance(e.facts, dict) and e.reason_code for e in result.decision_log)


def test_single_variant_setting_is_respected(provider, settings):
    only = settings.model_copy(update={"itinerary_variant": "multi_vehicle"})
    result = plan(trip(["i-bund", "i-pearl"]), provider, only)
    assert [v.variant for v in result.variants] == ["multi_vehicle"] and result.variant == "multi_vehicle"


def test_progress_callback_reports_rising_fractions(provider, settings):
    seen: list[tuple[str, float]] = []
    plan(trip(["i-bund", "i-pearl"]), provider, settings, progress=lambda s, f: seen.append((s, f)))
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and seen[-1] == ("done", 1.0)


# ---------------------------------------------------------------------------------------------
# Time windows, waits, lunch
# ---------------------------------------------------------------------------------------------
def test_waits_over_fifteen_minutes_are_explicit_entries(provider, settings):
    payload = trip(
        [
            {"place_id": "i-grid-0", "priority": "must", "opening_hours": "Mo-Su 10:00-21:00", "visit_minutes": 60},
            {"place_id": "i-grid-1", "priority": "must", "opening_hours": "Mo-Su 16:00-18:00", "visit_minutes": 60},
        ]
    )
    result = plan(payload, provider, settings)
    assert_passes_critic(result, settings)
    entries = result.days[0].entries
    late = visits(result)["i-grid-1"][1]
    assert (late.start.hour, late.start.minute) >= (16, 0)
    waits = [e for e in entries if e.kind == "wait"]
    assert waits, "the afternoon opening forces a long wait"
    for e in entries:
        if e.kind == "wait":
            assert e.minutes() > settings.explicit_wait_min
        else:
            assert (e.start - e.arrival).total_seconds() <= settings.explicit_wait_min * 60
    i = entries.index(late)
    assert entries[i - 1].kind == "wait" and entries[i - 1].end == late.start


def test_visits_end_before_closing_and_past_midnight_hours_are_used(provider, settings):
    day = {"date": MONDAY.isoformat(), "start_time": "16:00", "end_time": "23:45"}
    result = plan(trip([{"place_id": "i-nightbar", "priority": "must"}], days=[day]), provider, settings)
    assert_passes_critic(result, settings)
    bar = visits(result)["i-nightbar"][1]
    assert (bar.start.hour, bar.start.minute) >= (21, 0) and bar.minutes() == 60
    assert not result.days[0].lunch_required  # the day starts after the lunch window
    assert all(e.kind != "lunch" for e in result.days[0].entries)


def test_lunch_sits_inside_its_window_for_its_full_length(provider, settings):
    payload = trip(
        ["i-bund", "i-pearl", "i-yuyuan", "i-xintiandi", "i-tianzifang"],
        days=[TUESDAY],
        lunch={"window_start": "12:00", "window_end": "14:00", "duration_min": 45},
    )
    result = plan(payload, provider, settings)
    lunches = [e for e in result.days[0].entries if e.kind == "lunch"]
    assert len(lunches) == 1
    lunch = lunches[0]
    assert (lunch.start.hour, lunch.start.minute) >= (12, 0) and (lunch.end.hour, lunch.end.minute) <= (14, 0)
    assert lunch.minutes() == 45
    assert_passes_critic(result, settings)


# ---------------------------------------------------------------------------------------------
# Reasons for dropped stops, each from a small constructed case, and their smallest fixes
# ---------------------------------------------------------------------------------------------
def replan_with_fix(payload, item, provider, settings):
    """Apply the suggested fix to the request, make the dropped stop a must and plan again: an
    independent check that the fix really makes room (the plan must then keep it)."""
    fix = item.smallest_fix
    payload = json.loads(json.dumps(payload))
    for p in payload["places"]:
        if (p.get("key") or p.get("place_id")) == item.key:
            p["priority"] = "must"
    days = payload["days"]
    if fix.kind in {"extend_day_end", "start_day_earlier"}:
        value = fix.facts["new_end"] if fix.kind == "extend_day_end" else fix.facts["new_start"]
        days[fix.day_index]["end_time" if fix.kind == "extend_day_end" else "start_time"] = value
    elif fix.kind == "drop_stop":
        payload["places"] = [p for p in payload["places"] if (p.get("key") or p.get("place_id")) != fix.drop_key]
    elif fix.kind == "shorten_visit":
        for p in payload["places"]:
            if (p.get("key") or p.get("place_id")) == item.key:
                p["visit_minutes"] = fix.minutes
    return plan(payload, provider, settings)


def test_closed_on_day(provider, settings):
    result = plan(trip(["i-bund", "i-yuyuan"]), provider, settings)  # Yu Garden: Mo off
    item = dropped(result)["i-yuyuan"]
    assert item.reason_code == "CLOSED_ON_DAY" and item.per_day_reasons == {0: "CLOSED_ON_DAY"}
    assert item.smallest_fix is None  # no change to a Monday makes a closed garden open
    assert "closed on day 1 (Mon 2025-06-02)" in item.explanation
    assert result.status == "ready"
    assert_passes_critic(result, settings)


def test_a_must_that_cannot_fit_makes_the_plan_infeasible_without_crashing(provider, settings):
    result = plan(trip(["i-bund", {"place_id": "i-yuyuan", "priority": "must"}]), provider, settings)
    assert result.status == "infeasible" and result.error_code == "PLANNER_INFEASIBLE_HARD_NODES"
    item = dropped(result)["i-yuyuan"]
    assert item.priority == "must" and item.reason_code == "CLOSED_ON_DAY"
    assert result.totals.must_dropped == 1
    assert "i-bund" in visits(result)
    assert any(e.reason_code == "PLANNER_INFEASIBLE_HARD_NODES" for e in result.decision_log)
    assert_passes_critic(result, settings)  # what is planned is still executable


def test_outside_opening_hours_with_an_earlier_start_as_the_fix(provider, settings):
    payload = trip(["i-bund", "i-morning"])  # market 05:00-08:00, the day starts 10:00
    result = plan(payload, provider, settings)
    item = dropped(result)["i-morning"]
    assert item.reason_code == "OUTSIDE_OPENING_HOURS"
    fix = item.smallest_fix
    assert fix is not None and fix.kind == "start_day_earlier"
    assert fix.description == f"fits if day 1 starts at {fix.facts['new_start']}"
    # Independently: the market needs arrival by 07:15; the fix must allow that and a smaller one must not.
    hotel = provider.region.place_by_id("i-hotel")
    market = provider.region.place_by_id("i-morning")
    nominal = provider.matrix([LonLat(hotel.lon, hotel.lat), LonLat(market.lon, market.lat)], mode="driving")
    leg = independent_robust_minutes(nominal.durations_s[0][1], factor=1.3, buffer_min=5)
    new_start = 10 * 60 - fix.minutes
    assert new_start + leg <= 8 * 60 - 45
    assert all(10 * 60 - m + leg > 8 * 60 - 45 for m in (15, 30, 60, 90, 120, 180, 240) if m < fix.minutes)
    again = replan_with_fix(payload, item, provider, settings)
    assert "i-morning" in visits(again)
    assert_passes_critic(again, settings)


def test_unreachable_in_window(provider, settings):
    payload = trip(["i-bund", "i-far"])  # open 10:00-12:00 but over two robust hours away
    result = plan(payload, provider, settings)
    item = dropped(result)["i-far"]
    assert item.reason_code == "UNREACHABLE_IN_WINDOW"
    assert item.smallest_fix is not None and item.smallest_fix.kind == "start_day_earlier"
    again = replan_with_fix(payload, item, provider, settings)
    assert "i-far" in visits(again)
    assert_passes_critic(again, settings)


def test_day_too_full_fits_alone_but_not_with_the_must_visits(provider, settings):
    always = "24/7"
    payload = trip(
        [
            # Lunch (11:30-12:30 at the latest start) cannot interrupt a visit, so the day is lunch + 270 min.
            {"place_id": "i-grid-0", "priority": "must", "visit_minutes": 150, "opening_hours": always},
            {"place_id": "i-grid-1", "priority": "must", "visit_minutes": 120, "opening_hours": always},
            {"place_id": "i-grid-2", "priority": "should", "visit_minutes": 150, "opening_hours": always},
        ],
        days=[{"date": MONDAY.isoformat(), "start_time": "10:00", "end_time": "20:00"}],
    )
    result = plan(payload, provider, settings)
    assert result.status == "ready"
    item = dropped(result)["i-grid-2"]
    assert item.reason_code == "DAY_TOO_FULL"
    assert {"i-grid-0", "i-grid-1"} <= set(visits(result))
    assert item.smallest_fix is not None and item.smallest_fix.kind == "extend_day_end"
    assert item.smallest_fix.description.startswith("fits if day 1 ends at ")
    again = replan_with_fix(payload, item, provider, settings)
    assert set(visits(again)) == {"i-grid-0", "i-grid-1", "i-grid-2"}
    assert_passes_critic(again, settings)


def test_low_priority_tradeoff_with_a_verified_fix(provider, settings):
    places = [{"place_id": f"i-grid-{i}", "priority": "nice"} for i in range(6)]
    payload = trip(places, days=[{"date": MONDAY.isoformat(), "start_time": "10:00", "end_time": "14:30"}])
    result = plan(payload, provider, settings)
    assert_passes_critic(result, settings)
    items = [x for x in result.dropped_items if x.reason_code == "LOW_PRIORITY_TRADEOFF"]
    assert items, "a 4.5-hour day cannot hold six sights"
    with_fix = [x for x in items if x.smallest_fix is not None]
    assert with_fix
    item = with_fix[0]
    again = replan_with_fix(payload, item, provider, settings)
    assert item.key in visits(again) and again.status == "ready"
    assert_passes_critic(again, settings)


def test_should_beats_several_nice(provider, settings):
    # The should fits only with the whole day to itself; it must still win over the three nice ones.
    payload = trip(
        [
            {"place_id": "i-grid-3", "priority": "should", "visit_minutes": 90},
            {"place_id": "i-grid-4", "priority": "nice", "visit_minutes": 45},
            {"place_id": "i-grid-5", "priority": "nice", "visit_minutes": 45},
            {"place_id": "i-grid-9", "priority": "nice", "visit_minutes": 45},
        ],
        days=[{"date": MONDAY.isoformat(), "start_time": "10:00", "end_time": "14:00"}],
    )
    result = plan(payload, provider, settings)
    assert "i-grid-3" in visits(result)
    assert {x.key for x in result.dropped_items} == {"i-grid-4", "i-grid-5", "i-grid-9"}
    assert_passes_critic(result, settings)


# ---------------------------------------------------------------------------------------------
# Locks and user edits
# ---------------------------------------------------------------------------------------------
def test_locks_to_day_and_time_are_respected(provider, settings):
    payload = trip(
        [
            "i-bund",
            {"place_id": "i-pearl", "fixed_day": 1, "fixed_start": "15:00"},
            "i-xintiandi",
            {"place_id": "i-jingan", "fixed_day": 0},
        ],
        days=[MONDAY, TUESDAY],
    )
    result = plan(payload, provider, settings)
    seen = visits(result)
    day, pearl = seen["i-pearl"]
    assert day == 1 and pearl.start.time() == time(15, 0) and pearl.locked
    assert seen["i-jingan"][0] == 0
    assert_passes_critic(result, settings)


def test_reoptimize_applies_edits_and_keeps_earlier_locks(provider, settings):
    payload = trip(["i-bund", "i-pearl", "i-xintiandi", "i-jingan", "i-tianzifang", "i-grid-0"], days=[MONDAY, TUESDAY])
    first = plan(payload, provider, settings)
    bund_day = visits(first)["i-bund"][0]
    edits = [
        LockEdit(key="i-xintiandi", day_index=1, start_time="16:00"),
        MoveEdit(key="i-bund", day_index=1 - bund_day),
        RemoveEdit(key="i-jingan"),
    ]
    second = reoptimize(first, edits, provider=provider, settings=settings)
    seen = visits(second)
    assert seen["i-xintiandi"][0] == 1 and seen["i-xintiandi"][1].start.time() == time(16, 0)
    assert seen["i-bund"][0] == 1 - bund_day
    assert "i-jingan" not in seen and dropped(second)["i-jingan"].reason_code == "REMOVED_BY_USER"
    assert_passes_critic(second, settings)

    third = reoptimize(second, [RemoveEdit(key="i-grid-0")], provider=provider, settings=settings)
    seen = visits(third)
    assert seen["i-xintiandi"][0] == 1 and seen["i-xintiandi"][1].start.time() == time(16, 0)
    assert seen["i-bund"][0] == 1 - bund_day
    assert {"i-jingan", "i-grid-0"} <= set(dropped(third)) and not {"i-jingan", "i-grid-0"} & set(seen)
    assert_passes_critic(third, settings)


def test_bad_edits_and_requests_are_input_errors(provider, settings):
    first = plan(trip(["i-bund"]), provider, settings)
    with pytest.raises(InputError):
        reoptimize(first, [RemoveEdit(key="nope")], provider=provider, settings=settings)
    with pytest.raises((InputError, ValidationError)):
        TripRequest.model_validate(trip([{"place_id": "i-bund", "fixed_day": 3}]))
    with pytest.raises(InputError):
        plan(trip(["i-does-not-exist"]), provider, settings)
    with pytest.raises((InputError, ValidationError)):
        TripRequest.model_validate({"days": [{"date": "2025-06-02"}], "places": [{"place_id": "i-bund"}]})


# ---------------------------------------------------------------------------------------------
# Demo trips on the bundled Shanghai pack (what the page and CLI load)
# ---------------------------------------------------------------------------------------------
TRIPS = sorted((ROOT / "data" / "trips").glob("*.json"))


@pytest.mark.parametrize("path", TRIPS, ids=[p.stem for p in TRIPS])
def test_demo_trips_plan_and_pass_the_critic(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    result = itinerary_from_json(data, settings=get_settings())
    assert result.critic is not None and result.critic.passed, result.critic.violations
    seen = visits(result)
    musts = [p["place_id"] for p in data["places"] if p.get("priority") == "must"]
    assert all(m in seen for m in musts)
    assert result.status == "ready"
    json.loads(result.model_dump_json())  # the CLI prints exactly this


def test_demo_trip_puts_the_monday_closed_museum_on_tuesday():
    data = json.loads((ROOT / "data" / "trips" / "shanghai_2day_monday_museum.json").read_text(encoding="utf-8"))
    result = itinerary_from_json(data, settings=get_settings())
    day, entry = visits(result)["sh-shanghai-museum"]
    assert result.days[day].date.weekday() == 1  # Tuesday
    assert any(w[0] <= entry.start and entry.end <= w[1] for w in entry.opening_windows)
