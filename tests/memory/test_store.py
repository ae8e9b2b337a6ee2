"""The memory on SQLite and PostgreSQL (the schema by Alembic revision 0006): rules kept and forgotten, snippets
recalled by similarity, conversations opened by their owner only, nothing of one user seen by another; the
half-day planner's profile reads the same rules."""

from __future__ import annotations

from datetime import date, time

import pytest

from core.halfday.memory import MemoryStore
from core.halfday.profile import analyze_user_profile
from core.memory.conversations import ConversationStore
from core.memory.rules import rules_in
from core.memory.store import UserMemory
from core.models.halfday.goal import DecomposedGoal, TimeWindow
from core.models.halfday.plans import ProfileInput
from core.models.rules import Rule
from core.stores.db import engine_for
from tests.support.clock import SUITE_NOW
from tests.support.databases import fresh_postgres
from tests.support.db import db_at


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'memory.db'}" if request.param == "sqlite" else fresh_postgres("user_memory")
    return engine_for(db_at(url))


@pytest.fixture
def memory(engine):
    return UserMemory(engine, clock=lambda: SUITE_NOW)


SNIPPETS = [
    "帮我订老吉士，周六18:00，4位",
    "外滩夜景什么时候最好看",
    "plan a rainy day in Shanghai with museums",
    "带孩子去上海自然博物馆",
    "我想去豫园吃小笼包",
]


def test_rules_are_kept_said_again_and_forgotten(memory):
    assert memory.remember("ann", rules_in("我不吃辣，我不想排队")) == [Rule(code="no_spicy"), Rule(code="no_queues")]
    assert memory.remember("ann", [Rule(code="no_spicy")]) == []  # known already: nothing new
    assert [r.code for r in memory.rules("ann")] == ["no_queues", "no_spicy"]
    assert memory.forget("ann", ["no_spicy", "vegan"]) == ["no_spicy"]
    assert [r.code for r in memory.rules("ann")] == ["no_queues"]


def test_recall_returns_the_relevant_snippet_and_forgets_it(memory):
    ids = {text: memory.write_episode("ann", "turn", text) for text in SNIPPETS}
    found = memory.recall("ann", "外滩的夜景")
    assert found[0].id == ids["外滩夜景什么时候最好看"] and found[0].similarity > 0.2
    en = memory.recall("ann", "museums on a rainy day")
    assert en[0].text == "plan a rainy day in Shanghai with museums"
    assert memory.recall("ann", "完全无关的火星旅行") == []  # nothing alike: nothing recalled
    assert memory.forget_episode("ann", ids["外滩夜景什么时候最好看"])
    assert all(e.text != "外滩夜景什么时候最好看" for e in memory.recall("ann", "外滩的夜景"))


def test_forget_everything_empties_rules_and_snippets(memory):
    memory.remember("ann", [Rule(code="vegetarian")])
    memory.write_episode("ann", "turn", "外滩夜景什么时候最好看")
    assert memory.forget_all("ann") == (1, 1)
    assert memory.rules("ann") == [] and memory.recall("ann", "外滩夜景") == []


def test_one_user_never_sees_anothers_memory(memory, engine):
    memory.remember("ann", [Rule(code="no_spicy")])
    memory.write_episode("ann", "turn", "外滩夜景什么时候最好看")
    assert memory.rules("bob") == [] and memory.recall("bob", "外滩夜景") == []
    assert memory.forget_all("bob") == (0, 0) and [r.code for r in memory.rules("ann")] == ["no_spicy"]
    conversations = ConversationStore(engine, clock=lambda: SUITE_NOW)
    cid = conversations.append("ann", None, "我不吃辣", {"result": {"answer_text": "我记住了：不吃辣。"}})
    assert conversations.get("bob", cid) is None  # another's reads as not found
    assert conversations.append("bob", cid, "hi", {}) != cid  # nor can bob write into it
    assert [t.message for t in conversations.get("ann", cid).turns] == ["我不吃辣"]


def test_a_conversation_keeps_its_turns_in_order(engine):
    conversations = ConversationStore(engine, clock=lambda: SUITE_NOW)
    cid = conversations.append("ann", None, "one", {"n": 1})
    assert conversations.append("ann", cid, "two", {"n": 2}) == cid
    got = conversations.get("ann", cid)
    assert [(t.seq, t.message, t.response) for t in got.turns] == [(1, "one", {"n": 1}), (2, "two", {"n": 2})]
    assert conversations.latest("ann") == cid and conversations.latest("bob") is None
    assert conversations.get("ann", "no-such-id") is None


def test_the_half_day_profile_reads_the_same_rules(memory, engine):
    memory.remember("ann", rules_in("我不吃辣，讨厌排队，我妈妈坐轮椅，孩子3岁"))
    remembered = MemoryStore(engine, clock=lambda: SUITE_NOW).get("ann")
    assert {r.code for r in remembered.rules} == {"no_spicy", "no_queues", "wheelchair", "kids_under_6"}
    goal = DecomposedGoal(
        text="下午逛逛", language="zh", window=TimeWindow(date=date(2026, 11, 28), start=time(13), end=time(18))
    )
    profile = analyze_user_profile(ProfileInput(goal=goal, memory=remembered, today=date(2026, 11, 28)))
    assert "no_spicy" in profile.constraints.diet and "diet:no_spicy" in profile.taboos
    assert "wheelchair" in profile.constraints.mobility
    assert profile.crowd_tolerance == "low" and {"hates_queues", "small_children"} <= set(profile.crowd_reasons)
    assert profile.walk_limit_min == 12  # careful walking, as with small children
    assert MemoryStore(engine, clock=lambda: SUITE_NOW).get("bob").rules == []
    MemoryStore(engine, clock=lambda: SUITE_NOW).reset("ann")  # the planner's reset forgets the rules too
    assert memory.rules("ann") == []
