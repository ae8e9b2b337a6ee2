"""The agent remembers what the person states (seed 001 §7): it says so in their language, its restaurant picks
leave out spicy venues after 我不吃辣, its trip suggestions put short waits first for one who hates queues, a
request to forget is carried out, and nothing of one user reaches another."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from core.agent import route_and_run
from core.agent.trip_request import suggest_places
from core.app.agent import agent_deps
from core.config import Settings
from core.geo.registry import make_provider
from core.memory.store import UserMemory
from core.models.rules import Rule
from core.packs.queues import queue_estimate
from core.stores.db import engine_for
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
BOOK = "帮我订明天晚上7点的餐厅，2个人"


@pytest.fixture(scope="module")
def provider():
    return make_provider("offline", region="shanghai", settings=Settings(region="shanghai", provider="offline"))


@pytest.fixture
def agent(tmp_path, provider):
    (tmp_path / "kb").mkdir()
    settings = Settings(
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{tmp_path / 'agent.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        kb_dir=tmp_path / "kb",
    )

    def run(message, *, user="ann", lang=None):
        return route_and_run({"message": message, "user_id": user}, agent_deps(settings, provider), now=NOW, lang=lang)

    run.memory = UserMemory(engine_for(db_at(settings.db_url)), clock=lambda: SUITE_NOW)
    return run


def spicy(provider, place_id):
    place = provider.region.place_by_id(place_id)
    return "spicy" in place.tags or bool({"sichuan", "hunan", "hotpot"} & set(place.cuisine))


def test_a_restaurant_pick_avoids_spicy_places_after_no_spicy(agent, provider):
    before = agent(BOOK, user="bob")  # bob said nothing: the spread includes the pack's spicy restaurant
    assert any(spicy(provider, c["place_id"]) for c in before.result.payload.candidates)
    said = agent("我不吃辣")
    assert said.result.status == "OK" and said.result.answer_text == "我记住了：不吃辣。"
    picked = agent(BOOK)
    offered = [c["place_id"] for c in picked.result.payload.candidates]
    assert len(offered) >= 3 and not any(spicy(provider, p) for p in offered)
    assert "花马天堂" not in picked.result.answer_text
    log = {e.chosen_action: e.facts for e in picked.explain.decision_log}
    assert log["user_memory.rules"] == {"rules": ["no_spicy"]}
    again = agent(BOOK, user="bob")  # bob's picks are not ann's
    assert [c["place_id"] for c in again.result.payload.candidates] == [
        c["place_id"] for c in before.result.payload.candidates
    ]


def test_the_rule_is_said_in_english_and_the_answer_goes_on(agent):
    r = agent("I hate queues. Plan a one-day trip in Shanghai", lang="en")
    assert r.result.answer_text.startswith("I'll remember: no queueing.")
    assert r.result.status == "OK" and r.result.payload.timeline
    assert [x.code for x in agent.memory.rules("ann")] == ["no_queues"]


def test_trip_suggestions_for_one_who_hates_queues_put_short_waits_first(provider):
    pack = provider.region
    when = datetime(2026, 12, 5, 14, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Saturday afternoon
    plain = suggest_places(pack, text="上海一日游", count=6, exclude=set(), when=when)
    quiet = suggest_places(pack, text="上海一日游", count=6, exclude=set(), rules=[Rule(code="no_queues")], when=when)

    def waits(ids):
        return [e.minutes if (e := queue_estimate(pack, p, when)) is not None else 0 for p in ids]

    assert len(quiet) == 6 and sum(waits(quiet)) < sum(waits(plain))
    assert waits(quiet) == sorted(waits(quiet))  # no tag asked: the shortest typical wait first


def test_forget_removes_the_rule_and_says_so(agent, provider):
    agent("我不吃辣，也不想排队")
    gone = agent("忘掉我不吃辣")
    assert gone.result.answer_text == "已忘掉：不吃辣。"
    assert [r.code for r in agent.memory.rules("ann")] == ["no_queues"]
    assert any(spicy(provider, c["place_id"]) for c in agent(BOOK).result.payload.candidates)
    nothing = agent("forget that I don't eat spicy food", lang="en")
    assert nothing.result.answer_text == "I had not remembered this: no spicy food."
    everything = agent("forget everything", lang="en")
    assert everything.result.answer_text == "I have forgotten everything I remembered about you."
    assert agent.memory.rules("ann") == [] and agent.memory.recall("ann", BOOK) == []


def test_turns_are_kept_and_recalled_for_their_user_only(agent):
    agent("帮我订老吉士，周六18:00，4位")
    found = agent.memory.recall("ann", "老吉士 周六")
    assert found and found[0].text.startswith("帮我订老吉士，周六18:00，4位")
    assert agent.memory.recall("bob", "老吉士 周六") == []
    agent("明天天气怎么样")  # a fact question is not kept
    assert all("天气" not in e.text for e in agent.memory.episodes("ann"))


def test_forget_everything_forgets_the_conversations_and_browse_consents_too(agent, tmp_path):
    """ "I have forgotten everything" is true: the kept conversations and the consents to browse go as well."""
    from core.memory.conversations import ConversationStore
    from core.stores.trips import open_store

    url = f"sqlite:///{tmp_path / 'agent.db'}"
    agent("我不吃辣")
    conversations = ConversationStore(database=db_at(url), clock=lambda: SUITE_NOW)
    kept = conversations.append("ann", None, "我不吃辣", {"result": {}})
    store = open_store(db_at(url))
    store.grant_browse_consent(user_id="ann", conversation_id=kept, now=1.0, ttl_s=3600)
    store.grant_browse_consent(user_id="bob", conversation_id="bob-chat", now=1.0, ttl_s=3600)
    agent("忘掉关于我的一切")
    assert conversations.get("ann", kept) is None and conversations.latest("ann") is None
    assert not store.has_browse_consent(user_id="ann", conversation_id=kept, now=2.0)
    assert store.has_browse_consent(user_id="bob", conversation_id="bob-chat", now=2.0)  # another person's stays


def test_a_new_conversation_keeps_the_id_its_page_gave_it_and_never_joins_anothers(tmp_path):
    from core.memory.conversations import ConversationStore
    from core.models.memory import new_conversation_id

    store = ConversationStore(database=db_at(f"sqlite:///{tmp_path / 'c.db'}"), clock=lambda: SUITE_NOW)
    chosen = new_conversation_id()
    assert store.append("ann", chosen, "hi", {}) == chosen  # a consent given on its first turn is kept under it
    assert store.append("bob", chosen, "hi", {}) != chosen  # ann's conversation is never bob's
    assert store.append("ann", "not-an-id", "hi", {}) != "not-an-id"
