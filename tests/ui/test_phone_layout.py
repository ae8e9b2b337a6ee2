"""A phone (390 × 844) gets a compact layout (issue 12 §4; components/frame.py PHONE_CSS): in headless Chromium the
route planner with a planned demo and the itinerary with an optimised demo never scroll sideways, the
itinerary's metrics and the route planner's download buttons sit two to a row instead of one tall column, and
the text boxes keep the whole width. Screenshots go to test-artifacts/phone_*.png."""

from __future__ import annotations

import pytest

from tests.support.ui_flows import settle
from tests.ui.test_browser import ARTIFACTS, offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

WIDTH, HEIGHT = 390, 844


def _page_width(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def _settled_boxes(page, selector: str) -> list[dict]:
    """The bounding boxes of every element matching ``selector``, read at once when two readings agree (the page
    may still be laying out what the last rerun sent)."""
    read = f"""() => [...document.querySelectorAll('{selector}')].map(e => {{
        const r = e.getBoundingClientRect();
        return {{x: r.x, y: r.y + window.scrollY, width: r.width, height: r.height}};
    }})"""
    last = None
    for _ in range(40):
        boxes = page.evaluate(read)
        if boxes and boxes == last:
            return boxes
        last = boxes
        page.wait_for_timeout(250)
    return last or []


def _rows(boxes: list[dict]) -> list[list[dict]]:
    """Bounding boxes grouped by the row they sit in (the same top, to a pixel or two)."""
    rows: list[list[dict]] = []
    for box in sorted(boxes, key=lambda b: (round(b["y"]), b["x"])):
        if rows and abs(rows[-1][0]["y"] - box["y"]) <= 2:
            rows[-1].append(box)
        else:
            rows.append([box])
    return rows


def _side_by_side(row: list[dict]) -> bool:
    """Two or more boxes in one row, none overlapping the next, all inside the window."""
    ordered = sorted(row, key=lambda b: b["x"])
    return (
        len(ordered) >= 2
        and all(a["x"] + a["width"] <= b["x"] + 1 for a, b in zip(ordered, ordered[1:], strict=False))
        and all(b["x"] >= 0 and b["x"] + b["width"] <= WIDTH + 1 for b in ordered)
    )


def test_route_planner_and_itinerary_on_a_phone(streamlit_server):
    from playwright.sync_api import expect

    with offline_page(streamlit_server, width=WIDTH, height=HEIGHT) as run:
        page = run.page
        page.goto(f"{streamlit_server}/route_planner?scenario=sightseeing-day&lang=en")
        page.locator(".st-key-load_scenario button").click()
        expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
        settle(page)  # the load's run over: while it runs, the fragment's old Plan button is still on the page
        page.locator(".st-key-plan button").click()
        expect(page.locator(".st-key-comparison_table")).to_be_visible()
        downloads = [page.locator(f".st-key-{key}") for key in ("dl_json", "dl_html", "dl_csv")]
        for item in downloads:
            expect(item).to_be_visible()
        rows = _rows(_settled_boxes(page, ".st-key-dl_json, .st-key-dl_html, .st-key-dl_csv"))
        assert len(rows) == 2 and _side_by_side(rows[0]), rows  # three buttons: two, then one
        assert _page_width(page) <= WIDTH
        assert page.locator(".st-key-origin_address").bounding_box()["width"] >= WIDTH * 0.75  # typed: whole width
        downloads[0].scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "phone_route_planner.png"))

        page.goto(f"{streamlit_server}/itinerary?lang=en")
        page.locator(".st-key-trip_load button").click()
        settle(page)  # until the run ends, the fragment's old Optimise button stands beside the new one
        page.locator(".st-key-optimise button").click()
        metrics = page.locator('[data-testid="stMetric"]')
        expect(metrics.first).to_be_visible()
        rows = _rows(_settled_boxes(page, '[data-testid="stMetric"]'))
        n = sum(len(row) for row in rows)
        assert n >= 4 and _page_width(page) <= WIDTH
        # side by side, as many as fit (the metrics wrap at their own width), never one tall column
        assert len(rows) < n and all(len(row) >= 2 for row in rows[:-1]), rows
        assert all(_side_by_side(row) for row in rows if len(row) > 1), rows
        metrics.first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "phone_itinerary.png"))

    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"
