"""Issue 31, the readers behind the misread requests, each on inputs of its own in both languages: a booking said by
its venue, time and party; a question for places near a place; a count of days from today; a trip's length said
alone; an interest no tag covers (animals); the plan kept as the draft only when it should be."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.agent.features import extract_features
from core.agent.nearby import asks_nearby, home_cuisine, read_nearby
from core.agent.router import route_message
from core.agent.trip_request import suggest_places
from core.app import AppServices
from core.app.agent import ask
from core.config import Settings, get_settings
from core.geo.coords import haversine_m
from core.packs.loader import load_region
from core.stores.trips import open_store
from tests.support.db import db_at

SHANGHAI = load_region("shanghai")
ANIMALS = {"sh-shanghai-zoo", "sh-wild-animal-park", "sh-ocean-aquarium", "sh-haichang-ocean-park",
           "sh-changfeng-ocean-world"}  # fmt: skip
MOMENT = datetime(2026, 12, 3, 1, 0, tzinfo=UTC)  # Thursday 09:00 in Shanghai


# ---- a booking said by what it books -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [
        "周五晚上7点德大西餐社，3位，帮忙订一下",
        "下周二中午订个位子 王家沙 两个人",
        "后天18:30订新雅粤菜馆",
        "a table for four at Fu 1088 on Sunday at 6pm",
        "Saturday 12:30, Lao Zheng Xing, party of 5 - could you reserve?",
        "tomorrow 7pm xinghualou for 2, booking please",
    ],
)
def test_a_booking_said_by_two_of_its_day_time_and_party_is_a_booking(message):
    decision = route_message(message, settings=get_settings())
    assert (decision.intent, decision.output.route) == ("book", "SYSTEM2_REASONING")


@pytest.mark.parametrize(
    "message",
    [
        "绿波廊周六还能订到吗",  # availability: a question
        "我订阅了你们的推送",  # 订阅 is no booking
        "Is it possible to book Lost Heaven on Friday at 7pm?",
        "what does booking a table at Jean Georges cost?",  # a verb, no day, time or party pair
    ],
)
def test_a_question_or_a_word_that_only_contains_the_verb_is_no_booking(message):
    assert route_message(message, settings=get_settings()).intent != "book"


# ---- places near a place -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "anchor", "fits"),
    [
        ("新天地附近哪里能吃素？有素菜馆吗", "sh-xintiandi", lambda p: "vegetarian_friendly" in p.tags
         or "vegan_options" in p.tags or "vegetarian" in p.cuisine),
        ("vegan food around the Jade Buddha Temple?", "sh-jade-buddha-temple",
         lambda p: "vegetarian_friendly" in p.tags or "vegan_options" in p.tags or "vegetarian" in p.cuisine),
        ("田子坊周边有没有地道的老字号饭馆", "sh-tianzifang",
         lambda p: "local_favourite" in p.tags or "shanghainese" in p.cuisine),
        ("authentic local eats near Jing'an Temple", "sh-jingan-temple",
         lambda p: "local_favourite" in p.tags or "shanghainese" in p.cuisine),
        ("coffee near Wukang Mansion", "sh-wukang-mansion", lambda p: p.category == "cafe"),
    ],
)  # fmt: skip
def test_a_nearby_question_is_answered_with_places_of_its_kind_nearest_first(message, anchor, fits):
    assert asks_nearby(message) and extract_features(message).fact_query
    assert route_message(message, settings=get_settings()).intent == "rag"
    ask_ = read_nearby(message, SHANGHAI, anchors=[anchor])
    assert ask_ is not None and ask_.anchor == anchor and ask_.places
    places = [SHANGHAI.place_by_id(pid) for pid, _ in ask_.places]
    assert all(p is not None and p.id != anchor and fits(p) for p in places)
    a = SHANGHAI.place_by_id(anchor)
    metres = [haversine_m(a.lon, a.lat, p.lon, p.lat) for p in places]
    assert metres == sorted(metres) and [round(m) for m in metres] == [d for _, d in ask_.places]
    assert all(m <= 3000 for m in metres)


def test_local_means_the_packs_own_cuisine():
    assert home_cuisine(SHANGHAI) == "shanghainese"


@pytest.mark.parametrize(
    "message", ["住在外滩附近，安排两天行程，吃饭要本地菜", "Plan 2 days near the Bund with local food"]
)
def test_a_plan_that_says_near_and_food_is_still_a_plan(message):
    assert route_message(message, settings=get_settings()).intent == "plan"


# ---- days from today, a trip's length alone -------------------------------------------------------------------------
@pytest.mark.parametrize("message", ["8天后杭州会下雨吗", "weather in Shanghai in 9 days", "两周以后的天气"])
def test_a_count_of_days_from_today_is_a_date_not_a_trip(message):
    f = extract_features(message)
    assert f.days is None and f.has_date
    assert route_message(message, settings=get_settings()).intent == "weather"


@pytest.mark.parametrize(("message", "days"), [("a full day of sightseeing in Helsinki", 1), ("Kyoto, 3 days", 3)])
def test_a_trips_length_alone_asks_for_a_plan(message, days):
    f = extract_features(message)
    assert f.days == days and f.planning >= 1


# ---- an interest no tag covers -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["儿子特别爱看海洋动物和企鹅", "our daughter loves penguins and sharks"])
def test_animal_lovers_get_the_animal_places_first(text):
    first = suggest_places(SHANGHAI, text=text, count=3, exclude=set(), when=MOMENT)
    assert first and first[0] in ANIMALS


# ---- the plan kept as the draft -------------------------------------------------------------------------------------
@pytest.fixture
def services(tmp_path):
    settings = Settings(region="shanghai", provider="offline", db_url=f"sqlite:///{tmp_path / 'a.db'}",
                        agent_event_log=tmp_path / "events.jsonl", cache_dir=None)  # fmt: skip
    return AppServices(settings)


def _ask(services, message, **options):
    request = {"message": message, "user_id": "dora", "options": options}
    return ask(services.context(user="dora", clock=lambda: MOMENT), request)


def test_a_plan_is_the_draft_the_next_edit_changes_and_a_preview_keeps_none(services):
    store = open_store(db_at(services.settings.db_url))
    preview = _ask(services, "一天上海，去武康大楼和田子坊", dry_run=True)
    assert preview.result.status == "OK" and store.latest_trip("dora") is None
    planned = _ask(services, "Plan a day in Shanghai: Wukang Mansion and Tianzifang")
    kept = store.latest_trip("dora")
    visits = {s["key"] for s in planned.result.payload.timeline if s["kind"] == "visit"}
    assert kept is not None and {n.place_id for n in kept.nodes} == visits and "sh-wukang-mansion" in visits
    edited = _ask(services, "delete Wukang Mansion")
    assert edited.result.status == "OK"
    assert "sh-wukang-mansion" not in {n.place_id for n in store.latest_trip("dora").nodes}
    assert len(store.list_trips("dora")) == 1  # the edit changed the kept plan, it made no other trip
