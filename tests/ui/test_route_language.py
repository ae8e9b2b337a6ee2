"""The route planner in one language at a time (AppTest): ``?lang=en`` renders it in English, ``?lang=zh`` in
Chinese, the browser's locale decides without it, and the sidebar's 中文 / English switch changes it and the URL.
Labels are read from the widgets; place names from the region pack (``name_en`` / ``name_zh``)."""

from __future__ import annotations

import json
import re

import pytest

from core.i18n import t
from core.packs.loader import load_region
from core.route.scenarios import list_scenarios
from tests.conftest import APP, PLANNER_PAGE

pytestmark = pytest.mark.ui

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
#: words of the interface that may stay Latin in Chinese: names of services, formats and coordinate systems
LATIN_OK = {"App", "AMap", "WGS", "GCJ", "JSON", "HTML", "CSV", "Valhalla", "OSRM", "Nominatim", "OSM", "MCP", "uri",
            "amap", "com", "OMNI", "AMAP", "KEY", "API", "ICS", "English"}  # fmt: skip
SCENARIO = "sightseeing-day"  # every place of it has an English name in the Shanghai pack


def planner(*, lang: str | None = None, locale: str | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=60)
    if lang is not None:
        at.query_params["lang"] = lang
    if locale is not None:
        at.context["locale"] = locale
    at.run()
    assert not at.exception, at.exception
    at.switch_page(PLANNER_PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def plan_scenario(at, scenario: str = SCENARIO):
    at.selectbox(key="scenario").set_value(scenario)
    at.button(key="load_scenario").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at.session_state["route_result"]


def labels(at) -> dict[str, str]:
    """The label of every keyed widget of the form."""
    found = {}
    for kind in ("text_input", "selectbox", "button", "checkbox", "radio", "number_input", "text_area"):
        for widget in at.get(kind):
            if widget.key:
                found[widget.key] = widget.label
    return found


def headers(at, key_column: str) -> list[str]:
    """The shown headers of the table that has ``key_column`` (column_config labels)."""
    [table] = [df for df in at.dataframe if key_column in df.value.columns]
    config = json.loads(table.proto.columns)
    return [config[c]["label"] for c in table.value.columns if c in config]


def main_text(at) -> str:
    """The page's words outside the collapsed details (the details may quote the core's English)."""
    hidden = set()
    for expander in at.expander:
        if expander.label in ("Details", "详情", "Raw data (for debugging)", "原始数据(调试用)"):
            hidden |= {e.value for e in [*expander.markdown, *expander.caption]}
    shown = [e.value for e in [*at.title, *at.subheader, *at.markdown, *at.caption, *at.warning, *at.info]]
    return "\n".join(str(v) for v in shown if v not in hidden)


def latin_words(text: str) -> set[str]:
    """Latin words of ``text`` other than service names and icons (``:material/route:``)."""
    return {w for w in LATIN_WORD.findall(re.sub(r":material/\w+:", "", text)) if w not in LATIN_OK}


def best_names(result, lang: str) -> list[str]:
    """The best route's places as the pack names them in ``lang``, in visiting order."""
    pack = {p.id: p for p in load_region(result.region).places}
    order = result.best_route.stop_order
    points = [result.resolved_origin, *(result.resolved_stops[i] for i in order), result.resolved_destination]
    places = [pack[p.poi_id] for p in points]
    return [p.name_en if lang == "en" else p.name_zh for p in places]


def test_lang_en_renders_the_route_planner_in_english_only(leaflet_static):
    at = planner(lang="en", locale="zh-CN")  # the URL wins over the browser
    assert at.session_state["ui_lang"] == "en"
    form = labels(at)
    assert form["origin_name"] == "Start name"
    assert form["destination_address"] == "Destination address"
    assert form["plan"] == "Plan route"
    assert form["route_strategy"] == "Strategy"
    assert form["stops_sort"] == "Sort by order"
    assert form["region"] == "Region" and form["provider"] == "Map provider"
    assert at.selectbox(key="route_strategy").options == ["Shortest distance", "Fastest time", "Balanced"]
    assert at.radio(key="origin_mode").options == ["Fixed start", "My current location"]
    for key in ("origin_name", "origin_address", "destination_name", "destination_address", "plan", "route_strategy",
                "transport_mode", "deep_link_mode", "load_scenario", "stops_sort", "stops_clear", "paste_apply",
                "region", "provider", "scenario"):  # fmt: skip
        assert not CJK.search(form[key]), (key, form[key])
    assert at.title[0].value.endswith("Route planner")

    result = plan_scenario(at)
    names = best_names(result, "en")
    assert all(names) and not any(CJK.search(n) for n in names)
    text = main_text(at)
    assert " → ".join(names) in text  # the best route in the places' English names
    assert "**Why:** " in text and "**Summary:** " in text
    [scenario] = [s for s in list_scenarios("shanghai") if s.id == SCENARIO]
    words = text.replace(scenario.description, "")  # the demo's own text, quoting places as people type them
    assert not CJK.search(words), CJK.findall(words)
    assert all(not CJK.search(w.value) for w in at.warning)
    # the key columns first, the order among them (in sight at 1,400 px); the differences and notes after it
    assert headers(at, "Pareto")[:5] == ["Best", "Rank", "km", "Minutes", "Order"]
    assert headers(at, "found by")[:4] == ["Role", "#", "You typed", "Found as"]
    comparison = next(df.value for df in at.dataframe if "Pareto" in df.value.columns)
    assert not any(CJK.search(order) for order in comparison["order"])
    # the map names the places in English, with the Chinese name in each pin's tooltip
    [page] = [f.proto.srcdoc for f in at.get("iframe") if f.proto.srcdoc]  # the route map's HTML document
    zh_names = best_names(result, "zh")
    assert "Best route" in page
    for en, zh in zip(names, zh_names, strict=True):
        assert en.replace("'", "&#x27;") in page and zh in page


def test_lang_zh_renders_the_route_planner_in_chinese_only(leaflet_static):
    at = planner(lang="zh", locale="en-US")
    assert at.session_state["ui_lang"] == "zh"
    form = labels(at)
    assert form["origin_name"] == "起点名称"
    assert form["destination_address"] == "终点地址"
    assert form["plan"] == "规划路线"
    assert form["route_strategy"] == "策略"
    assert at.selectbox(key="route_strategy").options == ["最短距离", "最快时间", "均衡"]
    assert at.radio(key="origin_mode").options == ["固定起点", "我的当前位置"]
    for key in ("origin_name", "origin_address", "destination_name", "destination_address", "plan", "route_strategy",
                "transport_mode", "deep_link_mode", "load_scenario", "stops_sort", "stops_clear", "paste_apply",
                "region", "provider", "scenario"):  # fmt: skip
        assert CJK.search(form[key]) and not latin_words(form[key]), (key, form[key])
    assert at.title[0].value.endswith("多目的地路线规划")

    result = plan_scenario(at)
    names = best_names(result, "zh")
    text = main_text(at)
    assert " → ".join(names) in text  # the best route in the places' Chinese names
    assert "**为什么:** " in text and "**概要:** " in text
    assert latin_words(text) == set(), latin_words(text)
    for warning in at.warning:
        assert CJK.search(warning.value) and not latin_words(warning.value), warning.value
    assert headers(at, "Pareto")[:5] == ["最佳", "排名", "公里", "分钟", "顺序"]
    assert headers(at, "found by")[:4] == ["角色", "#", "你输入的", "找到的地点"]
    comparison = next(df.value for df in at.dataframe if "Pareto" in df.value.columns)
    assert all(not latin_words(order) for order in comparison["order"])
    assert {b.label for b in at.get("download_button")} == {"JSON 数据", "HTML 页面", "各段 CSV"}


def test_the_browser_locale_decides_without_a_url_and_the_switch_changes_it_and_the_url(leaflet_static):
    at = planner(locale="zh-CN")
    assert at.session_state["ui_lang"] == "zh" and at.query_params["lang"] == "zh"
    assert at.button(key="plan").label == "规划路线"
    assert at.radio(key="ui_lang_choice").value == "zh"

    at.radio(key="ui_lang_choice").set_value("en").run()
    assert not at.exception, at.exception
    assert at.query_params["lang"] == "en" and at.session_state["ui_lang"] == "en"
    assert at.button(key="plan").label == "Plan route"
    assert at.selectbox(key="region").label == "Region"
    at.run()  # remembered on the next run
    assert at.button(key="plan").label == "Plan route"

    other = planner(locale="fr-FR")  # anything but Chinese reads English
    assert other.session_state["ui_lang"] == "en" and other.button(key="plan").label == "Plan route"


def test_a_plan_error_is_worded_in_the_chosen_language_with_the_code_in_the_details(leaflet_static):
    at = planner(lang="zh")
    at.text_input(key="origin_address").input("人民广场")
    at.text_input(key="destination_address").input("外滩")
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == ["请至少添加一个途经点。"]
    details = [e for e in at.expander if e.label == "详情"]
    assert any("INVALID_INPUT" in c.value for e in details for c in e.caption)

    at.radio(key="ui_lang_choice").set_value("en").run()
    assert [e.value for e in at.error] == ["Add at least one stop."]


def test_the_home_page_and_the_navigation_follow_the_language(leaflet_static):
    from streamlit.testing.v1 import AppTest

    for lang, title, link in (
        ("zh", "全域出行规划", "打开路线规划"),
        ("en", "Omni-Travel Planner", "Open the route planner"),
    ):
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.query_params["lang"] = lang
        at.run()
        assert not at.exception, at.exception
        assert at.title[0].value.endswith(title)
        assert link in [str(p.proto.label) for p in at.get("page_link")]
        text = "\n".join(m.value for m in [*at.markdown, *at.info])
        if lang == "zh":
            assert not latin_words(text), latin_words(text)
        else:
            assert not CJK.search(text), CJK.findall(text)


EDGE_CASES = {  # the planner's other notices (tests/i18n/test_route_words.py): set on the form after a demo loads
    "walking-airport": ("airport-run", {"transport_mode": "walking"}),
    "cycling-day": ("sightseeing-day", {"transport_mode": "cycling"}),
    "personal-map": ("sightseeing-day", {"deep_link_mode": "personal_map"}),
    "far-position": ("my-location-errands", {"origin_lon": 116.4, "origin_lat": 39.9}),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_notices_of_every_demo_and_edge_case_are_worded_in_the_chosen_language(leaflet_static, lang):
    from components.route.tables import warned_notices
    from components.route_words import notice_names, notice_words

    at = planner(lang=lang)
    cases = [(s.id, s.region, {}) for s in list_scenarios()]
    cases += [(name, "shanghai", {**changes, "_scenario": sid}) for name, (sid, changes) in EDGE_CASES.items()]
    codes = set()
    for name, region, changes in cases:
        at.selectbox(key="region").set_value(region).run()
        at.selectbox(key="scenario").set_value(changes.get("_scenario", name))
        at.button(key="load_scenario").click().run()
        for key, value in changes.items():
            if key in ("transport_mode", "deep_link_mode"):
                at.selectbox(key=key).set_value(value)
            elif key.startswith("origin_l"):
                at.number_input(key=key).set_value(value)
        at.button(key="plan").click().run()
        assert not at.exception and not at.error, (name, at.exception, [e.value for e in at.error])
        result = at.session_state["route_result"]
        shown = [w.value for w in at.warning]
        names = notice_names(result, lang)
        warned = warned_notices(result, lang)
        assert shown == [notice_words(n, lang, names)[0] for n in warned], name
        for notice, text in zip(warned, shown, strict=True):
            typed = str(notice.params.get("input", ""))  # what the person typed is quoted as typed, in any script
            own = text.replace(typed, "") if typed else text
            if lang == "zh":
                assert CJK.search(text) and not latin_words(own), (name, text)
            else:
                assert not CJK.search(own), (name, text)  # every place these trips name has an English name
        codes |= {n.code for n in result.notices}
    assert {"LONG_WALK", "CYCLING_LINKS", "PERSONAL_MAP_NO_IDS", "START_OUTSIDE_REGION", "START_UNKNOWN"} <= codes


def warnings_script(lang: str) -> None:
    from components.route.tables import render_warnings
    from core import config
    from core.geo.registry import make_provider
    from core.models.route import Notice
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    result = plan_route(
        load_scenario("sightseeing-day").request,
        provider=make_provider("offline", region="shanghai", settings=config.get_settings()),
        settings=config.get_settings(),
    )
    result.notices.append(Notice(code="SOMETHING_NEW", params={"x": 1}))
    render_warnings(result, lang=lang)


@pytest.mark.parametrize(("lang", "general"), [("zh", "代码见下方“原始数据”"), ("en", "its code is under “Raw data”")])
def test_a_notice_of_an_unknown_code_gets_a_general_sentence_and_its_code_in_the_raw_data(lang, general):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(warnings_script, args=(lang,), default_timeout=60).run()
    assert not at.exception, at.exception
    assert general in at.warning[-1].value and "SOMETHING_NEW" not in at.warning[-1].value
    # no "Details" of codes in either language: the codes and the core's notes are the raw data, for debugging
    assert not [e for e in at.expander if e.label == t("common.details", lang)]
    [raw] = [e for e in at.expander if e.key == "route_warnings_raw"]
    assert raw.label == t("common.debug", lang)
    lines = "\n".join(str(c.value) for c in raw.code).splitlines()
    assert "SOMETHING_NEW" in lines
    assert any(line.startswith("OFFLINE_ESTIMATES_AT: Offline estimate (driving)") for line in lines), lines
