"""Dashboard tests with streamlit.testing.v1.AppTest (no browser) plus the pure component helpers.

For every bundled demo scenario: load it, plan it, and check the comparison table, the best-route
card and the map's generated Leaflet script. Bad input shows an error next to the form and keeps it.
AppTest's browser has no locale, so these pages are in English (tests/ui/test_route_language.py covers both).
"""

from __future__ import annotations

import re

import pytest

from core.config import get_settings
from core.route.scenarios import list_scenarios

pytestmark = pytest.mark.ui

EXPECTED_SCENARIOS = {"delivery-round", "sightseeing-day", "airport-run", "walking-bund", "my-location-errands"}
SCENARIOS = list_scenarios()
UNRESOLVABLE = "zzzz qqq 不存在的地方"


# --- helpers -----------------------------------------------------------------------------------


def load_and_plan(at, scenario):
    at.selectbox(key="region").set_value(scenario.region).run()
    at.selectbox(key="scenario").set_value(scenario.id)
    at.button(key="load_scenario").click().run()
    assert not at.exception, at.exception
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    return at


def comparison_table(at):
    tables = [df.value for df in at.dataframe if {"rank", "order", "Pareto", "best for"} <= set(df.value.columns)]
    assert len(tables) == 1, "expected one comparison table"
    return tables[0]


def route_map_page(at) -> str:
    """The route map's HTML document: the page's one st.iframe (the start picker is an st_folium component)."""
    frames = [f for f in at.get("iframe") if f.proto.srcdoc]
    assert len(frames) == 1, "expected the route map as one st.iframe"
    return frames[0].proto.srcdoc


def expected_marker_count(scenario, result) -> int:
    has_start = result.resolved_origin is not None or (
        scenario.request.origin_mode == "current_location" and scenario.request.origin_lon is not None
    )
    return int(has_start) + len(result.resolved_stops) + 1


def pin_labels(script: str) -> list[str]:
    """The numbers/letters on the DivIcon markers, in the order they are added."""
    plain = script.replace("\\u003c", "<").replace("\\u003e", ">").replace('\\"', '"')
    return re.findall(r'class="omni-pin"[^>]*>([^<]+)<', plain)


def all_text(at) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.title, *at.subheader])


# --- scenarios ---------------------------------------------------------------------------------


def test_demo_scenarios_are_bundled():
    assert EXPECTED_SCENARIOS <= {s.id for s in SCENARIOS}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario_plans_and_renders(planner_app, scenario):
    at = load_and_plan(planner_app, scenario)
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["route_result"]
    best = result.best_route

    # Comparison table: one row per candidate; the best row's order is the best route's order.
    table = comparison_table(at)
    assert len(table) == len(result.candidates)
    best_text = order_text(result, best, "en")  # the places' English names where the pack has them
    assert len(best_text.split(" → ")) == len(best.full_order_labels)
    best_rows = table[table["order"] == best_text]
    assert len(best_rows) == 1
    assert int(best_rows["rank"].iloc[0]) == (best.rank or 1)
    assert int(table["rank"].iloc[0]) == (best.rank or 1)  # listed first
    assert list(table.loc[table["best"] == "★", "order"]) == [best_text]  # marked, and no other row
    assert (table["best"] != "").sum() == 1

    # Best-route card: the order, why it won and the summary in words; the core's own reasoning in the raw data.
    text = all_text(at)
    assert best_text in text
    km = f"{best.total_distance_m / 1000:.1f} km"
    assert "**Summary:** " in text and km in text
    assert "**Why:** " in text
    assert [e.label for e in at.expander if e.key == "best_route_details"] == ["Details"]
    [raw] = [e for e in at.expander if e.key == "best_route_raw"]
    assert best.ranking_reason and best.ranking_reason in [line for c in raw.code for line in str(c.value).splitlines()]
    assert not [
        c for e in at.expander if e.key == "best_route_details" for c in e.caption if best.ranking_reason in c.value
    ]

    # Map: local Leaflet only, one numbered marker per point, the best route drawn.
    script = route_map_page(at)
    js_links = re.findall(r'<script src="([^"]+)"', script)
    css_links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', script)
    assert js_links and all(u.startswith("/app/static/leaflet/") for u in js_links)
    assert css_links and all(u.startswith("/app/static/leaflet/") for u in css_links)
    assert "http://" not in script and "https://" not in script  # nothing from the network
    assert script.count("L.marker(") == expected_marker_count(scenario, result)
    assert "L.polyline(" in script
    assert "Best route" in script
    labels = pin_labels(script)
    assert labels[1 if labels[0] == "S" else 0 : -1] == [str(n) for n in range(1, len(result.resolved_stops) + 1)]
    assert labels[-1] == "E"

    # Downloads and deep links are offered.
    keys = {b.key for b in at.get("download_button")}
    assert {"dl_json", "dl_html", "dl_csv"} <= keys
    assert at.session_state["route_request"].stops


