"""A meal the agent makes of a restaurant is one its hours can host on the trip's days (review of issue 31's meal
stops): the planner drops a meal its hours cannot host, and a must-visit one would fail the whole plan. The hours
here are written by hand; the trip's days are fixed."""

from __future__ import annotations

from datetime import date

from core.agent.trip_request import fit_meals
from core.config import Settings
from core.itinerary.problem import meal_can_begin
from core.models.itinerary import LunchPolicy
from core.packs.loader import load_region

DAYS = [date(2030, 5, 6), date(2030, 5, 7)]  # a Monday and a Tuesday
DAY = (10 * 60, 20 * 60)  # the agent's default 10:00-20:00


def _can(hours: str | None, meal: str, *, day: tuple[int, int] = DAY, dates: list[date] = DAYS) -> bool:
    return meal_can_begin(hours, meal, dates, lunch=LunchPolicy(), settings=Settings(), timezone="Asia/Shanghai",
                          country="CN", day_bounds=day)  # fmt: skip


def test_a_meal_can_begin_only_where_the_hours_window_and_day_meet():
    assert _can("Mo-Su 11:00-14:00,17:00-21:00", "lunch") and _can("Mo-Su 11:00-14:00,17:00-21:00", "dinner")
    assert not _can("Mo-Su 17:00-23:00", "lunch") and _can("Mo-Su 17:00-23:00", "dinner")
    assert not _can("Mo-Su 06:30-12:00", "lunch")  # the hour to eat before it closes starts at 11:00: before the window
    assert _can("Mo-Su 06:30-12:30", "lunch")  # 11:30-12:30: one hour, the lunch's
    assert not _can("Mo-Su 17:00-23:00", "dinner", day=(10 * 60, 18 * 60))  # the day ends before dinner can
    assert not _can("Mo 17:00-23:00", "dinner", dates=[date(2030, 5, 7)]) and _can("Mo 17:00-23:00", "dinner")
    assert _can(None, "lunch")  # no hours known: always open, as the planner reads it


def _pack_with(hours: dict[str, str]):
    pack = load_region("shanghai")
    places = [p.model_copy(update={"opening_hours": hours[p.id]}) if p.id in hours else p for p in pack.places]
    return pack.model_copy(update={"places": places})


def test_a_meal_its_hours_cannot_host_becomes_the_other_meal_or_a_visit():
    pack = _pack_with({"sh-lao-jesse": "Mo-Su 17:00-22:00", "sh-fu1088": "Mo-Su 14:30-16:30"})
    places = [
        {"key": "sh-lao-jesse", "place_id": "sh-lao-jesse", "meal": "lunch", "priority": "must"},
        {"key": "sh-fu1088", "place_id": "sh-fu1088", "meal": "dinner"},
        {"key": "sh-lubolang", "place_id": "sh-lubolang", "meal": "lunch"},  # 10:00-14:00, 16:30-21:00: lunch fits
        {"key": "sh-bund", "place_id": "sh-bund"},
    ]
    fit_meals(places, pack, DAYS, settings=Settings(), day_bounds=DAY)
    assert [p.get("meal") for p in places] == ["dinner", None, "lunch", None]
    assert "meal" not in places[1] and places[0]["priority"] == "must"  # the rest of the place as it was
