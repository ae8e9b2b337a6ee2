"""Meal stops at their edges (issue 31 follow-up, review): a second lunch meal on a day is dropped or refused as
LUNCH_TAKEN naming the day's lunch, a meal no day could hold is refused as bad input, and the critic holds a
visit's meal label to the request.

The restaurants are hand-built places of the request (the test pack has none); the sights are the test pack's."""

from __future__ import annotations

from datetime import time

import pytest

from components.itinerary.shape_panel import conflict_words
from components.itinerary.words import Names
from core.errors import InputError
from core.itinerary.critic import check_itinerary
from core.itinerary.pipeline import plan_itinerary
from core.itinerary.shaping import shape_plan
from core.models.itinerary import AddEdit, ReorderEdit, TripPlace, TripRequest
from core.words.itinerary import reason_sentence, violation_sentence
from tests.support.itinerary_packs import TUESDAY, WEDNESDAY, trip


def eatery(key: str, name: str, *, meal: str | None, **extra) -> dict:
    """A restaurant near People's Square, open 07:00-23:00 every day."""
    place = {"key": key, "name": name, "lon": 121.4752, "lat": 31.2301, "opening_hours": "Mo-Su 07:00-23:00"}
    return {**place, "visit_minutes": 50, "meal": meal, **extra}


def _plan(payload, settings, provider):
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def _codes(result, settings, request=None):
    report = check_itinerary(result, request=request or result.request, settings=settings)
    return {v.code for v in report.violations}


@pytest.fixture(scope="module")
def two_lunches(settings, provider):
    """One Tuesday with a museum and two restaurants both asked as the lunch."""
    places = ["i-museum", eatery("wonton", "Wonton House", meal="lunch"), eatery("ramen", "Ramen Bar", meal="lunch")]
    return _plan(trip(places, days=[TUESDAY]), settings, provider)


def test_a_second_lunch_meal_on_a_day_is_dropped_as_lunch_taken_naming_the_days_lunch(two_lunches, settings):
    [lunch] = [e for d in two_lunches.days for e in d.entries if e.kind == "visit" and e.meal == "lunch"]
    [item] = two_lunches.dropped_items
    assert item.key in {"wonton", "ramen"} and item.key != lunch.key
    assert item.reason_code == "LUNCH_TAKEN" and item.per_day_reasons == {0: "LUNCH_TAKEN"}
    assert item.facts["lunch_key"] == lunch.key and item.facts["lunch_place"] == lunch.name
    assert lunch.name in reason_sentence(item, two_lunches, "en") and "lunch" in reason_sentence(
        item, two_lunches, "en"
    )
    zh = reason_sentence(item, two_lunches, "zh")
    assert lunch.name in zh and "午餐" in zh
    assert "DROP_REASON_UNSUPPORTED" not in _codes(two_lunches, settings)


def test_the_critic_refuses_a_lunch_taken_that_names_no_lunch_of_that_day(two_lunches, settings):
    [item] = two_lunches.dropped_items
    wrong = item.model_copy(update={"facts": {**item.facts, "lunch_key": "i-museum"}})
    result = two_lunches.model_copy(update={"dropped_items": [wrong]})
    assert "DROP_REASON_UNSUPPORTED" in _codes(result, settings)
    plain = two_lunches.request.model_copy(
        update={
            "places": [p.model_copy(update={"meal": None}) if p.key == item.key else p for p in result.request.places]
        }
    )
    assert "DROP_REASON_UNSUPPORTED" in _codes(two_lunches, settings, plain)  # a place asked as no meal


def test_a_lunch_meal_on_another_day_is_no_lunch_taken(settings, provider):
    places = [eatery("wonton", "Wonton House", meal="lunch"), eatery("ramen", "Ramen Bar", meal="lunch", fixed_day=0)]
    result = _plan(trip(places, days=[TUESDAY, WEDNESDAY]), settings, provider)
    assert not result.dropped_items


def test_adding_a_second_lunch_meal_to_a_day_is_refused_as_lunch_taken(settings, provider):
    base = _plan(trip(["i-museum", eatery("wonton", "Wonton House", meal="lunch")], days=[TUESDAY]), settings, provider)
    added = AddEdit(place=TripPlace.model_validate(eatery("dimsum", "Dim Sum Hall", meal="lunch")), day_index=0)
    shaped, refusal = shape_plan(base, [added], provider=provider, settings=settings)
    assert shaped is base and refusal is not None
    assert (refusal.code, refusal.key, refusal.facts["lunch_key"]) == ("LUNCH_TAKEN", "dimsum", "wonton")
    at = added.model_copy(update={"position": 0})
    _, placed = shape_plan(base, [at], provider=provider, settings=settings)
    assert placed is not None and placed.code == "LUNCH_TAKEN"
    names = Names(table={}, typed={"dimsum": "Dim Sum Hall", "wonton": "Wonton House"})
    en, zh = conflict_words(refusal, base, names, "en"), conflict_words(refusal, base, names, "zh")
    assert "Dim Sum Hall" in en and "Wonton House" in en and "lunch" in en
    assert "Dim Sum Hall" in zh and "Wonton House" in zh and "午餐" in zh


def test_moving_a_lunch_meal_onto_a_day_with_its_own_lunch_meal_is_refused_as_lunch_taken(settings, provider):
    places = [eatery("wonton", "Wonton House", meal="lunch"), eatery("ramen", "Ramen Bar", meal="lunch", fixed_day=1)]
    base = _plan(trip(places, days=[TUESDAY, WEDNESDAY]), settings, provider)
    assert not base.dropped_items
    moved = ReorderEdit(key="wonton", day_index=1, position=0)
    _, refusal = shape_plan(base, [moved], provider=provider, settings=settings)
    assert refusal is not None and (refusal.code, refusal.facts["lunch_key"]) == ("LUNCH_TAKEN", "ramen")


