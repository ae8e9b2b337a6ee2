"""components/place_picker.py with AppTest: the “Did you mean…” choice of an AMBIGUOUS_PLACE error from the real
resolver on the shanghai pack; the chosen place goes back into the form as name, address and POI id."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.place_picker import choices_of, distance_text, option_text, stop_fields
from core.errors import AmbiguousPlaceError
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.planner import plan_route
from core.route.resolver import resolve_point

pytestmark = pytest.mark.ui


def picker_script(text: str, lang: str) -> None:
    """The page a route form would be: resolve ``text`` as stop 1, offer the choice, keep what the user took."""
    import streamlit as st

    from components.place_picker import render_choices, stop_fields
    from core.errors import AmbiguousPlaceError
    from core.geo.registry import make_provider
    from core.models.route import RawStop
    from core.route.resolver import resolve_point

    try:
        resolve_point(RawStop(address=text), role="stop", provider=make_provider("offline", region="shanghai"), index=0)
    except AmbiguousPlaceError as exc:
        for field, chosen in render_choices(exc, key="pick", lang=lang).items():
            st.session_state["filled"] = {"field": field, **stop_fields(chosen)}


def ambiguity(text: str) -> AmbiguousPlaceError:
    with pytest.raises(AmbiguousPlaceError) as info:
        resolve_point(RawStop(address=text), role="stop", provider=make_provider("offline", region="shanghai"), index=0)
    return info.value


def test_the_picker_shows_name_district_and_distance_and_returns_the_choice():
    at = AppTest.from_function(picker_script, args=("虹桥", "en"), default_timeout=60).run()
    assert not at.exception
    radio = at.radio(key="pick_stops_0_choice")
    labels = list(radio.options)  # what the user reads, one line per place
    assert labels[0] == "Shanghai Hongqiao Railway Station · 闵行区 · first in the list"
    assert any(
        line.startswith("Shanghai Hongqiao International Airport Terminal 1 · 长宁区 · ")
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
    err = ambiguity("浦东机场")
    choice = choices_of(err)["stops.0"]
    chosen = next(o for o in choice.options if o.poi_id == "sh-pvg-t2")
    assert option_text(chosen, "en").startswith("Shanghai Pudong International Airport Terminal 2 · 浦东新区 · ")
    request = RoutePlanRequest(
        origin_mode="fixed", origin_address="外滩", destination_address="豫园", stops=[stop_fields(chosen)]
    )
    result = plan_route(request, provider=make_provider("offline", region="shanghai"))
    assert result.resolved_stops[0].poi_id == "sh-pvg-t2"


def test_choices_come_from_the_error_or_the_dict_a_form_kept():
    err = ambiguity("T1")
    assert set(choices_of(err)) == set(choices_of(err.to_dict())) == {"stops.0"}
    kept = {"code": err.code, "message": err.message, "candidates": err.candidates}
    assert choices_of(kept)["stops.0"].options[0].poi_id == choices_of(err)["stops.0"].options[0].poi_id
    assert choices_of({"code": "UNRESOLVED_POINT"}) == {}
    assert distance_text(0, "en") == "first in the list"
    assert distance_text(830, "en") == "830 m from the first"
    assert distance_text(1640, "zh") == "距第一个 1.6 公里"
