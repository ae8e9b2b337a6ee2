"""The route planner's map in Chromium on a real ``streamlit run app.py``: the legend (below the map, in its frame)
covers no pin and no line, the credits do not overlap the scale bar, and selecting a row of the comparison table
highlights that candidate on the map (its legend line marked, its whole order drawn bold in its colour)."""

from __future__ import annotations

import pytest

from tests.support.ui_flows import UI_TIMEOUT_MS, prepare, settle
from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

#: boxes of what the map's frame draws: the legend, the map, the scale bar, the credits, every drawn pin and line
BOXES_JS = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  return {
    legend: box(document.querySelector('.omni-legend')),
    map: box(document.querySelector('.folium-map')),
    scale: box(document.querySelector('.leaflet-control-scale')),
    credits: box(document.querySelector('.leaflet-control-attribution')),
    credits_text: document.querySelector('.leaflet-control-attribution').textContent,
    pins: Array.from(document.querySelectorAll('.omni-pin, .omni-cluster')).map(box),
    lines: Array.from(document.querySelectorAll('path.leaflet-interactive')).map(box),
  };
}"""


def clipped(a: dict, to: dict) -> dict:
    return {"l": max(a["l"], to["l"]), "r": min(a["r"], to["r"]), "t": max(a["t"], to["t"]), "b": min(a["b"], to["b"])}


def overlap(a: dict, b: dict) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def test_legend_and_credits_cover_nothing_and_a_selected_row_highlights_its_candidate(streamlit_server):
    from playwright.sync_api import expect

    from components.route.map import SELECTED_WEIGHT

    with offline_page(streamlit_server, width=1280, height=1000) as run:
        page = run.page
        prepare(page)
        page.goto(f"{streamlit_server}/route_planner?scenario=delivery-round&lang=en")
        page.locator(".st-key-load_scenario button").click()
        expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
        settle(page)  # the load's run over: while it runs, the fragment's old Plan button is still on the page
        page.locator(".st-key-plan button").click()
        frame = page.frame_locator(".st-key-route_map_box iframe")
        expect(frame.locator(".omni-legend")).to_be_visible()
        expect(frame.locator(".omni-pin").first).to_be_visible()
        settle(page)
        page.locator(".st-key-route_map_box").scroll_into_view_if_needed()
        page.wait_for_timeout(800)  # fitBounds' zoom and the pins' layout
        drawn = frame.locator("body").evaluate(BOXES_JS)
        assert drawn["pins"] and drawn["lines"]
        shown = [clipped(p, drawn["map"]) for p in drawn["pins"] + drawn["lines"]]  # the map hides what is outside
        assert not [p for p in shown if overlap(p, drawn["legend"])]
        assert drawn["legend"]["t"] >= drawn["map"]["b"] - 0.5  # below the map, not over its lower half
        assert not overlap(drawn["credits"], drawn["scale"]), (drawn["credits"], drawn["scale"])
        assert drawn["credits_text"].strip() and "Leaflet" not in drawn["credits_text"]
        assert not frame.locator(".omni-legend .cand.selected").count()

        # the comparison table: its rows under its header, as tall as the grid draws them (taller when a long order
        # wraps); the first column ticks a row (glide data grid)
        table = page.locator(".st-key-comparison_table [data-testid='stDataFrame']")
        table.scroll_into_view_if_needed()
        box = table.bounding_box()
        header, row_height = page.evaluate(GRID_HEIGHTS_JS)
        row = 2  # the third candidate by rank
        page.mouse.click(box["x"] + 15, box["y"] + header + row_height * row + row_height / 2)
        settle(page)
        # the rerun draws the map anew: until the old one is gone there are two frames in the box
        expect(page.locator(".st-key-route_map_box iframe")).to_have_count(1, timeout=UI_TIMEOUT_MS)
        result_rank = row + 1  # the table lists the candidates by rank, 1 first
        selected = frame.locator(f'.omni-legend .cand.selected[data-rank="{result_rank}"]')
        expect(selected).to_be_visible(timeout=UI_TIMEOUT_MS)
        colour = selected.locator(".swatch").evaluate("e => getComputedStyle(e).borderTopColor")
        bold = frame.locator(f'path.leaflet-interactive[stroke-width="{SELECTED_WEIGHT}"]')
        expect(bold).to_have_count(1)
        assert bold.evaluate("e => getComputedStyle(e).stroke") == colour  # drawn in the candidate's colour
        page.locator(".st-key-route_map_box").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "route_map_selected_candidate.png"))
    assert not run.errors, run.errors
    assert not run.blocked, run.blocked


#: the comparison grid's header and row heights, as the grid draws them (its own props)
GRID_HEIGHTS_JS = """() => {
  const canvas = document.querySelector('.st-key-comparison_table canvas[data-testid="data-grid-canvas"]');
  let fiber = canvas[Object.keys(canvas).find(k => k.startsWith('__reactFiber'))];
  while (fiber) {
    const p = fiber.memoizedProps;
    if (p && typeof p.rowHeight === 'number' && typeof p.headerHeight === 'number') return [p.headerHeight, p.rowHeight];
    fiber = fiber.return;
  }
  return [35, 35];
}"""
