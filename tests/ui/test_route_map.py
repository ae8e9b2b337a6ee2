"""The route planner's map (components/route/map.py) on the folium object and its HTML: candidates drawn by default
where they differ from the best route, a legend below the map, start and end above every pin, one S/E pin for a round
trip, and the pin spreading script; plus the deep links' parts and the single QR choice (components/route/tables.py)."""

from __future__ import annotations

import html
import re
from functools import cache

import pytest

from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import RawStop
from core.route.compare import compare_with_best
from core.route.planner import plan_route
from core.route.scenarios import load_scenario

pytestmark = pytest.mark.ui

EXTRA = ["外滩", "东方明珠广播电视塔", "上海中心大厦", "金茂大厦", "上海环球金融中心", "豫园", "新天地", "田子坊", "武康大楼",
         "人民广场", "陆家嘴环形天桥", "朱家角古镇", "七宝老街", "多伦路文化名人街", "1933老场坊", "外白渡桥",
         "上海海关大楼", "M50创意园", "孙中山故居纪念馆", "宋庆龄故居", "上海图书馆", "老码头"]  # fmt: skip


@cache
def planned(kind: str):
    request = load_scenario("delivery-round").request
    if kind == "30":
        request = request.model_copy(update={"stops": [*request.stops, *(RawStop(name=n) for n in EXTRA)]})
    elif kind == "round":
        request = request.model_copy(
            update={"round_trip": True, "destination_name": "", "destination_address": "", "destination_city": None}
        )
        request = type(request).model_validate(request.model_dump())
    elif kind == "same_place":  # two stops at one place
        first = request.stops[0]
        request = request.model_copy(update={"stops": [*request.stops, first.model_copy()]})
    return plan_route(
        request, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )


def markers(m):
    found, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if type(el).__name__ == "Marker":
            found.append(el)
    return found


def polylines(m):
    found, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if type(el).__name__ == "PolyLine":
            found.append(el)
    return found


def pin_label(marker) -> str:
    return re.search(r'class="omni-pin[^"]*"[^>]*>([^<]+)<', marker.icon.options["html"]).group(1)


def test_candidates_are_drawn_by_default_only_where_they_differ_from_the_best():
    from components.route.map import ALT_COLOURS, BEST_COLOUR, build_route_map

    result = planned("8")
    m = build_route_map(result, lang="en")
    page = m.get_root().render()
    assert '"show": false' not in page.replace(" ", "").replace('"show":false', '"show": false')
    lines = polylines(m)
    best = [p for p in lines if p.options["color"] == BEST_COLOUR]
    assert len(best) == 1
    others = [c for i, c in enumerate(result.candidates) if i != result.best_index][:5]
    for n, cand in enumerate(others):
        drawn = {tuple(map(tuple, p.locations)) for p in lines if p.options["color"] == ALT_COLOURS[n]}
        comparison = compare_with_best(result, cand)
        order = cand.stop_order
        points = [result.resolved_origin, *(result.resolved_stops[i] for i in order), result.resolved_destination]
        expected = {
            ((points[i].lat, points[i].lon), (points[i + 1].lat, points[i + 1].lon)) for i in comparison.changed
        }
        assert drawn == expected
    assert any(compare_with_best(result, c).changed for c in others)  # this plan's candidates do differ


def legend_text(page: str) -> str:
    """The words of the legend below the map (the block after the map's own element)."""
    body = re.search(r'<div class="omni-legend".*?</details></div>', page, re.S).group(0)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_the_legend_is_below_the_map_with_figures_and_says_candidates_are_straight_lines():
    from components.route.map import build_route_map

    result = planned("8")
    page = build_route_map(result, lang="en").get_root().render()
    assert (
        page.index("<body>")
        < page.index('class="folium-map"')
        < page.index('class="omni-legend"')
        < page.index("</body>")
    )
    legend = legend_text(page)
    best = result.best_route
    assert f"Best route ({best.total_distance_m / 1000:.1f} km, {best.total_duration_s / 60:.0f} min)" in legend
    assert "straight lines between stops (straight-line estimate" in legend  # the offline plan has no road geometry
    second = next(c for i, c in enumerate(result.candidates) if i != result.best_index)
    figures = f"{second.total_distance_m / 1000:.1f} km, {second.total_duration_s / 60:.0f} min"
    assert f"Candidate #{second.rank} ({figures})" in legend
    changed = len(compare_with_best(result, second).changed)
    assert f"{changed} of {len(best.legs)} legs differ" in legend
    # every line of an offline plan is straight: the note must not say the best one follows the roads (issue 23)
    assert "only the best route has road geometry" not in legend
    assert "Every line here, the best route's too, is straight between stops" in legend

    zh = build_route_map(result, lang="zh").get_root().render()
    assert "最佳路线" in zh and "Best route" not in zh


def test_start_and_end_are_above_every_pin_and_a_round_trip_has_one_start_end_pin():
    from components.map_pins import TOP_Z
    from components.route.map import build_route_map

    m = build_route_map(planned("8"), lang="en")
    by_label = {pin_label(mk): mk for mk in markers(m)}
    assert by_label["S"].options.get("z_index_offset") == TOP_Z
    assert by_label["E"].options.get("z_index_offset") == TOP_Z
    assert all("z_index_offset" not in mk.options for label, mk in by_label.items() if label not in ("S", "E"))
    assert m.get_root().render().count(f'"zIndexOffset": {TOP_Z}') == 2  # what Leaflet is given

    round_trip = planned("round")
    labels = sorted(pin_label(mk) for mk in markers(build_route_map(round_trip, lang="en")))
    assert labels.count("S/E") == 1 and "S" not in labels and "E" not in labels
    assert len(labels) == len(round_trip.resolved_stops) + 1


