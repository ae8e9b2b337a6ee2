"""The route planner's result in words (components/route_words.py) on real offline plans: every warning the planner
gives for these trips has its sentence in both languages, place names follow the language, and the summary and
the reason carry the plan's own figures."""

from __future__ import annotations

import re

from components.route_words import (
    found_name,
    notice_names,
    notice_words,
    order_text,
    point_name,
    summary_words,
    why_words,
)
from core.config import get_settings
from core.geo.registry import make_provider
from core.i18n import t
from core.models.route import Notice, RawStop, RoutePlanRequest
from core.packs.loader import load_region
from core.route import notices
from core.route.planner import plan_route
from core.route.scenarios import list_scenarios

CJK = re.compile(r"[\u4e00-\u9fff]")
SCENARIOS = {s.id: s for s in list_scenarios()}


def plan(request: RoutePlanRequest, region: str = "shanghai"):
    return plan_route(
        request, provider=make_provider("offline", region=region, settings=get_settings()), settings=get_settings()
    )


def variants() -> list[tuple[str, RoutePlanRequest, str]]:
    """The demo scenarios and a few changes that make the planner warn about other things."""
    day = SCENARIOS["sightseeing-day"].request
    errands = SCENARIOS["my-location-errands"].request
    airport = SCENARIOS["airport-run"].request
    found = [(s.id, s.request, s.region) for s in SCENARIOS.values()]
    found += [
        ("walking-airport", airport.model_copy(update={"transport_mode": "walking"}), "shanghai"),
        (
            "typo",
            day.model_copy(update={"stops": [RawStop(address="豫圆"), RawStop(address="Tianzifnag")]}),
            "shanghai",
        ),
        ("cycling-day", day.model_copy(update={"transport_mode": "cycling"}), "shanghai"),
        ("personal-map", day.model_copy(update={"deep_link_mode": "personal_map"}), "shanghai"),
        ("no-position", errands.model_copy(update={"origin_lon": None, "origin_lat": None}), "shanghai"),
        ("far-position", errands.model_copy(update={"origin_lon": 116.4, "origin_lat": 39.9}), "shanghai"),
    ]
    return found


LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
#: Latin words a Chinese sentence may keep: names of services and the web link's host
LATIN_OK = {"AMap", "App", "uri", "amap", "com", "MCP"}


def test_every_notice_of_these_plans_has_words_in_both_languages_and_no_english_in_chinese():
    kinds = set()
    for name, request, region in variants():
        result = plan(request, region)
        assert len(result.notices) == len(result.warnings), name
        for lang in ("zh", "en"):
            names = notice_names(result, lang)
            for notice in result.notices:
                text, known = notice_words(notice, lang, names)
                assert known and text, (name, notice)
                assert not re.search(r"offline_estimate|route_plan|personal_map|\(source:|[A-Z]{4,}_", text), text
                if lang == "zh":
                    assert CJK.search(text), text
                    typed = str(notice.params.get("input", ""))  # what the user typed is quoted as typed
                    latin = LATIN_WORD.findall(text.replace(typed, "") if typed else text)
                    assert {w for w in latin if w not in LATIN_OK} == set(), (name, text)
                else:
                    assert text in result.warnings or notice.params, (name, text)
        kinds |= {n.code for n in result.notices}
    assert {  # what these trips make the planner say, each in words
        "OFFLINE_ESTIMATES_AT",
        "FUZZY_MATCH",
        "WEB_SPLIT",
        "LONG_WALK",
        "CYCLING_LINKS",
        "PERSONAL_MAP_NOTE",
        "PERSONAL_MAP_NO_IDS",
        "WEB_NO_START",
        "START_UNKNOWN",
        "START_OUTSIDE_REGION",
    } <= kinds, kinds


def test_the_english_warnings_are_the_notices_in_the_catalogs_english():
    result = plan(SCENARIOS["my-location-errands"].request.model_copy(update={"origin_lon": 116.4, "origin_lat": 39.9}))
    names = notices.core_names(result, {"shanghai": "Shanghai"})  # the labels and the names the map data gave
    assert result.warnings == [notices.words(n, "en", names=names) for n in result.notices]
    [far] = [w for w in result.warnings if "outside the region" in w]
    assert far.startswith(
        "Your start position (116.400000,39.900000, longitude first) is outside the region 'Shanghai'"
    )


