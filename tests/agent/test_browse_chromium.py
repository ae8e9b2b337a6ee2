"""The browse executor in headless Chromium: every request re-checked after DNS resolution and after each redirect
(hops logged), the demo venue sites read from their structured markup (prices equal to the demo data file), a
screenshot per page, the captcha page, and consent asked once per conversation, naming the allowed sites."""

from __future__ import annotations

import hashlib
import json
import socket
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.agent.browse import BrowserExecutor
from core.app import agent as agent_app
from core.app.context import AppServices
from core.config import PROJECT_ROOT, Settings
from core.venues.serve import VenueServer
from tests.support.agent_packs import FixtureSite

pytestmark = pytest.mark.browser

DEMO_DATA = json.loads((PROJECT_ROOT / "data" / "venues" / "shanghai.json").read_text(encoding="utf-8"))
PEACE = next(h for h in DEMO_DATA["hotels"] if h["slug"] == "peace-hotel")
GRAND = next(t for t in DEMO_DATA["theatres"] if t["slug"] == "grand-theatre")
LUBOLANG = next(r for r in DEMO_DATA["restaurants"] if r["slug"] == "lubolang")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def site():
    with FixtureSite() as s:
        yield s


@pytest.fixture(scope="module")
def venues():
    server = VenueServer(PROJECT_ROOT / "data" / "venues").start()
    yield server
    server.stop()


# --- the network guard ------------------------------------------------------------------------------
def test_a_listed_name_that_resolves_to_a_loopback_address_is_refused_before_any_request(site):
    ex = BrowserExecutor(allowlist=["localhost:*"])  # the name is listed; the loopback address it resolves to is not
    before = len(site.hits)
    out = ex.run(f"http://localhost:{site.port}/index.html", max_steps=3)
    assert out.blocked is not None and out.blocked.blocked_type == "NOT_ALLOWLISTED"
    assert "forbidden address" in (out.blocked.detail or "")
    refused = [h for h in out.hops if h.outcome == "refused"]
    assert refused and "127.0.0.1" in refused[0].addresses
    assert len(site.hits) == before and out.evidence == []


def test_a_redirect_to_a_host_off_the_list_is_refused_and_logged(site):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{site.port}"])
    target = f"http://localhost:{site.port}/offsite.html"
    out = ex.run(site.url(f"redirect?to={target}"), max_steps=5)
    assert out.blocked is not None and out.blocked.blocked_type == "NOT_ALLOWLISTED"
    assert [(h.outcome, h.detail) for h in out.hops] == [
        ("redirect", target),
        ("refused", "not on the allowlist"),
    ]
    assert out.hops[1].url == target
    assert not any(h.startswith("localhost") for h in site.hits)


def test_a_redirect_to_a_listed_name_is_checked_again_after_dns(site):
    # localhost is listed, but it resolves to 127.0.0.1, listed for the fixture's port only: another port is refused
    other = _free_port()
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{site.port}", "localhost:*"])
    out = ex.run(site.url(f"redirect?to=http://localhost:{other}/internal-admin"), max_steps=5)
    assert out.blocked is not None and out.blocked.blocked_type == "NOT_ALLOWLISTED"
    last = out.hops[-1]
    assert (last.outcome, last.detail) == ("refused", "resolves to a forbidden address")
    assert last.url == f"http://localhost:{other}/internal-admin" and "127.0.0.1" in last.addresses


def test_a_page_s_own_requests_elsewhere_are_refused_while_the_page_is_read(site):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{site.port}"])
    out = ex.run(site.url("subresources.html"), max_steps=3, follow_availability=False)
    assert out.blocked is None and out.steps == 1
    assert out.evidence[0].price == 640 and out.evidence[0].availability == "available"
    refused = {h.url for h in out.hops if h.outcome == "refused"}
    assert f"http://localhost:{site.port}/offsite.html?as=image" in refused
    assert f"http://localhost:{site.port}/offsite.html?as=style" in refused
    assert not any(h.startswith("localhost") for h in site.hits)


