"""The travel agent books, cancels and lists through the reservation service (issue 11): the router on the phrasing
file, the booking slots it carries, every reservations.* action through the registry, and whole conversations
through route_and_run on the bundled shanghai pack with a temporary SQLite database."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.agent import route_and_run
from core.agent.actions.catalog import default_registry
from core.agent.booking import booking_slots
from core.agent.router import route_message
from core.agent.state import AgentContext, new_state
from core.app.agent import agent_deps
from core.config import Settings, get_settings
from core.geo.registry import make_provider
from core.models.agent import AgentRequest
from core.models.reservations import ReservationRequest
from core.reservations.service import ReservationService
from core.stores.trips import open_store
from tests.support.db import db_at

DATA = json.loads((Path(__file__).parent / "data" / "reservation_phrasings.json").read_text(encoding="utf-8"))
PHRASINGS = DATA["phrasings"]
NOW = datetime.fromisoformat(DATA["now"]).astimezone(ZoneInfo("Asia/Shanghai"))  # Tuesday 2026-12-01 09:00
TOMORROW = date(2026, 12, 2)
#: what a reply to a person must never contain: links, action names, API fields
NOT_FOR_PEOPLE = ("http", "链接", "link", "reservations.", "dry_run", "token", "confirm_dry_run_id", "item_id", "_id")


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
    """``agent(message, user="alice", confirm=None)``: one request at NOW; ``agent.service`` is the service the
    agent books with (the same database), with the same clock."""

    def run(message, *, user="alice", confirm=None):
        options = {"confirm_dry_run_id": confirm} if confirm else {}
        resp = route_and_run(
            {"message": message, "user_id": user, "options": options}, agent_deps(settings, provider), now=NOW
        )
        for word in NOT_FOR_PEOPLE:
            assert word not in resp.result.answer_text, (word, resp.result.answer_text)
        return resp

    service = ReservationService.from_settings(settings, provider.region, clock=lambda: NOW.astimezone(UTC))
    run.service = service
    run.settings = settings
    return run


def booked(agent, user="alice"):
    return [(r.item_id, r.date, r.time, r.party_size, r.status) for r in agent.service.reservations_of(user)]


# --- the router on the phrasing file ----------------------------------------------------------------
@pytest.mark.parametrize("case", PHRASINGS, ids=[c["text"] for c in PHRASINGS])
def test_the_router_on_the_phrasing_file(case):
    d = route_message(case["text"], settings=get_settings())
    if case["intent"] == "none":
        assert d.intent not in ("book", "cancel", "commit"), (case["text"], d.intent)
        assert "HIGH_RISK_ACTION" not in d.output.reasons
    else:
        assert d.intent == case["intent"], (case["text"], d.intent)
    if d.intent in ("book", "cancel"):
        assert d.output.consent_required and d.output.ui_hint.status == "awaiting_confirmation"


def test_the_phrasing_file_covers_both_languages_and_the_look_alikes():
    assert len(PHRASINGS) >= 40
    for intent in ("book", "cancel", "list", "none"):
        assert {c["lang"] for c in PHRASINGS if c["intent"] == intent} == {"zh", "en"}, intent
    texts = {c["text"] for c in PHRASINGS if c["intent"] == "none"}
    assert "不要订" in texts and any("还能订到吗" in t for t in texts)


SLOTTED = [c for c in PHRASINGS if any(k in c for k in ("item", "date", "time", "party", "category"))]


@pytest.mark.parametrize("case", SLOTTED, ids=[c["text"] for c in SLOTTED])
def test_a_request_carries_its_venue_date_time_and_party(case, provider):
    s = booking_slots(case["text"], pack=provider.region, today=NOW.date())
    got = {
        "item": s.venues[0].id if s.venues else None,
        "category": s.category,
        "date": s.date.isoformat() if s.date else None,
        "time": s.time.strftime("%H:%M") if s.time else None,
        "party": s.party,
    }
    assert {k: got[k] for k in got if k in case} == {k: case[k] for k in got if k in case}


def test_a_bare_hour_stays_two_readings_and_dates_that_do_not_exist_are_refused(provider):
    s = booking_slots("帮我订绿波廊，明天7点，两个人", pack=provider.region, today=NOW.date())
    assert s.time is None and s.hours == [7, 19]
    assert booking_slots("明天便宜一点的餐厅", pack=provider.region, today=NOW.date()).hours == []
    with pytest.raises(Exception, match="2月30日"):
        booking_slots("帮我订绿波廊，2月30日19:00", pack=provider.region, today=NOW.date())


# --- each action through the registry ---------------------------------------------------------------
def _ctx(settings, provider, user, *, reservations=None):
    """A request's state and context, with what the root hands the agent (``reservations``: the service's opener)."""
    request = AgentRequest(message="x", user_id=user)
    deps = agent_deps(settings, provider, reservations=reservations)
    ctx = AgentContext(
        settings=settings,
        request=request,
        provider=provider,
        database=deps.database,
        reservations=deps.reservations,
        store=open_store(db_at(settings.db_url)),
        now=NOW,
    )
    return new_state(request, region="shanghai"), ctx


def test_every_reservation_action_through_the_registry(settings, provider):
    reg = default_registry()
    assert {
        "reservations.dry_run",
        "reservations.confirm",
        "reservations.cancel_dry_run",
        "reservations.cancel",
        "reservations.list",
    } <= set(reg.names())
    state, alice = _ctx(settings, provider, "alice")
    ask = {"item_id": "sh-lubolang", "date": "2026-12-02", "time": "19:00", "party_size": 2}
    dry = reg.call("reservations.dry_run", {"request": ask}, state=state, ctx=alice).dry_run
    r = dry.reservation
    assert (r.user_id, r.item_name, r.status, r.quote.total) == ("alice", "绿波廊", "quoted", 400.0)
    commit = {"reservation_id": r.id, "token": dry.token, "idempotency_key": "k1", "consent": True}
    assert reg.call("reservations.confirm", commit, state=state, ctx=alice).outcome.reservation.status == "confirmed"
    again = reg.call("reservations.confirm", commit, state=state, ctx=alice).outcome
    assert again.replayed and again.reservation.status == "confirmed"
    listed = reg.call("reservations.list", {}, state=state, ctx=alice).reservations
    assert [(x.id, x.status) for x in listed] == [(r.id, "confirmed")]

    bob_state, bob = _ctx(settings, provider, "bob")  # another user sees nothing and cancels nothing
    assert reg.call("reservations.list", {}, state=bob_state, ctx=bob).reservations == []
    refused = reg.call("reservations.cancel_dry_run", {"reservation_id": r.id}, state=bob_state, ctx=bob)
    assert refused.dry_run is None and refused.refusal.code == "NOT_FOUND"

    cancel = reg.call("reservations.cancel_dry_run", {"reservation_id": r.id}, state=state, ctx=alice).dry_run
    assert cancel.action == "cancel" and cancel.fee == 0.0
    done = reg.call(
        "reservations.cancel",
        {"reservation_id": r.id, "token": cancel.token, "idempotency_key": "k2", "consent": True},
        state=state,
        ctx=alice,
    ).outcome
    assert done.reservation.status == "cancelled"
    assert state.observability.tool_calls == 6  # every call counted (bob's on his own state)


def test_the_actions_book_through_the_service_the_root_hands_on_the_requests_moment(settings, provider, tmp_path):
    # the root's service is on another database than the settings': the agent opens none of its own
    elsewhere = settings.model_copy(update={"db_url": f"sqlite:///{tmp_path / 'root.db'}"})
    handed = ReservationService.from_settings(
        elsewhere, provider.region, clock=lambda: datetime(2030, 1, 1, tzinfo=UTC)
    )
    moments = []

    def at(clock):
        moments.append(clock())
        return handed.at(clock)

    reg = default_registry()
    state, alice = _ctx(settings, provider, "alice", reservations=at)
    ask = {"item_id": "sh-lubolang", "date": "2026-12-02", "time": "19:00", "party_size": 2}
    dry = reg.call("reservations.dry_run", {"request": ask}, state=state, ctx=alice).dry_run
    commit = {"reservation_id": dry.reservation.id, "token": dry.token, "idempotency_key": "k1", "consent": True}
    assert reg.call("reservations.confirm", commit, state=state, ctx=alice).outcome.reservation.status == "confirmed"
    assert [r.id for r in handed.reservations_of("alice")] == [dry.reservation.id]
    own = ReservationService.from_settings(settings, provider.region, clock=lambda: NOW)
    assert own.reservations_of("alice") == []
    assert moments == [NOW, NOW]  # each action's service on the request's moment, not the service's own clock


def test_a_full_slot_is_a_refusal_with_the_free_slots_nearby(settings, provider):
    reg = default_registry()
    for n in range(6):  # a restaurant slot takes 6 parties
        state, ctx = _ctx(settings, provider, f"guest{n}")
        ask = {"item_id": "sh-lubolang", "date": "2026-12-02", "time": "19:00", "party_size": 2}
        dry = reg.call("reservations.dry_run", {"request": ask}, state=state, ctx=ctx).dry_run
        commit = {"reservation_id": dry.reservation.id, "token": dry.token, "idempotency_key": "k", "consent": True}
        reg.call("reservations.confirm", commit, state=state, ctx=ctx)
    state, ctx = _ctx(settings, provider, "alice")
    out = reg.call("reservations.dry_run", {"request": ask}, state=state, ctx=ctx)
    assert out.dry_run is None and out.refusal.code == "SLOT_FULL"
    assert out.refusal.details["suggestions"][:2] == ["18:30", "19:30"]
    with pytest.raises(Exception, match="valid boolean"):  # consent is a strict boolean, never "yes"
        reg.call("reservations.confirm", {**commit, "consent": "yes"}, state=state, ctx=ctx)


# --- whole conversations ------------------------------------------------------------------------------
def test_book_confirm_list_cancel_confirm_list(agent):
    r = agent("帮我订绿波廊，明天晚上七点，两个人")
    assert r.result.status == "NEED_CONFIRMATION" and r.route.consent_required
    text = r.result.answer_text
    assert "绿波廊" in text and "2026年12月2日" in text and "19:00" in text and "2 人" in text
    assert "¥200" in text and "¥400" in text and "资料包" in text  # the price and its source
    assert "取消政策" in text and "未核实" in text
    assert booked(agent) == []  # nothing booked yet: the dry run is a quote, not a reservation

    ok = agent("确认预订", confirm=r.result.payload.dry_run["dry_run_id"])
    assert ok.result.status == "OK" and "已预订" in ok.result.answer_text
    listed = agent("我的预订有哪些")
    assert listed.route.route == "SYSTEM1_API" and listed.result.status == "OK"
    assert "绿波廊" in listed.result.answer_text and "已确认" in listed.result.answer_text
    [made] = agent.service.reservations_of("alice")
    assert [t.to_status for t in made.transitions] == ["pending", "confirmed"]  # made pending by the confirmation

    c = agent("取消绿波廊的预订")
    assert c.result.status == "NEED_CONFIRMATION" and c.result.payload.dry_run["action"] == "reservations.cancel"
    assert "将取消" in c.result.answer_text and "¥0" in c.result.answer_text
    assert booked(agent)[0][-1] == "confirmed"  # not cancelled before the confirmation
    done = agent("确认取消", confirm=c.result.payload.dry_run["dry_run_id"])
    assert done.result.status == "OK" and "已取消" in done.result.answer_text
    after = agent("show my bookings")
    assert "cancelled" in after.result.answer_text
    assert booked(agent) == [("sh-lubolang", TOMORROW, time(19, 0), 2, "cancelled")]


def test_a_double_confirmation_replays_and_books_once(agent):
    r = agent("book a table for 2 at 7pm tomorrow at 绿波廊")
    dr = r.result.payload.dry_run["dry_run_id"]
    first = agent("Confirm booking", confirm=dr)
    second = agent("Confirm booking", confirm=dr)
    assert first.result.status == second.result.status == "OK"
    assert "Booked" in first.result.answer_text and "already confirmed" in second.result.answer_text
    assert booked(agent) == [("sh-lubolang", TOMORROW, time(19, 0), 2, "confirmed")]
    assert time(19, 0) in agent.service.free_slots("sh-lubolang", TOMORROW)  # one of the 6 tables, not two
    taken = sum(r.status == "confirmed" for u in ("alice",) for r in agent.service.reservations_of(u))
    assert taken == 1


def test_bug_cancelling_the_museum_never_records_a_booking(agent):
    nothing = agent("取消上海博物馆的预订")  # nothing to cancel: no dry run, no reservation
    assert nothing.result.status == "NEED_MORE_INFO" and nothing.result.payload.dry_run is None
    assert booked(agent) == []
    r = agent("帮我预约上海博物馆，明天上午十点，两个人")
    agent("确认预订", confirm=r.result.payload.dry_run["dry_run_id"])
    c = agent("取消上海博物馆的预订")
    assert c.route.route == "SYSTEM2_REASONING" and c.result.payload.dry_run["action"] == "reservations.cancel"
    agent("确认取消", confirm=c.result.payload.dry_run["dry_run_id"])
    assert booked(agent) == [("sh-shanghai-museum", TOMORROW, time(10, 0), 2, "cancelled")]  # no new booking
    assert open_store(db_at(agent.settings.db_url)).list_commitments("alice") == []


def test_bug_listing_never_asks_what_to_book(agent):
    empty = agent("我的预订有哪些")
    assert empty.result.status == "OK" and empty.result.payload.dry_run is None
    assert "还没有任何预订" in empty.result.answer_text and "哪一家" not in empty.result.answer_text
    r = agent("帮我订老吉士，周六18:00，4位")
    agent("确认预订", confirm=r.result.payload.dry_run["dry_run_id"])
    listed = agent("我订了什么")
    assert "老吉士" in listed.result.answer_text and "2026年12月5日" in listed.result.answer_text
    assert "4 人" in listed.result.answer_text and "已确认" in listed.result.answer_text


def test_bug_a_restaurant_request_offers_restaurants_and_books_no_landmark(agent, provider):
    r = agent("帮我订一家餐厅，今晚19:00，两个人")
    assert r.result.status == "NEED_MORE_INFO" and r.result.payload.dry_run is None
    offered = r.result.payload.candidates
    assert len(offered) >= 3 and {c["category"] for c in offered} == {"restaurant"}
    assert all(c["name"] in r.result.answer_text for c in offered)
    assert "外滩" not in [c["name"] for c in offered] and booked(agent) == []
    # naming one of them books it with the time and party asked
    chosen = agent("帮我订绿波廊，今晚19:00，两个人")
    ev = chosen.result.payload.dry_run["evidence"][0]
    assert (ev["place"], ev["date"], ev["time"], ev["party_size"]) == ("绿波廊", "2026-12-01", "19:00", 2)


def test_what_is_missing_is_asked_never_guessed(agent):
    r = agent("帮我订绿波廊")
    assert r.result.status == "NEED_MORE_INFO" and r.result.payload.dry_run is None
    assert all(w in r.result.answer_text for w in ("日期", "时间", "人数"))
    en = agent("book Lu Bo Lang tomorrow for 2")
    assert en.result.status == "NEED_MORE_INFO" and "the time" in en.result.answer_text
    assert "the date" not in en.result.answer_text and booked(agent) == []
    landmark = agent("帮我订外滩，明天10:00，两个人")
    assert landmark.result.payload.dry_run is None and "外滩不接受预订" in landmark.result.answer_text


def test_a_bare_hour_is_read_by_the_venue_hours(agent):
    theatre = agent("帮我订上海大剧院，周六7点，两个人")  # shows run 14:00-20:00: 7 is 19:00
    assert theatre.result.payload.dry_run["evidence"][0]["time"] == "19:00"
    restaurant = agent("帮我订绿波廊，明天9点，两个人")  # neither 09:00 nor 21:00 is a slot: say so
    assert restaurant.result.payload.dry_run is None and "11:00 到 20:30" in restaurant.result.answer_text


def test_a_full_slot_names_the_free_slots_nearby(agent):
    for n in range(6):
        dry = agent.service.dry_run(
            f"guest{n}", ReservationRequest(item_id="sh-lubolang", date=TOMORROW, time=time(19, 0), party_size=2)
        )
        agent.service.confirm(f"guest{n}", dry.reservation.id, token=dry.token, idempotency_key="k", consent=True)
    r = agent("帮我订绿波廊，明天19:00，两个人")
    assert r.result.status == "NEED_MORE_INFO" and r.result.payload.dry_run is None
    assert "已满" in r.result.answer_text and "18:30" in r.result.answer_text and "19:30" in r.result.answer_text


def test_cancel_asks_which_one_when_several_match(agent):
    for when in ("明天", "周六"):
        r = agent(f"帮我订绿波廊，{when}19:00，两个人")
        agent("确认预订", confirm=r.result.payload.dry_run["dry_run_id"])
    which = agent("取消绿波廊的预订")
    assert which.result.status == "NEED_MORE_INFO" and which.result.payload.dry_run is None
    assert "2026年12月2日" in which.result.answer_text and "2026年12月5日" in which.result.answer_text
    one = agent("取消周六绿波廊的预订")
    assert one.result.payload.dry_run["evidence"][0]["date"] == "2026-12-05"


def test_nobody_sees_or_cancels_another_users_reservation(agent):
    r = agent("帮我订绿波廊，明天19:00，两个人")
    dr = r.result.payload.dry_run["dry_run_id"]
    stolen = agent("确认预订", user="mallory", confirm=dr)
    assert stolen.result.status == "FAILED" and stolen.result.error_code == "CONFIRMATION_INVALID"
    assert booked(agent) == []  # still only a quote
    agent("确认预订", confirm=dr)
    assert "还没有任何预订" in agent("我的预订", user="mallory").result.answer_text
    attempt = agent("取消绿波廊的预订", user="mallory")
    assert attempt.result.payload.dry_run is None and "没有找到" in attempt.result.answer_text
    assert booked(agent) == [("sh-lubolang", TOMORROW, time(19, 0), 2, "confirmed")]
    assert booked(agent, "mallory") == []


def test_replies_follow_the_users_language(agent):
    r = agent("Book a table at Lu Bo Lang for two tonight at 7:30pm")
    text = r.result.answer_text
    assert "I will reserve: Lu Bo Lang Restaurant, Tue 1 Dec 2026 at 19:30, 2 people" in text
    assert "$200 per person" not in text and "¥200 per person, ¥400 in all" in text
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in text)
