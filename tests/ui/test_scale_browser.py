"""Legible at scale (issue 32), measured in headless Chromium.

* A 40-stop route in central Shanghai on the pack's offline background (district names, no streets), at three
  widths (a 1,440-px window; the map's own width in the dashboard's 1,440-px window, 580 px; a phone's 390 px), at
  the fitted zoom and one step either way: every disc (pin or cluster) is a pin's size and none overlaps another,
  no disc overlaps a district name that is shown and no two names overlap, every name on the map is shown at the
  fitted zoom, and the map's credits are one line, never a column.
* The same route's clusters: each shows the count of the stops it holds, the counts and the single pins make the
  40 stops, each once, and clicking the clusters (they zoom in) shows every stop's own numbered pin.
* The route planner at 390 px with a long English plan: no table reaches past the window's right edge (each grid
  scrolls inside its own box), every row of the candidate table has the lines its whole order needs at its
  column's width (measured with the grid's font), and the line under the table gives the best order whole, in
  words that wrap like any sentence.
"""

from __future__ import annotations

import re

import pytest

from core.app.regions import load_region
from core.config import get_settings
from tests.support.map_browser import chromium_page, settled_pins, write_offline_map

pytestmark = [pytest.mark.ui, pytest.mark.browser]

MAP_JS = "window[Object.keys(window).find(k => /^map_[0-9a-f]+$/.test(k))]"

#: the drawn discs and the shown district names, inside the map's box; and the credits' box and line height
GEOMETRY_JS = """() => {
  const map = document.querySelector('.folium-map').getBoundingClientRect();
  const inside = b => b.r > map.left && b.l < map.right && b.b > map.top && b.t < map.bottom;
  const box = e => { const r = e.getBoundingClientRect();
    return {l: r.left, r: r.right, t: r.top, b: r.bottom, text: e.textContent}; };
  const discs = [...document.querySelectorAll('.omni-pin, .omni-cluster')].map(box).filter(inside);
  const all = [...document.querySelectorAll('.omni-district')];
  const shown = all.filter(e => getComputedStyle(e).visibility !== 'hidden').map(box).filter(inside);
  const credits = document.querySelector('.leaflet-control-attribution');
  return {discs, shown, labels: all.map(box).filter(inside).length, credits: box(credits),
          line: parseFloat(getComputedStyle(credits).lineHeight)};
}"""


