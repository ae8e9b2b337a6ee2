"""An airport's notice names its terminals in the reader's language (found walking the English route planner: the
Hongqiao and Pudong notices listed "虹桥国际机场T1航站楼, 虹桥国际机场T2航站楼" in an English sentence although the pack
has the terminals' English names)."""

from __future__ import annotations

import re

import pytest

from components.route_words import notice_names, notice_words
from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.models.route_views import PlaceNames
from core.route.notices import Notice, words
from core.route.planner import plan_route

CJK = re.compile(r"[\u3400-\u9fff]")


@pytest.fixture(scope="module")
def airport_plan():
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_name": "虹桥机场",
            "origin_address": "虹桥机场",
            "stops": [{"address": "PVG"}, {"address": "外滩"}],
            "destination_name": "新天地",
            "destination_address": "新天地",
        }
    )
    return plan_route(
        request, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )


def _parts_sentences(result, lang):
    names = notice_names(result, lang)
    return [
        notice_words(n, lang, names)[0] for n in result.notices if n.code in ("PLACE_HAS_PARTS", "PLACE_PARTS_ARRIVAL")
    ]


def test_the_english_notices_name_the_terminals_in_english(airport_plan):
    sentences = _parts_sentences(airport_plan, "en")
    assert len(sentences) == 2
    assert any("Shanghai Hongqiao International Airport Terminal 1" in s for s in sentences)
    assert any("Shanghai Pudong International Airport Terminal 2" in s for s in sentences)
    # the only Chinese left is what the person typed, quoted
    assert [CJK.findall(s.replace("'虹桥机场'", "")) for s in sentences] == [[], []]


def test_the_chinese_notices_name_the_terminals_in_chinese(airport_plan):
    sentences = _parts_sentences(airport_plan, "zh")
    assert any("虹桥国际机场T1航站楼" in s and "虹桥国际机场T2航站楼" in s for s in sentences)
    assert not any("Terminal" in s for s in sentences)


def test_a_notice_stored_before_the_part_ids_keeps_the_names_it_recorded():
    old = Notice(
        code="PLACE_HAS_PARTS",
        params={"point": "stops.0", "input": "PVG", "parts": "浦东国际机场T1航站楼, 浦东国际机场T2航站楼", "count": 2},
    )
    sentence = words(old, "en", names=PlaceNames(places={"sh-pvg-t1": "Terminal 1"}))
    assert "浦东国际机场T1航站楼, 浦东国际机场T2航站楼" in sentence
