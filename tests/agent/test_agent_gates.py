"""Consent and commit gates, and the browser executor against the local fixture site on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from core.agent.browse import BrowserExecutor, domain_allowed, extract_evidence, is_captcha
from core.models.agent import NextStep
from core.stores.trips import open_store
from tests.support.agent_packs import FIXED_NOW, PUBLIC_DNS, SITE_DIR, FixtureSite, agent_runner
from tests.support.db import db_at


@pytest.fixture(scope="module")
def site():
    with FixtureSite() as s:
        yield s


@pytest.fixture
def env(tmp_path):
    return agent_runner(tmp_path)


def test_browsing_without_consent_stops_at_need_consent(env, site):
    before = len(site.hits)
    r = env(f"官网查房 {site.url('availability.html')}")
    assert r.route.route == "SYSTEM2_WEBBROWSE"
    assert r.result.status == "NEED_CONSENT" and r.result.error_code == "BROWSER_CONSENT_REQUIRED"
    assert r.observability.browser_steps == 0 and len(site.hits) == before  # nothing was fetched
    assert r.explain.status_flow[-1] == "awaiting_consent"


def test_qa_official_site_room_check_asks_consent_first(env):
    r = env("官网查房")
    assert (r.route.route, r.result.status) == ("SYSTEM2_WEBBROWSE", "NEED_CONSENT")


@pytest.mark.browser  # headless Chromium behind the network guard
def test_consented_browse_extracts_structured_evidence(env, site):
    r = env(f"官网查房 {site.url('index.html')}", options={"allow_webbrowse": True})
    assert r.result.status == "OK", r.result.answer_text
    ev = [e for e in r.result.payload.evidence if e["type"] == "web"][0]
    assert ev["availability"] == "available" and ev["price"] == 1280 and ev["currency"] == "CNY"
    assert ev["cancellation_policy"].startswith("入住前 48 小时免费取消")
    assert r.observability.browser_steps == 2  # the index, then its availability link
    assert "1280" in r.result.answer_text


@pytest.mark.browser  # headless Chromium behind the network guard
def test_off_allowlist_link_is_never_fetched(env, site):
    env(f"官网查房 {site.url('index.html')}", options={"allow_webbrowse": True})
    assert not any(h.startswith("localhost") for h in site.hits)
    r = env(f"官网查房 http://localhost:{site.port}/offsite.html", options={"allow_webbrowse": True})
    assert r.result.status == "FAILED" and r.result.error_code == "BROWSER_DOMAIN_NOT_ALLOWED"
    assert not any(h.startswith("localhost") for h in site.hits)


@pytest.mark.browser  # headless Chromium behind the network guard
def test_captcha_blocks_with_takeover_or_downgrade(env, site):
    r = env(f"去官网查一下和平饭店有没有房 {site.url('captcha.html')}", options={"allow_webbrowse": True})
    assert r.result.status == "FAILED" and r.result.error_code == "BROWSER_BLOCKED_CAPTCHA"
    assert NextStep(code="takeover", args={"url": site.url("captcha.html")}) in r.result.next_steps
    assert NextStep(code="downgrade", args={"to": "knowledge_base"}) in r.result.next_steps
    assert r.observability.fallback_used is True
    assert r.result.payload.candidates[0]["name"] == "和平饭店" and r.result.payload.candidates[0]["live"] is False
    from core.agent.telemetry import read_events

    blocked = [e for e in read_events(env.settings.agent_event_log) if e["event"] == "webbrowse_blocked"]
    assert blocked[-1]["blocked_type"] == "CAPTCHA" and blocked[-1]["domain"] == "127.0.0.1"


@pytest.mark.browser  # headless Chromium behind the network guard
def test_browser_steps_are_counted_against_the_budget(env, site):
    r = env(f"官网查房 {site.url('index.html')}", options={"allow_webbrowse": True, "max_browser_steps": 1})
    assert r.result.status == "TIMEOUT" and r.result.error_code == "BUDGET_EXCEEDED"
    assert r.observability.browser_steps == 1


@pytest.mark.browser  # headless Chromium behind the network guard
def test_executor_units():
    assert domain_allowed("https://www.example.com/a", ["example.com"])
    assert not domain_allowed("https://evil-example.com/a", ["example.com"])
    assert not domain_allowed("file:///etc/passwd", ["example.com"])
    assert is_captcha((SITE_DIR / "captcha.html").read_text(encoding="utf-8"), 200)
    ev, _, _ = extract_evidence("u", (SITE_DIR / "soldout.html").read_text(encoding="utf-8"))
    assert (ev.availability, ev.price, ev.cancellation_policy) == ("unavailable", 880.0, "non-refundable rate.")
    sent = []
    ex = BrowserExecutor(
        allowlist=["example.com"],
        resolve=PUBLIC_DNS,  # the mocked network's DNS: example.com at a public address
        client=httpx.Client(
            transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, text="<p>有房 ¥300</p>"))
        ),
    )
    out = ex.run("https://example.com/x", max_steps=3)
    assert out.evidence[0].price == 300 and out.steps == 1 and len(sent) == 1
    out = ex.run("https://other.org/x", max_steps=3)
    assert out.blocked.blocked_type == "NOT_ALLOWLISTED" and len(sent) == 1


# --- the commit gate -------------------------------------------------------------------------------
def _save_plan(env, **kw):
    trip_id = env("加上外滩", **kw).result.payload.trip["trip_id"]
    r = env("规划1天上海行程，包括豫园，并保存到我的行程", trip_id=trip_id, **kw)
    return trip_id, r


def test_commit_needs_a_dry_run_then_an_explicit_confirmation(env):
    trip_id, r = _save_plan(env)
    assert r.result.status == "NEED_CONFIRMATION", r.result.answer_text
    dr = r.result.payload.dry_run
    assert dr["action"] == "trip.persist_plan" and dr["dry_run_id"].startswith("dr-")
    ev = dr["evidence"][0]
    assert {"price_total_per_person", "cancellation_policy", "availability"} <= set(ev)
    store = open_store(db_at(env.settings.db_url))
    assert [n.name for n in store.get_trip(trip_id, user_id="alice").nodes] == ["外滩"]  # nothing committed yet
    ok = env("确认", trip_id=trip_id, options={"confirm_dry_run_id": dr["dry_run_id"]})
    assert ok.result.status == "OK", ok.result.answer_text
    assert len(store.get_trip(trip_id, user_id="alice").nodes) == ev["nodes"] > 1
    again = env("确认", trip_id=trip_id, options={"confirm_dry_run_id": dr["dry_run_id"]})
    assert again.result.status == "FAILED" and again.result.error_code == "CONFIRMATION_INVALID"  # single use


def test_confirmation_cannot_be_forged_or_borrowed(env):
    trip_id, r = _save_plan(env)
    dr_id = r.result.payload.dry_run["dry_run_id"]
    for kw in (
        {"options": {"confirm_dry_run_id": "dr-" + "0" * 32}},
        {"user_id": "mallory", "options": {"confirm_dry_run_id": dr_id}},
        {"options": {"confirm_dry_run_id": dr_id, "dry_run": True}},
    ):
        bad = env("确认", trip_id=trip_id, **kw)
        assert bad.result.status == "FAILED" and bad.result.error_code == "CONFIRMATION_INVALID"
    assert [n.name for n in open_store(db_at(env.settings.db_url)).get_trip(trip_id, user_id="alice").nodes] == ["外滩"]
    assert env("确认", trip_id=trip_id, options={"confirm_dry_run_id": dr_id}).result.status == "OK"


def test_confirmation_expires(env):
    trip_id, r = _save_plan(env)
    dr_id = r.result.payload.dry_run["dry_run_id"]
    store = open_store(db_at(env.settings.db_url))
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE dry_runs SET expires_at = 0 WHERE dry_run_id = ?", (dr_id,))
    bad = env("确认", trip_id=trip_id, options={"confirm_dry_run_id": dr_id})
    assert bad.result.status == "FAILED" and "过期" in bad.result.answer_text


def test_booking_is_never_silent_and_goes_through_the_reservation_service(env):
    from core.reservations.service import ReservationService

    asked = env("帮我订和平饭店")  # no date, time or party: asked for, never guessed
    assert asked.route.consent_required is True and asked.result.status == "NEED_MORE_INFO"
    assert asked.result.payload.dry_run is None and "日期" in asked.result.answer_text
    r = env("帮我订和平饭店，明天19:00，两个人")
    assert r.result.status == "NEED_CONFIRMATION", r.result.answer_text
    ev = r.result.payload.dry_run["evidence"][0]
    assert (ev["place"], ev["date"], ev["time"], ev["party_size"]) == ("和平饭店", "2025-06-21", "19:00", 2)
    assert (ev["price_per_person"], ev["total"]) == (1500, 3000)
    ok = env("确认预订", options={"confirm_dry_run_id": r.result.payload.dry_run["dry_run_id"]})
    assert ok.result.status == "OK" and "已预订" in ok.result.answer_text
    service = ReservationService.from_settings(env.settings, env.provider.region, clock=lambda: FIXED_NOW)
    assert [(x.item_name, x.status) for x in service.reservations_of("alice")] == [("和平饭店", "confirmed")]
    assert open_store(db_at(env.settings.db_url)).list_commitments("alice") == []  # a booking, not a note to complete


def test_a_refund_is_never_silent_and_commits_only_as_a_record(env):
    r = env("和平饭店的房费帮我退款")
    assert r.route.consent_required is True and r.result.status == "NEED_CONFIRMATION"
    ev = r.result.payload.dry_run["evidence"][0]
    assert ev["place"] == "和平饭店" and ev["type"] == "refund" and ev["availability"] == "not_verified"
    ok = env("确认", options={"confirm_dry_run_id": r.result.payload.dry_run["dry_run_id"]})
    assert ok.result.status == "OK" and "没有实际下单" in ok.result.answer_text
    assert "链接" not in ok.result.answer_text
    rows = open_store(db_at(env.settings.db_url)).list_commitments("alice")
    assert rows[-1]["status"] == "recorded_for_manual_completion"
