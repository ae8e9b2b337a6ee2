"""Standing rules read from what people say, in Chinese and English (a set written by hand, each with the rules it
states), and requests to forget them; statements that are not rules (a wish for one meal, a negation) state none."""

from __future__ import annotations

import pytest

from core.memory.rules import read_message, rules_in
from core.models.rules import Rule

#: (message, the rules it states as (code, facts))
PHRASINGS: list[tuple[str, list[tuple[str, dict[str, int]]]]] = [
    ("我不吃辣", [("no_spicy", {})]),
    ("我们一家都不能吃辣", [("no_spicy", {})]),
    ("我吃不了辣的", [("no_spicy", {})]),
    ("我怕辣，菜别太辣", [("no_spicy", {})]),
    ("辣的都不吃", [("no_spicy", {})]),
    ("I don't eat spicy food", [("no_spicy", {})]),
    ("I can't handle spicy dishes", [("no_spicy", {})]),
    ("no spicy food please, my stomach is weak", [("no_spicy", {})]),
    ("We avoid chilli", [("no_spicy", {})]),
    ("我不想排队", [("no_queues", {})]),
    ("最讨厌排队了", [("no_queues", {})]),
    ("排长队我受不了", [("no_queues", {})]),
    ("I hate queues", [("no_queues", {})]),
    ("my husband can't stand long lines", [("no_queues", {})]),
    ("we don't want to wait in line anywhere", [("no_queues", {})]),
    ("我吃素", [("vegetarian", {})]),
    ("我们全家吃素", [("vegetarian", {})]),
    ("I'm vegetarian", [("vegetarian", {})]),
    ("we don't eat meat", [("vegetarian", {})]),
    ("I am vegan", [("vegan", {})]),
    ("我是穆斯林，只吃清真", [("halal", {})]),
    ("we only eat halal", [("halal", {})]),
    ("我不喝酒", [("no_alcohol", {})]),
    ("I don't drink alcohol", [("no_alcohol", {})]),
    ("我妈妈坐轮椅", [("wheelchair", {})]),
    ("travelling with a wheelchair user", [("wheelchair", {})]),
    ("我们推着婴儿车", [("stroller", {})]),
    ("we have a pushchair", [("stroller", {})]),
    ("带着3岁的孩子", [("kids_under_6", {"youngest_age": 3})]),
    ("孩子才两岁", [("kids_under_6", {"youngest_age": 2})]),
    ("our kids are under 6", [("kids_under_6", {})]),
    ("with a 4-year-old", [("kids_under_6", {"youngest_age": 4})]),
    ("travelling with a toddler", [("kids_under_6", {})]),
    ("宝宝一岁半，推婴儿车，我不吃辣", [("no_spicy", {}), ("stroller", {}), ("kids_under_6", {"youngest_age": 1})]),
    ("I'm vegetarian and I hate queues", [("no_queues", {}), ("vegetarian", {})]),
    # not rules: a negation that means the opposite, a wish for one meal, an older child, a question
    ("我不怕辣", []),
    ("I love spicy food", []),
    ("找一家素食餐厅", []),
    ("孩子10岁了", []),
    ("with a 9-year-old", []),
    ("外滩要排队吗", []),
    ("帮我订老吉士，周六18:00，4位", []),
]


@pytest.mark.parametrize(("message", "expected"), PHRASINGS, ids=[m for m, _ in PHRASINGS])
def test_rules_said(message, expected):
    assert rules_in(message) == [Rule(code=c, facts=f) for c, f in expected]
    said = read_message(message)
    assert not said.forget_asked and said.remember == rules_in(message)


def test_the_set_is_large_enough():
    assert len(PHRASINGS) >= 30 and sum(1 for _, rules in PHRASINGS if rules) >= 30


@pytest.mark.parametrize(
    ("message", "codes", "everything"),
    [
        ("忘掉我不吃辣", ["no_spicy"], False),
        ("请忘记我不想排队", ["no_queues"], False),
        ("forget that I don't eat spicy food", ["no_spicy"], False),
        ("Please forget I'm vegetarian", ["vegetarian"], False),
        ("forget everything", [], True),
        ("忘掉所有关于我的事", [], True),
        ("删除我的记忆", [], True),
    ],
)
def test_forget_requests(message, codes, everything):
    said = read_message(message)
    assert said.forget_asked and said.forget == codes and said.forget_all is everything
    assert said.remember == []


@pytest.mark.parametrize("message", ["删除清水寺", "remove the Bund from day 2", "删掉第二天的豫园"])
def test_deleting_a_stop_is_no_forget_request(message):
    assert read_message(message) == read_message(message).model_copy(update={"forget_asked": False})
    assert not read_message(message).forget_asked


@pytest.mark.parametrize("message", ["别忘了我不吃辣", "don't forget I don't eat spicy food"])
def test_dont_forget_keeps_the_rule(message):
    said = read_message(message)
    assert not said.forget_asked and said.remember == [Rule(code="no_spicy")]
