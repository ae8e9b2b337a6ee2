"""The route page names the places a notice refers to by the points' ids (issue 19 §2): the name is looked up in the
reader's language (the region pack's zh or en name), never matched back from a label the core quoted."""

from __future__ import annotations

import pytest

from components.route.links_panel import link_parts
from components.route.tables import legs_frame
from components.route_words import notice_names, notice_words, order_names
from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import Notice
from core.packs.loader import load_region
from core.route.planner import plan_route
from core.route.scenarios import list_scenarios

SCENARIOS = {s.id: s for s in list_scenarios()}


@pytest.fixture(scope="module")
def result():
    day = SCENARIOS["sightseeing-day"].request
    twice = day.model_copy(update={"stops": [day.stops[0], day.stops[0], *day.stops[1:]]})
    return plan_route(
        twice, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )


def pack_name(result, point_id: str, lang: str) -> str:
    place = load_region("shanghai").place_by_id(result.point(point_id).poi_id)
    return place.name_en if lang == "en" else place.name_zh


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_notice_names_its_place_from_its_id_in_the_readers_language(result, lang):
    [same] = [n for n in result.notices if n.code == "SAME_PLACE_STOPS"]
    text, known = notice_words(same, lang, notice_names(result, lang))
    assert known and pack_name(result, "stops.1", lang) in text
    # a missing path between two points: both named from their ids
    gap = Notice(code="GEOMETRY_MISSING", params={"a": "origin", "b": "stops.2"})
    text, _ = notice_words(gap, lang, notice_names(result, lang))
    assert pack_name(result, "origin", lang) in text and pack_name(result, "stops.2", lang) in text
    assert "stops." not in text and "origin" not in text


def test_the_live_start_is_my_location_in_the_readers_language(result):
    off = Notice(code="OFF_NETWORK", params={"point": "live_origin", "region": "shanghai"})
    zh, _ = notice_words(off, "zh", notice_names(result, "zh"))
    en, _ = notice_words(off, "en", notice_names(result, "en"))
    assert "我的位置" in zh and "上海" in zh
    assert en.startswith("My location is outside the road network of Shanghai")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_legs_and_the_links_follow_the_candidates_points(result, lang):
    for cand in result.candidates:
        names = [n.shown for n in order_names(result, cand, lang)]
        frame = legs_frame(cand, result, lang=lang)
        assert list(frame["from"]) == names[:-1] and list(frame["to"]) == names[1:]
    best = [n.shown for n in order_names(result, None, lang)]
    for text, _ in link_parts(result, lang=lang):
        assert any(name in text for name in best)
