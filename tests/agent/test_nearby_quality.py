"""Issue 31 (s42 §2): "nearby X with quality Y" reads the quality in any of its words (清真, 穆斯林, halal, Muslim),
counts every place where one eats (a food street as well as a restaurant), and reads how far "near" reaches from
the message (a distance said, a walk said, else the default), and the answer says that reach and the distance's
source. Expected places and distances are read from data/regions/shanghai/places.csv by hand."""

from __future__ import annotations

from datetime import datetime

import pytest

from core.agent.nearby import NEAR_M, WALK_M, read_nearby, read_radius
from core.app import AppServices
from core.app.agent import ask
from core.config import Settings
from core.packs.loader import load_region

SHANGHAI = load_region("shanghai")
FOOD_STREET = "sh-yunnan-road-food-street"  # market, tagged food|halal, ~490 m from People's Square
MOMENT = datetime.fromisoformat("2026-11-27T09:00:00+08:00")


@pytest.mark.parametrize(
    "message",
    [
        "人民广场附近有清真馆子吗",
        "人民广场旁边哪里能吃到穆斯林餐？",
        "Any halal food near People's Square?",
        "Where can a Muslim family eat around People's Square",
    ],
)
def test_a_halal_question_finds_the_halal_food_street_near_the_square(message):
    ask_ = read_nearby(message, SHANGHAI, anchors=["sh-peoples-square"])
    assert ask_ is not None
    ids = [pid for pid, _ in ask_.places]
    assert FOOD_STREET in ids
    metres = dict(ask_.places)[FOOD_STREET]
    assert 450 <= metres <= 530  # 121.4788,31.2305 against the square's point
    for pid in ids:  # every place named is tagged halal: the quality is a filter, never ignored
        place = SHANGHAI.place_by_id(pid)
        assert place is not None and "halal" in place.tags


def test_a_mosque_is_no_place_to_eat_though_it_is_tagged_halal():
    ask_ = read_nearby("人民广场附近有清真餐厅吗", SHANGHAI, anchors=["sh-peoples-square"])
    assert ask_ is not None
    assert "sh-xiaotaoyuan-mosque" not in [pid for pid, _ in ask_.places]


@pytest.mark.parametrize(
    ("message", "metres", "source"),
    [
        ("外滩附近有什么吃的", NEAR_M, "default"),
        ("外滩附近1公里内有清真餐厅吗", 1000.0, "said"),
        ("豫园周边两公里以内的素菜馆", 2000.0, "said"),
        ("人民广场附近500米内的馆子", 500.0, "said"),
        ("halal food within 800 m of the Bund", 800.0, "said"),
        ("vegetarian places within 1.5 km of Yu Garden", 1500.0, "said"),
        ("从静安寺走路能到的本帮菜馆", WALK_M, "walking"),
        ("local food within walking distance of Xintiandi", WALK_M, "walking"),
    ],
)
def test_the_reach_of_near_is_read_from_the_message(message, metres, source):
    assert read_radius(message) == (metres, source)


def test_a_reach_said_keeps_out_what_lies_beyond_it():
    wide = read_nearby("人民广场附近有清真馆子吗", SHANGHAI, anchors=["sh-peoples-square"])
    narrow = read_nearby("人民广场附近300米内有清真馆子吗", SHANGHAI, anchors=["sh-peoples-square"])
    assert wide is not None and narrow is not None
    assert FOOD_STREET in [pid for pid, _ in wide.places]
    assert narrow.places == [] and narrow.radius_m == 300.0


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    root = tmp_path_factory.mktemp("nearby")
    return AppServices(
        Settings(
            region="shanghai",
            provider="offline",
            db_url=f"sqlite:///{root / 'a.db'}",
            agent_event_log=root / "events.jsonl",
            cache_dir=None,
        )  # fmt: skip
    )


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("人民广场附近有清真馆子吗", ["云南南路美食街", "488 米", "直线", "默认的 3 公里"]),
        ("Any halal food near People's Square?", ["Yunnan Road Food Street", "488 m", "straight line", "3 km"]),
        ("人民广场附近300米内有清真馆子吗", ["0.3 公里", "您说的", "不会编造"]),
    ],
)
def test_the_answer_names_the_place_its_distance_its_source_and_the_reach(services, message, said):
    context = services.context(user="nearby-quality", clock=lambda: MOMENT)
    response = ask(context, {"message": message, "user_id": "nearby-quality"})
    assert response.result.status == "OK"
    for text in said:
        assert text in response.result.answer_text
    for ev in response.result.payload.evidence:
        if ev.get("type") == "kb_fact":
            assert ev["distance_source"].startswith("straight line") and ev["radius_source"] == "default"


@pytest.mark.parametrize(
    ("message", "anchor", "cuisine"),
    [
        ("Any noodles near Jing'an Temple?", "sh-jingan-temple", "noodles"),
        ("Any dumplings near the Bund?", "sh-bund", "dumplings"),
        ("豫园附近有小笼包吗", "sh-yuyuan-garden", "dumplings"),
    ],
)
def test_a_dish_asked_near_a_place_is_a_nearby_question_for_places_serving_it(message, anchor, cuisine):
    ask_ = read_nearby(message, SHANGHAI, anchors=[anchor])
    assert ask_ is not None and ask_.kind == "restaurant" and ask_.places
    for pid, _ in ask_.places:
        place = SHANGHAI.place_by_id(pid)
        assert place is not None and cuisine in place.cuisine