def test_a_code_this_build_does_not_know_gets_a_general_sentence():
    novel = Notice(code="SOMETHING_NEW", params={"x": 1})
    for lang in ("zh", "en"):
        text, known = notice_words(novel, lang)
        assert not known and "SOMETHING" not in text and text == t("route.warning.unknown", lang)
    assert CJK.search(notice_words(novel, "zh")[0])


def test_the_start_without_a_position_is_said_in_words():
    result = plan(SCENARIOS["my-location-errands"].request.model_copy(update={"origin_lon": None, "origin_lat": None}))
    [start] = [n for n in result.notices if n.code == "START_UNKNOWN"]
    assert notice_words(start, "en")[0].startswith("Start position unknown (current location without coordinates)")
    assert "当前定位" in notice_words(start, "zh")[0]


def test_place_names_follow_the_language_and_the_other_is_kept_for_the_tooltip():
    result = plan(SCENARIOS["sightseeing-day"].request)
    pack = {p.id: p for p in load_region("shanghai").places}
    for point in [result.resolved_origin, *result.resolved_stops, result.resolved_destination]:
        place = pack[point.poi_id]
        assert found_name(point, "en", "shanghai").shown == place.name_en
        assert found_name(point, "en", "shanghai").other == place.name_zh
        assert point_name(point, "zh", "shanghai").shown == place.name_zh
        assert point_name(point, "zh", "shanghai").other == place.name_en
    english = order_text(result, result.best_route, "en").split(" → ")
    assert len(english) == len(result.best_route.full_order_labels) and not any(CJK.search(n) for n in english)
    # a point that is not one of the pack's places keeps the name the user typed
    outside = result.resolved_stops[0].model_copy(update={"poi_id": None, "input_name": "Grandma's flat"})
    assert point_name(outside, "zh", "shanghai").shown == "Grandma's flat"


def test_the_summary_and_the_reason_carry_the_plans_figures():
    result = plan(SCENARIOS["delivery-round"].request)
    best = result.best_route
    km = f"{best.total_distance_m / 1000:.1f}"
    assert f"{km} km" in summary_words(result, "en") and f"{km} 公里" in summary_words(result, "zh")
    runner = min((c for i, c in enumerate(result.candidates) if i != result.best_index), key=lambda c: c.rank or 0)
    shorter = (runner.total_distance_m - best.total_distance_m) / 1000
    assert shorter >= 0
    why = why_words(result, "en")
    assert why.startswith("Best by the “Shortest distance” strategy")
    if shorter >= 0.05:
        assert f"{shorter:.1f} km shorter" in why
    # delivery-round's 8 stops pass the cap of 24 listed orders: the exact programme, over all 8! orders
    assert result.optimizer.method == "held_karp"
    assert "An exact dynamic programme (Held-Karp) over the 8 stops" in why and "all 40,320 orders" in why
    assert "最短距离" in why_words(result, "zh")


def test_a_fuzzy_match_names_the_place_found_in_the_chosen_language():
    day = SCENARIOS["sightseeing-day"].request
    result = plan(day.model_copy(update={"stops": [RawStop(address="豫圆")]}))
    [fuzzy] = [n for n in result.notices if n.code == "FUZZY_MATCH"]
    yu = load_region("shanghai").place_by_id(result.resolved_stops[0].poi_id)
    en = notice_words(fuzzy, "en", notice_names(result, "en"))[0]
    zh = notice_words(fuzzy, "zh", notice_names(result, "zh"))[0]
    assert en == f"Stop 1 '豫圆' is an approximate match: found {yu.name_en} — check it."
    assert zh == f"第 1 个途经点“豫圆”是近似匹配,找到的是 {yu.name_zh},请核对。"
    # the English warnings (CLI, API) name the place found in English too, as the pages do (issue 31)
    assert en in result.warnings
