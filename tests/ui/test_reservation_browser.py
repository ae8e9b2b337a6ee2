"""End-to-end in headless Chromium: on the itinerary page, plan a demo trip, reserve a bookable stop (check,
consent, confirm in the dialog), read the receipt, then cancel it from "My reservations". The server runs on its
own SQLite file as one named dashboard user, and the test reads the reservation back through the service."""

from __future__ import annotations

import json

import pytest

from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import item_for
from core.reservations.service import ReservationService
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at
from tests.support.paths import ROOT
from tests.support.streamlit_server import open_expander
from tests.support.ui_flows import settle
from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

USER = "browser-tester"
PACK = load_region("shanghai")
DEMO_TRIPS = [json.loads(f.read_text(encoding="utf-8")) for f in sorted((ROOT / "data" / "trips").glob("*.json"))]


@pytest.fixture
def served(tmp_path, app_servers):
    """The app on its own database, as one dashboard user, and the reservation service on the same database."""
    url = f"sqlite:///{tmp_path / 'browser.db'}"
    base = app_servers.serve(
        {"OMNI_DB_URL": url, "OMNI_CACHE_DIR": str(tmp_path / "cache"), "OMNI_DASHBOARD_USER": USER}
    )
    return base, ReservationService(pack=PACK, engine=store.engine_for(db_at(url)), clock=lambda: SUITE_NOW)


def test_itinerary_reserve_confirm_receipt_and_cancel_in_browser(served):
    from playwright.sync_api import expect

    base, service = served
    with offline_page(base, width=1440, height=1600) as run:
        page = run.page
        page.goto(f"{base}/itinerary?lang=en")  # the English words below
        page.locator(".st-key-trip_load button").click()
        loaded = page.get_by_text("Loaded demo trip")
        expect(loaded).to_be_visible()
        [trip] = [t for t in DEMO_TRIPS if f"Loaded demo trip {t['trip_name']}" in loaded.inner_text()]
        settle(page)  # until the run ends, the fragment's old Optimise button stands beside the new one
        page.locator(".st-key-optimise button").click()

        reserve = page.locator("[class*='st-key-it_res_open_'] button").first
        expect(reserve).to_be_visible()
        reserve.click()
        panel = page.locator("[class*='st-key-it_res_panel_']")
        expect(panel).to_be_visible()
        panel.locator("[class*='_check'] button").click()
        summary = panel.locator("[class*='_dry_box']")
        expect(summary).to_contain_text("You are about to reserve")
        book = panel.locator("[class*='_book'] button")
        expect(book).to_be_disabled()  # no consent yet
        panel.locator("[class*='_consent'] label").click()
        expect(book).to_be_enabled()
        book.click()

        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("Reserve")
        dialog.locator("[class*='_dialog_yes'] button").click()
        receipt = page.locator("[class*='_receipt_box']")
        expect(receipt).to_contain_text("Status: confirmed")
        expect(dialog).to_have_count(0)

        [mine] = service.reservations_of(USER)
        assert mine.item_id in {p.get("place_id") for p in trip["places"]}  # a stop of the planned trip
        assert mine.status == "confirmed" and mine.item_name == item_for(PACK, mine.item_id).name
        expect(receipt).to_contain_text(mine.id)
        shown = PACK.place_by_id(mine.item_id).name_en  # the English page names the venue in English
        expect(receipt).to_contain_text(
            f"{shown}, {mine.date:%a} {mine.date.day} {mine.date:%b %Y} at {mine.time:%H:%M}"
        )
        receipt.evaluate("e => e.scrollIntoView({block: 'center'})")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "reservation_receipt.png"))

        open_expander(page, page.locator(".st-key-it_my_reservations summary"))
        row = page.locator(f".st-key-it_my_row_{mine.id}")
        expect(row).to_contain_text("Status: confirmed")
        row.locator(f".st-key-it_my_cancel_{mine.id} button").click()
        expect(row).to_contain_text("Cancelling now")
        confirm = row.locator(f".st-key-it_my_cancel_confirm_{mine.id} button")
        expect(confirm).to_be_disabled()
        row.locator(f".st-key-it_my_consent_{mine.id} label").click()
        expect(confirm).to_be_enabled()
        confirm.click()
        expect(row).to_contain_text("Status: cancelled")
        assert service.get(USER, mine.id).status == "cancelled"

    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"