def test_current_location_without_coordinates_warns(planner_app):
    scenario = next(s for s in SCENARIOS if s.id == "my-location-errands")
    at = planner_app
    at.selectbox(key="scenario").set_value(scenario.id)
    at.button(key="load_scenario").click().run()
    at.number_input(key="origin_lon").set_value(None)
    at.number_input(key="origin_lat").set_value(None)
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["route_result"]
    assert result.resolved_origin is None
    assert any("当前定位" in w.value or "current location" in w.value for w in at.warning)
    # No start marker: stops + destination only.
    assert route_map_page(at).count("L.marker(") == len(result.resolved_stops) + 1


# --- bad input -----------------------------------------------------------------------------------


def test_no_stops_shows_error_and_keeps_input(planner_app):
    at = planner_app
    at.radio(key="origin_mode").set_value("fixed")
    at.text_input(key="origin_address").input("人民广场")
    at.text_input(key="destination_address").input("外滩")
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors and any("stop" in e.lower() for e in errors), errors
    assert "route_result" not in at.session_state
    assert at.text_input(key="origin_address").value == "人民广场"
    assert at.text_input(key="destination_address").value == "外滩"


def test_missing_destination_names_the_field(planner_app):
    at = planner_app
    at.text_input(key="origin_address").input("人民广场")
    at.text_area(key="paste_stops").input("豫园")
    at.button(key="paste_apply").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any("destination" in e.lower() for e in errors), errors


def test_unresolvable_stop_shows_error_and_keeps_input(planner_app):
    scenario = next(s for s in SCENARIOS if s.id == "sightseeing-day")
    at = planner_app
    at.selectbox(key="scenario").set_value(scenario.id)
    at.button(key="load_scenario").click().run()
    n_before = len(at.session_state["stops_df"])
    at.text_area(key="paste_stops").input(UNRESOLVABLE)
    at.button(key="paste_apply").click().run()
    assert not at.exception, at.exception
    stops = at.session_state["stops_df"]
    assert len(stops) == n_before + 1
    assert stops["address"].iloc[-1] == UNRESOLVABLE

    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors, "an unresolvable stop must show an error"
    assert any(f"stop {n_before + 1}" in e.lower() and UNRESOLVABLE in e for e in errors), errors
    assert "route_result" not in at.session_state
    # Nothing the user typed is lost.
    kept = at.session_state["stops_df"]
    assert len(kept) == n_before + 1 and kept["address"].iloc[-1] == UNRESOLVABLE
    assert at.text_input(key="destination_address").value == (scenario.request.destination_address or "") or (
        scenario.request.round_trip
    )
    assert at.data_editor[0].value["address"].iloc[-1] == UNRESOLVABLE


def test_paste_appends_name_and_address(planner_app):
    at = planner_app
    at.text_area(key="paste_stops").input("外滩 | 上海市黄浦区中山东一路\n豫园\n\n")
    at.button(key="paste_apply").click().run()
    assert "Added 2 stops." in [c.value for c in at.caption]  # not "2 stop(s)"
    at.text_area(key="paste_stops").input("静安寺 | 南京西路1686号 | 上海")
    at.button(key="paste_apply").click().run()
    assert not at.exception
    df = at.session_state["stops_df"]
    assert list(df["name"]) == ["外滩", "", "静安寺"]
    assert list(df["address"]) == ["上海市黄浦区中山东一路", "豫园", "南京西路1686号"]
    assert list(df["city"]) == ["", "", "上海"]
    assert list(df["order"]) == [1, 2, 3]


def order_text(result, candidate, lang):
    from components.route_words import order_text as words

    return words(result, candidate, lang)


