"""Places made of parts (issue 20 §5): an airport and its terminals, linked by the pack's ``parent`` column. The
airport's names and code resolve to the airport, with a notice naming its terminals; a terminal is still found by
its own name; an airport whose terminals are far apart (Hongqiao, across the runways) is the airport too, its notice
saying how far apart they are."""

from __future__ import annotations

import pytest

from core.config import get_settings
from core.errors import AmbiguousPlaceError, ResolutionError
from core.geo.coords import haversine_m
from core.geo.registry import make_provider
from core.models.route import RawStop
from core.route.notices import point_names, words
from core.route.resolver import resolve_point

PVG_TERMINALS = "浦东国际机场T1航站楼, 浦东国际机场T2航站楼"


@pytest.fixture(scope="module")
def shanghai():
    return make_provider("offline", region="shanghai", settings=get_settings())


def stop(text, provider, *, poi_id=None):
    raw = RawStop(address=text, poi_id=poi_id)
    return resolve_point(
        raw, role="stop", provider=provider, index=0, default_city=provider.region.city, settings=get_settings()
    )


def test_the_code_pvg_is_the_airport_with_a_notice_naming_its_terminals(shanghai):
    res = stop("PVG", shanghai)
    assert (res.point.poi_id, res.point.resolved_name, res.point.source) == ("sh-pvg", "上海浦东国际机场", "geo")
    assert [n.code for n in res.notices] == ["PLACE_HAS_PARTS"]
    assert res.notices[0].params == {
        "point": "stops.0",
        "input": "PVG",
        "parts": PVG_TERMINALS,
        "part_ids": "sh-pvg-t1,sh-pvg-t2",
        "count": 2,
    }
    assert "a place of 2 parts" in res.point.confidence_note and "approximate" in res.point.confidence_note


def test_the_airport_s_point_lies_between_its_terminals_as_the_pack_derives_it(shanghai):
    pack = shanghai.region
    t1, t2, pvg = (pack.place_by_id(i) for i in ("sh-pvg-t1", "sh-pvg-t2", "sh-pvg"))
    assert pvg.approximate and not t1.approximate
    apart = haversine_m(t1.lon, t1.lat, t2.lon, t2.lat)
    assert 700 < apart < 900  # the two rows of the pack: one destination (under FAR_APART_M)
    for part in (t1, t2):
        assert haversine_m(pvg.lon, pvg.lat, part.lon, part.lat) == pytest.approx(apart / 2, abs=5)


def test_the_parts_notice_has_words_in_both_languages(shanghai):
    res = stop("PVG", shanghai)
    names = point_names([res.point])
    en, zh = (words(res.notices[0], lang, names=names) for lang in ("en", "zh"))
    assert res.warnings == [en]
    assert en.startswith("Stop 1 'PVG'") and "上海浦东国际机场 is a place of 2 parts" in en
    assert PVG_TERMINALS in en and "a point between them" in en
    assert "上海浦东国际机场 由 2 个部分组成" in zh and PVG_TERMINALS in zh and "之间的一个点" in zh
    assert en != zh


@pytest.mark.parametrize(
    "text",
    [
        "上海浦东国际机场",  # the official name
        "浦东机场",
        "浦东国际机场",
        "上海浦东机场",
        "Shanghai Pudong International Airport",
        "Pudong Airport",
        "pvg",
    ],
)
def test_the_airport_s_names_in_both_languages_are_the_airport(shanghai, text):
    res = stop(text, shanghai)
    assert res.point.poi_id == "sh-pvg"
    assert [n.code for n in res.notices] == ["PLACE_HAS_PARTS"]


@pytest.mark.parametrize("text", ["pudong jichang", "浦东机厂"])  # pinyin, a typo: fuzzy, the airport still
def test_a_fuzzy_airport_name_is_the_airport_not_a_choice_of_its_terminals(shanghai, text):
    res = stop(text, shanghai)
    assert res.point.poi_id == "sh-pvg" and res.point.source in {"text_search", "search_detail"}
    assert [n.code for n in res.notices] == ["FUZZY_MATCH", "PLACE_HAS_PARTS"]  # not ALSO_FITS a terminal


@pytest.mark.parametrize(
    ("text", "terminal"),
    [
        ("浦东机场T2", "sh-pvg-t2"),
        ("PVG T1", "sh-pvg-t1"),
        ("浦东机场1号航站楼", "sh-pvg-t1"),
        ("Pudong T2", "sh-pvg-t2"),
    ],
)
def test_a_terminal_is_chosen_by_its_own_name(shanghai, text, terminal):
    res = stop(text, shanghai)
    assert res.point.poi_id == terminal
    assert "PLACE_HAS_PARTS" not in [n.code for n in res.notices]


def test_an_exact_terminal_name_is_taken_without_a_warning(shanghai):
    res = stop("浦东机场T2", shanghai)
    assert (res.point.poi_id, res.point.source, res.warnings) == ("sh-pvg-t2", "geo", [])


@pytest.mark.parametrize("text", ["浦东机场T3", "Pudong Airport T3", "虹桥机场T3"])
def test_a_terminal_the_airport_does_not_have_is_not_the_airport(shanghai, text):
    with pytest.raises(ResolutionError) as info:
        stop(text, shanghai)
    assert not isinstance(info.value, AmbiguousPlaceError)


SHA_TERMINALS = "虹桥国际机场T1航站楼, 虹桥国际机场T2航站楼"


