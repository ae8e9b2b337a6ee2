"""Plans that try to meet the wishes (issue 31), not only account for them: a cuisine, drink or diet the region's data
serves gets a stop that really serves it (a café is no meal, a department store no restaurant), a cuisine the data
lacks stays "not met, nothing in the data", and every interest asked gets a place before more of the same.

The pack is the agent test pack (tests/support/agent_packs.py: two temples, shops, museums, one restaurant with no
cuisine) with eateries of this file's own: a vegetarian house, another far out, a dim sum restaurant, and a café and a department store
that both list dim sum and sit nearer the sights, to be passed over."""

from __future__ import annotations

import csv
import json

import pytest

from core.agent.wish_cover import serves
from core.models.agent_wishes import TripWish
from tests.support import agent_packs
from tests.support.region_packs import COLUMNS

EATERIES = [  # COLUMNS, then cuisine
    ("m-veg", "素心斋", "Sushin Vegetarian House", "", "静安区愚园路1号", "静安区", 121.4460, 31.2240, "restaurant",
     "food|vegetarian_friendly|vegan_options|indoor", "Mo-Su 10:00-21:00", 90, 4.4, 60, "false", "vegetarian"),
    ("m-veg-far", "远郊素菜馆", "Far Vegetarian Kitchen", "", "浦东新区川沙路1号", "浦东新区", 121.7000, 31.1900,
     "restaurant", "food|vegetarian_friendly", "Mo-Su 10:00-21:00", 60, 4.0, 60, "false", "vegetarian"),
    ("m-dimsum", "粤香楼", "Yuexiang Dim Sum Hall", "", "黄浦区福州路9号", "黄浦区", 121.4820, 31.2350, "restaurant",
     "food|indoor", "Mo-Su 10:00-21:00", 120, 4.3, 60, "false", "cantonese|dim_sum"),
    ("m-dimsum-cafe", "点心咖啡", "Dim Sum Coffee Corner", "", "黄浦区人民大道5号", "黄浦区", 121.4750, 31.2290,
     "cafe", "food|indoor", "Mo-Su 08:00-21:00", 40, 4.9, 30, "false", "coffee|dim_sum"),
    ("m-store", "美食百货", "Gourmet Department Store", "", "黄浦区南京东路3号", "黄浦区", 121.4790, 31.2330,
     "shopping", "food|shopping|indoor|vegetarian_friendly", "Mo-Su 10:00-22:00", 0, 4.9, 60, "false", "dim_sum"),
]  # fmt: skip


