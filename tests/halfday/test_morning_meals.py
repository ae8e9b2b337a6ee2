"""A morning meal asked for (issue 31): 早茶 and dim sum are had as breakfast in the breakfast hours, walked into when
the restaurant books tables only later; a wish that only places over the budget per person serve is said as not met
for the budget, with the lowest price the data gives and the budget asked; a step's reason says its meal, and a wish
once (a café is "coffee", not "coffee and coffee"), and what a street only offers on the side as such."""

from __future__ import annotations

import pytest

from core.halfday.wishes import eats
from core.models.halfday.plans import HalfDayRequest
from core.packs.loader import load_region
from core.words.halfday import result_words

from .conftest import NOW

PACK = {p.id: p for p in load_region("shanghai").places}
#: the lowest price per person of the pack's eateries that list dim sum (read from the pack, not from the planner)
DIM_SUM_FROM = min(p.price_per_person for p in PACK.values() if "dim_sum" in p.cuisine and eats(p))


def plan(planner, text: str, lang: str):
    result, _ = planner.plan(HalfDayRequest(goal=text, now=NOW, lang=lang))
    assert result is not None and result.plans, text
    return result


def _minutes(t) -> int:
    return t.hour * 60 + t.minute


@pytest.mark.parametrize(
    ("text", "lang", "budget", "words"),
    [
        ("明早想喝个早茶，人均80以内", "zh", 80, "超出您说的人均¥80"),
        ("tomorrow morning dim sum under 80 yuan each", "en", 80, "over the ¥80 you asked"),
        ("周六上午去喝早茶，每人不超过60块", "zh", 60, "超出您说的人均¥60"),
    ],
)
def test_a_food_wish_only_dearer_places_serve_is_not_met_for_the_budget(planner, text, lang, budget, words):
    assert DIM_SUM_FROM > budget  # the pack's dim sum is dearer than asked: no plan can meet both
    result = plan(planner, text, lang)
    said = {w.plan_id: w.wishes for w in result_words(result, lang).plans}
    for p in result.plans:
        [dim_sum] = [o for o in p.wishes if o.wish.code == "dim_sum"]
        assert (dim_sum.status, dim_sum.reason) == ("not_met", "over_budget")
        assert dim_sum.facts == {"cheapest": DIM_SUM_FROM, "budget": budget}
        assert any(f"¥{DIM_SUM_FROM:g}" in s and words in s for s in said[p.plan_id])
        assert all((s.price_per_person or 0) <= budget for s in p.steps)  # and the plan keeps the budget


@pytest.mark.parametrize(
    ("text", "lang", "breakfast"),
    [
        ("明早想喝早茶，人均150以内", "zh", "早餐"),
        ("周日早上八点到十一点去吃点心，然后去外滩走走", "zh", "早餐"),
        ("Sunday 8 to 11am: yum cha first, then a museum", "en", "breakfast"),
    ],
)
def test_a_morning_meal_is_breakfast_in_the_breakfast_hours(planner, text, lang, breakfast):
    result = plan(planner, text, lang)
    assert [s.meal for s in result.slots.slots if s.kind == "meal"] == ["breakfast"]
    words = {w.plan_id: w for w in result_words(result, lang).plans}
    for p in result.plans:
        [dim_sum] = [o for o in p.wishes if o.wish.code == "dim_sum"]
        assert dim_sum.status == "met"
        [meal] = [s for s in p.steps if s.kind == "meal"]
        assert "dim_sum" in PACK[meal.place_id].cuisine and meal.place_id in dim_sum.place_ids
        assert 7 * 60 <= _minutes(meal.start) <= 10 * 60 + 30  # had in the breakfast hours, not at lunch
        assert meal.reason is not None and meal.reason.facts.meal == "breakfast"
        reason = next(s.reason for s in words[p.plan_id].steps if s.place_id == meal.place_id)
        assert breakfast in reason
        # tables are booked from 11:00 (reservations.json): a meal before that is walked into, so not bookable
        assert meal.bookable is (_minutes(meal.start) >= 11 * 60)


@pytest.mark.parametrize(
    "text",
    [
        "tomorrow 7am to 10am, breakfast and a walk",
        "明天早上7点到10点吃早饭再散步",
        "Saturday morning: breakfast then a museum",
    ],
)
def test_a_breakfast_said_as_such_is_a_meal_wish_had_in_the_breakfast_hours(planner, text):
    lang = "zh" if "早" in text else "en"
    result = plan(planner, text, lang)
    assert [s.meal for s in result.slots.slots if s.kind == "meal"] == ["breakfast"]
    for p in result.plans:
        assert all(o.wish.kind != "unread" for o in p.wishes)  # 早饭/breakfast is read, not "not understood"
        [meal] = [s for s in p.steps if s.kind == "meal"]
        assert 7 * 60 <= _minutes(meal.start) <= 10 * 60 + 30


@pytest.mark.parametrize(
    ("text", "lang", "coffee", "side"),
    [
        ("明天上午想去喝杯咖啡再逛逛", "zh", "咖啡", "附带咖啡"),
        ("tomorrow morning, a coffee then a walk", "en", "coffee", "coffee on the side"),
    ],
)
def test_a_drink_stop_says_its_wish_once_and_a_side_offer_as_such(planner, text, lang, coffee, side):
    result = plan(planner, text, lang)
    words = {w.plan_id: w for w in result_words(result, lang).plans}
    cafes = sides = 0
    for p in result.plans:
        for step in p.steps:
            reason = next(s.reason for s in words[p.plan_id].steps if s.place_id == step.place_id)
            assert reason.count(coffee) <= 1, reason  # never "coffee and coffee"
            place = PACK[step.place_id]
            if place.category == "cafe" and "coffee" in place.cuisine:
                cafes += 1
                assert coffee in reason and side not in reason
            elif "coffee" in place.cuisine:  # a street with cafés: coffee on the side, not the place's own
                sides += 1
                assert side in reason
    assert cafes  # the goal's plans have a café to check
