"""What a person typed or chose on a page is there when they come back from another page (issue 32 §1), and a
result made from it is not marked stale: Streamlit drops a widget's value when its page is not drawn, unless the
widget keeps it for the session (``persist_state="session"``).

Each test types into a page (AppTest of app.py, one session), plans where the page plans, goes to another page and
back, and reads the widgets and the notices. The static check below holds every keyed input widget of the pages and
components to the same rule, so a widget added later cannot forget it."""

from __future__ import annotations

import ast
from datetime import date
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.ui

ROUTE, ITINERARY, HALF_DAY, LAB = (
    "pages/route_planner.py",
    "pages/itinerary.py",
    "pages/half_day.py",
    "pages/strategy_lab.py",
)

#: widgets whose value is a person's input: each keyed one keeps it for the session
VALUE_WIDGETS = {
    "text_input", "text_area", "number_input", "checkbox", "toggle", "date_input", "time_input", "slider",
    "select_slider", "segmented_control", "pills", "selectbox", "radio", "multiselect",
}  # fmt: skip
#: keyed widgets that rightly start afresh, and why
FRESH = {
    ("components/route/place_picker.py", "radio"): "a 'did you mean' choice among the last error's candidates only",
    ("components/route/links_panel.py", "segmented_control"): "which link the QR code shows, options in today's words",
}


def away_and_back(at, page: str, other: str):
    at.switch_page(other).run()
    assert not at.exception, at.exception
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_the_route_planners_typed_start_destination_stops_and_options_survive_a_page_switch(planner_app):
    at = planner_app
    at.text_input(key="origin_name").input("人民广场")
    at.text_input(key="origin_city").input("上海")
    at.checkbox(key="exact_legs").check()
    at.text_input(key="destination_name").input("豫园")
    at.text_area(key="paste_stops").input("外滩 | 中山东一路\n新天地 | 马当路")
    at.button(key="paste_apply").click().run()
    at.number_input(key="max_permutations").set_value(12).run()
    at.button(key="plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    planned = at.session_state["route_result"]
    assert not at.info, [i.value for i in at.info]

    away_and_back(at, ROUTE, ITINERARY)
    assert at.text_input(key="origin_name").value == "人民广场"
    assert at.text_input(key="origin_city").value == "上海"
    assert at.checkbox(key="exact_legs").value is True
    assert at.text_input(key="destination_name").value == "豫园"
    assert at.number_input(key="max_permutations").value == 12
    names = list(at.session_state["stops_current"]["name"])
    assert names[:2] == ["外滩", "新天地"], names
    assert at.session_state["route_result"] is planned
    assert not at.info, [i.value for i in at.info]  # nothing changed: the plan is not marked stale

    # a name typed over in the stops grid: the page keeps the table as edited (the grid's own edits go with its
    # widget on a page switch); back on the page, the grid shows it, the plan is marked stale and plans with it
    edited = at.session_state["stops_current"].copy()
    edited.loc[0, ["name", "address"]] = ["东方明珠", ""]
    at.session_state["stops_current"] = edited
    away_and_back(at, ROUTE, HALF_DAY)
    assert list(at.session_state["stops_current"]["name"])[:2] == ["东方明珠", "新天地"]
    assert any("stops" in i.value for i in at.info), [i.value for i in at.info]
    at.button(key="plan").click().run()  # and planning again works on the same inputs
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = [s.label for s in at.session_state["route_result"].resolved_stops]
    assert labels[0].startswith("东方明珠") and labels[1:] == [s.label for s in planned.resolved_stops][1:], labels


def test_the_itinerarys_days_dates_and_hours_survive_a_page_switch(planner_app):
    at = planner_app
    at.switch_page(ITINERARY).run()
    assert not at.exception, at.exception
    at.number_input(key="trip_days").set_value(3).run()
    at.date_input(key="trip_start_date").set_value(date(2031, 5, 2)).run()
    at.toggle(key="lunch_enabled").set_value(False).run()
    at.text_input(key="place_search").input("博物馆").run()

    away_and_back(at, ITINERARY, LAB)
    assert at.number_input(key="trip_days").value == 3
    assert at.date_input(key="trip_start_date").value == date(2031, 5, 2)
    assert at.toggle(key="lunch_enabled").value is False
    assert at.text_input(key="place_search").value == "博物馆"


def test_the_half_days_goal_and_start_survive_a_page_switch(planner_app):
    at = planner_app
    at.switch_page(HALF_DAY).run()
    assert not at.exception, at.exception
    goal = "Saturday afternoon with two kids, a museum and an ice cream, under 300 yuan"
    at.text_area(key="hd_goal").input(goal)
    at.text_input(key="hd_origin").input("People's Square").run()

    away_and_back(at, HALF_DAY, ROUTE)
    assert at.text_area(key="hd_goal").value == goal
    assert at.text_input(key="hd_origin").value == "People's Square"


def _keyed_widget_calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VALUE_WIDGETS:
            keywords = {k.arg: k.value for k in node.keywords}
            if "key" in keywords:
                yield node, keywords


def test_every_keyed_input_widget_keeps_its_value_for_the_session():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "components").rglob("*.py"))]
    seen, forgetful = 0, []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for node, keywords in _keyed_widget_calls(path):
            seen += 1
            if (rel, node.func.attr) in FRESH:
                continue
            kept = keywords.get("persist_state")
            if not (isinstance(kept, ast.Constant) and kept.value == "session"):
                forgetful.append(f"{rel}:{node.lineno} {node.func.attr}")
    assert seen > 30  # the check reads the widgets it is about
    assert not forgetful, forgetful
