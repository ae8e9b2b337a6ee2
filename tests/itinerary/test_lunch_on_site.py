"""Lunch on site: a long visit may host the day's lunch, split around it (part 1, lunch, part 2)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.config import Settings
from core.geo.registry import make_provider
from core.itinerary.critic import check_itinerary
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import TUESDAY, trip, write_itinerary_pack


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return write_itinerary_pack(tmp_path_factory.mktemp("data"))


def _env(data_dir, **overrides):
    settings = Settings(data_dir=data_dir, region="itintest", **overrides)
    return settings, make_provider("offline", settings=settings)


# Century Park is open 07:00-18:00. Six hours there plus a one-hour lunch (11:30-13:30) only fit if the
# lunch is taken inside the visit: lunch first pushes the visit past 18:00, lunch after it misses the window.
LONG_PARK_DAY = trip([{"place_id": "i-century", "visit_minutes": 360, "priority": "must"}], days=[TUESDAY])


def _plan(payload, settings, provider):
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def _violations(result, settings):
    report = check_itinerary(result, request=result.request, settings=settings)
    return {v.code for v in report.violations}


def test_a_long_visit_hosts_the_lunch_on_site(data_dir):
    settings, provider = _env(data_dir)
    result = _plan(LONG_PARK_DAY, settings, provider)
    assert result.status == "ready" and not result.dropped_items
    entries = result.days[0].entries
    assert [(e.kind, e.part) for e in entries] == [
        ("travel", None),
        ("visit", 1),
        ("lunch", None),
        ("visit", 2),
        ("travel", None),
    ]
    part1, lunch, part2 = entries[1:4]
    assert part1.key == part2.key == "i-century"
    assert part1.end == lunch.start and lunch.end == part2.start  # no travel: the lunch is at the park
    assert (lunch.lon, lunch.lat) == (part1.lon, part1.lat) and "on site" in lunch.name
    assert lunch.minutes() == 60
    assert lunch.start.time() >= result.lunch.window_start and lunch.end.time() <= result.lunch.window_end
    assert part1.minutes() + part2.minutes() == 360  # the full visit, lunch not counted in it
    assert part2.end.hour < 18 or (part2.end.hour, part2.end.minute) == (18, 0)  # before closing
    assert part1.minutes() >= 60  # at least an hour of visiting before lunch when the window allows
    day = result.days[0].totals
    assert day.visits == 1 and day.visit_min == 360 and day.lunch_min == 60
    assert result.totals.visits == 1
    assert check_itinerary(result, request=result.request, settings=settings).passed


def test_without_lunch_on_site_the_long_visit_cannot_be_planned(data_dir):
    settings, provider = _env(data_dir, itinerary_lunch_on_site_min_visit_min=0)
    result = _plan(LONG_PARK_DAY, settings, provider)
    assert [x.key for x in result.dropped_items] == ["i-century"]
    assert result.status != "ready"
    assert not any(e.part for d in result.days for e in d.entries)
    assert check_itinerary(result, request=result.request, settings=settings).passed


def test_short_visits_are_never_split(data_dir):
    settings, provider = _env(data_dir)
    payload = trip(["i-bund", "i-pearl", "i-xintiandi", "i-tianzifang"], days=[TUESDAY])
    result = _plan(payload, settings, provider)
    assert not any(e.part for d in result.days for e in d.entries)
    assert sum(1 for e in result.days[0].entries if e.kind == "lunch") == 1


def test_the_critic_rejects_broken_split_visits(data_dir):
    settings, provider = _env(data_dir)
    good = _plan(LONG_PARK_DAY, settings, provider)
    assert not _violations(good, settings)

    # the lunch between the parts is somewhere else
    moved = good.model_copy(deep=True)
    moved.days[0].entries[2].lon += 0.05
    assert "SPLIT_VISIT_INVALID" in _violations(moved, settings)

    # part 2 cut short: the visit no longer lasts its minutes
    short = good.model_copy(deep=True)
    p2 = short.days[0].entries[3]
    p2.end -= timedelta(minutes=30)
    p2.departure = p2.end
    short.days[0].entries[4].arrival = p2.end
    assert "VISIT_TOO_SHORT" in _violations(short, settings)

    # a stray second part with no first part before it
    stray = good.model_copy(deep=True)
    stray.days[0].entries[1].part = None
    assert "SPLIT_VISIT_INVALID" in _violations(stray, settings)

    # the settings do not allow lunch on site for a visit this short
    strict, _ = _env(data_dir, itinerary_lunch_on_site_min_visit_min=400)
    assert "SPLIT_VISIT_INVALID" in _violations(good, strict)


def test_a_solver_order_the_layout_rejects_near_closing_time_still_gives_a_valid_plan(data_dir):
    """The model bounds visit starts only, so a lunch on site can push a visit past closing; the layout
    rejects that order, and the plan keeps the must (lunch in the museum) and drops the other stop."""
    settings, provider = _env(data_dir)
    payload = trip(
        [
            {"place_id": "i-museum", "visit_minutes": 330, "priority": "must"},
            {"place_id": "i-yuyuan", "priority": "should"},
        ],
        days=[{"date": TUESDAY.isoformat(), "start_time": "09:00", "end_time": "21:00"}],
    )
    request = TripRequest.model_validate(payload)
    result = plan_itinerary(request, provider=provider, settings=settings)
    kept = [e.key for e in result.days[0].entries if e.kind == "visit" and not e.continues_visit]
    assert kept == ["i-museum"] and [x.key for x in result.dropped_items] == ["i-yuyuan"]
    assert [e.part for e in result.days[0].entries if e.kind == "visit"] == [1, 2]  # lunch in the museum
    assert check_itinerary(result, request=request, settings=settings).passed


def test_a_booked_slot_is_never_split_and_the_critic_says_so(data_dir):
    settings, provider = _env(data_dir)
    booked = trip(
        [{"place_id": "i-century", "visit_minutes": 240, "priority": "must", "fixed_start": "10:30"}], days=[TUESDAY]
    )
    result = _plan(booked, settings, provider)
    assert not any(e.part for e in result.days[0].entries)
    good = _plan(LONG_PARK_DAY, settings, provider)
    forged = good.model_copy(deep=True)
    forged.request.places[0].fixed_start = forged.days[0].entries[1].start.time().replace(tzinfo=None)
    assert "SPLIT_VISIT_INVALID" in _violations(forged, settings)


def test_the_trip_can_refuse_lunch_on_site_and_the_critic_holds_it_to_that(data_dir):
    settings, provider = _env(data_dir)
    payload = {**LONG_PARK_DAY, "lunch": {"on_site": False}}
    result = _plan(payload, settings, provider)
    assert [x.key for x in result.dropped_items] == ["i-century"]
    good = _plan(LONG_PARK_DAY, settings, provider)
    forged = good.model_copy(deep=True)
    forged.request.lunch.on_site = False
    assert "SPLIT_VISIT_INVALID" in _violations(forged, settings)
