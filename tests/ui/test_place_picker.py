"""components/route/place_picker.py with AppTest: the “Did you mean…” choice of an AMBIGUOUS_PLACE error from the real
resolver on the shanghai pack; the chosen place goes back into the form as name, address and POI id."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.route.place_picker import (
    REASONS,
    choices_of,
    distance_text,
    option_caption,
    option_text,
    stop_fields,
)
from core import i18n
from core.config import get_settings
from core.errors import AmbiguousPlaceError
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.planner import plan_route
from core.route.resolver import resolve_point

pytestmark = pytest.mark.ui


def picker_script(text: str, lang: str) -> None:
    """The page a route form would be: resolve ``text`` as stop 1, offer the choice, keep what the user took."""
    import streamlit as st

    from components.route.place_picker import render_choices, stop_fields
    from core import config
    from core.errors import AmbiguousPlaceError
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.resolver import resolve_point

    try:
        resolve_point(
            RawStop(address=text),
            role="stop",
            provider=make_provider("offline", region="shanghai", settings=config.get_settings()),
            index=0,
            settings=config.get_settings(),
        )
    except AmbiguousPlaceError as exc:
        for field, chosen in render_choices(exc, key="pick", lang=lang, region="shanghai").items():
            st.session_state["filled"] = {"field": field, **stop_fields(chosen)}


def ambiguity(text: str) -> AmbiguousPlaceError:
    with pytest.raises(AmbiguousPlaceError) as info:
        resolve_point(
            RawStop(address=text),
            role="stop",
            provider=make_provider("offline", region="shanghai", settings=get_settings()),
            index=0,
            settings=get_settings(),
        )
    return info.value


def test_the_picker_shows_name_district_and_distance_and_returns_the_choice():
    at = AppTest.from_function(picker_script, args=("虹桥", "en"), default_timeout=60).run()
    assert not at.exception
    radio = at.radio(key="pick_stops_0_choice")
    labels = list(radio.options)  # what the user reads, one line per place
    assert labels[0] == "Shanghai Hongqiao Railway Station · Minhang · first in the list"
    assert any(
        line.startswith("Shanghai Hongqiao International Airport Terminal 1 · Changning · ")
        and "km from the first" in line
        for line in labels
    )
    assert "Did you mean… “虹桥”" in at.markdown[0].value
    assert "up to" in at.caption[0].value and "km apart" in at.caption[0].value
    # nothing is taken before the user says so
    assert "filled" not in at.session_state
    terminal = next(
        i for i, line in enumerate(labels) if line.startswith("Shanghai Hongqiao International Airport Terminal 2")
    )
    radio.set_value(terminal).run()
    at.button(key="pick_stops_0_use").click().run()
    assert at.session_state["filled"] == {
        "field": "stops.0",
        "name": "虹桥国际机场T2航站楼",
        "address": "闵行区申达一路虹桥国际机场T2航站楼",
        "poi_id": "sh-sha-t2",
    }


def test_a_district_option_says_it_is_the_whole_district():
    with pytest.raises(AmbiguousPlaceError) as info:
        resolve_point(
            RawStop(address="Hakaniemi"),
            role="stop",
            provider=make_provider("offline", region="helsinki", settings=get_settings()),
            index=0,
            settings=get_settings(),
        )
    options = {o.poi_id: o for o in choices_of(info.value)["stops.0"].options}
    district, spot = options["hel-n673773964"], options["hel-n344367167"]  # the suburb node; a stop on its main street
    assert option_text(district, "en").startswith("Hakaniemi · the whole district (its centre) · ")
    assert option_text(district, "zh").startswith("Hakaniemi · 整个片区(取其中心) · ")
    # issue 20 §5: never "district unknown" when the data has one; the spot lies nearest Siltasaari's centre
    assert option_text(spot, "en").startswith("Hakaniemi · Siltasaari · ")


def test_the_picker_speaks_chinese():
    at = AppTest.from_function(picker_script, args=("T2", "zh"), default_timeout=60).run()
    radio = at.radio(key="pick_stops_0_choice")
    labels = list(radio.options)
    assert labels[0].startswith("浦东国际机场T2航站楼 · 浦东新区 · 列表中的第一个") or labels[0].startswith(
        "虹桥国际机场T2航站楼 · 闵行区 · 列表中的第一个"
    )
    assert all("距第一个" in line and "公里" in line for line in labels[1:])
    assert at.button(key="pick_stops_0_use").label == "就去这里"


def test_the_chosen_place_plans_without_asking_again():
    err = ambiguity("T2")  # two airports' second terminals: a choice between them
    choice = choices_of(err)["stops.0"]
    assert choice.reason == "close_scores"
    assert i18n.t(REASONS[choice.reason], "en").startswith("This name fits several places that are not the same spot")
    chosen = next(o for o in choice.options if o.poi_id == "sh-sha-t2")
    assert option_text(chosen, "en", region="shanghai").startswith(
        "Shanghai Hongqiao International Airport Terminal 2 · Minhang · "
    )
    request = RoutePlanRequest(
        origin_mode="fixed", origin_address="外滩", destination_address="豫园", stops=[stop_fields(chosen)]
    )
    result = plan_route(
        request, provider=make_provider("offline", region="shanghai", settings=get_settings()), settings=get_settings()
    )
    assert result.resolved_stops[0].poi_id == "sh-sha-t2"


def test_in_english_the_districts_are_the_packs_english_names_and_chinese_words_are_labelled():
    """ "Did you mean" in English: each line names the district as the pack does in English (Huangpu, not 黄浦区);
    the place's Chinese name and address sit under it on a labelled line, never mixed into the English one."""
    options = {o.poi_id: o for o in choices_of(ambiguity("虹桥"))["stops.0"].options}
    station = options["sh-hongqiao-railway-station"]
    assert (
        option_text(station, "en", region="shanghai")
        == "Shanghai Hongqiao Railway Station · Minhang · first in the list"
    )
    assert option_text(station, "zh", region="shanghai") == "上海虹桥站 · 闵行区 · 列表中的第一个"
    assert option_caption(station, "en") == "In Chinese: 上海虹桥站 · 闵行区申贵路1500号"
    assert option_caption(station, "zh") == "Shanghai Hongqiao Railway Station · 闵行区申贵路1500号"
    for option in options.values():
        line = option_text(option, "en", region="shanghai")
        assert not i18n.has_cjk(line), line
        assert not i18n.has_cjk(option_caption(option, "en").split("In Chinese: ")[0]), option_caption(option, "en")
    # a district the pack cannot name in English is left out of the English line (its Chinese name is under it)
    unnamed = station.model_copy(update={"district": "新区"})
    assert option_text(unnamed, "en", region="shanghai") == "Shanghai Hongqiao Railway Station · first in the list"


