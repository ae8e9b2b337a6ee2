"""A meal stop (TripPlace.meal) is visited at its meal's time and is the meal (issue 31 leftover): a lunch one begins
in the trip's lunch window and takes the place of the day's lunch break, a dinner one begins in the settings' dinner
window, and one whose hours or day cannot meet its meal is dropped with MEAL_TIME_CLOSED, said in both languages.

The restaurants are hand-built places of the request (the test pack has none); the sights are the test pack's."""

from __future__ import annotations

from datetime import time

import pytest
from pydantic import ValidationError

from components.itinerary.timeline import entry_name
from components.itinerary.words import Names
from core.itinerary.critic import check_itinerary
from core.itinerary.edits import reoptimize
from core.itinerary.ics import itinerary_to_ics
from core.itinerary.pipeline import plan_itinerary
from core.itinerary.shaping import shape_plan
from core.models.itinerary import RemoveEdit, ReorderEdit, TripRequest
from core.share import trip_from_token, trip_token
from core.words.itinerary import reason_sentence
from core.words.itinerary_ics import ics_description
from tests.support.clock import SUITE_NOW
from tests.support.itinerary_packs import TUESDAY, WEDNESDAY, trip

SIGHTS = ["i-bund", "i-pearl", "i-museum", "i-xintiandi"]


def restaurant(key: str = "canteen", *, meal: str | None, hours: str = "Mo-Su 08:00-22:00", **extra) -> dict:
    """A restaurant between the Bund and the museum, open ``hours``."""
    place = {"key": key, "name": f"{key.title()} Kitchen", "lon": 121.4805, "lat": 31.2330, "opening_hours": hours}
    return {**place, "visit_minutes": 60, "meal": meal, **extra}


def _plan(payload, settings, provider):
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def _visit(result, key):
    return next((d, e) for d in result.days for e in d.entries if e.kind == "visit" and e.key == key)


def _violations(result, settings):
    return {v.code for v in check_itinerary(result, request=result.request, settings=settings).violations}


@pytest.fixture(scope="module")
def lunch_day(settings, provider):
    """One full Tuesday of four sights and the only restaurant, which is the lunch."""
    return _plan(trip([*SIGHTS, restaurant(meal="lunch")], days=[TUESDAY]), settings, provider)


def test_a_lunch_meal_begins_in_the_lunch_window_and_is_the_days_only_lunch(lunch_day, settings):
    assert lunch_day.status == "ready" and not lunch_day.dropped_items
    day, meal = _visit(lunch_day, "canteen")
    # 11:30-13:30 with a 60-minute lunch: it begins between 11:30 and 12:30
    assert time(11, 30) <= meal.start.time() <= time(12, 30) and meal.meal == "lunch"
    assert [e for e in day.entries if e.kind == "lunch"] == []  # no second lunch elsewhere that day
    assert _violations(lunch_day, settings) == set()


def test_the_meal_keeps_the_trips_own_lunch_window(settings, provider):
    late = {"window_start": "12:30", "window_end": "14:30", "duration_min": 45}
    result = _plan(trip([*SIGHTS, restaurant(meal="lunch")], days=[TUESDAY], lunch=late), settings, provider)
    _, meal = _visit(result, "canteen")
    assert time(12, 30) <= meal.start.time() <= time(13, 45)
    assert _violations(result, settings) == set()


def test_a_dinner_meal_begins_in_the_dinner_window_and_the_day_still_has_its_lunch(settings, provider):
    result = _plan(trip([*SIGHTS, restaurant(meal="dinner")], days=[TUESDAY]), settings, provider)
    day, meal = _visit(result, "canteen")
    # settings: 17:30-20:00; a 60-minute meal begins by 19:00
    assert time(17, 30) <= meal.start.time() <= time(19, 0) and meal.meal == "dinner"
    lunches = [e for e in day.entries if e.kind == "lunch"]
    assert len(lunches) == 1 and time(11, 30) <= lunches[0].start.time()
    assert _violations(result, settings) == set()


def test_the_dinner_window_comes_from_the_settings(settings, provider):
    early = settings.model_copy(
        update={"itinerary_dinner_window_start": time(16, 0), "itinerary_dinner_window_end": time(17, 30)}
    )
    result = _plan(trip([*SIGHTS, restaurant(meal="dinner")], days=[TUESDAY]), early, provider)
    _, meal = _visit(result, "canteen")
    assert time(16, 0) <= meal.start.time() <= time(16, 30)


