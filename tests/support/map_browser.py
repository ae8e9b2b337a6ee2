"""A map's own HTML in headless Chromium (no Streamlit server): the page written with the local Leaflet, one browser
page that records script errors, the drawn pins' boxes, and the checks every map's pins must pass."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.chromium import SHARED_CHROMIUM

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
    """One Chromium page (its own context on the run's browser) and the list its script errors are appended to."""
    context = SHARED_CHROMIUM.browser().new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page, errors
    finally:
        context.close()


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
