"""The resolver on the place names people type (tests/data/place_names.jsonl, issue 12 §3), and the
structured error an ambiguous name becomes: never a silent pick of places kilometres apart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from bench.resolver import EVAL_SET, evaluate, grade, read_lines
from core.config import get_settings
from core.errors import AmbiguousPlaceError, ResolutionError
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.resolver import resolve_point, resolve_points
from tests.support.paths import ROOT

#: the level reached on the set (99.0 %: 793 of 801 lines, docs/BENCHMARKS.md); the goal was 95 %
MIN_TOP1 = 0.98


@pytest.fixture(scope="module")
def shanghai():
    return make_provider("offline", region="shanghai", settings=get_settings())


@pytest.fixture(scope="module")
def helsinki():
    return make_provider("offline", region="helsinki", settings=get_settings())


def stop(text, provider, index=0):
    city = provider.region.city
    return resolve_point(
        RawStop(address=text), role="stop", provider=provider, index=index, default_city=city, settings=get_settings()
    )


def test_the_evaluation_set_is_resolved_at_the_reached_level_and_never_silently_wrong():
    lines = read_lines()
    assert len(lines) >= 300 and {line["region"] for line in lines} == {"shanghai", "helsinki"}
    out = evaluate(lines)
    assert out["wrong_silent"] == 0, [f for f in out["failures"] if f["outcome"] == "wrong_silent"]
    assert out["top1"] >= MIN_TOP1, out["failures"]
    assert out["by_kind"]["ambiguous"]["top1"] >= 0.95  # the names that must be a choice are one
    assert out["by_region"]["helsinki"]["top1"] >= 0.9


#: issue 20 §5: the Helsinki lines grown from the map data (bench/grow_names.py: Finnish, Swedish and English
#: names, squares, stops by mode, streets with house numbers, lowercase, without diacritics, partial names)
GROWN_KINDS = {"fi", "sv", "en", "lower", "no_diacritics", "partial", "square", "mode", "house_number"}


def test_the_helsinki_phrasings_grown_from_the_map_data_are_resolved_at_95_percent_never_silently_wrong():
    helsinki = [line for line in read_lines() if line["region"] == "helsinki"]
    grown = [line for line in helsinki if line["kind"] in GROWN_KINDS]
    assert len(grown) >= 150 and len(helsinki) >= 300
    for lines in (grown, helsinki):
        out = evaluate(lines)
        assert out["wrong_silent"] == 0, [f for f in out["failures"] if f["outcome"] == "wrong_silent"]
        assert out["top1"] >= 0.95, out["failures"]


def test_the_grading_rules():
    line = {"expect": "sh-bund", "same_place": ["sh-bund-2"]}
    assert grade(line, {"status": "resolved", "poi_id": "sh-bund-2", "warned": False}) == "correct"
    assert grade(line, {"status": "resolved", "poi_id": "sh-other", "warned": False}) == "wrong_silent"
    assert grade(line, {"status": "resolved", "poi_id": "sh-other", "warned": True}) == "wrong_warned"
    assert grade(line, {"status": "ambiguous", "candidates": ["sh-x", "sh-bund"], "districts": []}) == "asked"
    absent = {"expect": None}
    assert grade(absent, {"status": "unresolved", "candidates": [], "districts": []}) == "correct"
    assert grade(absent, {"status": "resolved", "poi_id": "sh-x", "warned": False}) == "wrong_silent"
    both = {"expect": {"ambiguous": True, "candidates_include": ["a", "b"]}}
    assert grade(both, {"status": "ambiguous", "candidates": ["b", "c", "a"], "districts": []}) == "correct"
    assert grade(both, {"status": "ambiguous", "candidates": ["a"], "districts": []}) == "missed"
    assert EVAL_SET.name == "place_names.jsonl"


@pytest.mark.parametrize(
    "text",
    [
        "浦东国际机场T1航站楼",
        "浦东机场1号航站楼",
        "浦东机场一号航站楼",
        "ＰＶＧ Ｔ１",
        "Pudong International Airport T1",
    ],
)
def test_every_way_of_writing_a_terminal_is_that_terminal_exactly(shanghai, text):
    res = stop(text, shanghai)
    assert (res.point.poi_id, res.point.source) == ("sh-pvg-t1", "geo")
    assert res.warnings == []


def test_a_homophone_typo_is_found_by_its_pinyin_with_a_warning(shanghai):
    res = stop("豫圆", shanghai)  # 圆 for 园: the same sound, typed by a pinyin input method
    assert res.point.poi_id == "sh-yuyuan-garden" and res.point.source in {"text_search", "search_detail"}
    assert [n.code for n in res.notices] == ["FUZZY_MATCH"] and "approximate match" in res.warnings[0]


def test_an_airport_whose_terminals_are_far_apart_is_the_airport_its_terminals_named(shanghai):
    # Hongqiao's terminals lie on either side of the runways (issue 20 §5: the airport's names are the airport, as
    # Pudong's are, tests/route/test_place_parts.py; the notice says how far apart its terminals are)
    res = stop("虹桥机场", shanghai, index=1)
    assert (res.point.poi_id, res.point.id) == ("sh-sha", "stops.1")
    [parts] = res.notices
    assert parts.code == "PLACE_PARTS_ARRIVAL" and parts.params["point"] == "stops.1"
    assert parts.params["parts"] == "虹桥国际机场T1航站楼, 虹桥国际机场T2航站楼" and parts.params["km"] == "1.6"


def test_a_name_shared_by_places_kilometres_apart_is_never_taken_as_the_first(shanghai):
    with pytest.raises(AmbiguousPlaceError) as info:
        stop("虹桥", shanghai)
    choice = info.value.candidates["stops.0"]
    ids = {o["poi_id"] for o in choice["options"]}
    assert {"sh-hongqiao-railway-station", "sh-sha-t1", "sh-sha-t2"} <= ids
    assert choice["spread_m"] > 1000
    assert "choose one" in info.value.message and "km apart" in info.value.message


def test_a_district_named_alone_offers_its_places(shanghai):
    with pytest.raises(AmbiguousPlaceError) as info:
        stop("上海市徐汇区", shanghai)
    choice = info.value.candidates["stops.0"]
    assert choice["reason"] == "district"
    assert len(choice["options"]) >= 3 and {o["district"] for o in choice["options"]} == {"徐汇区"}


@pytest.mark.parametrize("text", ["浦东机场T3", "上海北站", "上海东站", "上海迪士尼乐园酒店", "汉中路站"])
def test_a_place_the_pack_lacks_is_not_resolved_to_its_look_alike(shanghai, text):
    # T3 is not open, 上海北站 closed in 1987; the pack has no 上海东站, Disneyland hotel or 汉中路 metro station
    with pytest.raises(ResolutionError):
        stop(text, shanghai)


def test_places_at_one_spot_are_taken_with_a_warning_not_asked(helsinki):
    # the railway station is mapped twice in OpenStreetMap (19 m apart): one spot, one answer
    res = stop("Helsingin päärautatieasema", helsinki)
    assert res.point.poi_id in {"hel-w122595198", "hel-n25389429"}
    assert [n.code for n in res.notices] == ["SEVERAL_EXACT_ONE_SPOT"] and res.notices[0].params["count"] == 2
    assert "matched 2 places exactly" in res.warnings[0]
    assert "at one spot" in res.point.confidence_note


def test_one_chain_s_branches_are_a_choice(helsinki):
    with pytest.raises(AmbiguousPlaceError) as info:
        stop("Fazer Café", helsinki)  # two cafés 240 m apart, and a third mapped as "fazer cafe" (issue 20 §5:
    # a name typed without its diacritics is that name, so the branch spelt without them is one of the choices)
    options = {o["poi_id"] for o in info.value.candidates["stops.0"]["options"]}
    assert options == {"hel-n6049453018", "hel-n6139262619", "hel-n6328879941"}


def test_resolve_points_names_every_ambiguous_field(shanghai):
    req = RoutePlanRequest(
        origin_mode="fixed", origin_address="外滩", destination_address="T2", stops=["博物馆", "豫园"]
    )
    with pytest.raises(AmbiguousPlaceError) as info:
        resolve_points(req, provider=shanghai, settings=get_settings())
    err = info.value
    assert set(err.candidates) == {"stops.0", "destination_address"}
    assert err.details == ["stops.0", "destination_address"] and err.field == "stops.0"
    assert "only knows the bundled places" not in err.message  # nothing is missing: the user must choose
    assert {o["poi_id"] for o in err.candidates["destination_address"]["options"]} >= {"sh-pvg-t2", "sh-sha-t2"}


def test_an_unresolved_place_beside_an_ambiguous_one_keeps_both(shanghai):
    req = RoutePlanRequest(origin_mode="fixed", origin_address="外滩", destination_address="虹桥", stops=["qqqq zzzz"])
    with pytest.raises(ResolutionError) as info:
        resolve_points(req, provider=shanghai, settings=get_settings())
    assert info.value.code == "UNRESOLVED_POINT"
    assert set(info.value.candidates) == {"destination_address"}
    assert info.value.details == ["stops.0", "destination_address"]


def test_the_command_line_returns_the_candidates(tmp_path):
    path = tmp_path / "req.json"
    body = {"origin_mode": "fixed", "origin_address": "外滩", "destination_address": "T2", "stops": ["豫园"]}
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "core", "plan", "--region", "shanghai", "--request", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    error = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert (error["code"], error["field"]) == ("AMBIGUOUS_PLACE", "destination_address")
    options = error["candidates"]["destination_address"]["options"]
    assert {o["poi_id"] for o in options} == {"sh-pvg-t2", "sh-sha-t2"}


def test_the_api_error_carries_the_candidates(shanghai):
    import api

    with pytest.raises(AmbiguousPlaceError) as info:
        stop("T1", shanghai)
    response = asyncio.run(api._omni_error(None, info.value))
    body = json.loads(response.body)
    assert response.status_code == 422 and body["error"]["code"] == "AMBIGUOUS_PLACE"
    assert {o["poi_id"] for o in body["error"]["candidates"]["stops.0"]["options"]} >= {"sh-pvg-t1", "sh-sha-t1"}


def test_the_place_chosen_among_the_candidates_resolves_by_its_id(shanghai):
    req = RoutePlanRequest(
        origin_mode="fixed",
        origin_address="外滩",
        destination_address="浦东机场",
        destination_poi_id="sh-pvg-t2",
        stops=[{"address": "T1", "poi_id": "sh-sha-t1"}],
    )
    rp = resolve_points(req, provider=shanghai, settings=get_settings())
    assert (rp.destination.poi_id, rp.destination.source) == ("sh-pvg-t2", "geo")
    assert rp.stops[0].poi_id == "sh-sha-t1" and "chosen among the candidates" in rp.stops[0].confidence_note
    assert rp.stops[0].input_address == "T1" and rp.warnings == []


def test_a_chosen_id_the_provider_does_not_know_is_a_structured_error(shanghai):
    with pytest.raises(ResolutionError) as info:
        resolve_point(
            RawStop(address="外滩", poi_id="sh-nowhere"),
            role="stop",
            provider=shanghai,
            index=3,
            settings=get_settings(),
        )
    assert info.value.field == "stops.3" and "sh-nowhere" in info.value.message
    with pytest.raises(ValueError):
        RawStop(address="外滩", poi_id="sh bund; drop")


def test_a_round_trip_returns_to_the_chosen_origin():
    req = RoutePlanRequest(
        origin_mode="fixed", origin_address="虹桥", origin_poi_id="sh-sha-t2", round_trip=True, stops=["豫园"]
    )
    assert req.destination_stop().poi_id == "sh-sha-t2"


@pytest.mark.parametrize("text", ["Kluuvi", "Gloet"])  # the Finnish name and the Swedish one (name:sv)
def test_a_district_goes_to_its_mapped_centre_and_says_so(helsinki, text):
    res = stop(text, helsinki)
    assert res.point.poi_id == "hel-n1376356019" and (res.point.lon, res.point.lat) == (24.947329, 60.170778)
    assert [n.code for n in res.notices] == ["DISTRICT_CENTRE"] and res.notices[0].params["point"] == "stops.0"
    assert "Kluuvi is a district" in res.warnings[0] and "its centre" in res.warnings[0]
    assert "a district: its mapped centre" in res.point.confidence_note


def test_a_district_and_a_spot_in_it_named_alike_are_a_choice(helsinki):
    # "Kaisaniemi" is the district and the old name of the metro station / university building 120 m away
    with pytest.raises(AmbiguousPlaceError) as info:
        stop("Kaisaniemi", helsinki)
    options = info.value.candidates["stops.0"]["options"]
    assert "hel-n4551252286" in {o["poi_id"] for o in options}
    assert {o["category"] for o in options} >= {"district", "address"}


def test_the_far_apart_parts_notice_promises_no_door_the_pack_does_not_have(shanghai):
    """The curated pack holds each terminal as one point and no doors (no entrances.csv): naming a terminal goes to
    that point, so the notice says so and never promises to take the person to a door."""
    from core.app.route import notice_words

    res = stop("虹桥机场", shanghai, index=1)
    [parts] = res.notices
    terminal = shanghai.region.place_by_id("sh-sha-t1")
    assert terminal is not None and terminal.entrances == []
    en, zh = notice_words(parts, "en"), notice_words(parts, "zh")
    assert "1.6 km apart" in en and "its arrival point" in en and "door" not in en
    assert "1.6 公里" in zh and "门口" not in zh and "到达点" in zh  # the airport's point is its T2 terminal's


@pytest.mark.parametrize(
    "text",
    ["赫尔辛基火车站", "赫尔辛基车站", "赫尔辛基中央火车站", "Helsinki train station", "Helsinki main railway station"],
)
def test_a_city_s_station_named_with_another_word_of_station_is_its_central_station_exactly(helsinki, text):
    # issue 31: the data says 赫尔辛基中央车站 / Helsinki Central Railway Station; 火车站, 车站, 中央车站 and
    # train / railway / central / main station are one word of kind, so the name is that station, not a fuzzy guess
    res = stop(text, helsinki)
    assert res.point.poi_id in {"hel-w122595198", "hel-n25389429"} and res.point.source == "geo"
    assert not [n for n in res.notices if n.code == "FUZZY_MATCH"]


def test_another_station_of_the_city_is_not_its_central_station(helsinki, shanghai):
    for text, provider in (("赫尔辛基西站", helsinki), ("上海东站", shanghai)):
        with pytest.raises(ResolutionError) as info:  # not found, or a choice: never the central station taken
            stop(text, provider)
        assert info.value.code in {"UNRESOLVED_POINT", "AMBIGUOUS_PLACE"}, text


def test_a_place_not_found_is_offered_no_name_that_shares_only_the_city_s(helsinki):
    # issue 31: 赫尔辛基西站 was answered "the nearest names known are 赫尔辛基中央车站, 赫尔辛基主教座堂, 赫尔辛基市政厅"
    with pytest.raises(ResolutionError) as info:
        stop("赫尔辛基西站", helsinki)
    message = info.value.message
    assert "not found" in message and "主教座堂" not in message and "市政厅" not in message, message
