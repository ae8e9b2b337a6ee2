"""The route map's pins in headless Chromium (no Streamlit server: the map's own HTML over the local Leaflet): at the
fitted zoom no two pins of a 30-stop plan with two stops at one place overlap, the moved ones show a leader line
to their true point, S and E are above every numbered pin, and no pin lies under the legend (the map is fitted
with room for it)."""

from __future__ import annotations

import pytest

from tests.ui.test_browser import CHROMIUM_ARGS, chromium_path
from tests.ui.test_route_map import EXTRA

pytestmark = [pytest.mark.ui, pytest.mark.browser]


def test_pins_never_overlap_start_and_end_stay_on_top_and_the_legend_covers_none(leaflet_static, tmp_path):
    from playwright.sync_api import sync_playwright

    from components.route_map import build_route_map
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    request = load_scenario("delivery-round").request
    first = request.stops[0]
    stops = [*request.stops, *(RawStop(name=n) for n in EXTRA[:21]), first.model_copy()]  # 30, one place twice
    result = plan_route(
        request.model_copy(update={"stops": stops}), provider=make_provider("offline", region="shanghai")
    )
    assert len(result.resolved_stops) == 30
    page_html = build_route_map(result, lang="en").get_root().render()
    page_html = page_html.replace("/app/static/leaflet/", leaflet_static.as_uri() + "/")
    path = tmp_path / "map.html"
    path.write_text(page_html, encoding="utf-8")

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 520})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(path.as_uri())
            page.wait_for_function("document.querySelectorAll('.omni-marker[data-spread]').length >= 32")
            # fitBounds zooms with an animation; read the pins once it has ended (the layout runs again on zoomend)
            page.wait_for_function("!document.querySelector('.leaflet-zoom-anim')")
            page.wait_for_timeout(400)
            boxes = page.evaluate(
                """() => Array.from(document.querySelectorAll('.omni-pin')).map(e => {
                     const r = e.getBoundingClientRect();
                     const icon = e.closest('.leaflet-marker-icon');
                     return {label: e.textContent, x: r.x, y: r.y, w: r.width, h: r.height,
                             z: Number(icon.style.zIndex), spread: icon.dataset.spread,
                             leader: getComputedStyle(icon.querySelector('.omni-leader')).display};
                   })"""
            )
            legend = page.evaluate(
                """() => { const r = document.querySelector('.omni-legend').getBoundingClientRect();
                           return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""
            )
        finally:
            browser.close()
    assert not errors, errors
    assert len(boxes) == 32  # S, 1..30, E
    for i, a in enumerate(boxes):  # the pins are discs: their centres at least a diameter apart
        for b in boxes[i + 1 :]:
            gap = ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5
            assert gap >= a["w"] - 0.5, (a["label"], b["label"], gap)
    spread = [b for b in boxes if b["spread"] == "1"]
    assert spread, "two stops at one place must be fanned out"
    assert all(b["leader"] == "block" for b in spread)
    assert all(b["leader"] == "none" for b in boxes if b["spread"] == "0")
    ends = [b["z"] for b in boxes if b["label"] in ("S", "E")]
    numbered = [b["z"] for b in boxes if b["label"].isdigit()]
    assert len(ends) == 2 and min(ends) > max(numbered)
    assert result.candidates[1:], "the legend lists the other candidates too (its tallest form)"
    under = [  # a pin's box (where it is drawn, moved or not) meets the legend's
        b["label"]
        for b in boxes
        if b["x"] < legend["right"] and b["x"] + b["w"] > legend["left"]
        and b["y"] < legend["bottom"] and b["y"] + b["h"] > legend["top"]
    ]  # fmt: skip
    assert not under, (under, legend)
