"""What a person reads on the route planner and in its report, in both languages (issue 23): no ``None`` in the
resolution table, no Chinese district in English, a report titled by the trip's places with its points in visiting
order, start placeholders from the region's own pack, a short map credit, and no "changed since this plan" notice
right after a Helsinki plan or on its shared link."""

from __future__ import annotations

import json
import re

import pytest

from core import share
from core.app.route import export_html
from core.config import get_settings
from core.geo.registry import make_provider
from core.i18n import t
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from core.route.planner import plan_route
from core.route.scenarios import load_scenario

CJK = re.compile(r"[\u3400-\u9fff]")
ROUTE_PAGE = "pages/route_planner.py"


def _plan(scenario: str, region: str = "shanghai", *, typed: bool = False):
    """A scenario's plan; ``typed``: as a trip typed into the form, which has no name of its own."""
    request = load_scenario(scenario).request
    if typed:
        request = request.model_copy(update={"task_name": RoutePlanRequest.model_fields["task_name"].default})
    return plan_route(
        request, provider=make_provider("offline", region=region, settings=get_settings()), settings=get_settings()
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_resolution_table_has_no_none_and_numbers_only_the_stops(lang):
    from components.route.tables import resolved_points_frame

    result = _plan("sightseeing-day")
    frame = resolved_points_frame(result, lang=lang)
    marks = list(frame["#"])
    assert not any(m is None or (isinstance(m, float) and m != m) or str(m) in ("None", "<NA>", "nan") for m in marks)
    assert marks[0] == "" and marks[-1] == ""  # the start and the destination say their role in its own column
    assert marks[1:-1] == [str(i + 1) for i in range(len(result.resolved_stops))]
    assert "None" not in frame.astype(str).to_string()


def test_the_english_table_names_districts_in_english_and_the_chinese_one_in_chinese():
    from components.route.tables import resolved_points_frame

    result = _plan("sightseeing-day")
    pack = load_region("shanghai")
    english = resolved_points_frame(result, lang="en")
    assert not any(CJK.search(d) for d in english["district"])
    points = [result.resolved_origin, *result.resolved_stops, result.resolved_destination]
    # the rows are in visiting order (one numbering with the map): the same districts, worded
    expected = [pack.district_names.get(point.district, {}).get("en", "") for point in points]
    assert sorted(english["district"]) == sorted(expected)
    assert "Huangpu" in set(english["district"])  # the Bund and Yu Garden are in 黄浦区
    chinese = resolved_points_frame(result, lang="zh")
    assert sorted(chinese["district"]) == sorted(p.district for p in points)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_is_titled_by_the_trips_places_and_lists_the_points_in_visiting_order(lang):
    result = _plan("delivery-round", typed=True)
    assert result.task_name == "multi-destination-route-planning"  # a typed trip: no name of its own
    visit = [p.index for p in result.best_route.points if p.index is not None]
    assert visit != sorted(visit)  # the best order is not the typed order: the table must follow the visit
    pack = load_region("shanghai")

    def name(point):
        place = pack.place_by_id(point.poi_id)
        return place.name_en if lang == "en" else place.name_zh

    visiting = [p for _, p in result.visiting()]
    page = export_html(result, lang=lang)
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    expected = " → ".join(
        [name(visiting[0]), "…", name(visiting[-1])] if len(visiting) > 4 else [name(p) for p in visiting]
    )
    assert title == expected and "multi-destination" not in page
    assert re.search(r"<h1>(.*?)</h1>", page).group(1) == expected
    points = page[page.index('<section id="points">') : page.index('<section id="candidates">')]
    rows = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td><td>([^<]*)</td>", points)
    assert [mark for mark, _ in rows] == ["S", *[str(i) for i in range(1, len(result.resolved_stops) + 1)], "D"]
    assert all(typed.endswith(p.input_address) for (_, typed), p in zip(rows, visiting, strict=True))
    assert "user_location" not in page and ">offline<" not in page and " · offline<" not in page


def test_a_named_task_keeps_its_name_as_the_title():
    result = _plan("sightseeing-day").model_copy(update={"task_name": "Grandma's birthday"})
    assert "<title>Grandma&#x27;s birthday</title>" in export_html(result, lang="zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_helsinki_start_placeholders_are_a_helsinki_place(lang):
    from components.route.form import origin_placeholders

    pack = load_region("helsinki")
    name_hint, address_hint = origin_placeholders("helsinki", lang)
    names = {p.name_en for p in pack.places} | {p.name_zh for p in pack.places}
    addresses = {p.address for p in pack.places}
    prefix = t("route.origin.example", lang, example="")
    assert name_hint.startswith(prefix) and name_hint.removeprefix(prefix) in names
    assert address_hint.removeprefix(prefix) in addresses
    assert not CJK.search(address_hint.removeprefix(prefix))  # no Shanghai address
    shanghai = origin_placeholders("shanghai", lang)
    assert shanghai != (name_hint, address_hint)


def _open(project_root, **params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    at.switch_page(ROUTE_PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.ui
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_helsinki_plan_is_not_marked_changed_right_after_planning_nor_on_its_link(leaflet_static, project_root, lang):
    scenario = json.loads((project_root / "data" / "scenarios" / "helsinki-museums.json").read_text(encoding="utf-8"))
    request = RoutePlanRequest.model_validate(scenario["request"])
    at = _open(project_root, lang=lang, route=share.route_token(request, region="helsinki"))
    result = at.session_state["route_result"]
    assert result.region == "helsinki" and result.provider != at.session_state["active_provider"]  # offline+valhalla
    assert not at.get("stale_result") and not [i for i in at.info if "stale" in str(i.key or "")]
    stale_words = t("route.field.provider", lang)
    assert not any(stale_words in str(i.value) for i in at.info)
    at.button(key="plan").click().run()  # planned again from the form: still current
    assert not at.exception, at.exception
    assert not any(stale_words in str(i.value) for i in at.info)
    # the placeholder of the start is Helsinki's own example place
    from components.route.form import origin_placeholders

    assert at.text_input(key="origin_address").placeholder == origin_placeholders("helsinki", lang)[1]
    assert "Helsinki" in at.text_input(key="origin_address").placeholder


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_half_day_start_placeholder_is_the_regions_own_place(lang):
    from components.halfday.text import origin_hint

    for region in ("helsinki", "shanghai"):
        pack = load_region(region)
        hint = origin_hint(region, lang)
        assert hint in {p.name_en for p in pack.places} | {p.name_zh for p in pack.places}
    assert origin_hint("helsinki", lang) != origin_hint("shanghai", lang)
    assert not CJK.search(origin_hint("helsinki", lang))


CODE_TOKEN = re.compile(r"\b[A-Z]{2,}_[A-Z_]+\b|\b[a-z]+_[a-z_]+\b|max_permutations|=\d")


@pytest.mark.ui
def test_the_details_are_words_in_both_languages_and_the_codes_are_in_the_raw_expander(leaflet_static, project_root):
    """The best route's "Details" on a planned page, in Chinese and in English: the search sentence and the figures
    in words, no code (held_karp, OFFLINE_ESTIMATES_AT, max_permutations=24, shortest_distance), no "Codes:" line
    and no core sentence naming places in the other language; the codes are in the collapsed raw-data expander."""
    for lang in ("zh", "en"):
        at = _open(project_root, lang=lang)
        at.selectbox(key="scenario").set_value("sightseeing-day")
        at.button(key="load_scenario").click().run()
        at.button(key="plan").click().run()
        assert not at.exception, at.exception
        result = at.session_state["route_result"]
        details = [e for e in at.expander if e.key in ("best_route_details", "route_warnings_details")]
        assert [e.key for e in details] == ["best_route_details"]
        captions = [str(c.value) for e in details for c in e.caption]
        from core.words.route import search_words

        assert t("route.details.optimizer", lang, search=search_words(result.optimizer, lang)) in captions
        assert not [c for c in captions if CODE_TOKEN.search(c)], captions
        assert not [c for c in captions if c.startswith("Codes:")], captions
        if lang == "zh":
            assert not any(re.search(r"[A-Za-z]{4,}", c.replace("OpenStreetMap", "")) for c in captions), captions
        else:
            assert not [c for c in captions if CJK.search(c)], captions
        [raw] = [e for e in at.expander if e.key == "best_route_raw"]
        assert raw.label == t("common.debug", lang)
        code = "\n".join(
            str(c.value) for e in at.expander if e.key in ("best_route_raw", "route_warnings_raw") for c in e.code
        )
        assert f"route_strategy={result.route_strategy}" in code
        assert {n.code for n in result.notices} <= set(re.findall(r"^([A-Z_]+)", code, re.M))
