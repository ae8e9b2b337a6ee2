"""The agent console in headless Chromium (the real app, every non-local request blocked): a 3-stop plan draws a
numbered pin for every stop, and the page asks for no marker image, nor anything else that answers 404.
A screenshot per language is saved to test-artifacts/agent_console_<lang>.png."""

from __future__ import annotations

import pytest

from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser, pytest.mark.slow]

PLAN = {
    "en": ("plan a 1 day trip to the Bund, Yu Garden and Jing'an Temple", "The plan"),
    "zh": ("规划1天行程：外滩、豫园和静安寺", "行程安排"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_console_map_shows_every_stop_without_a_missing_image(streamlit_server, lang):
    from playwright.sync_api import expect

    message, heading = PLAN[lang]
    with offline_page(streamlit_server, width=1440, height=1600) as run:
        page = run.page
        missing: list[str] = []
        page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
        page.goto(f"{streamlit_server}/agent_console?lang={lang}")
        box = page.get_by_test_id("stChatInputTextArea")
        expect(box).to_be_visible()
        box.fill(message)
        box.press("Enter")
        expect(page.get_by_text(heading, exact=True)).to_be_visible()
        frame = page.frame_locator(".st-key-agent_map_0_box iframe")
        pins = frame.locator(".omni-pin")
        expect(pins.nth(2)).to_be_visible()
        assert sorted(pins.all_inner_texts()) == ["1", "2", "3"]
        assert frame.locator("img.leaflet-marker-icon").count() == 0  # no image pin, only the numbered ones
        page.screenshot(path=str(ARTIFACTS / f"agent_console_{lang}.png"), full_page=True)
    assert [u for u in missing if "marker" in u or u.endswith(".png")] == []
    # Streamlit itself probes ``<page>/_stcore/health`` and ``host-config`` when a page's URL is opened first
    assert [u for u in missing if "/_stcore/" not in u] == []
    assert run.errors == []
    assert run.blocked == []