def forty_stop_route():
    """The delivery round's 8 stops and 32 more of the pack's places in central Shanghai (chosen by their POI id, so
    each is the pack's own point), planned offline."""
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    request = load_scenario("delivery-round").request
    pack = load_region("shanghai")
    central = [p for p in pack.places if p.parent is None and 121.42 <= p.lon <= 121.53 and 31.18 <= p.lat <= 31.26]
    more = [RawStop(name=p.name_zh, poi_id=p.id) for p in central[: 40 - len(request.stops)]]
    result = plan_route(
        request.model_copy(update={"stops": [*request.stops, *more]}),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    assert len(result.resolved_stops) == 40
    return result


def overlaps(a: dict, b: dict) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def touch(a: dict, b: dict) -> bool:
    """Two round discs (pins or clusters) overlap: their centres are closer than their radii."""
    distance = ((a["l"] + a["r"] - b["l"] - b["r"]) ** 2 + (a["t"] + a["b"] - b["t"] - b["b"]) ** 2) ** 0.5 / 2
    return distance < (a["r"] - a["l"] + b["r"] - b["l"]) / 2 - 0.5


#: the map's width in the dashboard's 1,440-px window (the map shares the row with the result's tables)
DASHBOARD_MAP_WIDTH = 580


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_forty_stops_no_disc_covers_a_district_name_or_a_disc_and_the_credits_are_one_line(
    leaflet_static, tmp_path, lang
):
    from components.map_pins import PIN_SIZE
    from components.route.map import build_route_map, map_height

    result = forty_stop_route()
    path = write_offline_map(build_route_map(result, lang=lang), leaflet_static, tmp_path / f"map_{lang}.html")
    seen = []
    for width in (1440, DASHBOARD_MAP_WIDTH, 390):
        with chromium_page(width=width, height=map_height(result)) as (page, errors):
            page.goto(path.as_uri())
            settled_pins(page, wait_ms=400)
            fitted = page.evaluate(f"() => {MAP_JS}.getZoom()")
            for zoom in (fitted, fitted - 1, fitted + 1):
                page.evaluate(f"() => {MAP_JS}.setZoom({zoom}, {{animate: false}})")
                settled_pins(page, wait_ms=400)
                seen.append((width, zoom, page.evaluate(GEOMETRY_JS)))
        assert not errors, errors

    for width, zoom, geometry in seen:
        where = (lang, width, zoom)
        discs, shown = geometry["discs"], geometry["shown"]
        assert discs, where
        covered = [(d["text"], n["text"]) for d in discs for n in shown if overlaps(d, n)]
        assert not covered, (where, covered)
        wide = [d for d in discs if d["r"] - d["l"] > PIN_SIZE + 4]  # a pin's disc: 26 px and its border
        assert not wide, (where, wide)
        touching = [(a["text"], b["text"]) for i, a in enumerate(discs) for b in discs[i + 1 :] if touch(a, b)]
        assert not touching, (where, touching)
        names = [(a["text"], b["text"]) for i, a in enumerate(shown) for b in shown[i + 1 :] if overlaps(a, b)]
        assert not names, (where, names)
        credits, line = geometry["credits"], geometry["line"]
        lines = round((credits["b"] - credits["t"]) / line)
        assert lines == 1, (where, credits, line)  # one line, never a column
    # the names give way, they do not go: at the fitted zoom every name on the map is shown, and most one step out
    fitted_views = [g for _, _, g in seen[::3]]
    assert all(len(g["shown"]) == g["labels"] >= 3 for g in fitted_views), [
        (len(g["shown"]), g["labels"]) for g in fitted_views
    ]
    assert all(len(g["shown"]) >= 0.6 * g["labels"] for _, _, g in seen), [(w, z, len(g["shown"])) for w, z, g in seen]


#: each cluster's count and the stops its title lists ("Stops 8, 9, 10: zoom in to see each one"), and the numbered
#: pins drawn, inside the map's box
CLUSTERS_JS = """() => {
  const map = document.querySelector('.folium-map').getBoundingClientRect();
  const inside = e => { const r = e.getBoundingClientRect();
    return r.right > map.left && r.left < map.right && r.bottom > map.top && r.top < map.bottom; };
  return {clusters: [...document.querySelectorAll('.omni-cluster')].filter(inside)
                      .map(e => ({count: e.textContent.trim(), title: e.title})),
          pins: [...document.querySelectorAll('.omni-pin')].filter(inside).map(e => e.textContent.trim())};
}"""


def _listed(title: str) -> list[str]:
    found = re.match(r"Stops (.*): zoom in to see each one$", title)
    assert found, title
    return found.group(1).split(", ")


def test_at_forty_stops_each_cluster_counts_its_stops_and_a_click_on_it_shows_them(leaflet_static, tmp_path):
    from components.route.map import build_route_map, map_height

    result = forty_stop_route()
    path = write_offline_map(build_route_map(result, lang="en"), leaflet_static, tmp_path / "map.html")
    numbers = [str(n) for n in range(1, 41)]
    with chromium_page(width=DASHBOARD_MAP_WIDTH, height=map_height(result)) as (page, errors):
        page.goto(path.as_uri())
        settled_pins(page, wait_ms=400)
        fitted = page.evaluate(f"() => {{ const m = {MAP_JS}; return [m.getCenter(), m.getZoom()]; }}")
        first = page.evaluate(CLUSTERS_JS)
        opened: dict[str, list[str]] = {}  # each cluster of the fitted view: the numbered pins its clicks showed
        for cluster in first["clusters"]:
            wanted = _listed(cluster["title"])
            page.evaluate(f"([c, z]) => {MAP_JS}.setView(c, z, {{animate: false}})", fitted)
            settled_pins(page, wait_ms=400)
            drawn: set[str] = set()
            for _ in range(6):  # a click zooms in to the cluster's stops; a cluster inside it is clicked in turn
                view = page.evaluate(CLUSTERS_JS)
                drawn |= set(view["pins"])
                if set(wanted) <= drawn:
                    break
                inner = next((c for c in view["clusters"] if set(_listed(c["title"])) & set(wanted)), None)
                if inner is None:
                    break
                page.locator(f'.omni-cluster[title="{inner["title"]}"]').click()
                settled_pins(page, wait_ms=600)
            opened[cluster["count"] + ": " + cluster["title"]] = sorted(set(wanted) & drawn, key=int)
    assert not errors, errors

    assert first["clusters"], "central Shanghai's 40 stops crowd together at the fitted zoom"
    for cluster in first["clusters"]:  # the disc shows how many stops it holds, and its title lists them
        assert cluster["count"] == str(len(_listed(cluster["title"]))), cluster
    counted = sum(int(c["count"]) for c in first["clusters"]) + sum(p.isdigit() for p in first["pins"])
    assert counted == 40
    listed = [n for c in first["clusters"] for n in _listed(c["title"])] + [p for p in first["pins"] if p.isdigit()]
    assert sorted(listed, key=int) == numbers  # every stop once
    for cluster in first["clusters"]:  # a click (or two) on each cluster shows every stop it holds as its own pin
        key = cluster["count"] + ": " + cluster["title"]
        assert opened[key] == sorted(_listed(cluster["title"]), key=int), (key, opened[key])


#: every table of the main view that is shown: its right edge, and the right edge of the nearest box around it that
#: scrolls sideways (null when none does)
TABLES_JS = """() => [...document.querySelectorAll(
    '[data-testid="stMainBlockContainer"] :is([data-testid="stDataFrame"], [data-testid="stTable"], table)')]
  .filter(e => e.offsetParent && !e.closest('[data-testid="stDataFrame"] canvas'))
  .map(e => {
    let box = e.parentElement, scroller = null;
    const main = document.querySelector('[data-testid="stMainBlockContainer"]');
    while (box && box !== main && !scroller) {  // a box of the table's own, not the page's scrolling main area
      const x = getComputedStyle(box).overflowX;
      if (x === 'auto' || x === 'scroll') scroller = box;
      box = box.parentElement;
    }
    const inner = e.matches('[data-testid="stDataFrame"]') ? e.querySelector('.stDataFrameGlideDataEditor') : null;
    return {what: e.getAttribute('data-testid') || e.tagName, right: e.getBoundingClientRect().right,
            contentRight: e.getBoundingClientRect().left + (inner || e).scrollWidth,
            scrollerRight: scroller ? scroller.getBoundingClientRect().right : null,
            text: e.textContent.slice(0, 40)};
  })"""

#: the candidate grid's rows: the lines a row holds, and the lines each order needs at its column's width, wrapped
#: at spaces with the grid's own font (the grid draws on a canvas; its words are in its accessible table)
ORDER_LINES_JS = """title => {
  const frame = document.querySelector('.st-key-comparison_table [data-testid="stDataFrame"]');
  const canvas = frame.querySelector('canvas[data-testid="data-grid-canvas"]');
  let fiber = canvas[Object.keys(canvas).find(k => k.startsWith('__reactFiber'))], columns = null, rowHeight = null;
  while (fiber && !columns) {
    const p = fiber.memoizedProps;
    if (p && Array.isArray(p.columns) && p.columns.length && p.columns[0].width !== undefined) {
      columns = p.columns; rowHeight = p.rowHeight; }
    fiber = fiber.return;
  }
  const style = getComputedStyle(frame.querySelector('.stDataFrameGlideDataEditor'));
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = style.getPropertyValue('--gdg-base-font-style') + ' ' + style.getPropertyValue('--gdg-font-family');
  const padding = 2 * parseFloat(style.getPropertyValue('--gdg-cell-horizontal-padding'));
  const marker = columns[0].title === '' ? 1 : 0;
  const index = columns.findIndex(c => c.title === title);
  const room = columns[index].width - padding;
  const lines = text => {
    let n = 1, line = '';
    for (const word of text.split(' ')) {
      const next = line ? line + ' ' + word : word;
      if (line && ctx.measureText(next).width > room) { n += 1; line = word; } else { line = next; }
    }
    return n;
  };
  const orders = [...canvas.querySelectorAll(`td[aria-colindex="${index + 1 - marker}"]`)].map(td => td.textContent);
  return {holds: rowHeight > 64 ? Math.floor((rowHeight - 6) / 20) : 1,
          needs: orders.map(o => [lines(o), o])};
}"""


def test_on_a_phone_tables_scroll_in_their_box_and_every_candidate_order_is_whole(streamlit_server):
    from playwright.sync_api import expect

    from components.route.tables import header
    from components.route_words import order_names
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario
    from tests.support.ui_flows import settle
    from tests.ui.test_browser import ARTIFACTS, offline_page

    scenario = load_scenario("delivery-round")  # the page plans it offline too: the same best order
    provider = make_provider("offline", region=scenario.region, settings=get_settings())
    best = plan_route(scenario.request, provider=provider, settings=get_settings())
    width = 390
    with offline_page(streamlit_server, width=width, height=844) as run:
        page = run.page
        page.goto(f"{streamlit_server}/route_planner?scenario=delivery-round&lang=en")
        page.locator(".st-key-load_scenario button").click()
        expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
        settle(page)
        page.locator(".st-key-plan button").click()
        expect(page.locator(".st-key-comparison_table [data-testid='stDataFrame']")).to_be_visible()
        settle(page)
        page.wait_for_timeout(400)  # the grids measure their boxes
        for expander in page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').all():
            expander.click()  # the tables inside the result's expanders too
        settle(page)
        page.wait_for_timeout(400)
        tables = page.evaluate(TABLES_JS)
        orders = page.evaluate(ORDER_LINES_JS, header("order", "en"))
        whole = page.locator(".st-key-comparison_table_order_whole").evaluate(
            """e => { const r = e.getBoundingClientRect(), p = e.querySelector('p');
                     return {text: e.textContent, left: r.left, right: r.right,
                             cut: p.scrollWidth > p.clientWidth + 1}; }"""
        )
        page.locator(".st-key-comparison_table").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "phone_candidate_orders.png"))
        page_width = page.evaluate("() => document.documentElement.scrollWidth")
    assert not run.errors, run.errors

    assert page_width <= width
    assert len(tables) >= 3, tables
    for table in tables:  # within the window, or cut only by a box of its own that scrolls sideways
        inside = table["right"] <= width + 1 and table["contentRight"] <= width + 1
        scrolls = table["scrollerRight"] is not None and table["scrollerRight"] <= width + 1
        assert inside or scrolls, table
    # under the table, the best route's order in words: every name whole, in order, inside the window
    names = [n.shown for n in order_names(best, best.best_route, "en")]
    at = [whole["text"].find(name) for name in names]
    assert -1 not in at and at == sorted(at), (whole["text"], names)
    assert 0 <= whole["left"] and whole["right"] <= width + 1 and not whole["cut"], whole
    assert orders["needs"], orders
    cut = [order for needed, order in orders["needs"] if needed > orders["holds"]]
    assert not cut, (orders["holds"], cut)


