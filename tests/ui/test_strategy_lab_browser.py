"""End-to-end in headless Chromium: the strategy lab runs a small Helsinki batch and draws the pydeck map of its
routes on the pack's own streets, with every request the page makes kept on 127.0.0.1 (no map style, no tiles, no
CDN: deck.gl is bundled with Streamlit's frontend). Requests are recorded with ``page.on("request")`` and those to
another host are also blocked (tests/ui/test_browser.py). Screenshot: test-artifacts/strategy_lab.png.
"""

from __future__ import annotations

import io
from urllib.parse import urlparse

import pytest
from PIL import Image

from core.config import get_settings
from core.lab.generate import generate_batch, write_batch
from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

LAND = (238, 240, 234)  # components/lab/map.LAND


def _near(colour: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target))


def test_the_lab_draws_its_map_without_leaving_the_machine(streamlit_server, tmp_path):
    from playwright.sync_api import expect

    batch = write_batch(
        generate_batch(region="helsinki", kind="delivery", n=2, stops=(3, 4), seed=7, settings=get_settings()),
        tmp_path / "browser.jsonl",
    )
    urls: list[str] = []
    with offline_page(streamlit_server, width=1440, height=1600) as run:
        page = run.page
        page.on("request", lambda request: urls.append(request.url))
        page.goto(f"{streamlit_server}/strategy_lab?lang=en")  # the page URL first: app.py's frame takes over
        expect(page.locator(".st-key-region")).to_be_visible()
        page.locator(".st-key-lab_source").get_by_text("A file on this machine").click()
        field = page.locator(".st-key-lab_batch_path input")
        field.fill(str(batch))
        field.press("Enter")
        expect(page.get_by_text("2 requests, 2 of them valid")).to_be_visible()
        page.locator(".st-key-lab_run button").click()

        deck = page.locator(".st-key-lab_map_box [data-testid='stDeckGlJsonChart']")
        expect(deck).to_be_visible()
        expect(deck.locator("canvas").first).to_be_visible()
        expect(page.get_by_text("Background: the region pack's own streets")).to_be_visible()
        deck.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(1500)  # let deck.gl draw before the screenshot (not an assertion)
        page.screenshot(path=str(ARTIFACTS / "strategy_lab.png"))
        drawn = Image.open(io.BytesIO(deck.screenshot())).convert("RGB")

    # the map is drawn, not a blank canvas: the land colour under the streets and the routes' colours are there
    colours = {colour for _, colour in drawn.getcolors(maxcolors=1 << 20)}
    assert len(colours) > 50
    assert any(_near(c, LAND) for c in colours), "no land under the streets"
    assert any(r > 200 and 90 < g < 170 and b < 110 for r, g, b in colours), "no fastest-time route (orange) drawn"

    assert not run.errors, f"JavaScript errors: {run.errors}"
    outside = [u for u in urls if urlparse(u).scheme in ("http", "https", "ws", "wss")]
    outside = [u for u in outside if urlparse(u).hostname != "127.0.0.1"]
    assert urls and not outside, f"requests left the machine: {outside}"
    assert not run.blocked
