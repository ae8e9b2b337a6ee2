"""Issue 32 (speed where a person waits): on the itinerary page, Apply (and Optimise, Undo, a reorder, an add) rerun
the plan-and-result part of the page alone, an ``st.fragment``: the form above is not drawn again, its inputs and the
day being looked at are kept, and the plan on screen is the edited one.

AppTest reruns the whole script on ``run()``; a browser's click inside a fragment asks the server to rerun that
fragment only. ``fragment_run`` asks the same: the run request carries the top-level fragment's id (the one the
page's result part registered), as the browser's would."""

from __future__ import annotations

import html
import json
import re
from contextlib import contextmanager

import pytest

pytestmark = pytest.mark.ui

PAGE = "pages/itinerary.py"


@pytest.fixture
def at(leaflet_static, project_root):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=120)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page(PAGE)
    at.run()
    at.selectbox(key="trip_demo").set_value("shanghai_3day_30places")
    at.button(key="trip_load").click().run()
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    return at


@contextmanager
def scoped_to(fragment_id: str):
    """The next AppTest run asks for ``fragment_id``'s rerun only, as a click inside it does in the browser."""
    from streamlit.testing.v1 import local_script_runner

    real = local_script_runner.RerunData

    def one_fragment(**kwargs):
        return real(**kwargs, fragment_id_queue=[fragment_id])

    local_script_runner.RerunData = one_fragment
    try:
        yield
    finally:
        local_script_runner.RerunData = real


def result_fragment(at) -> str:
    """The page's top-level fragment (the day panel is nested inside it)."""
    storage = at._fragment_storage
    top = [fid for fid, parent in storage._parent_by_id.items() if parent is None and fid in storage._fragments]
    assert len(top) == 1, top
    return top[0]


def visit_keys(result, day: int) -> list[str]:
    return [e.key for e in result.days[day].entries if e.kind == "visit"]


def test_an_applied_edit_reruns_the_result_alone_and_keeps_the_form_and_the_day_shown(at, monkeypatch):
    from components.itinerary import inputs

    before = at.session_state["it_result"]
    at.radio(key="day_select").set_value(2).run()  # looking at day 3
    removed = visit_keys(before, 0)[0]  # a stop of day 1
    at.selectbox(key="edit_stop").set_value(removed).run()
    at.radio(key="edit_action").set_value("remove").run()
    form_values = {k: at.session_state[k] for k in ("trip_days", "trip_start_date", "day_start", "day_end")}
    drawn: list[str] = []
    real = inputs.render_place_picker
    monkeypatch.setattr(inputs, "render_place_picker", lambda *a, **kw: (drawn.append("places"), real(*a, **kw)))

    at.button(key="edit_apply").click()
    with scoped_to(result_fragment(at)):
        at.run()
    assert not at.exception, at.exception

    after = at.session_state["it_result"]
    assert after is not before and removed not in {k for d in range(len(after.days)) for k in visit_keys(after, d)}
    assert at.session_state["it_edits"] == [{"kind": "remove", "key": removed}]
    assert drawn == []  # the form was not drawn again
    assert at.button(key="optimise") is not None  # the part that ran drew its own widgets again
    assert {k: at.session_state[k] for k in form_values} == form_values
    assert at.radio(key="day_select").value == 2  # the day being looked at stays
    assert at.get("dataframe") and at.session_state["it_history"]  # the edits table, and an undo to go back


def test_undo_in_the_result_part_restores_the_plan_before_the_edit(at):
    before = at.session_state["it_result"]
    removed = visit_keys(before, 0)[0]
    at.selectbox(key="edit_stop").set_value(removed).run()
    at.radio(key="edit_action").set_value("remove").run()
    at.button(key="edit_apply").click()
    with scoped_to(result_fragment(at)):
        at.run()
    assert removed not in visit_keys(at.session_state["it_result"], 0)
    at.button(key="edit_undo").click()
    with scoped_to(result_fragment(at)):
        at.run()
    assert not at.exception, at.exception
    assert visit_keys(at.session_state["it_result"], 0) == visit_keys(before, 0)
    assert at.session_state["it_edits"] == []


