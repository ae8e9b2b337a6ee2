"""Stage 1 through an LLM (core/halfday/goal_llm.py) on an OpenAI-compatible stand-in (httpx.MockTransport, never
the network): a valid answer is the goal (parser "llm"), an invalid one is asked again with the reason, two invalid
answers or two failed calls give the rules' reading, and the LLM's window is checked against now like the rules'."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from core.agent.llm import LLMClient
from core.errors import InputError
from core.halfday.goal import decompose_goal
from core.halfday.goal_llm import decompose_goal_llm

SHANGHAI = timezone(timedelta(hours=8))
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=SHANGHAI)  # a Tuesday morning
GOAL = "周六下午带5岁的孩子去博物馆，人均200以内"
ANSWER = {
    "language": "zh",
    "window": {"date": "2026-11-28", "start": "13:00", "end": "18:00", "phrase": "周六下午"},
    "party": {"adults": 1, "children": 1, "children_ages": [5], "seniors": 0},
    "constraints": {"budget_per_person": 200, "budget_total": None, "diet": [], "mobility": [], "weather": [],
                    "transport": None, "max_leg_minutes": None},
    "preferences": ["museum", "kid_activity"],
    "avoid": [],
    "named_places": [],
    "assumed": ["date_next_weekday", "part_of_day_default_hours"],
    "missing": [],
}  # fmt: skip


def stand_in(*answers):
    """An LLM client whose endpoint answers with ``answers`` in turn (a str is the message, an int a status)."""
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        answer = answers[min(len(sent), len(answers)) - 1]
        if isinstance(answer, int):
            return httpx.Response(answer, json={"error": "down"})
        return httpx.Response(200, json={"choices": [{"message": {"content": answer}}], "usage": {"total_tokens": 9}})

    client = LLMClient(base_url="http://llm.test/v1", api_key="sk-test", model="m",
                       client=httpx.Client(transport=httpx.MockTransport(handler)))  # fmt: skip
    return client, sent


def test_a_valid_answer_is_the_goal_marked_llm():
    client, sent = stand_in(json.dumps(ANSWER, ensure_ascii=False))
    goal = decompose_goal_llm(GOAL, now=NOW, client=client)
    assert goal.parser == "llm" and goal.text == GOAL
    assert goal.preferences == ["museum", "kid_activity"]  # the LLM's, not the rules' (which find no kid_activity)
    assert (goal.window.date.isoformat(), goal.party.children_ages, goal.constraints.budget_per_person) == (
        "2026-11-28", [5], 200)  # fmt: skip
    assert len(sent) == 1
    body = sent[0]
    assert body["response_format"] == {"type": "json_object"} and body["messages"][-1]["content"] == GOAL
    system = body["messages"][0]["content"]
    assert "2026-11-24T10:00:00+08:00 (Tuesday)" in system and "kid_activity" in system and "halal" in system


def test_two_invalid_answers_give_the_rules_reading():
    bad_code = {**ANSWER, "preferences": ["bowling"]}  # not in the vocabulary
    bad_window = {**ANSWER, "window": {"date": "2026-11-28", "start": "18:00", "end": "13:00"}}
    client, sent = stand_in(json.dumps(bad_code), json.dumps(bad_window))
    goal = decompose_goal_llm(GOAL, now=NOW, client=client)
    assert goal.parser == "rules"
    assert goal == decompose_goal(GOAL, now=NOW)
    assert len(sent) == 2
    retry = sent[1]["messages"]
    assert retry[-2]["role"] == "assistant" and "bowling" in retry[-2]["content"]
    assert retry[-1]["content"].startswith("That answer is invalid")


def test_an_invalid_answer_then_a_valid_one_is_the_llms():
    client, sent = stand_in("not json at all", json.dumps(ANSWER))
    goal = decompose_goal_llm(GOAL, now=NOW, client=client)
    assert goal.parser == "llm" and len(sent) == 2


def test_two_failed_calls_give_the_rules_reading():
    client, sent = stand_in(503, 500)
    goal = decompose_goal_llm(GOAL, now=NOW, client=client)
    assert goal.parser == "rules" and goal.party.children_ages == [5] and len(sent) == 2


def test_the_llms_window_is_checked_against_now():
    today_afternoon = {**ANSWER, "window": {"date": "2026-11-24", "start": "13:00", "end": "18:00"}}
    client, _ = stand_in(json.dumps(today_afternoon))
    goal = decompose_goal_llm("今天下午", now=datetime(2026, 11, 24, 14, 7, tzinfo=SHANGHAI), client=client)
    assert goal.window.start.isoformat() == "14:15:00" and "start_moved_to_now" in goal.assumed
    client, _ = stand_in(json.dumps(today_afternoon))
    goal = decompose_goal_llm("今天下午", now=datetime(2026, 11, 24, 19, 0, tzinfo=SHANGHAI), client=client)
    assert (goal.window, goal.missing, goal.parser) == (None, ["time_window_past"], "llm")


def test_a_goal_too_long_is_refused_before_any_call():
    client, sent = stand_in(json.dumps(ANSWER))
    with pytest.raises(InputError) as caught:
        decompose_goal_llm("下" * 1001, now=NOW, client=client)
    assert caught.value.code == "GOAL_TOO_LONG" and sent == []


def test_the_planner_reads_the_goal_with_the_client_it_is_handed(settings):
    from core.geo.registry import make_provider
    from core.halfday.tools import Trace
    from core.models.halfday.plans import GoalInput
    from tests.halfday.conftest import planner_on

    provider = make_provider("offline", region="shanghai", settings=settings)
    inp = GoalInput(text=GOAL, now=NOW)
    client, sent = stand_in(json.dumps(ANSWER, ensure_ascii=False))
    handed = planner_on(provider, settings, llm=lambda: client).registry.call("decompose_goal", inp, trace=Trace())
    assert handed.parser == "llm" and handed.preferences == ["museum", "kid_activity"]
    assert len(sent) == 1 and [c.purpose for c in client.calls] == ["halfday_goal"]
    # no client handed (no model configured): the rules read the goal, and nothing is sent
    ruled = planner_on(provider, settings, llm=lambda: None).registry.call("decompose_goal", inp, trace=Trace())
    assert ruled == decompose_goal(GOAL, now=NOW) and ruled.parser == "rules" and len(sent) == 1


def test_a_model_that_lists_no_wishes_still_has_every_wish_accounted_for():
    text = "周六下午想吃粤菜，然后去做陶艺"
    answer = {
        **ANSWER,
        "preferences": ["food"],
        "party": {"adults": 1, "children": 0, "children_ages": [], "seniors": 0},
    }
    client, _ = stand_in(json.dumps(answer, ensure_ascii=False))
    goal = decompose_goal_llm(text, now=NOW, client=client)
    assert goal.parser == "llm"
    assert [(w.kind, w.code or w.phrase) for w in goal.wishes] == [("cuisine", "cantonese"), ("unread", "做陶艺")]
