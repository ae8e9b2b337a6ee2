"""Demo trips dated relative to today (core/itinerary/demo_dates.py): whole-week shifts to the first dates on or after
today, weekdays and gaps kept, today taken in the region's time zone from an injectable clock."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from core.errors import InputError
from core.itinerary.demo_dates import region_today, shift_trip_dates
from core.models.itinerary import TripRequest

TRIPS = Path(__file__).resolve().parents[2] / "data" / "trips"


def _trip(*dates: str) -> dict:
    return {"trip_name": "t", "days": [{"date": d, "start_time": "10:00", "end_time": "18:00"} for d in dates]}


def _dates(trip: dict) -> list[date]:
    return [date.fromisoformat(d["date"]) for d in trip["days"]]


def test_a_past_monday_trip_moves_to_the_next_monday_keeping_its_gaps():
    trip = _trip("2025-06-09", "2025-06-10", "2025-06-12")  # Mon, Tue, Thu
    shifted = shift_trip_dates(trip, today=date(2026, 11, 25))  # a Wednesday
    assert _dates(shifted) == [date(2026, 11, 30), date(2026, 12, 1), date(2026, 12, 3)]
    assert [d.strftime("%a") for d in _dates(shifted)] == ["Mon", "Tue", "Thu"]
    assert shifted["days"][0]["start_time"] == "10:00"
    assert trip["days"][0]["date"] == "2025-06-09"  # the demo itself is left as written


def test_a_trip_whose_first_weekday_is_today_starts_today():
    shifted = shift_trip_dates(_trip("2025-06-09", "2025-06-10"), today=date(2026, 11, 23))  # both Mondays
    assert _dates(shifted) == [date(2026, 11, 23), date(2026, 11, 24)]


def test_the_shift_crosses_a_year_end():
    shifted = shift_trip_dates(_trip("2025-06-14", "2025-06-16"), today=date(2026, 12, 30))  # Sat, Mon; today Wed
    assert _dates(shifted) == [date(2027, 1, 2), date(2027, 1, 4)]


def test_a_trip_spanning_a_year_end_keeps_its_days_in_order():
    shifted = shift_trip_dates(_trip("2025-06-09", "2025-06-10", "2025-06-11"), today=date(2026, 12, 28))  # Mon
    assert _dates(shifted) == [date(2026, 12, 28), date(2026, 12, 29), date(2026, 12, 30)]
    shifted = shift_trip_dates(_trip("2025-06-11", "2025-06-12"), today=date(2027, 12, 31))  # Wed, Thu; Fri
    assert _dates(shifted) == [date(2028, 1, 5), date(2028, 1, 6)]


def test_a_trip_dated_far_ahead_comes_back_to_the_first_matching_week():
    shifted = shift_trip_dates(_trip("2030-01-07"), today=date(2026, 11, 24))  # a Monday; today a Tuesday
    assert _dates(shifted) == [date(2026, 11, 30)]


def test_a_trip_without_dates_is_returned_as_it_is_and_a_bad_date_is_an_input_error():
    assert shift_trip_dates({"trip_name": "x"}, today=date(2026, 1, 1)) == {"trip_name": "x"}
    with pytest.raises(InputError) as err:
        shift_trip_dates(_trip("2025-13-40"), today=date(2026, 1, 1))
    assert err.value.field == "days"


def test_today_is_taken_in_the_regions_time_zone():
    late_utc = datetime(2026, 12, 31, 17, 30, tzinfo=UTC)  # already 1 January 01:30 in Shanghai
    assert region_today("Asia/Shanghai", now=lambda: late_utc) == date(2027, 1, 1)
    assert region_today("Europe/Helsinki", now=lambda: late_utc) == date(2026, 12, 31)
    with pytest.raises(InputError):
        region_today("Mars/Olympus", now=lambda: late_utc)
    with pytest.raises(InputError):
        region_today("Asia/Shanghai", now=lambda: datetime(2026, 1, 1, 12, 0))


@pytest.mark.parametrize("path", sorted(TRIPS.glob("*.json")), ids=lambda p: p.stem)
def test_every_bundled_demo_trip_lands_on_or_after_today_with_its_weekdays(path):
    trip = json.loads(path.read_text(encoding="utf-8"))
    today = date(2026, 11, 24)
    shifted = shift_trip_dates(trip, today=today)
    request = TripRequest.model_validate(shifted)
    new = [d.date for d in request.days]
    old = _dates(trip)
    assert today <= new[0] < date(2026, 12, 1)
    assert [d.weekday() for d in new] == [d.weekday() for d in old]
    assert [(d - new[0]).days for d in new] == [(d - old[0]).days for d in old]
