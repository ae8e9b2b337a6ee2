"""The route map a stakeholder can read (issue 23 §3), on the map's folium object and HTML: the best route bold, a
layer (and a legend checkbox) per candidate, a candidate selected in the comparison table highlighted, numbered pins
in a cluster group served offline, short credits (source and month, no version or timestamp), and one numbering on
the pins and the resolution table."""

from __future__ import annotations

import json
import re

import folium
import pytest

from core.config import get_settings
from tests.ui.test_route_map import legend_text, markers, pin_label, planned, polylines

pytestmark = pytest.mark.ui


def groups_of(m) -> list[folium.FeatureGroup]:
    found, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if type(el) is folium.FeatureGroup:
            found.append(el)
    return found


def lines_in(element) -> list[folium.PolyLine]:
    return [c for c in element._children.values() if isinstance(c, folium.PolyLine)]


def test_the_best_route_is_bold_and_each_candidate_is_its_own_layer_with_a_legend_checkbox():
    from components.route.map import BEST_COLOUR, build_route_map

    result = planned("8")
    m = build_route_map(result, lang="en")
    best = [p for p in polylines(m) if p.options["color"] == BEST_COLOUR]
    others = [p for p in polylines(m) if p.options["color"] not in (BEST_COLOUR, "#ffffff")]
    assert len(best) == 1 and others
    assert all(best[0].options["weight"] >= 2 * p.options["weight"] for p in others)
    assert all(p.options.get("dashArray") for p in others) and not best[0].options.get("dashArray")
    casing = [p for p in polylines(m) if p.options["color"] == "#ffffff"]
    assert len(casing) == 1 and casing[0].options["weight"] > best[0].options["weight"]  # a white edge around it

    page = m.get_root().render()
    ranks = [c.rank for i, c in enumerate(result.candidates) if i != result.best_index]
    layers = {g.layer_name: g for g in groups_of(m)}
    for rank in ranks:
        [name] = [n for n in layers if n.endswith(f"Candidate #{rank}")]
        own = lines_in(layers[name])
        assert own and len({p.options["color"] for p in own}) == 1  # its lines, in its colour, in its layer only
        assert f'data-rank="{rank}"' in page  # the legend's checkbox for it
        assert page.count(layers[name].get_name()) >= 3  # made, in the layer control, wired to the checkbox
    assert "L.control.layers" in page


def test_a_candidate_selected_in_the_table_is_drawn_whole_and_bold_and_the_rest_fade():
    from components.route.map import BEST_COLOUR, build_route_map
    from components.route.tables import comparison_frame, selected_rank

    result = planned("8")
    frame = comparison_frame(result)
    row = 2  # the third row of the comparison table
    rank = selected_rank(result, {"selection": {"rows": [row]}})
    assert rank == frame["rank"][row]
    cand = next(c for c in result.candidates if c.rank == rank)
    m = build_route_map(result, lang="en", highlight=rank)
    page = m.get_root().render()

    order = [result.point(ref) for ref in cand.points]
    whole = [p for p in polylines(m) if p.locations == [[pt.lat, pt.lon] for pt in order]]
    assert len(whole) == 1, "the selected candidate is drawn along its whole order"
    best = next(p for p in polylines(m) if p.options["color"] == BEST_COLOUR)
    assert whole[0].options["weight"] > 2 * min(p.options["weight"] for p in polylines(m))
    assert best.options["opacity"] < whole[0].options["opacity"]
    plain = build_route_map(result, lang="en")
    assert (
        next(p for p in polylines(plain) if p.options["color"] == BEST_COLOUR).options["opacity"]
        > best.options["opacity"]
    )
    assert f"Candidate #{rank} (" in legend_text(page)
    assert re.search(rf'class="cand selected" data-rank="{rank}"', page)
    assert "selected in the table" in legend_text(page)
    assert "selected in the table" not in legend_text(plain.get_root().render())

    assert selected_rank(result, {"selection": {"rows": []}}) is None
    assert selected_rank(result, {"selection": {"rows": [len(result.candidates)]}}) is None  # not this plan's row
    assert selected_rank(result, None) is None


