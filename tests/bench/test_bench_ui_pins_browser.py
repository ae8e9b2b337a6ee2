"""``bench ui`` knows a route map is drawn when its pins are: a cluster disc counts as the pins it holds (a draw of
stops that cluster at the fitted zoom otherwise waited out its timeout). The bench's own pin count, on the crowded
30-stop map of tests/ui/test_route_map_browser.py in headless Chromium."""

from __future__ import annotations

import pytest

from core.config import get_settings
from tests.support.map_browser import chromium_page, settled_pins, write_offline_map
from tests.ui.test_route_map import EXTRA

pytestmark = [pytest.mark.ui, pytest.mark.browser]


def test_the_bench_counts_every_pin_of_a_map_whose_stops_cluster(leaflet_static, tmp_path):
    from bench.ui_browser import PINS_JS
    from components.route.map import build_route_map
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    request = load_scenario("delivery-round").request
    stops = [*request.stops, *(RawStop(name=n) for n in EXTRA[:22])]
    result = plan_route(
        request.model_copy(update={"stops": stops}),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    assert len(result.resolved_stops) == 30
    path = write_offline_map(build_route_map(result, lang="en"), leaflet_static, tmp_path / "map.html")
    with chromium_page(width=900, height=700) as (page, errors):
        page.goto(path.as_uri())
        drawn = settled_pins(page, wait_ms=400)
        clusters = page.evaluate("() => document.querySelectorAll('.omni-cluster').length")
        counted = page.evaluate(f"() => ({PINS_JS})(document)")
    assert not errors, errors
    assert clusters >= 1, "central Shanghai's crowded stops are clustered at the fitted zoom"
    assert len(drawn) < 32  # S, the 30 stops and E are not all drawn one by one
    assert counted == 32