def test_home_page_links_to_planner(leaflet_static):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception
    text = all_text(at)
    assert "Route planner" in text and "Half-day planner" in text and "coming" not in text
    assert "offline" in " ".join(i.value for i in at.info)
    pages = [str(link.proto.page) for link in at.get("page_link")]
    assert any("route_planner" in p for p in pages) and any("itinerary" in p for p in pages)
    assert any("agent_console" in p for p in pages) and any("half_day" in p for p in pages)
    assert at.selectbox(key="region").value
    assert at.selectbox(key="provider").value == "offline"


def test_amap_without_key_is_not_offered_and_the_sidebar_says_why(planner_app):
    from core.config import get_settings

    assert get_settings().amap_key is None  # the test settings hold no key
    at = planner_app
    assert not any(str(o).startswith("amap") for o in at.selectbox(key="provider").options)
    assert at.selectbox(key="provider").value == "offline"
    assert "AMap is not offered: it needs an API key" in " ".join(str(c.value) for c in at.sidebar.caption)
    scenario = next(s for s in SCENARIOS if s.id == "walking-bund")
    load_and_plan(at, scenario)
    assert at.session_state["route_result"].success


def test_the_provider_picker_offers_amap_only_with_its_key():
    from pydantic import SecretStr

    from core.config import get_settings
    from core.geo.registry import available_providers

    bare = get_settings().model_copy(update={"amap_key": None})
    keyed = get_settings().model_copy(update={"amap_key": SecretStr("k" * 32)})
    assert not any(
        p.startswith("amap") for p in available_providers(region="helsinki", settings=bare, configured_only=True)
    )
    assert {"amap", "amap-mcp"} <= set(available_providers(region="helsinki", settings=keyed, configured_only=True))
    assert "amap" in available_providers(region="helsinki", settings=bare)  # the CLI and the API still name it


# --- pure helpers --------------------------------------------------------------------------------


def _plan(scenario_id: str):
    from core.geo.registry import make_provider
    from core.route.planner import plan_route

    scenario = next(s for s in SCENARIOS if s.id == scenario_id)
    provider = make_provider("offline", region=scenario.region, settings=get_settings())
    return plan_route(scenario.request, provider=provider, settings=get_settings())


def test_build_route_map_is_offline_and_complete():
    from components.route.map import build_route_map, candidate_lines, map_points

    result = _plan("sightseeing-day")
    m = build_route_map(result, show_alternatives=True)
    page = m.get_root().render()
    urls = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert urls == [  # Leaflet and the pins' clusters, from the app itself
        "/app/static/leaflet/leaflet.js",
        "/app/static/leaflet/leaflet.css",
        "/app/static/leaflet/markercluster/leaflet.markercluster.js",
        "/app/static/leaflet/markercluster/MarkerCluster.css",
        "/app/static/leaflet/markercluster/MarkerCluster.Default.css",
    ]
    for cdn in ("cdn.jsdelivr", "cdnjs", "jquery", "bootstrap", "font-awesome", "fontawesome"):
        assert cdn not in page
    points = map_points(result)
    assert page.count("L.marker(") == len(points)
    assert points[0].label == "S" and points[-1].label == "E"
    changed_legs = sum(len(c.segments) for c in candidate_lines(result))  # candidates: where they differ from the best
    assert page.count("L.polyline(") == 2 + changed_legs  # the best route and its white casing
    assert "L.control.layers" in page
    assert "fitBounds" in page

    bare = build_route_map(result, show_alternatives=False).get_root().render()
    assert bare.count("L.polyline(") == 2  # the best route over its casing only


def test_tables_and_chart_builders():
    from components.route.charts import candidates_frame, pareto_chart
    from components.route.tables import comparison_frame, provider_calls_frame, resolved_points_frame

    result = _plan("delivery-round")
    frame = comparison_frame(result)
    assert len(frame) == len(result.candidates)
    assert frame["_best"].sum() == 1
    assert frame.loc[frame["_best"], "order"].iloc[0] == order_text(result, result.best_route, "en")
    assert frame.loc[frame["_best"], "Δ km"].iloc[0] == 0
    points = resolved_points_frame(result)
    assert {"source", "confidence note", "match score"} <= set(points.columns)
    assert len(points) == len(result.resolved_stops) + 1 + int(result.resolved_origin is not None)
    assert provider_calls_frame(result)["total"].iloc[0] == result.provider_calls.total
    chart_data = candidates_frame(result)
    assert (chart_data["kind"] == "best").sum() == 1
    assert pareto_chart(result).to_dict()["layer"]