def test_pins_at_one_place_are_all_drawn_with_the_spreading_script_after_them():
    from components.route.map import build_route_map

    result = planned("same_place")
    m = build_route_map(result, lang="en")
    at_first_place = [mk for mk in markers(m) if tuple(mk.location) == (result.resolved_stops[0].lat,
                                                                       result.resolved_stops[0].lon)]  # fmt: skip
    assert len(at_first_place) == 2  # both stops keep their pin at the true point; the script fans them out
    page = m.get_root().render()
    assert page.rindex("L.marker(") < page.index("function layout()")
    assert "omni-leader" in page  # each pin carries its leader line (hidden until it is moved)


def test_thirty_stops_keep_a_numbered_pin_each_and_a_light_map():
    from components.route.map import build_route_map

    result = planned("30")
    m = build_route_map(result, lang="en")
    labels = [pin_label(mk) for mk in markers(m)]
    assert sorted(labels, key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0)) == [
        *map(str, range(1, 31)),
        "E",
        "S",
    ]
    for line in polylines(m):  # rounded to about a metre
        assert all(len(repr(v).split(".")[-1]) <= 6 for point in line.locations for v in point)


def test_deep_links_one_button_parts_in_words_and_one_qr_choice():
    from components.route.links_panel import link_parts, qr_choices

    result = planned("30")
    links = result.deep_links
    parts = link_parts(result, lang="en")
    assert [href for _, href in parts] == links.web_navigation  # only the core's links, in its order
    assert len(parts) > 1
    assert parts[0][0].startswith("Part 1: CITIC Square → ")
    assert parts[-1][0].endswith("→ Westgate Mall") or "Westgate" in parts[-1][0]
    ends = [text.split(" → ")[-1] for text, _ in parts]
    starts = [text.split(": ", 1)[1].split(" → ")[0] for text, _ in parts]
    assert starts[1:] == ends[:-1]  # each part starts where the last one ended
    choices = qr_choices(result, lang="en")
    assert [label for label, _ in choices] == ["Android", "iPhone"]
    assert [url for _, url in choices] == [links.android_route_plan, links.ios_route_plan]


def test_the_page_shows_one_open_button_the_parts_and_one_qr_code(planner_app):
    at = planner_app
    at.selectbox(key="region").set_value("shanghai").run()
    at.selectbox(key="scenario").set_value("delivery-round")
    at.button(key="load_scenario").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    result = at.session_state["route_result"]
    primary = [b for b in at.get("link_button") if b.proto.type == "primary"]
    assert [b.proto.url for b in primary] == result.deep_links.web_navigation[:1]  # one "Open in AMap": part 1
    images = list(at.get("image"))
    assert len(images) == 1
    web = result.deep_links.web_navigation
    parts = [b for b in at.get("link_button") if (b.key or "").startswith("link_part_")]
    assert [b.proto.url for b in parts] == (web if len(web) > 1 else [])


def test_the_pareto_spec_is_valid_vega_lite_and_draws_what_the_altair_chart_draws():
    import altair as alt

    from components.route.charts import pareto_chart, pareto_spec

    result = planned("8")
    spec = pareto_spec(result, lang="zh")
    alt.LayerChart.from_dict(spec)  # checks it against Vega-Lite's schema
    altair = pareto_chart(result, lang="zh").to_dict()
    altair_rows = altair["datasets"][altair["layer"][1]["data"]["name"]]  # the points' layer: every candidate
    assert spec["datasets"]["candidates"] == altair_rows
    front = altair["datasets"][altair["layer"][0]["data"]["name"]]  # the front's layer: the Pareto rows
    mine = [r for r in spec["datasets"]["candidates"] if r["pareto"]]
    assert sorted(mine, key=lambda r: r["rank"]) == sorted(front, key=lambda r: r["rank"])
    assert len(spec["datasets"]["candidates"]) == len(result.candidates)
    assert spec["title"] == altair["title"]
    for mine, theirs in zip(spec["layer"], altair["layer"], strict=True):
        assert mine["mark"]["type"] == theirs["mark"]["type"]
        assert {k: v["field"] for k, v in mine["encoding"].items() if "field" in v} == {
            k: v["field"] for k, v in theirs["encoding"].items() if "field" in v
        }


@pytest.mark.parametrize(
    ("region", "scenario_id", "legend"),
    [
        ("shanghai", "sightseeing-day", ["Best", "Beaten on both"]),
        ("helsinki", "helsinki-museums", ["Best", "Pareto front", "Beaten on both"]),
    ],
)
def test_the_candidate_charts_legend_lists_only_colours_some_point_has(region, scenario_id, legend):
    """Shanghai's straight-line estimates make time follow distance: one candidate is best on both, none is on a
    front of its own, and the legend must not offer an orange "Pareto front" that no point has."""
    import altair as alt

    from components.route.charts import pareto_chart, pareto_spec
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import list_scenarios

    [scenario] = [s for s in list_scenarios(region) if s.id == scenario_id]
    result = plan_route(
        scenario.request,
        provider=make_provider("offline", region=region, settings=get_settings()),
        settings=get_settings(),
    )
    spec = pareto_spec(result, lang="en")
    altair = pareto_chart(result, lang="en").to_dict()
    for scale in (spec["layer"][1]["encoding"]["color"]["scale"], altair["layer"][1]["encoding"]["color"]["scale"]):
        assert scale["domain"] == legend
        assert scale["range"][0] == "#d62728"  # the best route is red on the chart as on the map
        assert len(scale["range"]) == len(legend)
    assert {row["label"] for row in spec["datasets"]["candidates"]} == set(legend)  # each colour has a point
    alt.LayerChart.from_dict(spec)
