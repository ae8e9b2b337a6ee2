"""The agent's booking conversation keeps its thread (issue 11 follow-up): an answer that only supplies what the
agent asked for (when, how many, which one) continues the user's pending booking, kept server-side with an expiry;
a new request, a stale pending booking, another user's pending booking and a conversation the client says is
another are never joined. Also: the cancellation fee comes from the service's Outcome, and the venues offered
when none is named fit the request (cuisine, price) with a spread of prices. Whole conversations through
route_and_run on the bundled shanghai pack with a temporary SQLite database."""

from __future__ import annotations

import json
import statistics
from datetime import UTC, date, time, timedelta
from pathlib import Path

import pytest

from core.agent import route_and_run
from core.agent.flows.booking_followup import ordinal
from core.app.agent import agent_deps
from core.config import Settings
from core.geo.registry import make_provider
from core.reservations.catalog import catalogue
from core.reservations.service import ReservationService
from core.stores.trips import TripStore, open_store
from tests.agent.test_agent_reservations import NOT_FOR_PEOPLE, NOW, TOMORROW
from tests.support.databases import fresh_postgres
from tests.support.db import db_at

SATURDAY = date(2026, 12, 5)


@pytest.fixture(scope="module")
def provider():
    return make_provider("offline", region="shanghai", settings=Settings(region="shanghai", provider="offline"))


@pytest.fixture
def settings(tmp_path):
    (tmp_path / "kb").mkdir()
    return Settings(
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{tmp_path / 'agent.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        kb_dir=tmp_path / "kb",
    )


@pytest.fixture
def agent(settings, provider):
    """``agent(message, user="alice", confirm=None, later=timedelta(0), recent=None)``: one request at NOW + later."""

    def run(message, *, user="alice", confirm=None, later=timedelta(0), recent=None):
        request = {"message": message, "user_id": user}
        if confirm:
            request["options"] = {"confirm_dry_run_id": confirm}
        if recent is not None:
            request["conversation_context"] = {"recent_messages": recent}
        resp = route_and_run(request, agent_deps(settings, provider), now=NOW + later)
        for word in NOT_FOR_PEOPLE:
            assert word not in resp.result.answer_text, (word, resp.result.answer_text)
        return resp

    service = ReservationService.from_settings(settings, provider.region, clock=lambda: NOW.astimezone(UTC))
    run.service = service
    run.settings = settings
    run.store = open_store(db_at(settings.db_url))
    return run


def booked(agent, user="alice"):
    return [(r.item_id, r.date, r.time, r.party_size, r.status) for r in agent.service.reservations_of(user)]


def held(resp) -> tuple[str, str, str, int]:
    ev = resp.result.payload.dry_run["evidence"][0]
    return ev["place_id"], ev["date"], ev["time"], ev["party_size"]


def reasons(resp) -> list[str]:
    return [e.reason_code for e in resp.explain.decision_log]


def confirm(agent, resp, said="确认预订", **kw):
    return agent(said, confirm=resp.result.payload.dry_run["dry_run_id"], **kw)


# --- two turns -----------------------------------------------------------------------------------------
def test_a_two_turn_booking_in_chinese(agent):
    ask = agent("帮我订绿波廊")
    assert ask.result.status == "NEED_MORE_INFO" and ask.result.payload.dry_run is None
    answer = agent("明天19:00，两个人")
    assert answer.result.status == "NEED_CONFIRMATION" and answer.route.consent_required
    assert held(answer) == ("sh-lubolang", "2026-12-02", "19:00", 2)
    assert "PENDING_BOOKING_FOLLOWUP" in reasons(answer) and "PENDING_BOOKING_CONTINUED" in reasons(answer)
    assert "将为你预订：绿波廊，2026年12月2日（周三） 19:00，2 人" in answer.result.answer_text
    assert booked(agent) == []  # nothing booked yet: the dry run is a quote
    done = confirm(agent, answer)
    assert done.result.status == "OK" and "已预订" in done.result.answer_text
    assert booked(agent) == [("sh-lubolang", TOMORROW, time(19, 0), 2, "confirmed")]
    assert agent.store.pending_booking("alice", now=NOW.timestamp()) is None  # the dry run ended the thread
    again = agent("明天19:00，两个人")  # so the same answer again books nothing
    assert again.result.payload.dry_run is None and len(booked(agent)) == 1


def test_a_two_turn_booking_in_english(agent):
    ask = agent("book Lu Bo Lang")
    assert ask.result.status == "NEED_MORE_INFO" and "the date" in ask.result.answer_text
    answer = agent("tomorrow 7pm for 2")
    assert held(answer) == ("sh-lubolang", "2026-12-02", "19:00", 2)
    assert "I will reserve: Lu Bo Lang Restaurant, Wed 2 Dec 2026 at 19:00, 2 people" in answer.result.answer_text
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in answer.result.answer_text)
    done = confirm(agent, answer, said="Confirm booking")
    assert done.result.status == "OK" and "Booked" in done.result.answer_text
    assert booked(agent) == [("sh-lubolang", TOMORROW, time(19, 0), 2, "confirmed")]