# --- the demo venue sites ----------------------------------------------------------------------------
def _hotel(venues: VenueServer, tmp_path: Path, day: str):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{venues.port}"], evidence_dir=tmp_path / "shots")
    return ex.run(f"{venues.base_url}/hotels/peace-hotel?date={day}", max_steps=3)


def test_the_demo_hotel_s_price_for_a_date_is_the_data_file_s(venues, tmp_path):
    out = _hotel(venues, tmp_path, "2026-12-24")  # a date with its own rates in the data file
    assert out.blocked is None, out.blocked
    ev = out.evidence[0]
    king = next(r for r in PEACE["rooms"] if r["code"] == "king")
    offer = next(o for o in ev.offers if o.alternate_name == king["name"]["en"])
    assert (offer.price, offer.currency, offer.date) == (PEACE["dates"]["2026-12-24"]["king"], "CNY", "2026-12-24")
    assert offer.availability == "available" and ev.source == "demo-venue-site"
    shot = Path(ev.screenshot_path)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert hashlib.sha256(shot.read_bytes()).hexdigest() == ev.screenshot_sha256


def test_the_demo_hotel_s_ordinary_nights_and_sold_out_rooms(venues, tmp_path):
    tuesday, new_year = _hotel(venues, tmp_path, "2026-12-22"), _hotel(venues, tmp_path, "2026-12-31")
    assert date(2026, 12, 22).weekday() == 1 and "2026-12-22" not in PEACE["dates"]
    by_room = {o.alternate_name: o for o in tuesday.evidence[0].offers}
    for room in PEACE["rooms"]:
        assert by_room[room["name"]["en"]].price == room["weekday"]
    suite = next(o for o in new_year.evidence[0].offers if o.alternate_name == "Peace Suite")
    assert PEACE["dates"]["2026-12-31"]["suite"] is None
    assert (suite.availability, suite.price) == ("unavailable", None)


def test_the_demo_theatre_s_seats_left_come_from_the_data_file(venues, tmp_path):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{venues.port}"], evidence_dir=tmp_path)
    out = ex.run(f"{venues.base_url}/theatres/grand-theatre?date=2026-12-24", max_steps=3)
    show = GRAND["shows"][0]
    offers = [o for o in out.evidence[0].offers if o.date == f"{show['date']}T{show['time']}"]
    for seat in GRAND["seat_classes"]:
        offer = next(o for o in offers if o.alternate_name is None and o.name == seat["name"]["zh"])
        left = seat["seats"] - show["sold"].get(seat["code"], 0)
        assert (offer.price, offer.left) == (seat["price"], left)
        assert offer.availability == ("available" if left else "unavailable")


def test_the_demo_restaurant_s_menu_and_tables_come_from_the_data_file(venues, tmp_path):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{venues.port}"], evidence_dir=tmp_path)
    out = ex.run(f"{venues.base_url}/restaurants/lubolang?date=2026-12-24", max_steps=3)
    offers = out.evidence[0].offers
    dishes = {o.item: o.price for o in offers if o.item != LUBOLANG["name"]["zh"]}
    assert dishes == {d["name"]["zh"]: d["price"] for d in LUBOLANG["menu"]}
    tables = {o.date: o for o in offers if o.date and o.date.startswith("2026-12-24")}
    booked = LUBOLANG["booked"]["2026-12-24"]
    for slot in LUBOLANG["slots"]:
        left = LUBOLANG["tables_per_slot"] - booked.get(slot, 0)
        table = tables[f"2026-12-24T{slot}"]
        assert (table.left, table.availability) == (left, "available" if left else "unavailable")


def test_the_captcha_page_stops_the_visit(venues, tmp_path):
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{venues.port}"], evidence_dir=tmp_path)
    out = ex.run(f"{venues.base_url}/hotels/park-hotel?date=2026-12-24", max_steps=3)
    assert out.blocked is not None and out.blocked.blocked_type == "CAPTCHA"
    assert out.blocked.takeover_url == f"{venues.base_url}/hotels/park-hotel?date=2026-12-24"
    assert out.evidence == []