def test_a_restaurant_closed_at_lunch_is_dropped_with_the_meal_reason_in_both_languages(settings, provider):
    dinner_only = restaurant(meal="lunch", hours="Mo-Su 17:00-22:00")
    result = _plan(trip(["i-bund", dinner_only], days=[TUESDAY]), settings, provider)
    [item] = result.dropped_items
    assert (item.key, item.reason_code, item.per_day_reasons) == (
        "canteen",
        "MEAL_TIME_CLOSED",
        {0: "MEAL_TIME_CLOSED"},
    )
    assert (item.facts["meal"], item.facts["meal_window"]) == ("lunch", "11:30-13:30")
    en, zh = reason_sentence(item, result, "en"), reason_sentence(item, result, "zh")
    assert "not at lunch time (11:30–13:30)" in en and "午餐时间（11:30–13:30）" in zh
    assert "MEAL_TIME_CLOSED" not in en + zh
    assert _violations(result, settings) == set()
    not_a_meal = result.request.model_copy(
        update={"places": [p.model_copy(update={"meal": None}) for p in result.request.places]}
    )
    report = check_itinerary(result, request=not_a_meal, settings=settings)
    assert "DROP_REASON_UNSUPPORTED" in {v.code for v in report.violations}  # the critic re-checks the claim
    # the same restaurant as a plain visit is planned (in the evening): the meal's time is the reason
    plain = _plan(trip(["i-bund", {**dinner_only, "meal": None}], days=[TUESDAY]), settings, provider)
    assert not plain.dropped_items


def test_a_day_that_ends_before_dinner_drops_the_dinner_with_a_later_end_as_its_fix(settings, provider):
    short_day = {"date": TUESDAY.isoformat(), "end_time": "16:00"}
    result = _plan(trip(["i-bund", restaurant(meal="dinner")], days=[short_day]), settings, provider)
    [item] = result.dropped_items
    assert item.reason_code == "MEAL_TIME_CLOSED" and item.facts["meal_window"] == "17:30-20:00"
    fix = item.smallest_fix
    assert fix is not None and fix.kind == "extend_day_end" and fix.facts["new_end"] > "18:30"
    assert "dinner" in reason_sentence(item, result, "en") and "晚餐" in reason_sentence(item, result, "zh")


def test_one_day_takes_one_lunch_meal_two_days_take_two(settings, provider):
    one = _plan(trip([restaurant("noodles", meal="lunch"), restaurant("dumplings", meal="lunch")]), settings, provider)
    planned = [e.key for d in one.days for e in d.entries if e.kind == "visit"]
    assert len(planned) == 1 and {*planned, *(d.key for d in one.dropped_items)} == {"noodles", "dumplings"}
    assert "LUNCH_DUPLICATE" not in _violations(one, settings)
    meals = [restaurant("noodles", meal="lunch"), restaurant("dumplings", meal="lunch")]
    two = _plan(trip(meals, days=[TUESDAY, WEDNESDAY]), settings, provider)
    assert not two.dropped_items
    for day in two.days:
        [meal] = [e for e in day.entries if e.kind == "visit"]
        assert time(11, 30) <= meal.start.time() <= time(12, 30) and not [e for e in day.entries if e.kind == "lunch"]


def test_a_meal_other_than_lunch_or_dinner_is_refused():
    with pytest.raises(ValidationError, match="meal"):
        TripRequest.model_validate(trip([restaurant(meal="breakfast")]))


def test_the_critic_holds_a_meal_stop_to_its_window_and_counts_it_as_the_lunch(lunch_day, settings):
    day, meal = _visit(lunch_day, "canteen")
    unmarked = lunch_day.model_copy(
        update={
            "days": [
                d.model_copy(update={"entries": [e.model_copy(update={"meal": None}) for e in d.entries]})
                for d in lunch_day.days
            ]
        }
    )
    assert "MEAL_MISLABELED" in _violations(unmarked, settings)  # the request says it is the lunch
    plain_request = lunch_day.request.model_copy(
        update={"places": [p.model_copy(update={"meal": None}) for p in lunch_day.request.places]}
    )
    report = check_itinerary(unmarked, request=plain_request, settings=settings)
    assert "LUNCH_MISSING" in {v.code for v in report.violations}  # a plain visit is no lunch