#: inside the route map's frame: the credits' height and line height, each cluster's count and title, the numbered pins
DASHBOARD_MAP_JS = """() => {
  const credits = document.querySelector('.leaflet-control-attribution');
  return {height: credits.getBoundingClientRect().height, line: parseFloat(getComputedStyle(credits).lineHeight),
          clusters: [...document.querySelectorAll('.omni-cluster')].map(e => ({count: e.textContent.trim(),
                                                                                title: e.title})),
          pins: [...document.querySelectorAll('.omni-pin')].map(e => e.textContent.trim())};
}"""


@pytest.mark.parametrize("width", [1440, 390])
def test_in_the_dashboard_forty_stops_cluster_into_counts_and_the_credits_are_one_line(streamlit_server, width):
    """The route planner as a person uses it: the delivery round's 8 stops and 32 of the pack's places pasted, planned
    offline; the map's frame shows the 40 stops (pins and cluster counts) and its credits on one line."""
    from playwright.sync_api import expect

    from core.i18n import t
    from core.route.scenarios import load_scenario
    from tests.support.ui_flows import settle
    from tests.ui.test_browser import offline_page

    loaded = len(load_scenario("delivery-round").request.stops)
    pack = load_region("shanghai")
    central = [p for p in pack.places if p.parent is None and 121.42 <= p.lon <= 121.53 and 31.18 <= p.lat <= 31.26]
    pasted = "\n".join(p.name_zh for p in central[: 40 - loaded])
    with offline_page(streamlit_server, width=width, height=900) as run:
        page = run.page
        page.goto(f"{streamlit_server}/route_planner?scenario=delivery-round&lang=en")
        page.locator(".st-key-load_scenario button").click()
        expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
        settle(page)
        page.get_by_text(t("route.stops.paste_title", "en")).click()
        page.locator(".st-key-paste_stops textarea").fill(pasted)
        page.locator(".st-key-paste_apply button").click()
        settle(page)
        page.locator(".st-key-plan button").click()
        expect(page.locator(".st-key-best_route_card")).to_be_visible()
        frame = page.frame_locator(".st-key-route_map_box iframe")
        expect(frame.locator(".omni-cluster").first).to_be_visible()
        settle(page)
        frame.locator(".omni-marker[data-spread]").first.wait_for(state="attached")
        page.wait_for_timeout(600)  # the pins' layout after the fitted zoom
        drawn = frame.locator("body").evaluate(DASHBOARD_MAP_JS.replace("() =>", "_ =>"))
    assert not run.errors, run.errors
    assert not run.blocked, run.blocked

    assert round(drawn["height"] / drawn["line"]) == 1, drawn  # one line, at a window's and at a phone's width
    listed = [n for c in drawn["clusters"] for n in _listed(c["title"])] + [p for p in drawn["pins"] if p.isdigit()]
    assert sorted(listed, key=int) == [str(n) for n in range(1, 41)]  # every stop once
    assert all(c["count"] == str(len(_listed(c["title"]))) for c in drawn["clusters"]), drawn["clusters"]
    assert sum(int(c["count"]) for c in drawn["clusters"]) + sum(p.isdigit() for p in drawn["pins"]) == 40