@pytest.mark.parametrize(
    "text",
    [
        "上海虹桥国际机场",  # the official name
        "虹桥国际机场",
        "虹桥机场",
        "SHA",
        "sha",
        "Shanghai Hongqiao International Airport",
        "Hongqiao Airport",
        "Hongqiao International Airport",
    ],
)
def test_hongqiao_airport_s_names_and_code_are_the_airport_at_its_t2_terminal_its_terminals_said(shanghai, text):
    res = stop(text, shanghai)
    assert (res.point.poi_id, res.point.resolved_name) == ("sh-sha", "上海虹桥国际机场")
    assert [n.code for n in res.notices] == ["PLACE_PARTS_ARRIVAL"]
    said = res.notices[0].params
    assert said["parts"] == SHA_TERMINALS and said["count"] == 2 and said["arrival_id"] == "sh-sha-t2"
    pack = shanghai.region
    t1, t2 = pack.place_by_id("sh-sha-t1"), pack.place_by_id("sh-sha-t2")
    apart = haversine_m(t1.lon, t1.lat, t2.lon, t2.lat)  # the pack's two terminal rows: across the runways
    assert apart > 1000 and said["km"] == f"{apart / 1000:.1f}"
    assert "its arrival point" in res.point.confidence_note


def test_the_arrival_notice_names_the_terminal_the_route_goes_to_in_both_languages(shanghai):
    res = stop("虹桥机场", shanghai)
    names = point_names([res.point])
    en, zh = (words(res.notices[0], lang, names=names) for lang in ("en", "zh"))
    assert "上海虹桥国际机场 is a place of 2 parts" in en and SHA_TERMINALS in en
    assert "1.6 km apart" in en and "goes to 虹桥国际机场T2航站楼, its arrival point" in en
    assert "彼此相距 1.6 公里" in zh and "到达点 虹桥国际机场T2航站楼" in zh and SHA_TERMINALS in zh


def test_the_hongqiao_airport_s_point_is_its_t2_terminal_s_not_the_airfield_between(shanghai):
    pack = shanghai.region
    t1, t2, sha = (pack.place_by_id(i) for i in ("sh-sha-t1", "sh-sha-t2", "sh-sha"))
    assert sha.approximate and not t1.approximate and not t2.approximate
    assert (sha.lon, sha.lat) == pytest.approx((t2.lon, t2.lat), abs=1e-5)


@pytest.mark.parametrize(
    ("text", "terminal"),
    [
        ("虹桥机场T1", "sh-sha-t1"),
        ("虹桥T2", "sh-sha-t2"),
        ("SHA T2", "sh-sha-t2"),
        ("Hongqiao Airport T1", "sh-sha-t1"),
    ],
)
def test_a_hongqiao_terminal_is_still_chosen_by_its_own_name(shanghai, text, terminal):
    res = stop(text, shanghai)
    assert res.point.poi_id == terminal
    assert not {"PLACE_HAS_PARTS", "PLACE_PARTS_APART", "PLACE_PARTS_ARRIVAL"} & {n.code for n in res.notices}


def test_choosing_the_airport_by_its_id_is_the_airport(shanghai):
    res = stop("虹桥", shanghai, poi_id="sh-sha")
    assert res.point.poi_id == "sh-sha" and [n.code for n in res.notices] == ["PLACE_PARTS_ARRIVAL"]


def test_the_gazetteer_gives_each_place_its_whole_and_its_parts(shanghai):
    pvg, t1 = shanghai.detail("sh-pvg"), shanghai.detail("sh-pvg-t1")
    assert (pvg.parts, pvg.parent) == (("sh-pvg-t1", "sh-pvg-t2"), None)
    assert (t1.parts, t1.parent) == ((), "sh-pvg")
    bund = shanghai.detail("sh-bund")
    assert (bund.parts, bund.parent) == ((), None)


@pytest.mark.parametrize("text", ["浦东机场", "Pudong Airport", "PVG"])
def test_the_plans_english_warnings_name_the_terminals_by_their_english_names(shanghai, text):
    from core.models.route import RoutePlanRequest
    from core.route.planner import plan_route

    request = RoutePlanRequest(origin_mode="fixed", origin_address="人民广场", stops=[{"address": "外滩"}],
                               destination_address=text)  # fmt: skip
    result = plan_route(request, provider=shanghai, settings=get_settings())
    parts = [w for w in result.warnings if "a place of 2 parts" in w]
    assert parts, result.warnings
    assert "Shanghai Pudong International Airport Terminal 1" in parts[0] and "航站楼" not in parts[0]


@pytest.mark.parametrize("text", ["虹桥机场", "Hongqiao Airport", "SHA", "浦东机场"])
def test_the_plans_english_warnings_name_the_place_found_by_its_english_name(shanghai, text):
    # issue 31: the place a stop was found as follows the reader's language where the pack has a name in it; only
    # what the user typed is quoted as typed
    import re

    from core.models.route import RoutePlanRequest
    from core.route.planner import plan_route

    request = RoutePlanRequest(origin_mode="fixed", origin_address="人民广场", stops=[{"address": "外滩"}],
                               destination_address=text)  # fmt: skip
    result = plan_route(request, provider=shanghai, settings=get_settings())
    [parts] = [w for w in result.warnings if "a place of 2 parts" in w]
    airport = shanghai.region.place_by_id(result.resolved_destination.poi_id)
    assert parts.startswith(f"The destination '{text}': {airport.name_en} is a place of 2 parts"), parts
    assert not re.search(r"[\u4e00-\u9fff]", parts.replace(f"'{text}'", "")), parts