def test_the_calendar_and_the_page_say_the_restaurant_is_the_lunch(lunch_day):
    from core.app.itinerary import ics

    text = ics(lunch_day, generated_at=SUITE_NOW, lang="en")  # worded from the catalogs (the core words nothing)
    assert "CATEGORIES:VISIT,LUNCH" in text and "Lunch here" in text
    assert "CATEGORIES:VISIT,LUNCH" in itinerary_to_ics(lunch_day, generated_at=SUITE_NOW)
    day = lunch_day.days[0]
    i = next(i for i, e in enumerate(day.entries) if e.key == "canteen")
    names = Names(table={}, typed={"canteen": "Canteen Kitchen"})
    assert entry_name(day, i, names, "en") == "Lunch at Canteen Kitchen"
    assert entry_name(day, i, names, "zh") == "在Canteen Kitchen吃午餐"
    assert "午餐" in ics_description(day.entries[i], "zh") and "lunch" in ics_description(day.entries[i], "en")


def test_edits_and_links_keep_the_meal(lunch_day, settings, provider):
    removed = reoptimize(lunch_day, [RemoveEdit(key="i-xintiandi")], provider=provider, settings=settings)
    day, meal = _visit(removed, "canteen")
    assert time(11, 30) <= meal.start.time() <= time(12, 30) and not [e for e in day.entries if e.kind == "lunch"]
    request, _, _ = trip_from_token(trip_token(lunch_day.request))
    assert request.place("canteen").meal == "lunch"


def test_a_reorder_that_makes_the_lunch_late_is_refused_with_the_meal(lunch_day, settings, provider):
    order = [e.key for e in lunch_day.days[0].entries if e.kind == "visit"]
    last = ReorderEdit(key="canteen", position=len(order) - 1)
    shaped, refusal = shape_plan(lunch_day, [last], provider=provider, settings=settings)
    assert refusal is not None and (refusal.code, refusal.key) == ("MEAL_TIME", "canteen")
    assert refusal.facts["meal"] == "lunch" and refusal.facts["arrival"] > "12:30"
    assert shaped is lunch_day


@pytest.mark.parametrize("variant", ["per_day", "multi_vehicle"])
def test_a_full_trip_solved_by_the_routing_model_has_each_lunch_meal_as_its_days_lunch(settings, provider, variant):
    sights = [f"i-grid-{i}" for i in range(0, 36, 3)]  # twelve sights over two days: the solver, not enumeration
    meals = [
        restaurant("noodles", meal="lunch"),
        restaurant("dumplings", meal="lunch"),
        restaurant("grill", meal="dinner"),
    ]
    solver = settings.model_copy(update={"itinerary_variant": variant})
    result = _plan(trip([*sights, *meals], days=[TUESDAY, WEDNESDAY]), solver, provider)
    assert _violations(result, settings) == set() and not [
        d for d in result.dropped_items if d.key in {"noodles", "dumplings"}
    ]
    for day in result.days:
        lunch_meals = [e for e in day.entries if e.kind == "visit" and e.meal == "lunch"]
        breaks = [e for e in day.entries if e.kind == "lunch"]
        assert len(lunch_meals) + len(breaks) == 1  # one lunch a day: the restaurant or the break
        assert all(time(11, 30) <= e.start.time() <= time(12, 30) for e in lunch_meals)
    assert sum(e.meal == "lunch" for d in result.days for e in d.entries) == 2
    _, grill = _visit(result, "grill")
    assert time(17, 30) <= grill.start.time() <= time(19, 0)


@pytest.mark.parametrize("variant", ["per_day", "multi_vehicle"])
def test_a_short_day_holds_the_museum_and_the_lunch_meal_as_its_lunch(settings, provider, variant):
    # 11:00-15:00: the museum (120 min) and the lunch meal fit only when the meal is the day's lunch, not beside it
    short_day = {"date": TUESDAY.isoformat(), "start_time": "11:00", "end_time": "15:00"}
    solver = settings.model_copy(update={"itinerary_variant": variant})
    result = _plan(trip(["i-museum", restaurant(meal="lunch")], days=[short_day]), solver, provider)
    assert result.dropped_items == [] and _violations(result, settings) == set()
    assert [e.kind for e in result.days[0].entries if e.kind != "travel"] in (["visit", "visit"],)
