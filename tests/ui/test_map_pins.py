"""Pins on every map (components/map_pins.py): no map asks for Leaflet's marker image, and on the itinerary's day map,
the agent's map and the half-day map two pins a few metres apart are fanned out (not drawn on top of each other),
each moved pin with a leader line to its true point, the hotel or start pin above every numbered one. The route
map's own pins and legend are tested in test_route_map.py and test_route_map_browser.py."""

from __future__ import annotations

import html
import re
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
    from components.itinerary.day_map import build_day_map
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
    from core.models.halfday.plans import OriginPoint, Plan, PlanStep

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
    # each pin carries its leader line, and so does the cluster disc (its one icon function makes every cluster's)
    assert page.count('svg class=\\"omni-leader') == page.count("L.marker(") + page.count("L.markerClusterGroup(")
    assert page.count(f'"zIndexOffset": {TOP_Z}') == (1 if start else 0)  # the hotel or start, once


#: the labels each cluster disc lists in its title (English: "Places 1, 2: zoom in to see each one")
CLUSTER_TITLES_JS = "() => Array.from(document.querySelectorAll('.omni-cluster')).map(e => e.title)"
MAP_JS = "window[Object.keys(window).find(k => /^map_[0-9a-f]+$/.test(k))]"
#: a whole city in the window: the test's places (a few hundred metres apart) are a few pixels apart
CITY_ZOOM = 12

#: each map's numbered pins in visiting order: (label, the name its tooltip starts with)
NUMBERED = {
    "day": [("1", PLACE["i-bund"][0]), ("2", _near("i-bund")[0]), ("3", _near("i-hotel")[0])],
    "agent": [("1", PLACE["i-bund"][0]), ("2", _near("i-bund")[0]), ("3", HOSTILE_NAME)],
    "halfday": [("1", _near("i-hotel")[0]), ("2", PLACE["i-bund"][0])],
}


def _clusters(m: folium.Map) -> list:
    from components.map_pins import OfflineMarkerCluster

    found, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if isinstance(el, OfflineMarkerCluster):
            found.append(el)
    return found


def _label(marker: folium.Marker) -> str:
    return re.search(r'class="omni-pin[^"]*"[^>]*>([^<]+)<', marker.icon.options["html"]).group(1)


def _tooltip(marker: folium.Marker) -> str:
    [tip] = [c for c in marker._children.values() if isinstance(c, folium.Tooltip)]
    return str(tip.text)


@pytest.mark.parametrize("which", MAPS)
def test_every_maps_numbered_pins_are_in_one_cluster_group_in_visiting_order_and_the_start_is_not(which):
    build, start = MAPS[which]
    m = build()
    [cluster] = _clusters(m)
    inside = [c for c in cluster._children.values() if isinstance(c, folium.Marker)]
    expected = NUMBERED[which]
    assert [_label(mk) for mk in inside] == [label for label, _ in expected]  # one numbering, by visit
    for marker, (label, name) in zip(inside, expected, strict=True):  # the tooltip's number is the pin's
        assert _tooltip(marker).startswith(f"<b>{label} · {html.escape(name)}</b>"), (which, _tooltip(marker))
    group = cluster._parent
    outside = [_label(c) for c in group._children.values() if isinstance(c, folium.Marker)]
    assert outside == ([start] if start else [])  # the hotel or start is never clustered

    page = m.get_root().render()
    assert '<script src="/app/static/leaflet/markercluster/leaflet.markercluster.js">' in page
    assert 'href="/app/static/leaflet/markercluster/MarkerCluster.css"' in page
    assert not re.findall(r'(?:src|href)="(?:https?:)?//', page), "no asset from another host"
    assert page.count("L.markerClusterGroup(") == 1
    assert "Places {labels}: zoom in to see each one" in page  # the cluster's tooltip, in the map's language


def test_a_cluster_says_its_numbers_in_chinese_on_a_chinese_map():
    from components.maps import build_agent_map

    rows = [{"name": n, "lon": lon, "lat": lat, "day": 1, "start": "09:00", "end": "10:00"} for n, lon, lat in
            (PLACE["i-bund"], PLACE["i-pearl"])]  # fmt: skip
    page = build_agent_map(rows, region="shanghai", lang="zh").get_root().render()
    assert "第 {labels} 个地点:放大地图可逐一查看" in page
    assert "Places {labels}" not in page


@pytest.mark.ui
@pytest.mark.browser
def test_pins_a_few_metres_apart_are_fanned_out_and_cluster_at_a_city_zoom_on_every_map(leaflet_static, tmp_path):
    pages = {
        which: write_offline_map(build(), leaflet_static, tmp_path / f"{which}.html")
        for which, (build, _) in MAPS.items()
    }
    seen, far, titles = {}, {}, {}
    with chromium_page(width=700, height=460) as (page, errors):
        for which, path in pages.items():
            page.goto(path.as_uri())
            seen[which] = settled_pins(page)
            assert page.evaluate("window.omniInjected") is None, which
            # the city's scale: the numbered pins a few hundred metres apart crowd together and join a cluster
            page.evaluate(f"{MAP_JS}.setZoom({CITY_ZOOM}, {{animate: false}})")
            far[which] = settled_pins(page, wait_ms=400)
            titles[which] = page.evaluate(CLUSTER_TITLES_JS)
    assert not errors, errors
    for which, boxes in far.items():
        assert titles[which], which
        clustered = [
            n for title in titles[which] for n in re.match(r"Places (.*): zoom in", title).group(1).split(", ")
        ]
        drawn = [b["label"] for b in boxes]
        assert sorted(drawn + clustered) == sorted(b["label"] for b in seen[which]), which  # each pin once
        start = MAPS[which][1]
        assert (start in drawn) if start else True, which  # the hotel or start is never clustered
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
