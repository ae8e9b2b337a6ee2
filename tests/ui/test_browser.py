"""End-to-end: the real app in headless Chromium, with every non-local request blocked, and the helpers the other
browser tests share (``offline_page``, ``chromium_path``, the Chromium flags).

The route planner's main flow (a demo scenario planned, its route drawn from local files only) and each page's URL
opened first are walked by the sweep (tests/ui/test_sweep_browser.py); here, the start taken from the browser's
position and from a click on the pick map.

Needs Debian's ``chromium`` (apt-get install chromium fonts-noto-cjk); the test fails without it.
"""

from __future__ import annotations

import socket
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlparse

import pytest

from tests.support.chromium import SHARED_CHROMIUM
from tests.support.paths import ROOT as PROJECT_ROOT
from tests.support.ui_flows import settle

pytestmark = [pytest.mark.ui, pytest.mark.browser]

ROOT = PROJECT_ROOT
ARTIFACTS = ROOT / "test-artifacts"
STARTUP_LIMIT_S = 90  # an upper bound to give up waiting, not a performance assertion
UI_TIMEOUT_MS = 60_000


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
    from playwright.sync_api import expect

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

    context = SHARED_CHROMIUM.browser().new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    try:
        context.route("**/*", only_local)
        holder.page = context.new_page()
        holder.page.set_default_timeout(UI_TIMEOUT_MS)
        holder.page.on("pageerror", lambda exc: holder.errors.append(str(exc)))
        yield holder
    finally:
        context.close()


def test_current_location_from_browser_and_map(streamlit_server):
    """The start can come from the browser's position (granted) or from a click on the pick map."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    context = SHARED_CHROMIUM.browser().new_context(
        viewport={"width": 1440, "height": 1400},
        geolocation={"latitude": 31.2304, "longitude": 121.4737},
        permissions=["geolocation"],
    )
    try:
        app_host = urlparse(streamlit_server).netloc
        context.route(
            "**/*",
            lambda route: route.continue_() if urlparse(route.request.url).netloc in (app_host, "") else route.abort(),
        )
        page = context.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(f"{streamlit_server}/route_planner?lang=en")
        settle(page)  # a click on an element a running script is about to replace can be lost
        page.locator(".st-key-origin_mode").get_by_text("My current location").click()
        settle(page)
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
        context.close()
