"""End-to-end: the real app in headless Chromium, with every non-local request blocked.

Starts ``streamlit run app.py`` on a free port, opens the route planner, loads a demo scenario,
plans it and checks that the comparison table and the drawn route (Leaflet's
``path.leaflet-interactive`` inside the st_folium iframe) are visible. Any request to a host
other than the app is aborted and recorded, so the map must draw from local files only.
A screenshot is saved to test-artifacts/route_planner.png.

Needs Debian's ``chromium`` (apt-get install chromium fonts-noto-cjk); the test fails without it.
"""

from __future__ import annotations

import os
import shutil
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.support.paths import ROOT as PROJECT_ROOT

pytestmark = [pytest.mark.ui, pytest.mark.browser]

ROOT = PROJECT_ROOT
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_LIMIT_S = 90  # an upper bound to give up waiting, not a performance assertion
UI_TIMEOUT_MS = 60_000
SCENARIO = os.environ.get("OMNI_BROWSER_SCENARIO", "sightseeing-day")


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).is_file(), "Chromium is required for the browser test: apt-get install -y chromium fonts-noto-cjk"
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class OfflinePage:
    page: object
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@contextmanager
def offline_page(base_url: str, *, width: int, height: int):
    """A Chromium page on the app in which every request to another host is blocked and recorded,
    and JavaScript errors are collected; the caller asserts on both after the block."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    expect.set_options(timeout=UI_TIMEOUT_MS)
    app_host = urlparse(base_url).netloc
    holder = OfflinePage(page=None)

    def only_local(route):
        url = route.request.url
        parsed = urlparse(url)
        if parsed.scheme in ("http", "https", "ws", "wss") and parsed.netloc != app_host:
            holder.blocked.append(url)
            route.abort()
        else:
            route.continue_()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
            context.route("**/*", only_local)
            holder.page = context.new_page()
            holder.page.set_default_timeout(UI_TIMEOUT_MS)
            holder.page.on("pageerror", lambda exc: holder.errors.append(str(exc)))
            yield holder
        finally:
            browser.close()


def test_route_planner_in_browser(streamlit_server):
    from playwright.sync_api import expect

    with offline_page(streamlit_server, width=1440, height=1400) as run:
        page = run.page
        # Opening the page URL first also checks that app.py's navigation takes over.
        page.goto(f"{streamlit_server}/route_planner?scenario={SCENARIO}&lang=en")
        load = page.locator(".st-key-load_scenario button")
        expect(load).to_be_visible()
        expect(page.locator(".st-key-region")).to_be_visible()  # the sidebar of app.py is there
        load.click()
        expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
        page.locator(".st-key-plan button").click()

        table = page.locator(".st-key-comparison_table")
        expect(table).to_be_visible()
        expect(table.locator('[data-testid="stDataFrame"]')).to_be_visible()
        expect(page.locator(".st-key-best_route_card")).to_be_visible()

        frame = page.frame_locator(".st-key-route_map_box iframe")
        route_line = frame.locator("path.leaflet-interactive").first
        expect(route_line).to_be_visible()
        pins = frame.locator(".omni-pin")
        expect(pins.first).to_be_visible()
        assert pins.count() >= 3  # start/stops/destination markers

        page.get_by_text("Result", exact=True).evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(ARTIFACTS / "route_planner.png"))
        table.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(ARTIFACTS / "route_planner_details.png"))

    assert not run.errors, f"JavaScript errors: {run.errors}"
    map_cdn = [u for u in run.blocked if "leaflet" in u or "jquery" in u or "bootstrap" in u or "fontawesome" in u]
    assert not map_cdn, f"the map asked for CDN assets: {map_cdn}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"


def test_current_location_from_browser_and_map(streamlit_server):
    """The start can come from the browser's position (granted) or from a click on the pick map."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=UI_TIMEOUT_MS)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 1440, "height": 1400},
                geolocation={"latitude": 31.2304, "longitude": 121.4737},
                permissions=["geolocation"],
            )
            app_host = urlparse(streamlit_server).netloc
            context.route(
                "**/*",
                lambda route: (
                    route.continue_() if urlparse(route.request.url).netloc in (app_host, "") else route.abort()
                ),
            )
            page = context.new_page()
            page.set_default_timeout(UI_TIMEOUT_MS)
            page.goto(f"{streamlit_server}/route_planner?lang=en")
            page.locator(".st-key-origin_mode").get_by_text("My current location").click()

            page.locator(".st-key-use_browser_location button").click()
            lon = page.locator(".st-key-origin_lon input")
            lat = page.locator(".st-key-origin_lat input")
            expect(lon).to_have_value("121.473700")
            expect(lat).to_have_value("31.230400")

            page.locator(".st-key-origin_pick_toggle").get_by_text("Pick the start").click()
            pick = page.frame_locator(".st-key-origin_pick_map_box iframe")
            expect(pick.locator(".omni-pin")).to_be_visible()  # the position taken from the browser
            pick.locator("#map_div").click(position={"x": 60, "y": 60})
            expect(lon).not_to_have_value("121.473700")
            picked_lon = float(lon.input_value())
            picked_lat = float(lat.input_value())
            assert picked_lon < 121.4737 and picked_lat > 31.2304  # up-left of the centre
        finally:
            browser.close()


@pytest.mark.parametrize(
    "path,marker",
    [
        ("route_planner", ".st-key-plan button"),
        ("itinerary", ".st-key-optimise button"),
        ("agent_console", ".st-key-agent_prompt"),
        ("half_day", ".st-key-hd_plan button"),
    ],
)
def test_each_page_url_opened_first_gets_the_app_frame(streamlit_server, path, marker):
    """Streamlit's legacy multipage mode (components/legacy_pages.py): the first visit after a server start opens a
    page URL directly; the page must still come with app.py's sidebar and navigation."""
    from playwright.sync_api import expect

    with offline_page(streamlit_server, width=1280, height=900) as run:
        page = run.page
        page.goto(f"{streamlit_server}/{path}")
        expect(page.locator(marker)).to_be_visible()
        expect(page.locator(".st-key-region")).to_be_visible()  # the sidebar drawn by app.py
        expect(page.locator('[data-testid="stSidebarNav"]')).to_be_visible()  # st.navigation's page links
        assert f"/{path}" in page.url
    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"