def test_choices_come_from_the_error_or_the_dict_a_form_kept():
    err = ambiguity("T1")
    assert set(choices_of(err)) == set(choices_of(err.to_dict())) == {"stops.0"}
    kept = {"code": err.code, "message": err.message, "candidates": err.candidates}
    assert choices_of(kept)["stops.0"].options[0].poi_id == choices_of(err)["stops.0"].options[0].poi_id
    assert choices_of({"code": "UNRESOLVED_POINT"}) == {}
    assert distance_text(0, "en") == "first in the list"
    assert distance_text(830, "en") == "830 m from the first"
    assert distance_text(1640, "zh") == "距第一个 1.6 公里"


# --- wired into the route planner (pages/route_planner.py, components/route/form.py) ---------------------------


def planner_page(lang: str):
    from tests.conftest import APP, PLANNER_PAGE

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(PLANNER_PAGE).run()
    assert not at.exception, at.exception
    return at


def plan_with_stop(at, stop: str):
    at.text_input(key="origin_address").input("人民广场")
    at.text_input(key="destination_address").input("外滩")
    at.text_area(key="paste_stops").input(stop)
    at.button(key="paste_apply").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize(
    ("lang", "pick", "words"),
    [
        ("en", "sh-pvg-t2", ("fits several places", "Shanghai Pudong International Airport Terminal 2 · Pudong · ")),
        ("zh", "sh-sha-t2", ("对应多个地点", "虹桥国际机场T2航站楼 · 闵行区")),
    ],
)
def test_an_ambiguous_stop_offers_the_places_and_the_choice_plans_with_that_place(leaflet_static, lang, pick, words):
    from core.packs.loader import load_region

    pack = load_region("shanghai")
    at = plan_with_stop(planner_page(lang), "T2")
    assert "route_result" not in at.session_state
    assert at.session_state["route_error"]["code"] == "AMBIGUOUS_PLACE"
    # a question, not a failure: asked as such (not a red error box)
    assert any(words[0] in e.value for e in at.info), [e.value for e in at.info]
    assert not at.error, [e.value for e in at.error]
    radio = at.radio(key="rp_pick_stops_0_choice")  # beside the stops, the field that fits several places
    options = list(radio.options)
    assert any(line.startswith(words[1]) for line in options), options
    if lang == "en":  # one language per line: the districts in the pack's English words
        assert not [line for line in options if i18n.has_cjk(line)], options
    choice = choices_of(at.session_state["route_error"])["stops.0"]
    ids = [o.poi_id for o in choice.options]
    assert {"sh-pvg-t2", "sh-sha-t2"} <= set(ids)
    apart = next(o for o in choice.options if o.distance_to_first_m > 0).distance_to_first_m
    assert apart > 30_000  # the two airports' T2 are ~45 km apart: the line says how far from the first
    assert any(f"{apart / 1000:.1f}" in line for line in options), options

    radio.set_value(ids.index(pick)).run()
    at.button(key="rp_pick_stops_0_use").click().run()
    assert not at.exception, at.exception
    result = at.session_state["route_result"]  # planned again at once, with exactly that place
    place = pack.place_by_id(pick)
    [stop] = result.resolved_stops
    assert stop.poi_id == pick and (stop.lon, stop.lat) == (place.lon, place.lat)
    assert not at.error and "route_error" not in at.session_state
    assert at.data_editor[0].value["name"].iloc[0] == place.name_zh  # the field now holds the chosen place

    # editing the stop's text drops the chosen POI id: the next plan resolves what is typed
    from components.route.form import request_payload

    assert request_payload(at.session_state, at.session_state["stops_current"])["stops"][0]["poi_id"] == pick
    edited = at.session_state["stops_current"].copy()
    edited.loc[0, "address"] = "浦东机场T2"
    assert "poi_id" not in request_payload(at.session_state, edited)["stops"][0]


