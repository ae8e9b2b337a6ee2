"""The dashboard's identity in Chromium (components/identity.py): kept in a cookie, never in the address bar.

One browser's first visit gets a cookie (``omni_sid``: Path=/, SameSite=Strict, long-lived) and no ``sid`` in the
URL; a reservation booked for that identity is listed again after a reload; an old-style address carrying someone
else's ``?sid=`` changes nothing (the cookie wins, ``sid`` leaves the URL); another browser gets another identity
and does not see the reservation. The reservation is booked through the service on the server's own database."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest

from core.models.reservations import ReservationRequest
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import item_for
from core.reservations.service import ReservationService
from tests.support.clock import SUITE_NOW, days_after
from tests.support.db import db_at
from tests.support.streamlit_server import open_expander
from tests.ui.test_browser import offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

PACK = load_region("shanghai")
VENUE = "sh-lao-jesse"  # a bookable restaurant of the pack
COOKIE = "omni_sid"
STRANGER = "0123456789ab"  # a sid copied from someone else's old-style address
#: the element and its ancestors below the page's main column that are displayed (each would take a gap there)
SHOWN_AROUND = """e => {
  const shown = [];
  for (; e && e.parentElement && e.parentElement.dataset.testid !== "stMainBlockContainer"; e = e.parentElement) {
    if (getComputedStyle(e).display !== "none") shown.push(e.className);
  }
  return shown;
}"""


def book_for(user: str, db_url: str) -> str:
    """A confirmed reservation for ``user`` in the database the server uses (tests/ui/conftest.py), by the
    service's own gates; its id."""
    service = ReservationService(pack=PACK, engine=store.engine_for(db_at(db_url)), clock=lambda: SUITE_NOW)
    item = item_for(PACK, VENUE)
    assert item is not None
    day = days_after(7, ZoneInfo(PACK.timezone))
    dry = service.dry_run(user, ReservationRequest(item_id=VENUE, date=day, time=item.slots()[0], party_size=2))
    service.confirm(user, dry.reservation.id, token=dry.token, idempotency_key="identity-browser", consent=True)
    assert [r.status for r in service.reservations_of(user)] == ["confirmed"]
    return dry.reservation.id


def identity_cookie(page) -> dict:
    """The identity cookie, once the page's script has written it."""
    page.wait_for_function(f"document.cookie.includes('{COOKIE}=')")
    [cookie] = [c for c in page.context.cookies() if c["name"] == COOKIE]
    return cookie


def keep_local(route, base: str, blocked: list[str]) -> None:
    """Requests to the app's own host go on; any other is blocked and recorded (as ``offline_page`` does)."""
    url = urlparse(route.request.url)
    if url.scheme in ("http", "https", "ws", "wss") and url.netloc != urlparse(base).netloc:
        blocked.append(route.request.url)
        route.abort()
    else:
        route.continue_()


def open_mine(page):
    """The route planner's "My reservations", opened."""
    section = page.locator(".st-key-rp_my_reservations")
    open_expander(page, section.locator("summary"))
    return section


def test_the_identity_is_a_cookie_that_a_reload_keeps_and_another_browser_does_not_share(
    streamlit_server, shared_app_env
):
    from playwright.sync_api import expect

    page_url = f"{streamlit_server}/route_planner?lang=en"
    with offline_page(streamlit_server, width=1280, height=900) as first:
        page = first.page
        page.goto(page_url)
        cookie = identity_cookie(page)
        sid = cookie["value"]
        assert re.fullmatch("[0-9a-f]{12}", sid), sid
        assert (cookie["path"], cookie["sameSite"], cookie["httpOnly"]) == ("/", "Strict", False)
        # not a session cookie: it outlives the browser by most of a year (the browser's clock, not the product's)
        assert cookie["expires"] > page.evaluate("Date.now()") / 1000 + timedelta(days=300).total_seconds()
        assert "sid" not in parse_qs(urlparse(page.url).query)
        box = page.locator(".st-key-omni_identity")  # the script's box: there, and taking no room (no gap either)
        expect(box).to_have_count(1)
        assert box.evaluate(SHOWN_AROUND) == []
        booked = book_for(f"dashboard-{sid}", shared_app_env["OMNI_DB_URL"])

        page.reload()  # a new session: the identity comes back from the cookie
        expect(open_mine(page).locator(f".st-key-rp_my_row_{booked}")).to_contain_text("Status: confirmed")

        page.goto(f"{page_url}&sid={STRANGER}")  # someone else's old-style address: the cookie wins
        page.wait_for_url(lambda url: "sid=" not in url)
        expect(open_mine(page).locator(f".st-key-rp_my_row_{booked}")).to_be_visible()
        assert identity_cookie(page)["value"] == sid

        # another browser: a second context of the same Chromium (no cookie shared), requests kept local the same way
        other = page.context.browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        blocked: list[str] = []
        other.route("**/*", lambda route: keep_local(route, streamlit_server, blocked))
        elsewhere = other.new_page()
        elsewhere.goto(page_url)
        assert identity_cookie(elsewhere)["value"] not in (sid, STRANGER)
        mine = open_mine(elsewhere)
        expect(mine).to_contain_text("No reservations yet.")
        expect(mine.locator(f".st-key-rp_my_row_{booked}")).to_have_count(0)
        assert not blocked, f"requests left the machine: {blocked}"
    assert not first.errors, f"JavaScript errors: {first.errors}"
    assert not first.blocked, f"requests left the machine: {first.blocked}"
