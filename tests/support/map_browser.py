"""A map's own HTML in headless Chromium (no Streamlit server): the page written with the local Leaflet, one browser
page that records script errors, the drawn pins' boxes, and the checks every map's pins must pass."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.ui.test_browser import CHROMIUM_ARGS, chromium_path

#: every pin as drawn: label, box, z-order, whether it was fanned out, and its leader line's display
PIN_BOXES_JS = """() => Array.from(document.querySelectorAll('.omni-pin')).map(e => {
     const r = e.getBoundingClientRect(), icon = e.closest('.leaflet-marker-icon');
     return {label: e.textContent, x: r.x, y: r.y, w: r.width, h: r.height, z: Number(icon.style.zIndex),
             spread: icon.dataset.spread, leader: getComputedStyle(icon.querySelector('.omni-leader')).display};
   })"""


def write_offline_map(folium_map: Any, leaflet_static: Path, path: Path) -> Path:
    """The map's page with the app's Leaflet URL pointed at the installed files."""
    html = folium_map.get_root().render().replace("/app/static/leaflet/", leaflet_static.as_uri() + "/")
    path.write_text(html, encoding="utf-8")
    return path


@contextmanager
def chromium_page(*, width: int, height: int) -> Iterator[tuple[Any, list[str]]]:
    """One Chromium page and the list its script errors are appended to."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page, errors
        finally:
            browser.close()


def settled_pins(page: Any, *, wait_ms: int = 300) -> list[dict[str, Any]]:
    """The pins once every one is laid out and fitBounds' zoom animation has ended (the layout runs on zoomend)."""
    page.wait_for_function(
        "document.querySelectorAll('.omni-marker[data-spread]').length == document.querySelectorAll('.omni-pin').length"
    )
    page.wait_for_function("!document.querySelector('.leaflet-zoom-anim')")
    page.wait_for_timeout(wait_ms)
    return list(page.evaluate(PIN_BOXES_JS))


def assert_pins_apart(boxes: list[dict[str, Any]], where: str = "") -> None:
    """No two pins overlap (discs: centres at least a diameter apart); fanned-out pins show their leader line and
    only they do."""
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            gap = ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5
            assert gap >= a["w"] - 0.5, (where, a["label"], b["label"], gap)
    assert all(b["leader"] == "block" for b in boxes if b["spread"] == "1"), where
    assert all(b["leader"] == "none" for b in boxes if b["spread"] == "0"), where
