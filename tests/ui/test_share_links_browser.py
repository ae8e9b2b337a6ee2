"""A shared route link in Chromium (issue 12 §4): opened, it shows the plan without a click; reloaded, the plan is
still there (a new session on the same URL restores it from ``?route=``). Neither the link to copy nor the address
bar carries the session's identity (a cookie: tests/ui/test_identity_browser.py). Every non-local request is
blocked."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from core.models.route import RoutePlanRequest
from core.share import route_from_token, route_token
from tests.support.paths import ROOT
from tests.ui.test_browser import offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]


def test_a_route_link_plans_on_open_and_a_reload_keeps_the_result(streamlit_server):
    from playwright.sync_api import expect

    scenario = json.loads((ROOT / "data" / "scenarios" / "walking-bund.json").read_text(encoding="utf-8"))
    token = route_token(RoutePlanRequest.model_validate(scenario["request"]), region=scenario["region"])
    with offline_page(streamlit_server, width=1280, height=1200) as run:
        page = run.page
        page.goto(f"{streamlit_server}/route_planner?lang=en&route={token}")
        card = page.locator(".st-key-best_route_card")
        expect(card).to_be_visible()  # planned on open: nobody clicked Plan
        link = page.locator(".st-key-route_share_link")
        expect(link).to_contain_text("Copy link")
        # The link to copy: this page, the language and the request the form made (the form keeps no task name).
        field = link.locator("input")
        offered = field.input_value().strip()
        link.get_by_role("button", name="Copy link").click()  # the button selects the whole address (and copies it)
        assert field.evaluate("f => f.value.slice(f.selectionStart, f.selectionEnd)") == field.input_value()
        assert offered.startswith(f"{streamlit_server}/route_planner?")
        query = parse_qs(urlparse(offered).query)
        assert set(query) == {"lang", "route"}  # never the session's id
        kept = query["route"][0]
        assert [s.address for s in route_from_token(kept)[0].stops] == [
            s.address for s in route_from_token(token)[0].stops
        ]
        page.wait_for_url(lambda url: f"route={kept}" in url)  # the URL a reload opens
        assert set(parse_qs(urlparse(page.url).query)) == {"lang", "route"}  # the identity is a cookie, not in it
        order, totals = card.locator("strong").first.inner_text(), card.locator("h3").first.inner_text()
        assert " → " in order and " km · " in totals
        # the restored plan's HTML page is made when its button is pressed (a deferred download): it arrives
        with page.expect_download() as download:
            page.locator(".st-key-dl_html button").click()
        assert download.value.suggested_filename.endswith(".html")
        assert Path(download.value.path()).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

        page.reload()
        again = page.locator(".st-key-best_route_card")
        expect(again).to_be_visible()  # a new session on the same URL: restored, nobody clicked Plan
        expect(again.locator("strong").first).to_have_text(order)
        expect(again.locator("h3").first).to_have_text(totals)
        expect(page.locator(".st-key-destination_address input")).to_have_value(
            scenario["request"]["destination_address"]
        )
    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"
