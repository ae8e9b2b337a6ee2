"""Honest look-ups on the route planner (issue 32): every place the region's map data does not hold is named in
one answer, in the reader's language, with where a gazetteer knows it to be and what the map data covers."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.route.errors import not_found_words
from core.config import get_settings
from core.errors import AmbiguousPlaceError, ResolutionError
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.resolver import resolve_points

#: two places in Helsinki but outside the extract's box, one in another city, one known nowhere; Kiasma is in it
TRIP = {
    "origin": "Kauppatori",
    "destination": "Temppeliaukio Church",
    "stops": ["Sibelius Monument", "Kiasma", "Tokyo Tower", "Qwerty Plaza"],
}

#: on the page another city is refused before any look-up (core/app/scope.py): the places typed are Helsinki's
PAGE_STOPS = ["Sibelius Monument", "Kiasma", "Design Museum", "Qwerty Plaza"]


@pytest.fixture(scope="module")
def failed() -> ResolutionError:
    provider = make_provider("offline", region="helsinki", settings=get_settings())
    request = RoutePlanRequest(
        origin_mode="fixed", origin_address=TRIP["origin"], destination_address=TRIP["destination"], stops=TRIP["stops"]
    )
    with pytest.raises(ResolutionError) as info:
        resolve_points(request, provider=provider, settings=get_settings())
    return info.value


def test_every_place_not_found_is_in_one_error_with_where_it_is_known_to_be(failed):
    assert not isinstance(failed, AmbiguousPlaceError) and not failed.candidates  # nothing offered as "did you mean"
    facts = failed.facts
    assert facts["not_found"] == ["stops.0", "stops.2", "stops.3", "destination_address"]
    outside = facts["outside"]
    assert set(outside) == {"stops.0", "stops.2", "destination_address"}  # Qwerty Plaza: known nowhere
    assert outside["stops.0"]["where"] == outside["destination_address"]["where"] == "outside_coverage"
    assert (outside["stops.2"]["where"], outside["stops.2"]["city"]) == ("other_city", "Tokyo")
    cover = facts["coverage"]
    assert cover["region"] == "helsinki" and cover["bbox"][0] == pytest.approx(24.935, abs=0.001)
    assert 0.8 < cover["width_km"] < 1.2 and 1.4 < cover["height_km"] < 1.9  # the extract's box: about 1 × 1.6 km


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "en",
            [
                "Not found in the Helsinki map data: Stop 1 ('Sibelius Monument'), Stop 3 ('Tokyo Tower'), "
                "Stop 4 ('Qwerty Plaza'), Destination address ('Temppeliaukio Church').",
                "Sibelius Monument is in Helsinki, outside the area the map data covers.",
                "Tokyo Tower is in Tokyo, not in Helsinki.",
                "The Helsinki map data covers only 24.935–24.953 °E, 60.164–60.179 °N",
            ],
        ),
        (
            "zh",
            [
                "在赫尔辛基地图数据中找不到：",
                "(“Temppeliaukio Church”)",
                "“Sibelius Monument”位于赫尔辛基，在地图数据的覆盖范围之外。",
                "“Tokyo Tower”位于东京，不在赫尔辛基。",
                "赫尔辛基地图数据只覆盖东经 24.935–24.953、北纬 60.164–60.179",
            ],
        ),
    ],
)
def test_the_words_name_every_place_and_the_coverage(failed, lang, said):
    stops = [{"name": s} for s in TRIP["stops"]]
    text = not_found_words(failed.facts, stops, lang=lang)
    for part in said:
        assert part in text, text
    assert "Kiasma" not in text  # found: not named among the failures


@pytest.mark.ui
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_route_page_names_every_failing_place_in_one_answer(leaflet_static, project_root, lang):
    from core.i18n import t

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page("pages/route_planner.py").run()
    at.selectbox(key="region").set_value("helsinki").run()
    assert not at.exception, at.exception
    at.text_input(key="origin_address").input(TRIP["origin"])
    at.text_input(key="destination_address").input(TRIP["destination"])
    at.text_area(key="paste_stops").input("\n".join(PAGE_STOPS))
    at.button(key="paste_apply").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert at.session_state["route_error"]["code"] == "UNRESOLVED_POINT"
    errors = [str(e.value) for e in at.error]
    assert len(errors) == 1, errors  # one answer
    [answer] = errors
    for name in ("Sibelius Monument", "Design Museum", "Qwerty Plaza", "Temppeliaukio Church"):
        assert name in answer, answer
    city = "赫尔辛基" if lang == "zh" else "Helsinki"
    assert t("route.error.unresolved_outside", lang, place="Sibelius Monument", city=city) in answer
    assert ("24.935–24.953" in answer) and ("60.164–60.179" in answer)
    assert "Kiasma" not in answer
    assert "route_result" not in at.session_state
