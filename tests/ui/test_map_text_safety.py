"""Text typed by a user reaches map tooltips and legends: it is drawn as text, never run as a template on the server
(branca compiles rendered scripts as Jinja; components/maps.py keeps them literal)."""

from __future__ import annotations

import pytest

from components.route.map import build_route_map
from core.config import get_settings
from core.geo.registry import make_provider
from core.route.planner import plan_route
from core.route.scenarios import load_scenario

HOSTILE_NAMES = [
    "{{ 12345*3 }}",
    "{{ cycler.__init__.__globals__.os.getpid() }}",
    '{% if true %}unclosed "quote',
    "{# comment",
]


@pytest.fixture(scope="module")
def planned():
    return plan_route(
        load_scenario("delivery-round").request,
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_typed_stop_name_is_drawn_as_text(planned, name):
    stops = list(planned.resolved_stops)
    # a stop that is not a pack place (as an AMap answer would be): the map shows the name the user typed
    stops[0] = stops[0].model_copy(update={"poi_id": "B0FFAMAP01", "input_name": name})
    html = build_route_map(planned.model_copy(update={"resolved_stops": stops}), lang="en").get_root().render()
    assert "37035" not in html  # 12345*3 was not computed
    visible = name.replace('"', "&quot;")
    assert name.split()[1] in html or visible in html  # the words are there as typed (escaped for HTML)


def test_branca_own_template_still_renders():
    from branca.element import Div, Element

    div = Div()
    div.html.add_child(Element("<p>inside</p>"))
    div.html.add_child(Element("<p>{{ 6*7 }}</p>"))
    assert div.html.render() == "<p>inside</p><p>{{ 6*7 }}</p>"  # the loop ran; the children stayed text
