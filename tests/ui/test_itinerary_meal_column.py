"""The itinerary page's "Meal" column (components/itinerary/inputs.py, issue 31 follow-up) with AppTest: a lunch
chosen in the place table plans that restaurant in the lunch window with no separate lunch break, in zh and en; the
choice is kept in the selection store across a language switch and into a shared link."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

pytestmark = pytest.mark.ui

PAGE = "pages/itinerary.py"


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def edit_places_table(at, edited_rows):
    """Send the place table an edit as the browser does (AppTest has no data_editor interaction): the table's
    widget state, with every other widget's, then a rerun (its on_change merges the edit)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    [editor] = [n for n in _nodes(at._tree) if "places_editor" in str(getattr(getattr(n, "proto", None), "id", ""))]
    states = at._tree.get_widget_states()
    kept = [w for w in states.widgets if w.id != editor.proto.id]
    del states.widgets[:]
    states.widgets.extend(kept)
    edit = WidgetState(id=editor.proto.id)
    edit.string_value = json.dumps({"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []})
    states.widgets.append(edit)
    at._run(states)
    assert not at.exception, at.exception
    return at


def open_page(project_root, lang, **params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=120)
    at.query_params["lang"] = lang
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def lunch_break_and_visit(result, key):
    """The day visiting ``key``: its lunch breaks and that visit."""
    day = next(d for d in result.days if any(e.key == key for e in d.entries))
    return [e for e in day.entries if e.kind == "lunch"], next(e for e in day.entries if e.key == key)


RESTAURANT = "sh-nanxiang-mantou"  # open 08:00-21:00: any time suits its hours, the meal alone puts it at lunch


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lunch_chosen_in_the_meal_column_is_the_days_lunch(leaflet_static, project_root, lang):
    at = open_page(project_root, lang)
    at.selectbox(key="trip_demo").set_value("shanghai_family_day")
    at.button(key="trip_load").click().run()
    row = list(at.session_state["it_view_ids"]).index(RESTAURANT)
    edit_places_table(at, {str(row): {"include": True, "priority": "must"}})
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    visit_only = at.session_state["it_result"]
    breaks, visit = lunch_break_and_visit(visit_only, RESTAURANT)
    assert visit.meal is None and len(breaks) == 1  # a plain visit: the day keeps its lunch break

    row = list(at.session_state["it_view_ids"]).index(RESTAURANT)
    edit_places_table(at, {str(row): {"meal": "lunch"}})
    assert at.session_state["it_selection"][RESTAURANT]["meal"] == "lunch"
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    result = at.session_state["it_result"]
    assert result.request.place(RESTAURANT).meal == "lunch"
    breaks, visit = lunch_break_and_visit(result, RESTAURANT)
    lunch = result.request.lunch
    assert breaks == [] and visit.meal == "lunch"
    eat = timedelta(minutes=min(lunch.duration_min, int((visit.end - visit.start).total_seconds() // 60)))
    closes = visit.start.replace(hour=lunch.window_end.hour, minute=lunch.window_end.minute)
    assert lunch.window_start <= visit.start.time() and visit.start + eat <= closes
    words = " ".join(str(m.value) for m in at.markdown) + " ".join(
        str(v) for df in at.dataframe for v in df.value.astype(str).to_numpy().ravel()
    )
    assert ("Lunch at" in words) if lang == "en" else ("吃午餐" in words)

    # the choice is the selection's code, not a word: a link opened in the other language keeps it and its plan
    other = "zh" if lang == "en" else "en"
    fresh = open_page(project_root, other, trip=at.query_params["trip"])
    assert not fresh.error, [e.value for e in fresh.error]
    assert fresh.session_state["it_selection"][RESTAURANT]["meal"] == "lunch"
    breaks, visit = lunch_break_and_visit(fresh.session_state["it_result"], RESTAURANT)
    assert breaks == [] and visit.meal == "lunch"
