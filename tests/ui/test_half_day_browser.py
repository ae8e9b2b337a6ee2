"""End-to-end in headless Chromium: the half-day page plans a goal (stage 1 runs its registered mock through
OMNI_HALFDAY_MOCK_TOOLS, since the server is its own process: tomorrow 13:00–18:00, two adults, museums and local
food), a bookable stop of a plan is reserved through the gates (check = dry run → consent → confirmation dialog →
receipt), and My reservations cancels it (dry run → consent → confirmation). Every request to another host is blocked and recorded, as in
tests/ui/test_browser.py. Screenshots: test-artifacts/half_day*.png.
"""

from __future__ import annotations

import json

import pytest

from tests.support.streamlit_server import open_expander
from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]


@pytest.fixture
def halfday_server(app_servers, tmp_path):
    """The app with its own database, one dashboard user and stage 1's mock (set before the server starts)."""
    return app_servers.serve(
        {
            "OMNI_DB_URL": f"sqlite:///{tmp_path / 'halfday-browser.db'}",
            "OMNI_CACHE_DIR": str(tmp_path / "cache"),
            "OMNI_DASHBOARD_USER": "browser-tester",
            "OMNI_HALFDAY_MOCK_TOOLS": json.dumps(["decompose_goal"]),
        }
    )


def test_half_day_plan_reserve_and_cancel_in_browser(halfday_server):
    from playwright.sync_api import expect

    with offline_page(halfday_server, width=1600, height=1500) as run:
        page = run.page
        page.goto(f"{halfday_server}/half_day?lang=zh")  # the page URL first: app.py's frame must take over
        expect(page.locator(".st-key-region")).to_be_visible()
        page.locator(".st-key-hd_example_kids button").click()
        expect(page.locator(".st-key-hd_goal textarea")).to_have_value("明天下午带6岁的孩子去博物馆,再吃点本帮菜")
        page.locator(".st-key-hd_plan button").click()

        # the stages were shown, then the cards side by side, each with its chart and its map
        expect(page.get_by_text("规划完成").first).to_be_visible()
        expect(page.get_by_text("详情", exact=True).first).to_be_visible()  # drawn after the last card
        cards = page.locator('[class*="st-key-hd_card_"]')
        assert 2 <= cards.count() <= 3
        expect(page.get_by_text("方案 1").first).to_be_visible()
        first = cards.first
        expect(first.locator('[data-testid="stVegaLiteChart"], .vega-embed').first).to_be_visible()
        map_frame = first.frame_locator('[class*="st-key-hd_map_"] iframe')
        expect(map_frame.locator(".omni-pin").first).to_be_visible()
        expect(map_frame.locator("path.leaflet-interactive").first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "half_day.png"))

        # reserve a bookable stop of a card (the first that has one): check (dry run), consent, the dialog, the receipt
        offer = cards.locator('[data-testid="stExpander"]').filter(has_text="预订").first
        open_expander(page, offer.locator("summary"))
        offer.locator('[class*="_check"] button').click()
        book = offer.locator('[class*="_book"] button')
        expect(book).to_be_visible()
        expect(book).to_be_disabled()  # no consent yet
        offer.locator('[class*="_consent"] label').click()
        expect(book).to_be_enabled()
        book.click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        dialog.get_by_role("button", name="是的，预订").click()
        receipt = offer.get_by_text("预订成功").first
        expect(receipt).to_be_visible()
        receipt.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(ARTIFACTS / "half_day_receipt.png"))

        # My reservations: confirmed, then cancelled through its own dry run and consent
        page.get_by_role("tab", name="我的预订").click()
        mine = page.locator('[class*="st-key-hd_mine_row_"]').first
        expect(mine).to_contain_text("已确认")
        mine.locator('[class*="st-key-hd_mine_cancel_r-"] button').click()
        expect(mine).to_contain_text("现在取消")
        mine.locator('[class*="st-key-hd_mine_consent_"] label').click()
        mine.locator('[class*="st-key-hd_mine_cancel_confirm_"] button').click()
        expect(mine).to_contain_text("已取消")
        mine.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(ARTIFACTS / "half_day_cancelled.png"))

    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"