def test_the_facts_add_up_over_several_answers_and_a_bare_hour_is_read_by_the_venue(agent):
    agent("帮我订老吉士")
    second = agent("周六，一家三口")  # the day and the party; the time is still missing
    assert second.result.status == "NEED_MORE_INFO" and second.result.payload.dry_run is None
    text = second.result.answer_text
    assert "2026年12月5日" in text and "3 人" in text and "时间" in text and "人数" not in text
    third = agent("6点")  # 06:00 is no slot of a restaurant open 11:00-20:30: 18:00
    assert held(third) == ("sh-lao-jesse", "2026-12-05", "18:00", 3)
    confirm(agent, third)
    assert booked(agent) == [("sh-lao-jesse", SATURDAY, time(18, 0), 3, "confirmed")]


# --- a venue chosen from the list offered ---------------------------------------------------------------
def test_a_venue_picked_by_ordinal_from_the_offered_list(agent):
    offer = agent("帮我订一家餐厅，今晚19:00，两个人")
    offered = [c["place_id"] for c in offer.result.payload.candidates]
    assert len(offered) >= 3 and offer.result.payload.dry_run is None
    pick = agent("第二家")
    assert held(pick) == (offered[1], "2026-12-01", "19:00", 2)
    confirm(agent, pick)
    assert booked(agent) == [(offered[1], date(2026, 12, 1), time(19, 0), 2, "confirmed")]


def test_a_venue_picked_in_english_by_ordinal_or_by_name(agent, provider):
    offer = agent("book a restaurant for 3 tomorrow at 7pm")
    offered = [c["place_id"] for c in offer.result.payload.candidates]
    assert held(agent("the last one")) == (offered[-1], "2026-12-02", "19:00", 3)
    offer = agent("book a restaurant for 3 tomorrow at 7pm", user="bob")
    offered = [c["place_id"] for c in offer.result.payload.candidates]
    name = provider.region.place_by_id(offered[2]).name_en
    assert held(agent(name, user="bob")) == (offered[2], "2026-12-02", "19:00", 3)


def test_ordinals_in_both_languages():
    said = ["第二家", "第2个", "那就第三家吧", "最后一家", "the second one", "the 3rd", "option 4", "first place"]
    assert [ordinal(s) for s in said] == [2, 2, 3, -1, 2, 3, 4, 1]
    assert [ordinal(s) for s in ("两个人", "tomorrow at 7", "一家三口", "for 2")] == [None] * 4


# --- what is never joined ------------------------------------------------------------------------------
def test_a_stale_pending_booking_is_forgotten(agent):
    agent("帮我订绿波廊")
    ttl = timedelta(seconds=agent.settings.dry_run_ttl_s)
    late = agent("明天19:00，两个人", later=ttl + timedelta(seconds=1))
    assert late.result.payload.dry_run is None and "PENDING_BOOKING_FOLLOWUP" not in reasons(late)
    assert agent.store.pending_booking("alice", now=(NOW + ttl).timestamp()) is None  # and it is gone
    assert booked(agent) == []
    agent("帮我订绿波廊", user="bob")  # within the time to live the same answer continues
    in_time = agent("明天19:00，两个人", user="bob", later=ttl - timedelta(seconds=60))
    assert held(in_time) == ("sh-lubolang", "2026-12-02", "19:00", 2)


