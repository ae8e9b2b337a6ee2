"""The route map's pins in headless Chromium (no Streamlit server: the map's own HTML over the local Leaflet): at the
fitted zoom no two pins of a 30-stop plan with two stops at one place overlap, the moved ones show a leader line
to their true point, S and E are above every numbered pin, and no pin lies under the legend (the map is fitted
with room for it)."""

from __future__ import annotations

import pytest

from tests.support.map_browser import assert_pins_apart, chromium_page, settled_pins, write_offline_map
from tests.ui.test_route_map import EXTRA

pytestmark = [pytest.mark.ui, pytest.mark.browser]


def test_pins_never_overlap_start_and_end_stay_on_top_and_the_legend_covers_none(leaflet_static, tmp_path):
    from components.route.map import build_route_map
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
    path = write_offline_map(build_route_map(result, lang="en"), leaflet_static, tmp_path / "map.html")
    with chromium_page(width=900, height=520) as (page, errors):
        page.goto(path.as_uri())
        boxes = settled_pins(page, wait_ms=400)
        legend = page.evaluate(
            """() => { const r = document.querySelector('.omni-legend').getBoundingClientRect();
                       return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""
        )
    assert not errors, errors
    assert len(boxes) == 32  # S, 1..30, E
    assert_pins_apart(boxes)
    assert any(b["spread"] == "1" for b in boxes), "two stops at one place must be fanned out"
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
