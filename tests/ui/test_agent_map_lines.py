"""The assistant's trip map (components/maps.py build_agent_map) draws what its words announce: each day's visits
joined by a dashed straight line in visiting order, one line per day (never one line across two days), worded as
straight lines in the reader's language; a day with a single visit has no line."""

from __future__ import annotations

import json
import re

import pytest

from components.maps import agent_day_lines, build_agent_map

pytestmark = pytest.mark.ui

#: (name, lon, lat, day): two days in central Shanghai, the second day's first visit listed after the first day's
STOPS = [
    ("Jing'an Temple", 121.4453, 31.2231, 1),
    ("People's Square", 121.4737, 31.2304, 1),
    ("Nanjing Road East", 121.4846, 31.2376, 1),
    ("Lujiazui", 121.5055, 31.2397, 2),
    ("Century Park", 121.5509, 31.2156, 2),
    ("Xujiahui", 121.4365, 31.1951, 3),
]


def rows() -> list[dict[str, object]]:
    return [
        {"name": name, "lon": lon, "lat": lat, "day": day, "start": "09:00", "end": "10:00"}
        for name, lon, lat, day in STOPS
    ]


def polylines(page: str) -> list[list[list[float]]]:
    """The points of every ``L.polyline`` in a rendered map."""
    return [json.loads(points) for points in re.findall(r"L\.polyline\(\s*(\[\[.*?\]\])", page, flags=re.S)]


def test_each_day_with_two_visits_or_more_is_one_line_in_visiting_order():
    lines = agent_day_lines(rows())
    assert lines == [
        (1, [[31.2231, 121.4453], [31.2304, 121.4737], [31.2376, 121.4846]]),
        (2, [[31.2397, 121.5055], [31.2156, 121.5509]]),
    ]  # day 3 has one visit: nothing to join


def test_the_map_draws_the_straight_lines_and_says_they_are_straight():
    page = build_agent_map(rows(), region="shanghai", lang="en").get_root().render()
    drawn = polylines(page)
    assert [[31.2231, 121.4453], [31.2304, 121.4737], [31.2376, 121.4846]] in drawn
    assert [[31.2397, 121.5055], [31.2156, 121.5509]] in drawn
    assert not any([31.2376, 121.4846] in line and [31.2397, 121.5055] in line for line in drawn)  # days apart
    assert "Day 2 in visiting order (straight lines, not the road)" in page
    zh = build_agent_map(rows(), region="shanghai", lang="zh").get_root().render()
    assert "第 2 天的游览顺序（直线，不是实际道路）" in zh


def test_a_plan_of_one_visit_a_day_draws_no_line():
    single = [{**row, "day": n} for n, row in enumerate(rows()[:2], start=1)]
    assert polylines(build_agent_map(single, region="shanghai", lang="en").get_root().render()) == []