@pytest.mark.parametrize(("meal", "start"), [("lunch", "15:00"), ("lunch", "10:45"), ("dinner", "12:15")])
def test_a_meal_locked_outside_its_window_is_refused_naming_the_field(settings, provider, meal, start):
    places = ["i-bund", eatery("noodle", "Noodle Corner", meal=meal, fixed_start=start)]
    with pytest.raises(InputError) as caught:
        _plan(trip(places, days=[TUESDAY]), settings, provider)
    assert caught.value.field == "places.1.fixed_start" and start in str(caught.value)


def test_a_meal_locked_too_late_to_eat_before_its_window_closes_is_refused(settings, provider):
    # lunch 11:30-13:30, a 60-minute lunch: 13:00 leaves only 30 minutes
    late = eatery("noodle", "Noodle Corner", meal="lunch", fixed_start="13:00", visit_minutes=90)
    with pytest.raises(InputError, match="12:30"):
        _plan(trip([late], days=[TUESDAY]), settings, provider)
    inside = eatery("noodle", "Noodle Corner", meal="lunch", fixed_start="12:15")
    result = _plan(trip([inside], days=[TUESDAY]), settings, provider)
    [visit] = [e for d in result.days for e in d.entries if e.kind == "visit"]
    assert visit.start.time() == time(12, 15) and visit.meal == "lunch"


def test_a_dinner_window_shorter_than_the_meal_is_refused(settings, provider):
    short = settings.model_copy(
        update={"itinerary_dinner_window_start": time(18, 0), "itinerary_dinner_window_end": time(18, 40)}
    )
    payload = trip([eatery("grill", "Charcoal Grill", meal="dinner")], days=[TUESDAY], lunch={"duration_min": 45})
    with pytest.raises(InputError) as caught:
        _plan(payload, short, provider)
    assert caught.value.field == "lunch.duration_min" and "18:00-18:40" in str(caught.value)
    fits = trip([eatery("grill", "Charcoal Grill", meal="dinner")], days=[TUESDAY], lunch={"duration_min": 40})
    assert _plan(fits, short, provider).status in {"ready", "needs_review"}


def test_the_critic_holds_a_visits_meal_label_to_the_request(two_lunches, settings):
    relabeled = two_lunches.model_copy(
        update={
            "days": [
                d.model_copy(
                    update={
                        "entries": [
                            e.model_copy(update={"meal": "lunch"}) if e.key == "i-museum" else e for e in d.entries
                        ]
                    }
                )
                for d in two_lunches.days
            ]
        }
    )
    report = check_itinerary(relabeled, request=relabeled.request, settings=settings)
    [wrong] = [v for v in report.violations if v.code == "MEAL_MISLABELED"]
    assert wrong.key == "i-museum"
    names = {"i-museum": "Shanghai Museum"}.__getitem__
    assert "Shanghai Museum" in violation_sentence(wrong, names, "en") and "meal" in violation_sentence(
        wrong, names, "en"
    )
    assert "Shanghai Museum" in violation_sentence(wrong, names, "zh") and "用餐" in violation_sentence(
        wrong, names, "zh"
    )
    assert "MEAL_MISLABELED" not in _codes(two_lunches, settings)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_words_a_refused_meal_beside_its_field(lang):
    from components.itinerary.form import error_section, error_words, field_label

    payload = {"places": [{"place_id": "i-bund"}, {"place_id": "sh-noodle"}]}
    label = field_label("places.1.fixed_start", payload, lang=lang)
    assert "sh-noodle" in label and label != field_label("places.1", payload, lang=lang)
    locked = error_words({"field": "places.1.fixed_start", "labels": {lang: label}}, lang=lang)
    longer = error_words({"field": "lunch.duration_min"}, lang=lang)
    other = error_words({"field": "places.1.something"}, lang=lang)
    assert label in locked and locked != other and ("meal" in locked or "用餐" in locked)
    assert ("dinner" in longer or "晚餐" in longer) and error_section("lunch.duration_min") == "lunch"
    assert error_section("places.1.fixed_start") == "places"


def test_the_critic_flags_a_meal_moved_out_of_its_window_and_words_it(two_lunches, settings):
    """The day's lunch shifted to 16:00 (a plan edited by hand, or a solver bug): the critic says so, and the
    traveller reads which place and why, not the general sentence."""

    def late(e):
        return e.model_copy(
            update={"start": e.start.replace(hour=16, minute=0), "end": e.end.replace(hour=16, minute=50)}
        )

    [lunch] = [e for d in two_lunches.days for e in d.entries if e.kind == "visit" and e.meal == "lunch"]
    assert lunch.start.hour < 14  # as planned, inside the lunch window
    moved = two_lunches.model_copy(
        update={
            "days": [
                d.model_copy(update={"entries": [late(e) if e.key == lunch.key else e for e in d.entries]})
                for d in two_lunches.days
            ]
        }
    )
    report = check_itinerary(moved, request=moved.request, settings=settings)
    [wrong] = [v for v in report.violations if v.code == "MEAL_OUTSIDE_WINDOW"]
    assert wrong.key == lunch.key and "16:00" in wrong.message
    names = {lunch.key: lunch.name}.__getitem__
    other = violation_sentence(wrong.model_copy(update={"code": "SOMETHING_ELSE"}), names, "en")
    for lang, meal_word in (("en", "meal"), ("zh", "用餐")):
        said = violation_sentence(wrong, names, lang)
        assert lunch.name in said and meal_word in said
    assert violation_sentence(wrong, names, "en") != other
    assert "MEAL_OUTSIDE_WINDOW" not in _codes(two_lunches, settings)