def test_form_helpers():
    import pandas as pd

    from components.route.errors import field_label
    from components.route.form import request_payload
    from components.stops_table import parse_pasted_stops, stops_frame, stops_from_frame
    from core.models.route import RoutePlanRequest

    assert parse_pasted_stops("A | addr a\n# note\n\nplain address\nB\taddr b\tcity\tme") == [
        {"name": "A", "address": "addr a", "city": "", "contact": ""},
        {"name": "", "address": "plain address", "city": "", "contact": ""},
        {"name": "B", "address": "addr b", "city": "city", "contact": "me"},
    ]
    table = stops_frame([{"name": "x", "address": "ax"}, {"name": "y", "address": "ay"}])
    table.loc[0, "order"] = 5
    table = pd.concat([table, pd.DataFrame([{"order": None, "name": None, "address": None}])], ignore_index=True)
    assert [s["name"] for s in stops_from_frame(table)] == ["y", "x"]  # sorted by order, blank row dropped

    state = {
        "origin_mode": "current_location",
        "origin_name": "ignored",
        "origin_lon": 121.4,
        "origin_lat": 31.2,
        "destination_address": "外滩",
        "max_permutations": 24,
    }
    payload = request_payload(state, table)
    assert "origin_name" not in payload and payload["origin_lon"] == 121.4
    RoutePlanRequest.model_validate(payload)
    assert field_label("stops.2", [{}, {}, {"name": "xyz"}]) == "Stop 3 ('xyz')"
    assert field_label("destination_address") == "Destination address"


def test_install_leaflet_script(tmp_path):
    from components.static_assets import LEAFLET_FILES, install_leaflet, leaflet_installed, leaflet_urls

    written = install_leaflet(tmp_path / "leaflet")
    assert len(written) == len(LEAFLET_FILES) and leaflet_installed(tmp_path / "leaflet")
    assert install_leaflet(tmp_path / "leaflet") == []  # idempotent
    assert leaflet_urls() == ("/app/static/leaflet/leaflet.js", "/app/static/leaflet/leaflet.css")
    assert leaflet_urls("/omni/") == ("/omni/app/static/leaflet/leaflet.js", "/omni/app/static/leaflet/leaflet.css")


def test_paste_keeps_extra_columns_and_skips_separator_only_lines():
    from components.stops_table import parse_pasted_stops

    assert parse_pasted_stops(" | \n|||\n\t\nA | addr | 上海 | Li | 138 0000 | back door") == [
        {"name": "A", "address": "addr", "city": "上海", "contact": "Li | 138 0000 | back door"},
    ]


def test_changed_fields_compares_the_form_with_the_planned_request():
    from components.route.form import changed_fields, request_payload
    from components.stops_table import stops_frame
    from core.models.route import RoutePlanRequest

    state = {
        "origin_mode": "fixed",
        "origin_address": "人民广场",
        "destination_address": "外滩",
        "route_strategy": "balanced",
    }
    table = stops_frame([{"address": "豫园"}, {"address": "新天地"}])
    planned = RoutePlanRequest.model_validate(request_payload(state, table))
    assert changed_fields(state, table, planned) == []
    assert changed_fields({**state, "route_strategy": "fastest_time"}, table, planned) == ["route_strategy"]
    assert changed_fields(state, stops_frame([{"address": "新天地"}, {"address": "豫园"}]), planned) == ["stops"]
    assert changed_fields({**state, "origin_address": "静安寺"}, table, planned) == ["origin"]
    assert changed_fields({**state, "destination_address": "  "}, table, planned) == ["input"]  # no longer valid


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "Changed since this plan: start, strategy, travel mode, map provider. The result below is for the previous"
            " inputs (strategy: balanced, 2 stops)",
        ),
        ("zh", "规划之后有改动:起点、策略、出行方式、地图服务。下面的结果对应之前的输入(策略:均衡,2 个途经点)"),
    ],
)
def test_the_stale_notice_names_the_changed_inputs_as_words_inside_its_sentence(lang, expected):
    """Inside a sentence the inputs are lower-case words ("strategy", not "Strategy"); the sidebar's provider is
    named as the sidebar names it (a map provider) and the stops are counted in words."""
    from components.frame import ACTIVE_PROVIDER
    from components.route.form import PLANNED_PROVIDER, REQUEST, request_payload, stale_message
    from components.stops_table import stops_frame
    from core.models.route import RoutePlanRequest

    state = {"origin_mode": "fixed", "origin_address": "人民广场", "destination_address": "外滩"}
    table = stops_frame([{"address": "豫园"}, {"address": "新天地"}])
    planned = RoutePlanRequest.model_validate(request_payload({**state, "route_strategy": "balanced"}, table))
    result = _plan("sightseeing-day").model_copy(update={"route_strategy": "balanced"})
    result = result.model_copy(update={"resolved_stops": result.resolved_stops[:2]})
    now = {
        **state,
        "origin_address": "静安寺",
        "route_strategy": "fastest_time",
        "transport_mode": "walking",
        REQUEST: planned,
        ACTIVE_PROVIDER: "amap",
        PLANNED_PROVIDER: "offline",
    }
    notice = stale_message(now, table, result, lang=lang)
    assert notice is not None and notice.startswith(expected), notice
    assert stale_message({**state, "route_strategy": "balanced", REQUEST: planned}, table, result, lang=lang) is None