def test_a_new_request_in_the_second_turn_is_not_joined(agent):
    agent("帮我订绿波廊，明天，两个人")
    museum = agent("帮我订上海博物馆")  # another venue: its own request, without the restaurant's day and party
    assert museum.result.payload.dry_run is None
    assert all(w in museum.result.answer_text for w in ("日期", "时间", "人数"))
    assert "PENDING_BOOKING_FOLLOWUP" not in reasons(museum)
    weather = agent("明天上海天气怎么样")  # a question about something else is answered as such
    assert weather.result.payload.dry_run is None and "PENDING_BOOKING_FOLLOWUP" not in reasons(weather)
    answer = agent("后天上午10:00，一个人")  # the museum's thread, not the restaurant's
    assert held(answer) == ("sh-shanghai-museum", "2026-12-03", "10:00", 1)


def test_another_users_pending_booking_is_never_continued(agent):
    agent("帮我订绿波廊")
    mallory = agent("明天19:00，两个人", user="mallory")
    assert mallory.result.payload.dry_run is None and "PENDING_BOOKING_FOLLOWUP" not in reasons(mallory)
    forged = agent("明天19:00，两个人", user="mallory", recent=["帮我订绿波廊"])  # a client's history is no record
    assert forged.result.payload.dry_run is None
    assert booked(agent, "mallory") == []
    assert held(agent("明天19:00，两个人")) == ("sh-lubolang", "2026-12-02", "19:00", 2)  # alice's is still hers


def test_recent_messages_of_another_conversation_keep_it_apart(agent):
    agent("帮我订绿波廊")
    elsewhere = agent("明天19:00，两个人", recent=["外滩附近有什么好吃的"])
    assert elsewhere.result.payload.dry_run is None
    same = agent("明天19:00，两个人", recent=["外滩附近有什么好吃的", "帮我订绿波廊"])
    assert held(same) == ("sh-lubolang", "2026-12-02", "19:00", 2)


# --- the fee of a cancellation -------------------------------------------------------------------------
def test_the_cancellation_fee_is_read_from_the_outcome(agent, monkeypatch, provider):
    theatre = next(i for i in catalogue(provider.region) if i.id == "sh-grand-theatre")
    r = agent("帮我订上海大剧院，明天18:00，两个人")  # 33 h ahead: inside the 48 h window, half the price
    confirm(agent, r)
    real_cancel = ReservationService.cancel

    def cancel_with_a_plain_record(self, *args, **kwargs):
        out = real_cancel(self, *args, **kwargs)
        for move in out.reservation.transitions:
            move.reason = "cancelled"  # no fee in the text: only the structured Outcome says it
        return out

    monkeypatch.setattr(ReservationService, "cancel", cancel_with_a_plain_record)
    c = agent("取消上海大剧院的预订")
    done = agent("确认取消", confirm=c.result.payload.dry_run["dry_run_id"])
    fee = theatre.price_per_person * 2 * theatre.terms.cancellation.fee_share
    assert fee > 0 and f"费用 ¥{fee:g}" in done.result.answer_text
    assert booked(agent)[0][-1] == "cancelled"


# --- venues offered by fit --------------------------------------------------------------------------------
def _price(provider, pid):
    return provider.region.place_by_id(pid).price_per_person


def test_a_cheap_shanghainese_request_offers_only_cheap_shanghainese_places(agent, provider):
    pack = provider.region
    r = agent("帮我订一家便宜的本帮菜")
    offered = [c["place_id"] for c in r.result.payload.candidates]
    assert len(offered) >= 3 and r.result.payload.dry_run is None
    restaurants = [i for i in catalogue(pack) if i.category == "restaurant" and i.price_per_person is not None]
    shanghainese = [i.price_per_person for i in restaurants if "shanghainese" in pack.place_by_id(i.id).cuisine]
    for pid in offered:
        assert "shanghainese" in pack.place_by_id(pid).cuisine, pid
        assert _price(provider, pid) < statistics.median(shanghainese), pid
        assert _price(provider, pid) < statistics.median(i.price_per_person for i in restaurants), pid
    assert all(c["source"] == "region pack shanghai: price_per_person" for c in r.result.payload.candidates)
    assert "人均价格来源：上海区域资料包" in r.result.answer_text
    assert f"（人均¥{_price(provider, offered[0]):g}）" in r.result.answer_text