# --- through the agent: consent asked once, naming the sites; then a price with its evidence ----------------
QUESTIONS = {
    "en": ("check the hotel's website for room prices on December 24", "Fairmont Peace Hotel", "demo figures"),
    "zh": ("帮我看看酒店官网12月24日的房价", "和平饭店", "演示数据"),
}


@pytest.fixture
def services(venues, tmp_path):
    settings = Settings(
        venues_port=venues.port,
        venues_serve=True,  # the venue server runs (the fixture's): the default allowlist names it
        db_url=f"sqlite:///{tmp_path / 'agent.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        browse_evidence_dir=tmp_path / "shots",
    )
    return AppServices(settings)


def _ask(services: AppServices, lang: str, message: str, *, user: str = "alice", conversation: str, **options):
    ctx = services.context(
        user=user, lang=lang, clock=lambda: datetime(2026, 12, 20, 10, tzinfo=ZoneInfo("Asia/Shanghai"))
    )
    return agent_app.ask(
        ctx, {"message": message, "conversation_context": {"conversation_id": conversation}, "options": options}
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_agent_asks_once_naming_the_sites_then_answers_with_the_demo_price(services, lang):
    message, hotel, demo_words = QUESTIONS[lang]
    asked = _ask(services, lang, message, conversation=f"c-{lang}")
    assert (asked.route.route, asked.result.status) == ("SYSTEM2_WEBBROWSE", "NEED_CONSENT")
    assert hotel in asked.result.answer_text  # the allowed sites, named
    assert f"127.0.0.1:{services.settings.venues_port}" not in asked.result.answer_text  # by name, not address
    assert asked.observability.browser_steps == 0

    found = _ask(services, lang, message, conversation=f"c-{lang}", allow_webbrowse=True)
    assert found.result.status == "OK", found.result.answer_text
    ev = next(e for e in found.result.payload.evidence if e["type"] == "web")
    price = PEACE["dates"]["2026-12-24"]["king"]
    king = next(o for o in ev["offers"] if o["alternate_name"] == "Fairmont King Room")
    assert (king["price"], king["date"], ev["source"]) == (price, "2026-12-24", "demo-venue-site")
    assert Path(ev["screenshot_path"]).is_file()
    assert f"¥{price:g}" in found.result.answer_text and demo_words in found.result.answer_text

    again = _ask(services, lang, message, conversation=f"c-{lang}")  # no option: the consent is remembered
    assert again.result.status == "OK" and again.result.error_code is None
    assert asked.explain.status_flow[0] == "awaiting_consent"
    assert "awaiting_consent" not in again.explain.status_flow  # nothing was awaited: it browsed at once
    assert again.explain.status_flow[0] == "browsing"


def test_a_consent_holds_for_its_own_user_and_conversation_only(services):
    message = QUESTIONS["en"][0]
    assert _ask(services, "en", message, conversation="c-1", allow_webbrowse=True).result.status == "OK"
    assert _ask(services, "en", message, conversation="c-2").result.status == "NEED_CONSENT"
    assert _ask(services, "en", message, conversation="c-1", user="mallory").result.status == "NEED_CONSENT"
    assert _ask(services, "en", message, conversation="c-1").result.status == "OK"


def test_a_page_s_scripts_never_run_so_they_cannot_reach_past_the_guard_or_hang_the_browser(site):
    """The facts come from the page's markup; its script (a fetch, a rewrite of the offer, an endless loop) is not
    run: the offer read is the markup's, nothing else was asked, and the next visit is served at once."""
    ex = BrowserExecutor(allowlist=[f"127.0.0.1:{site.port}"])
    before = len(site.hits)
    out = ex.run(site.url("scripted.html"), max_steps=2, follow_availability=False)
    assert out.blocked is None and out.evidence[0].price == 640
    assert [h for h in site.hits[before:] if "offsite" in h] == []
    again = ex.run(site.url("subresources.html"), max_steps=2, follow_availability=False)
    assert again.blocked is None and again.evidence[0].price == 640
