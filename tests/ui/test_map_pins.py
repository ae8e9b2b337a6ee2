"""Pins on every map (components/map_pins.py): no map asks for Leaflet's marker image, and on the itinerary's day map,
the agent's map and the half-day map two pins a few metres apart are fanned out (not drawn on top of each other),
each moved pin with a leader line to its true point, the hotel or start pin above every numbered one. The route
map's own pins and legend are tested in test_route_map.py and test_route_map_browser.py."""

from __future__ import annotations

from datetime import date, datetime, time

import folium
import pytest

from components.map_pins import TOP_Z
from components.maps import offline_map
from tests.support.itinerary_packs import PLACES
from tests.support.map_browser import assert_pins_apart, chromium_page, settled_pins, write_offline_map

PLACE = {pid: (name, lon, lat) for pid, name, lon, lat, *_ in PLACES}
FEW_METRES = 0.00004  # of longitude: about 4 m in Shanghai


def test_the_default_marker_image_is_replaced_before_any_marker():
    m = offline_map([31.23, 121.47])
    folium.Marker([31.23, 121.47], icon=folium.DivIcon(html="<b>1</b>")).add_to(m)
    html = m.get_root().render()
    no_image = html.index("L.Marker.prototype.options.icon = L.divIcon(")
    assert no_image < html.index("L.marker(")
    assert "marker-icon.png" not in html


def _near(pid: str) -> tuple[str, float, float]:
    """A point a few metres east of a test place (a second place in the same building)."""
    name, lon, lat = PLACE[pid]
    return f"{name} (next door)", lon + FEW_METRES, lat


def day_map() -> folium.Map:
    """A day from the hotel and back: the Bund, a place a few metres from it, a place a few metres from the hotel."""
    from components.maps import build_day_map
    from core.models.itinerary_result import AnchorPoint, DayTimeline, DayTotals, TimelineEntry

    hotel_name, hotel_lon, hotel_lat = PLACE["i-hotel"]
    hotel = AnchorPoint(key="i-hotel", name=hotel_name, lon=hotel_lon, lat=hotel_lat)
    stops = [("i-bund", *PLACE["i-bund"]), ("bund-2", *_near("i-bund")), ("hotel-2", *_near("i-hotel"))]
    entries = []
    for hour, (key, name, lon, lat) in enumerate(stops, start=9):
        at, done = datetime(2025, 6, 2, hour), datetime(2025, 6, 2, hour, 45)
        entries.append(
            TimelineEntry(
                kind="visit",
                key=key,
                name=name,
                arrival=at,
                start=at,
                end=done,
                departure=done,
                priority="should",
                lon=lon,
                lat=lat,
            )  # fmt: skip
        )
    day = DayTimeline(
        day_index=0, date=date(2025, 6, 2), day_start=datetime(2025, 6, 2, 9), day_end=datetime(2025, 6, 2, 18),
        start_key="i-hotel", end_key="i-hotel", start_anchor=hotel, end_anchor=hotel, lunch_required=False,
        entries=entries, totals=DayTotals(visits=3),
    )  # fmt: skip
    return build_day_map(day, region="shanghai", lang="en")


#: a backtick (OpenStreetMap has "T`UOMO Menswear") and a template-literal placeholder in a place's name
HOSTILE_NAME = "T`UOMO ${window.omniInjected = 1} </script>"


def agent_map() -> folium.Map:
    from components.maps import build_agent_map

    stops = [PLACE["i-bund"], _near("i-bund"), PLACE["i-pearl"]]
    stops[2] = (HOSTILE_NAME, *stops[2][1:])  # a name from map data or a typed stop: text, never script
    rows = [{"name": n, "lon": lon, "lat": lat, "day": 1, "start": "09:00", "end": "10:00"} for n, lon, lat in stops]
    return build_agent_map(rows, region="shanghai", lang="en")


def halfday_map() -> folium.Map:
    """From the hotel: a place a few metres from it, then the Bund."""
    from components.halfday.map import build_plan_map
    from core.halfday.models import OriginPoint, Plan, PlanStep

    steps = [
        PlanStep(
            start=time(14 + n),
            end=time(14 + n, 45),
            place_id=f"p{n}",
            name_zh=name,
            name_en=name,
            lon=lon,
            lat=lat,
            kind="activity",
            category="landmark",
        )  # fmt: skip
        for n, (name, lon, lat) in enumerate([_near("i-hotel"), PLACE["i-bund"]])
    ]
    plan = Plan(plan_id="p", theme=["landmark"], steps=steps, feasibility=1.0, solver="greedy")
    name, lon, lat = PLACE["i-hotel"]
    origin = OriginPoint(name=name, lon=lon, lat=lat, source="user_input")
    return build_plan_map(plan, lang="en", region="shanghai", origin=origin)


MAPS = {"day": (day_map, "H"), "agent": (agent_map, None), "halfday": (halfday_map, "S")}


@pytest.mark.parametrize("which", MAPS)
def test_every_map_draws_its_pins_in_one_group_with_the_spreading_script_and_its_start_on_top(which):
    build, start = MAPS[which]
    page = build().get_root().render()
    assert page.rindex("L.marker(") < page.index("function layout()")  # the script runs over every pin
    assert page.count('svg class=\\"omni-leader') == page.count("L.marker(")  # each pin carries its leader line
    assert page.count(f'"zIndexOffset": {TOP_Z}') == (1 if start else 0)  # the hotel or start, once


@pytest.mark.ui
@pytest.mark.browser
def test_pins_a_few_metres_apart_are_fanned_out_on_every_map(leaflet_static, tmp_path):
    pages = {
        which: write_offline_map(build(), leaflet_static, tmp_path / f"{which}.html")
        for which, (build, _) in MAPS.items()
    }
    seen = {}
    with chromium_page(width=700, height=460) as (page, errors):
        for which, path in pages.items():
            page.goto(path.as_uri())
            seen[which] = settled_pins(page)
            assert page.evaluate("window.omniInjected") is None, which
    assert not errors, errors
    assert sorted(b["label"] for b in seen["day"]) == ["1", "2", "3", "H"]  # the round trip's hotel once
    assert sorted(b["label"] for b in seen["agent"]) == ["1", "2", "3"]
    assert sorted(b["label"] for b in seen["halfday"]) == ["1", "2", "S"]
    for which, boxes in seen.items():
        assert_pins_apart(boxes, which)
        assert len([b for b in boxes if b["spread"] == "1"]) >= 2, which  # the pair a few metres apart is moved
        start = MAPS[which][1]
        if start:
            [top] = [b["z"] for b in boxes if b["label"] == start]
            assert top > max(b["z"] for b in boxes if b["label"].isdigit()), which
