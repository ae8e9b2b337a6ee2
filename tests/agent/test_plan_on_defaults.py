"""Issue 31 (s42 §1): a request that says what to do is planned on stated defaults, not answered with questions. The
date (the next day), the party (one, or as said) and the budget (no limit) never block a plan: the router does not
ask for them, and the plan says each default it took, in the reply's language, with its source in the evidence.
Only a message that says nothing to plan around is asked what to do."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from core.agent.assumed import read_assumed
from core.agent.router import route_message
from core.app import AppServices
from core.app.agent import ask
from core.config import Settings, get_settings

MOMENT = datetime.fromisoformat("2026-11-27T09:00:00+08:00")  # a Friday
TOMORROW = date(2026, 11, 28)

PLANS = [
    "A family day in Shanghai, our 7-year-old loves animals and fish",
    "明天在上海吃一顿纯素午餐，再逛逛外滩",
    "后天想在上海逛逛老街，顺便吃点本帮菜",
    "Saturday in Shanghai: see the Bund and eat some dumplings",
    "a relaxed day in Shanghai with my parents, museums and a garden",
    "我们四个人去上海玩一天，想看看外滩和豫园",
]


@pytest.mark.parametrize("message", PLANS)
def test_a_request_that_says_what_to_do_is_routed_as_a_plan_without_questions(message):
    d = route_message(message, settings=get_settings())
    assert d.intent == "plan" and d.output.route == "SYSTEM2_REASONING"
    assert d.missing == [] and d.question is None
    assert d.question_kind == "execute"


@pytest.mark.parametrize(("message", "lang"), [("你好", "zh"), ("帮我规划一下行程", "zh"), ("plan my trip", "en")])
def test_only_a_message_with_nothing_to_plan_around_is_asked_and_only_what_to_do(message, lang):
    d = route_message(message, settings=get_settings())
    assert d.intent == "clarify" and d.missing == ["goal"]
    for word in ("日期", "人数", "预算", "date", "budget", "how many people"):
        assert word not in (d.question or "")


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    root = tmp_path_factory.mktemp("defaults")
    return AppServices(
        Settings(
            region="shanghai",
            provider="offline",
            db_url=f"sqlite:///{root / 'a.db'}",
            agent_event_log=root / "events.jsonl",
            cache_dir=None,
        )
    )


def _assumed(response):
    found = [e for e in response.result.payload.evidence if e.get("type") == "assumptions"]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize(
    ("message", "sources", "said", "not_said"),
    [
        (
            "A family day in Shanghai, our 7-year-old loves animals and fish",
            {"date_source": "default", "party_source": "message", "budget_source": "default"},
            ["Sat 28 Nov 2026 (the next day)", "no budget limit"],
            ["a party of"],
        ),
        (
            "明天在上海吃一顿纯素午餐，再逛逛外滩",
            {"date_source": "message", "party_source": "default", "budget_source": "default"},
            ["人数按 1 人", "不设预算上限"],
            ["日期按下一天"],
        ),
        (
            "周六三个人去上海逛逛外滩和豫园，预算每人300元",
            {"date_source": "message", "party_source": "message", "budget_source": "message"},
            [],
            ["您没说的按默认安排"],
        ),
        (
            "Plan a day in Shanghai around the Bund and Yu Garden",
            {"date_source": "default", "party_source": "default", "budget_source": "default"},
            ["Sat 28 Nov 2026 (the next day)", "a party of 1", "no budget limit"],
            [],
        ),
    ],
)
def test_the_plan_is_made_and_says_each_default_it_took(services, message, sources, said, not_said):
    context = services.context(user="defaults", clock=lambda: MOMENT)
    response = ask(context, {"message": message, "user_id": "defaults"})
    assert response.result.status == "OK"
    assert not [s for s in response.result.next_steps if s.code == "missing"]
    assert [s for s in response.result.payload.timeline if s.get("kind") == "visit"]
    assumed = _assumed(response)
    assert {k: assumed[k] for k in sources} == sources
    assert response.result.payload.timeline[0]["date"] == assumed["date"]
    for text in said:
        assert text in response.result.answer_text
    for text in not_said:
        assert text not in response.result.answer_text


@pytest.mark.parametrize(
    ("message", "date_source", "party", "party_source", "budget_source"),
    [
        ("明天去外滩", "message", 1, "default", "default"),
        ("带孩子去动物园", "default", None, "message", "default"),
        ("我们两个人下周三去豫园，预算500元", "message", 2, "message", "message"),
        ("the Bund for 3 people, cheap eats", "default", 3, "message", "message"),
        ("Sunday in Shanghai with my wife: a stroll on the Bund", "message", None, "message", "default"),
        ("跟朋友去新天地吃饭", "default", None, "message", "default"),
        ("周六三个人去外滩", "message", 3, "message", "default"),
    ],
)
def test_what_the_message_says_of_the_day_party_and_budget(message, date_source, party, party_source, budget_source):
    got = read_assumed(message, plan_date=TOMORROW, today=MOMENT.date())
    assert (got.date_source, got.party_size, got.party_source, got.budget_source) == (
        date_source,
        party,
        party_source,
        budget_source,
    )


QUESTIONS = [
    "what should I eat in Shanghai?",
    "Can I visit the Bund tomorrow night?",
    "Should I see the Bund or Yu Garden on Saturday?",
    "明天去外滩好还是去豫园好？",
    "我们2个人明天去外滩，要带伞吗？",
    "明天去迪士尼吗？",
]


@pytest.mark.parametrize("message", QUESTIONS)
def test_a_question_with_words_of_an_outing_is_not_planned_as_a_request(message):
    d = route_message(message, settings=get_settings())
    assert not (d.intent == "plan" and d.question_kind == "execute")


@pytest.mark.parametrize(
    "message",
    [
        "Shanghai from 28 to 30 Nov: the Bund, Yu Garden and museums",
        "Shanghai 30 Dec to 2 Jan: the Bund and Yu Garden",
        "12月30日到1月2日，外滩和豫园",
    ],
)
def test_a_range_of_days_is_a_trip_to_plan_not_a_route_between_two_places(message):
    d = route_message(message, settings=get_settings())
    assert d.features.from_to is None
    assert d.intent == "plan" and d.output.route == "SYSTEM2_REASONING" and d.missing == []


@pytest.mark.parametrize(
    "message", ["today from 8am to noon: the Bund and Yu Garden", "tomorrow from 11pm to 6am in Shanghai, the Bund"]
)
def test_hours_said_with_from_and_to_are_no_route_between_two_places(message):
    assert route_message(message, settings=get_settings()).features.from_to is None