def test_every_input_a_stale_notice_can_name_has_lower_case_words_in_english():
    from components.route.form import STALE_FIELD_WORDS
    from core.i18n import t
    from core.models.route import RoutePlanRequest

    fields = {
        n.split("_")[0] if n.split("_")[0] in ("origin", "destination") else n for n in RoutePlanRequest.model_fields
    }
    assert fields | {"region", "provider"} <= set(STALE_FIELD_WORDS)
    for key in STALE_FIELD_WORDS.values():
        words = t(key, "en")
        assert words[0].islower() or words.split()[0] in ("AMap", "HTML"), words  # a name keeps its capital
        assert t(key, "zh")


def test_switching_strategy_after_planning_marks_the_result_stale(planner_app):
    scenario = next(s for s in SCENARIOS if s.id == "sightseeing-day")
    at = load_and_plan(planner_app, scenario)
    planned = at.session_state["route_result"].route_strategy
    assert not at.info, [i.value for i in at.info]
    other = next(s for s in ("shortest_distance", "fastest_time", "balanced") if s != planned)
    at.selectbox(key="route_strategy").set_value(other).run()
    assert not at.exception, at.exception
    notes = [i.value for i in at.info]
    planned_words = {"shortest_distance": "shortest distance", "fastest_time": "fastest time", "balanced": "balanced"}
    assert len(notes) == 1 and "Changed since this plan: strategy." in notes[0], notes
    assert f"(strategy: {planned_words[planned]}, " in notes[0], notes
    at.selectbox(key="route_strategy").set_value(planned).run()
    assert not at.info, [i.value for i in at.info]  # back to what was planned: not stale
    at.text_area(key="paste_stops").input("外滩 | 中山东一路")
    at.button(key="paste_apply").click().run()
    assert any("Changed since this plan: stops." in i.value for i in at.info)
    at.button(key="plan").click().run()
    assert not at.info, [i.value for i in at.info]
    assert len(at.session_state["route_result"].resolved_stops) == len(scenario.request.stops) + 1


def test_a_map_draws_the_packs_streets_or_its_outline_and_never_online_tiles_by_default(monkeypatch):
    from components.basemap import district_centres, district_label
    from components.maps import build_pick_map
    from components.route.map import build_route_map
    from core.config import get_settings
    from core.packs.loader import load_region

    helsinki = build_route_map(_plan("helsinki-museums")).get_root().render()
    assert "geo_json" in helsinki and '"class": "major"' in helsinki and '"class": "water"' in helsinki
    assert "\\u00a9 OpenStreetMap contributors \\u00b7 data 2019-04" in helsinki  # the source and month, on the map
    west, south, east, north = load_region("helsinki").bbox  # the pack's box outlined over its streets, named
    assert re.search(rf"L\.rectangle\(\s*\[\[{south}, {west}\], \[{north}, {east}\]\]", helsinki)
    assert "Helsinki: coverage" in helsinki
    shanghai = build_route_map(_plan("sightseeing-day")).get_root().render()
    assert "geo_json" not in shanghai
    pack = load_region("shanghai")
    centres = district_centres(pack)
    shown = [district_label(pack, name, "en").replace("'", "\\u0026#x27;") for name, *_ in centres]  # tojson's &
    assert len(centres) >= 10 and all(f'"{name}"' in shanghai for name in shown)  # a label per district, in English
    assert "lines are straight estimates" in shanghai
    for page in (helsinki, shanghai, build_pick_map((24.9443, 60.1716), region="helsinki").get_root().render()):
        assert "tile.openstreetmap.org" not in page and "L.tileLayer" not in page
        found = re.findall(r'(?:src|href)="([^"]+)"', page)
        assert found[:2] == ["/app/static/leaflet/leaflet.js", "/app/static/leaflet/leaflet.css"]
        assert all(url.startswith("/app/static/leaflet/") for url in found)
    monkeypatch.setenv("OMNI_ONLINE_TILES", "true")
    get_settings.cache_clear()
    try:
        online = build_route_map(_plan("sightseeing-day")).get_root().render()
    finally:
        monkeypatch.delenv("OMNI_ONLINE_TILES")
        get_settings.cache_clear()
    assert "https://tile.openstreetmap.org/{z}/{x}/{y}.png" in online