def raw_data(at):
    [raw] = [e for e in at.expander if e.label == "Raw data (for debugging)"]
    return raw


def test_the_raw_data_is_drawn_only_while_open_and_follows_the_edited_plan(at):
    """Issue 32: the collapsed raw-data section sends no tables or captions with each plan and edit; opened, it shows
    the plan on screen, and after an edit (the result part rerun alone) the edited plan's, not the one before."""
    result = at.session_state["it_result"]
    closed = raw_data(at)
    assert closed.caption.len == 0 and closed.dataframe.len == 0
    at.session_state["it_details"] = True
    at.run()
    assert not at.exception, at.exception
    opened = raw_data(at)
    log = [df.value for df in opened.dataframe if "reason code" in df.value.columns and "step" in df.value.columns]
    assert len(log) == 1 and len(log[0]) == len(result.decision_log)
    assert f"status={result.status}" in opened.caption[0].value
    dropped_before = {k for df in opened.dataframe if "key" in df.value.columns for k in df.value["key"]}

    removed = visit_keys(result, 0)[0]
    at.selectbox(key="edit_stop").set_value(removed).run()
    at.radio(key="edit_action").set_value("remove").run()
    at.button(key="edit_apply").click()
    with scoped_to(result_fragment(at)):
        at.run()
    assert not at.exception, at.exception
    after = raw_data(at)
    [dropped] = [df.value for df in after.dataframe if "key" in df.value.columns]
    assert dropped.loc[dropped["key"] == removed, "reason code"].tolist() == ["REMOVED_BY_USER"]
    assert removed not in dropped_before  # the plan before the edit had it on the plan


def _planned(project_root, lang: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(PAGE)
    at.run()
    at.selectbox(key="trip_demo").set_value("shanghai_3day_30places")
    at.button(key="trip_load").click().run()
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    return at


def _day_map(at):
    [found] = [c.proto for c in at.get("component_instance") if c.proto.component_name == "streamlit_folium.st_folium"]
    return found


def _tooltips(script: str) -> list[str]:
    """The tooltips a map script binds, as text (each is a JavaScript string literal: JSON)."""
    return [json.loads(text) for text in re.findall(r'bindTooltip\(\s*("(?:[^"\\]|\\.)*")', script)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_edit_keeps_the_day_map_and_sends_it_the_edited_days_pins_in_the_pages_language(
    leaflet_static, project_root, lang
):
    """Issue 32: after an edit the day map is the same component (the browser keeps its frame, Leaflet loaded and
    the base drawn) and its layers are the edited day's: one pin per visit left, numbered in the new order and named
    in the page's language, none for the removed place, and the day's line."""
    from components.itinerary.words import names_of
    from core.i18n import t

    at = _planned(project_root, lang)
    before = at.session_state["it_result"]
    shown_before = _day_map(at)
    removed = visit_keys(before, 0)[0]
    at.selectbox(key="edit_stop").set_value(removed).run()
    at.radio(key="edit_action").set_value("remove").run()
    at.button(key="edit_apply").click()
    with scoped_to(result_fragment(at)):
        at.run()
    assert not at.exception, at.exception

    after = at.session_state["it_result"]
    assert at.radio(key="day_select").value == 0
    shown = _day_map(at)
    assert shown.id == shown_before.id  # the same map: not a new frame
    args = json.loads(shown.json_args)
    layers = args["feature_group"]
    assert layers != json.loads(shown_before.json_args)["feature_group"]
    names = names_of(after.request)
    visits = [e for e in after.days[0].entries if e.kind == "visit" and not e.continues_visit]
    tips = _tooltips(layers)
    for n, entry in enumerate(visits, start=1):
        expected = f"<b>{n} · {html.escape(names.shown(entry.key, lang))}</b>"
        assert sum(expected in tip for tip in tips) == 1, (expected, tips)
    assert layers.count("L.marker(") == len(visits) + 1  # and the hotel
    gone = html.escape(names.shown(removed, lang))
    assert not any(f"· {gone}</b>" in tip for tip in tips)
    assert f"<div>{html.escape(t('itinerary.map.line', lang, n=1))}</div>" in tips
    assert "L.marker(" not in args["script"]  # the base draws no pin of its own
