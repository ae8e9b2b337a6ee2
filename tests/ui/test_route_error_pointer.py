"""A plan that cannot start says so under the Plan button too (found walking the page: the reason showed only beside
the Start section further up, so a click on Plan seemed to do nothing)."""

from __future__ import annotations

import pytest

from components.route.errors import error_pointer
from core.i18n import t

ROUTE_PAGE = "pages/route_planner.py"


@pytest.mark.parametrize(
    ("lang", "section", "title"),
    [("en", "origin", "Start"), ("zh", "origin", "起点"), ("en", "stops", "Stops"), ("zh", "options", "选项")],
)
def test_the_pointer_names_the_section_holding_the_message(lang, section, title):
    pointer = error_pointer({"section": section, "code": "INVALID_INPUT"}, lang=lang)
    assert pointer is not None and f"“{title}”" in pointer


def test_a_which_one_question_points_to_the_choice_not_to_a_fault():
    pointer = error_pointer({"section": "stops", "code": "AMBIGUOUS_PLACE"}, lang="en")
    assert pointer == t("route.error.choose_above", "en", section=t("route.page.stops", "en"))
    assert "Could not plan" not in pointer


def test_no_pointer_when_the_message_is_already_under_the_button_or_there_is_none():
    assert error_pointer({"section": "plan"}, lang="en") is None
    assert error_pointer(None, lang="zh") is None


@pytest.mark.ui
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_with_an_empty_start_says_why_under_the_button(leaflet_static, project_root, lang):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(ROUTE_PAGE)
    at.run()
    assert not at.exception, at.exception
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    start = t("route.page.start", lang)
    assert t("route.error.no_origin", lang) in [str(e.value) for e in at.error]  # beside the Start section
    assert t("route.error.see_above", lang, section=start) in [str(i.value) for i in at.info]  # under Plan
    assert not at.get("route_result") and "route_result" not in at.session_state


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_paste_example_is_a_place_of_the_chosen_region(lang):
    """Found walking the Helsinki planner: the paste box suggested "The Bund | Zhongshan East 1st Road"."""
    from components.route.form import paste_placeholder
    from core.app.regions import example_place

    helsinki = paste_placeholder("helsinki", lang)
    example = example_place("helsinki", lang)
    assert example is not None
    assert helsinki.splitlines() == [f"{example[0]} | {example[1]}", example[0]]
    assert "Bund" not in helsinki and "外滩" not in helsinki and "Helsinki" in helsinki