def test_the_page_says_why_strategies_agree_on_estimates_and_is_silent_when_they_differ():
    from core.words.route import strategies_sentence

    assert "straight-line estimate" in strategies_sentence(_plan("sightseeing-day"), "en")
    assert "直线估算" in strategies_sentence(_plan("sightseeing-day"), "zh")
    assert strategies_sentence(_plan("helsinki-museums"), "en") is None


def test_over_amaps_tiles_every_overlay_moves_to_gcj02_and_clicks_come_back_in_wgs84(monkeypatch):
    from components.basemap import AMAP_TILES, from_display
    from components.maps import build_pick_map
    from components.route.map import build_route_map
    from core.config import get_settings
    from core.geo.coords import wgs84_to_gcj02

    result = _plan("sightseeing-day")
    plain = build_route_map(result)
    monkeypatch.setenv("OMNI_ONLINE_TILES", "true")
    get_settings.cache_clear()
    try:
        over_amap = build_route_map(result.model_copy(update={"provider": "amap"}))
        over_osm = build_route_map(result)
        pick = build_pick_map((121.4737, 31.2304), (121.4800, 31.2400), provider="amap")
    finally:
        monkeypatch.delenv("OMNI_ONLINE_TILES")
        get_settings.cache_clear()

    def markers(m):
        found, stack = [], [m]
        while stack:
            el = stack.pop()
            stack.extend(el._children.values())
            if type(el).__name__ == "Marker":
                found.append(tuple(el.location))
        return sorted(found)

    for (lat, lon), (g_lat, g_lon) in zip(markers(plain), markers(over_amap), strict=True):
        e_lon, e_lat = wgs84_to_gcj02(lon, lat)
        assert (g_lon, g_lat) == pytest.approx((e_lon, e_lat), abs=1e-9)
        assert abs(g_lon - lon) + abs(g_lat - lat) > 0.002  # ~500 m: what the shift is for
    assert markers(over_osm) == markers(plain)  # OSM tiles are WGS-84: nothing moves
    page = over_amap.get_root().render()
    assert AMAP_TILES.split("{")[0] in page
    assert pick.datum == "GCJ02"
    g_lon, g_lat = wgs84_to_gcj02(121.48, 31.24)
    assert from_display(g_lon, g_lat, "GCJ02") == pytest.approx((121.48, 31.24), abs=1e-6)


def test_a_plan_after_a_failed_one_takes_the_old_message_away(planner_app):
    """Plan reruns only the result area (a fragment); the failed plan's message beside the stops is in the form
    above it, and goes once a plan succeeds."""
    at = planner_app
    scenario = next(s for s in SCENARIOS if s.id == "delivery-round")
    at.selectbox(key="scenario").set_value(scenario.id)
    at.button(key="load_scenario").click().run()
    at.text_area(key="paste_stops").input(UNRESOLVABLE)
    at.button(key="paste_apply").click().run()
    at.button(key="plan").click().run()
    assert [e.value for e in at.error], "an unresolvable stop must show an error"

    at.button(key="stops_clear").click().run()  # new stops, the message kept until the next plan
    at.text_area(key="paste_stops").input("外滩 | 上海市黄浦区中山东一路\n豫园")
    at.button(key="paste_apply").click().run()
    assert [e.value for e in at.error], "the message stays until the next plan"
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert at.session_state["route_result"].success
    assert not [e.value for e in at.error]
    assert "route_error" not in at.session_state
