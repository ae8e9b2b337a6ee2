"""The route map's pins in headless Chromium (no Streamlit server: the map's own HTML over the local Leaflet), for a
30-stop plan in central Shanghai with two stops at one place: at the fitted zoom every stop is either its own pin or
listed by a cluster, no two drawn pins overlap, S and E are above every numbered pin and never clustered, and the
legend (below the map) covers no pin; at street level no pin is clustered and the two at one place are fanned out
with leader lines to their true point."""

from __future__ import annotations

import re

import pytest

from core.config import get_settings
from tests.support.map_browser import assert_pins_apart, chromium_page, settled_pins, write_offline_map
from tests.ui.test_route_map import EXTRA

pytestmark = [pytest.mark.ui, pytest.mark.browser]

#: the labels each cluster disc lists in its title (English: "Stops 3, 4, 7: zoom in to see each one")
CLUSTER_TITLES_JS = "() => Array.from(document.querySelectorAll('.omni-cluster')).map(e => e.title)"
MAP_JS = "window[Object.keys(window).find(k => /^map_[0-9a-f]+$/.test(k))]"


def test_pins_cluster_when_crowded_never_overlap_and_spread_at_street_level(leaflet_static, tmp_path):
    from components.map_pins import CLUSTER_OFF_ZOOM
    from components.route.map import build_route_map
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    request = load_scenario("delivery-round").request
    first = request.stops[0]
    stops = [*request.stops, *(RawStop(name=n) for n in EXTRA[:21]), first.model_copy()]  # 30, one place twice
    result = plan_route(
        request.model_copy(update={"stops": stops}),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    assert len(result.resolved_stops) == 30
    path = write_offline_map(build_route_map(result, lang="en"), leaflet_static, tmp_path / "map.html")
    twice = result.resolved_stops[0]
    with chromium_page(width=900, height=700) as (page, errors):
        page.goto(path.as_uri())
        boxes = settled_pins(page, wait_ms=400)
        titles = page.evaluate(CLUSTER_TITLES_JS)
        legend = page.evaluate("() => document.querySelector('.omni-legend').getBoundingClientRect().toJSON()")
        map_box = page.evaluate("() => document.querySelector('.folium-map').getBoundingClientRect().toJSON()")

        page.evaluate(f"{MAP_JS}.setView([{twice.lat}, {twice.lon}], {CLUSTER_OFF_ZOOM}, {{animate: false}})")
        near = settled_pins(page, wait_ms=400)
        titles_near = page.evaluate(CLUSTER_TITLES_JS)
    assert not errors, errors

    clustered = [label for title in titles for label in re.match(r"Stops (.*): zoom in", title).group(1).split(", ")]
    drawn = [b["label"] for b in boxes]
    assert titles, "central Shanghai's crowded stops are clustered at the fitted zoom"
    assert sorted(drawn + clustered) == sorted(["S", "E", *map(str, range(1, 31))])  # each stop once
    assert "S" in drawn and "E" in drawn  # never clustered
    assert_pins_apart(boxes)
    ends = [b["z"] for b in boxes if b["label"] in ("S", "E")]
    numbered = [b["z"] for b in boxes if b["label"].isdigit()]
    assert min(ends) > max(numbered, default=0)
    assert legend["top"] >= map_box["bottom"] - 0.5  # below the map: it covers no pin and no line

    assert not titles_near  # street level: nothing clustered
    assert_pins_apart(near)
    assert sum(1 for b in near if b["spread"] == "1") >= 2, "two stops at one place must be fanned out"


def test_on_a_phone_the_credits_are_short_and_clear_of_the_scale_bar(leaflet_static, tmp_path):
    from components.route.map import build_route_map, map_height
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import list_scenarios

    result = plan_route(
        list_scenarios("helsinki")[0].request,
        provider=make_provider("offline", region="helsinki", settings=get_settings()),
        settings=get_settings(),
    )
    path = write_offline_map(build_route_map(result, lang="zh"), leaflet_static, tmp_path / "map.html")
    with chromium_page(width=360, height=map_height(result)) as (page, errors):
        page.goto(path.as_uri())
        settled_pins(page)
        boxes = page.evaluate(
            """() => [".leaflet-control-scale", ".leaflet-control-attribution"].map(s => {
                 const r = document.querySelector(s).getBoundingClientRect();
                 return {l: r.left, r: r.right, t: r.top, b: r.bottom, text: document.querySelector(s).textContent};
               })"""
        )
    assert not errors, errors
    scale, credits = boxes
    assert scale["r"] <= credits["l"] or scale["b"] <= credits["t"], (scale, credits)  # beside them or above
    assert "OpenStreetMap" in credits["text"] and not re.search(r"T\d\d:|\d+\.\d+\.\d+|pyrosm", credits["text"])


def test_a_candidates_legend_checkbox_hides_and_shows_its_lines(leaflet_static, tmp_path):
    from components.route.map import ALT_COLOURS, build_route_map
    from tests.ui.test_route_map import planned

    result = planned("8")
    path = write_offline_map(build_route_map(result, lang="en"), leaflet_static, tmp_path / "map.html")
    rank = next(c.rank for i, c in enumerate(result.candidates) if i != result.best_index)  # drawn in ALT_COLOURS[0]
    count = f"() => document.querySelectorAll('path.leaflet-interactive[stroke=\"{ALT_COLOURS[0]}\"]').length"
    with chromium_page(width=800, height=700) as (page, errors):
        page.goto(path.as_uri())
        settled_pins(page)
        shown = page.evaluate(count)
        page.locator(f'.omni-legend input[data-rank="{rank}"]').uncheck()
        hidden = page.evaluate(count)
        page.locator(f'.omni-legend input[data-rank="{rank}"]').check()
        again = page.evaluate(count)
    assert not errors, errors
    assert shown > 0 and hidden == 0 and again == shown
