"""A food wish becomes a meal the plan has at a meal time (issue 31 leftover): the agent's meal stop (or the
restaurant the message names to eat at) is a lunch, or a dinner when the wish's own clause says evening or dinner;
the plan begins it in that meal's window (a lunch one is the day's only lunch), and the wish is met only so.

The messages are the evaluation set tests/agent/data/meal_times.json, on the eateries of test_agent_wish_cover."""

from __future__ import annotations

import json
from datetime import time
from pathlib import Path

import pytest

from core.agent.trip_wishes import account_trip_wishes
from core.itinerary.pipeline import plan_itinerary
from core.models.agent_wishes import TripWish
from core.models.itinerary import TripRequest
from core.phrases.meal_time import meal_named, meal_said
from core.words.agent_wishes import wish_lines
from tests.agent.test_agent_wish_cover import eatery_runner

CASES = json.loads((Path(__file__).parent / "data" / "meal_times.json").read_text(encoding="utf-8"))["cases"]
#: the earliest and latest start of a 60-minute meal: the trip's lunch window, the settings' dinner window
STARTS = {"lunch": (time(11, 30), time(12, 30)), "dinner": (time(17, 30), time(19, 0))}


@pytest.fixture
def env(tmp_path, monkeypatch):
    return eatery_runner(tmp_path, monkeypatch)  # a new user memory each: a diet one case says is no rule for the next


@pytest.mark.parametrize("case", CASES, ids=[c["message"][:40] for c in CASES])
def test_a_food_wish_is_a_meal_planned_at_its_meal_time(env, case):
    r = env(case["message"])
    kind, code = case["wish"]
    outcome = next(o for o in r.result.payload.wishes if (o.wish.kind, o.wish.code) == (kind, code))
    assert (r.result.status, outcome.status, outcome.meal) == ("OK", "met", case["meal"])
    visits = {(e["day"], e["key"]): e for e in r.result.payload.timeline if e["kind"] == "visit"}
    meals = [(day, e) for (day, key), e in visits.items() if key in outcome.place_ids and e["meal"]]
    assert meals, "the place that meets the wish is planned as a meal"
    earliest, latest = STARTS[case["meal"]]
    for day, e in meals:
        assert e["meal"] == case["meal"] and earliest <= time.fromisoformat(e["start"]) <= latest
        lunches = [x for x in r.result.payload.timeline if x["day"] == day and x["kind"] == "lunch"]
        assert len(lunches) == (0 if case["meal"] == "lunch" else 1)  # a lunch meal is that day's lunch
    meal_word = {"lunch": ("午餐", "lunch"), "dinner": ("晚餐", "dinner")}[case["meal"]]
    assert any(w in r.result.answer_text for w in meal_word)


@pytest.mark.parametrize(
    ("text", "phrase", "said", "named"),
    [
        ("杭州两天，晚上想吃顿火锅，白天看西湖", "火锅", "dinner", "dinner"),
        ("白天看西湖，想吃顿火锅", "火锅", "lunch", None),
        ("中午在知味观吃小笼，夜里再去吃烧烤", "烧烤", "dinner", "dinner"),
        ("中午在知味观吃小笼，夜里再去吃烧烤", "知味观", "lunch", "lunch"),
        ("noodles at midday and some hot pot tonight", "hot pot", "dinner", "dinner"),
        ("noodles at midday and some hot pot tonight", "noodles", "lunch", "lunch"),
        ("We'd like ramen, then a late-night snack", "ramen", "lunch", None),
    ],
)
def test_the_meal_is_read_from_the_wishs_own_clause(text, phrase, said, named):
    assert meal_said(text, phrase) == said and meal_named(text, phrase) == named


def _veg_visit(env, *, meal, start, lunch_break=True):
    """The vegetarian house booked at ``start`` (a visit that is, or is not, the lunch), planned on its own."""
    place = {"place_id": "m-veg", "fixed_start": start, "visit_minutes": 60, "meal": meal}
    payload = {
        "region": "agentcity",
        "hotel": {"name": "hotel", "lon": 121.47, "lat": 31.23},
        "days": [{"date": "2025-06-21"}],
        "places": [place],
        "lunch": {"enabled": lunch_break},
    }
    request = TripRequest.model_validate(payload)
    return plan_itinerary(request, provider=env.provider, settings=env.settings)


def test_a_restaurant_planned_outside_a_meal_time_does_not_meet_the_food_wish(env):
    pack = env.provider.region
    veg = [TripWish(kind="diet", code="vegetarian", phrase="素食")]
    afternoon = _veg_visit(env, meal=None, start="15:00")
    [outcome] = account_trip_wishes(veg, afternoon, pack, pacing="normal")
    assert (outcome.status, outcome.reason, outcome.place_ids, outcome.meal) == (
        "not_met",
        "not_at_meal",
        ["m-veg"],
        None,
    )
    zh, en = (wish_lines([outcome], afternoon, pack, lang, reasons_above=True)[1] for lang in ("zh", "en"))
    assert "不在用餐时间" in zh and "素心斋" in zh and "not at a meal time" in en
    noon = _veg_visit(env, meal="lunch", start="12:00")
    [outcome] = account_trip_wishes(veg, noon, pack, pacing="normal")
    assert (outcome.status, outcome.reason, outcome.meal) == ("met", "served", "lunch")


def test_a_visit_at_noon_is_the_lunch_only_on_a_day_without_a_lunch_break_of_its_own(env):
    pack = env.provider.region
    veg = [TripWish(kind="diet", code="vegetarian", phrase="素食")]
    with_break = _veg_visit(env, meal=None, start="11:30")
    assert [e.kind for e in with_break.days[0].entries].count("lunch") == 1  # the day's lunch is its break
    [outcome] = account_trip_wishes(veg, with_break, pack, pacing="normal")
    assert (outcome.status, outcome.reason, outcome.meal) == ("not_met", "not_at_meal", None)
    without = _veg_visit(env, meal=None, start="11:30", lunch_break=False)
    [outcome] = account_trip_wishes(veg, without, pack, pacing="normal")
    assert (outcome.status, outcome.reason, outcome.meal) == ("met", "served", "lunch")


def test_a_saved_plan_keeps_its_meals_and_planning_it_again_visits_them_as_meals(env):
    from core.stores.trips import open_store
    from tests.support.db import db_at

    trip_id = env("加上博物馆").result.payload.trip["trip_id"]
    saved = env("上海一天，晚餐安排一顿粤菜，并保存到我的行程", trip_id=trip_id)
    dry_run = saved.result.payload.dry_run
    assert dry_run is not None, saved.result.answer_text
    ok = env("确认", trip_id=trip_id, options={"confirm_dry_run_id": dry_run["dry_run_id"]})
    assert ok.result.status == "OK", ok.result.answer_text
    nodes = open_store(db_at(env.settings.db_url)).get_trip(trip_id, user_id="alice").nodes
    meals = {n.place_id: n.meal for n in nodes if n.meal}
    assert list(meals.values()) == ["dinner"], [(n.name, n.meal) for n in nodes]
    again = env("规划1天上海行程", trip_id=trip_id)  # no food said now: the meal is the saved plan's
    planned = {e["key"]: e for e in again.result.payload.timeline if e["kind"] == "visit"}
    [(place_id, _)] = meals.items()
    assert planned[place_id]["meal"] == "dinner", again.result.answer_text
    earliest, latest = STARTS["dinner"]
    assert earliest <= time.fromisoformat(planned[place_id]["start"]) <= latest