def eatery_runner(tmp_path, monkeypatch):
    """The agent runner on the agent test pack with this file's eateries (tests/agent/test_agent_meal_times.py too)."""

    def write(root, name="agentcity"):
        folder = root / "regions" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "region.json").write_text(json.dumps({**agent_packs.REGION, "name": name}), encoding="utf-8")
        with (folder / "places.csv").open("w", encoding="utf-8", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(["cuisine", *COLUMNS])  # first: the pack's rows may stop short of the last columns
            out.writerows([("", *row) for row in agent_packs.PLACES] + [(row[-1], *row[:-1]) for row in EATERIES])
        return root

    monkeypatch.setattr(agent_packs, "write_agent_pack", write)
    return agent_packs.agent_runner(tmp_path)


@pytest.fixture
def env(tmp_path, monkeypatch):
    return eatery_runner(tmp_path, monkeypatch)


def _wish(r, kind, code):
    return next(w for w in r.result.payload.wishes if (w.wish.kind, w.wish.code) == (kind, code))


def _planned(r):
    return {e["key"] for e in r.result.payload.timeline if e["kind"] == "visit"}


def _serving(env, ids, *, cuisine=None, tag=None):
    """The planned places that, by the pack's own facts, are restaurants serving the cuisine or carrying the tag."""
    places = [env.provider.region.place_by_id(i) for i in ids]
    return [
        p.id
        for p in places
        if p is not None
        and p.category == "restaurant"
        and (cuisine is None or cuisine in p.cuisine)
        and (tag is None or tag in p.tags)
    ]


def test_a_vegetarian_wish_gets_a_vegetarian_meal_in_chinese(env):
    r = env("规划上海一天的行程，我们全家吃素，想去外滩")
    diet = _wish(r, "diet", "vegetarian")
    assert (r.result.status, diet.status, diet.reason) == ("OK", "met", "served")
    assert diet.place_ids and _serving(env, diet.place_ids, tag="vegetarian_friendly") == diet.place_ids
    assert set(diet.place_ids) <= _planned(r)
    assert diet.meal == "lunch" and "· 素食：已满足，午餐在素心斋" in r.result.answer_text


def test_a_dim_sum_wish_gets_a_restaurant_not_the_cafe_or_the_store_in_english(env):
    r = env("One day in Shanghai, we'd like some dim sum and to see the Bund")
    dim_sum = _wish(r, "cuisine", "dim_sum")
    assert (dim_sum.status, dim_sum.reason) == ("met", "served")
    assert dim_sum.place_ids and _serving(env, dim_sum.place_ids, cuisine="dim_sum") == dim_sum.place_ids
    # the café and the department store list dim sum, are rated higher and sit nearer: neither is a meal (the store
    # may still be suggested as a sight)
    assert "m-dimsum-cafe" not in _planned(r) and "m-store" not in dim_sum.place_ids
    assert dim_sum.meal == "lunch" and "dim sum: met, lunch at Yuexiang Dim Sum Hall" in r.result.answer_text


def test_a_cuisine_the_data_lacks_stays_not_met_and_adds_no_stop(env):
    r = env("上海玩一天，想吃泰国菜，看看博物馆")
    thai = _wish(r, "cuisine", "thai")
    assert (thai.status, thai.reason, thai.place_ids) == ("not_met", "none_in_data", [])
    assert not {p for p in _planned(r) if env.provider.region.place_by_id(p).category == "restaurant"}
    assert "泰国菜：未满足，本地区资料里没有这样的地方" in r.result.answer_text


def test_a_cuisine_the_data_lacks_in_english_beside_one_it_has(env):
    r = env("A day in Shanghai: some Korean food for lunch, and we are vegetarian")
    korean, veg = _wish(r, "cuisine", "korean"), _wish(r, "diet", "vegetarian")
    assert (korean.status, korean.reason) == ("not_met", "none_in_data")
    assert veg.status == "met" and _serving(env, veg.place_ids, tag="vegetarian_friendly") == veg.place_ids
    assert "korean" in r.result.answer_text.lower()


def test_two_interests_each_get_a_place_in_chinese(env):
    r = env("上海一日游，想看博物馆和寺庙")
    museum, temple = _wish(r, "interest", "museum"), _wish(r, "interest", "temple")
    region = env.provider.region
    assert museum.status == "met" and all(region.place_by_id(p).category == "museum" for p in museum.place_ids)
    assert temple.status == "met" and temple.place_ids
    assert all(region.place_by_id(p).category == "temple" for p in temple.place_ids)
    assert set(museum.place_ids) | set(temple.place_ids) <= _planned(r)


def test_three_interests_each_get_a_place_in_english(env):
    r = env("Plan one day in Shanghai: museums, a temple and some shopping")
    region = env.provider.region
    kinds = {"museum": "museum", "temple": "temple", "shopping": "shopping"}
    for code, category in kinds.items():
        wish = _wish(r, "interest", code)
        assert wish.status == "met", code
        assert wish.place_ids and set(wish.place_ids) <= _planned(r)
        assert any(category in (region.place_by_id(p).category, *region.place_by_id(p).tags) for p in wish.place_ids)
    assert "shopping: met (" in r.result.answer_text and "temples: met (" in r.result.answer_text


def test_a_cafe_serves_its_own_fare_and_a_store_serves_no_meal(env):
    region = env.provider.region
    cafe, store, hall = (region.place_by_id(i) for i in ("m-dimsum-cafe", "m-store", "m-dimsum"))
    dim_sum, coffee = TripWish(kind="cuisine", code="dim_sum"), TripWish(kind="drink", code="coffee")
    veg = TripWish(kind="diet", code="vegetarian")
    assert (serves(cafe, dim_sum), serves(cafe, coffee), serves(hall, dim_sum)) == (False, True, True)
    assert (serves(store, dim_sum), serves(store, veg)) == (False, False)


def test_a_named_restaurant_that_serves_the_diet_takes_no_second_meal_stop(env):
    r = env("上海一天，中午去素心斋，我们吃素，再看看外滩")
    diet = _wish(r, "diet", "vegetarian")
    assert (diet.status, diet.place_ids) == ("met", ["m-veg"])
    region = env.provider.region
    assert [p for p in _planned(r) if region.place_by_id(p).category == "restaurant"] == ["m-veg"]