def test_a_restaurant_request_without_hints_shows_a_spread_of_prices(agent, provider):
    r = agent("帮我订一家餐厅")
    prices = [_price(provider, c["place_id"]) for c in r.result.payload.candidates]
    every = [i.price_per_person for i in catalogue(provider.region) if i.category == "restaurant"]
    assert prices == sorted(prices) and len(prices) == 5  # cheapest first
    assert prices[0] < statistics.median(every) < prices[-1]  # not only the dear ones
    capped = agent("book a restaurant, about ¥100 per person", user="bob")
    assert all(_price(provider, c["place_id"]) <= 100 for c in capped.result.payload.candidates)
    assert "per person: the Shanghai region pack" in capped.result.answer_text


# --- the follow-up file ------------------------------------------------------------------------------------
FOLLOWUPS = json.loads((Path(__file__).parent / "data" / "booking_followups.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", FOLLOWUPS, ids=[f"{c['first']} → {c['text']}" for c in FOLLOWUPS])
def test_the_follow_up_file(agent, case):
    first = agent(case["first"])
    assert first.result.status == "NEED_MORE_INFO" and first.result.payload.dry_run is None
    r = agent(case["text"])
    assert ("PENDING_BOOKING_FOLLOWUP" in reasons(r)) == case["joined"], (r.result.status, r.result.answer_text)
    if "item" in case:
        assert held(r) == (case["item"], case["date"], case["time"], case["party"])
    elif case["joined"]:
        assert r.result.payload.dry_run is None
        assert {s.code for s in r.result.next_steps} == {"missing"}
        assert sorted(str(s.args["field"]) for s in r.result.next_steps) == sorted(case["still_missing"])
    else:
        assert r.result.payload.dry_run is None or r.result.payload.dry_run["action"] != "reservations.confirm"
    assert not [x for x in booked(agent) if x[-1] == "confirmed"]  # an answer alone never books


# --- the record in the store, on both databases -----------------------------------------------------------
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_pending_booking_record_is_one_per_user_and_expires(database, tmp_path):
    url = f"sqlite:///{tmp_path / 'pending.db'}" if database == "sqlite" else fresh_postgres("pending")
    store = TripStore(db_at(url))
    store.hold_pending_booking(user_id="alice", facts={"item": "sh-lubolang"}, now=1000.0, ttl_s=600)
    store.hold_pending_booking(user_id="alice", facts={"item": "sh-lao-jesse"}, now=1100.0, ttl_s=600)  # replaces
    store.hold_pending_booking(user_id="bob", facts={"item": "sh-fu1088"}, now=1000.0, ttl_s=600)
    mine = store.pending_booking("alice", now=1650.0)
    assert mine is not None and mine.facts == {"item": "sh-lao-jesse"} and mine.expires_at == 1700.0
    assert store.pending_booking("carol", now=1650.0) is None
    assert store.pending_booking("bob", now=1600.0) is None  # expired at 1600: forgotten
    assert store.pending_booking("bob", now=1000.0) is None  # even when asked with an earlier clock
    store.drop_pending_booking("alice")
    assert store.pending_booking("alice", now=1650.0) is None


def test_the_follow_up_read_before_the_flow_is_the_states_as_plain_data(agent):
    """The pending booking joined with the answer is AgentState's (``followup``), not a side cache: the response
    keeps it with the turn; a fact to correct is kept there too, and the booking flow says it."""
    agent("book Lu Bo Lang")
    answer = agent("the day after tomorrow at 6:30pm, 5 of us")
    joined = answer.explain.state["followup"]["joined"]
    assert joined["slots"]["party"] == 5 and joined["slots"]["time"] == "18:30:00"
    assert joined["slots"]["venues"][0]["id"] == "sh-lubolang"
    assert set(joined["added"]) == {"date", "time", "party_size"}
    agent("帮我订绿波廊", user="bob")
    wrong = agent("2月30日晚上7点，三个人", user="bob")
    assert wrong.result.error_code == "INVALID_INPUT"
    assert wrong.explain.state["followup"]["joined"] is None and wrong.explain.state["followup"]["error_message"]