def test_numbered_pins_are_in_a_cluster_group_served_offline_and_start_and_end_are_not():
    from components.map_pins import OfflineMarkerCluster
    from components.route.map import build_route_map

    result = planned("30")
    m = build_route_map(result, lang="en", base_url_path="omni")
    clusters, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if isinstance(el, OfflineMarkerCluster):
            clusters.append(el)
    assert len(clusters) == 1
    inside = sorted(pin_label(mk) for mk in clusters[0]._children.values() if isinstance(mk, folium.Marker))
    assert inside == sorted(map(str, range(1, 31)))
    outside = [pin_label(mk) for mk in markers(m) if mk._parent is not clusters[0]]
    assert sorted(outside) == ["E", "S"]

    page = m.get_root().render()
    assert '<script src="/omni/app/static/leaflet/markercluster/leaflet.markercluster.js">' in page
    assert 'href="/omni/app/static/leaflet/markercluster/MarkerCluster.css"' in page
    assert not re.findall(r'(?:src|href)="(?:https?:)?//', page), "no asset from another host"
    assert "L.markerClusterGroup(" in page


def test_the_credits_name_the_source_and_the_month_of_the_data_without_a_version_or_timestamp():
    from components.basemap import map_credits
    from core.packs.loader import load_region

    helsinki = load_region("helsinki")
    assert helsinki.data_date and "T" in helsinki.data_date and re.search(r"\d+\.\d+\.\d+", helsinki.attribution)
    year_month = helsinki.data_date[:7]
    credits = map_credits(helsinki, "streets", "en")
    assert credits == f"© OpenStreetMap contributors · data {year_month}"
    assert map_credits(helsinki, "streets", "zh") == f"© OpenStreetMap contributors · 数据 {year_month}"
    shanghai = load_region("shanghai")
    for text in (credits, map_credits(shanghai, "outline", "en")):
        assert not re.search(r"\d+\.\d+\.\d+|==|T\d\d:\d\d|\d\d:\d\d", text), text  # no version, no timestamp
        assert len(text) <= 60

    from components.route.map import build_route_map
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import list_scenarios

    scenario = list_scenarios("helsinki")[0]
    result = plan_route(
        scenario.request,
        provider=make_provider("offline", region="helsinki", settings=get_settings()),
        settings=get_settings(),
    )
    page = build_route_map(result, lang="en").get_root().render()
    added = re.findall(r"attributionControl\.addAttribution\((\".*?\")\)", page)
    assert [json.loads(a) for a in added] == [f"© OpenStreetMap contributors · data {year_month}"]
    assert "setPrefix(false)" in page  # not Leaflet's own link and flag


def test_the_pin_numbers_are_the_numbers_of_the_resolution_table():
    from components.route.map import build_route_map
    from components.route.tables import resolved_points_frame

    result = planned("8")
    frame = resolved_points_frame(result, lang="en")
    pins = {(round(mk.location[0], 6), round(mk.location[1], 6)): pin_label(mk) for mk in markers(
        build_route_map(result, lang="en"))}  # fmt: skip
    stops = frame[frame["#"] != ""]  # the start and the destination rows have no number
    assert len(stops) == len(result.resolved_stops) == 8
    for _, row in stops.iterrows():
        assert pins[(row["lat"], row["lon"])] == str(row["#"]), row["input"]
    assert stops["#"].tolist() == [str(n) for n in range(1, 9)]  # the table reads in the order of the visits
    typed = [p.input_name or p.input_address for p in result.resolved_stops]
    assert stops["input"].tolist() != typed, "this plan visits its stops in another order than they were typed"
    first_visited = result.visiting()[1][1]
    assert stops.iloc[0]["input"] == (first_visited.input_name or first_visited.input_address)
    legend = legend_text(build_route_map(result).get_root().render())
    assert "Numbers: the order of visits on the best route" in legend
    assert "A white disc with a count: that many stops close together" in legend  # a cluster's count is no number