def test_a_place_chosen_for_an_end_goes_into_its_fields_and_the_request():
    from components.route.places import PENDING_PLACES, apply_pending_places, chosen_poi_id, fill_place

    state: dict = {"destination_name": "", "destination_address": "T1"}
    fill_place(
        "destination_address",
        {"name": "浦东国际机场T1航站楼", "address": "浦东机场T1", "poi_id": "sh-pvg-t1"},
        state=state,
    )
    fill_place("stops.1", {"name": "虹桥T2", "address": "申达一路", "poi_id": "sh-sha-t2"}, state=state)
    stops = [{"name": None, "address": "外滩"}, {"name": None, "address": "T2"}]
    changed = apply_pending_places(state, stops)
    assert PENDING_PLACES not in state
    assert (state["destination_name"], state["destination_address"]) == ("浦东国际机场T1航站楼", "浦东机场T1")
    assert changed == [{"name": None, "address": "外滩"}, {"name": "虹桥T2", "address": "申达一路"}]
    assert stops[1]["address"] == "T2"  # the caller's list is not changed
    assert chosen_poi_id(state, "destination_address", "浦东国际机场T1航站楼", "浦东机场T1") == "sh-pvg-t1"
    assert chosen_poi_id(state, "destination_address", "浦东国际机场T1航站楼", "浦东机场T2") is None
    assert chosen_poi_id(state, "stops.1", "虹桥T2", "申达一路") == "sh-sha-t2"
    assert chosen_poi_id(state, "stops.0", None, "外滩") is None
