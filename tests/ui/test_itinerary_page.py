"""The itinerary page (pages/itinerary.py) with streamlit.testing.v1.AppTest, plus its pure helpers.

One AppTest of app.py in English (``?lang=en``) is shared by the module (switched to the itinerary page once); every
test starts by loading a demo trip, which resets the form, the place selection and the result. The words in both
languages are tested in test_itinerary_language.py.
For each demo trip: optimise, then check the day's timeline (table and Gantt data), the map,
the critic/robustness panels; the day selector; the dropped-items table; remove and lock edits;
bad input; the JSON and ICS downloads.
"""

from __future__ import annotations

import json
import re
from datetime import time

import pytest

from components.itinerary import form, frames, state
from core.errors import InputError
from core.models.itinerary_result import ItineraryResult
from core.packs.loader import load_region

pytestmark = pytest.mark.ui

PAGE = "pages/itinerary.py"
TRIPS = ["shanghai_3day_30places", "shanghai_family_day", "shanghai_2day_monday_museum"]
REASONS = {"CLOSED_ON_DAY", "OUTSIDE_OPENING_HOURS", "UNREACHABLE_IN_WINDOW", "DAY_TOO_FULL", "LOW_PRIORITY_TRADEOFF"}
KINDS = {"visit", "travel", "lunch", "wait"}


# --- helpers -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def it_app(leaflet_static, project_root):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception, at.exception
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    assert at.button(key="optimise") is not None
    return at


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def load(at, trip: str):
    at.selectbox(key="trip_demo").set_value(trip)
    at.button(key="trip_load").click().run()
    assert not at.exception, at.exception
    assert "it_result" not in at.session_state
    return at


def optimise(at):
    at.button(key="optimise").click().run()
    ok(at)
    return at.session_state["it_result"]


def table(at, columns: set[str]):
    found = [df.value for df in at.dataframe if columns <= set(df.value.columns)]
    assert len(found) == 1, f"expected one table with {columns}, found {len(found)}"
    return found[0]


def timeline_table(at):
    return table(at, {"kind", "start", "end", "slack", "travel"})


def dropped_table(at):
    """The static table of the places not on the plan (headers are words)."""
    found = [tb.value for tb in at.table if "Why it is not on the plan" in tb.value.columns]
    assert len(found) == 1
    return found[0]


def english(result: ItineraryResult) -> dict[str, str]:
    """Place key → the pack's English name (every place of the demo trips has one)."""
    pack = {p.id: p for p in load_region(result.request.region).places}
    return {p.key: pack[p.place_id].name_en for p in result.request.places}


def gantt_bars(at):
    """The Gantt chart's bar data (the dataset with label/kind/start/end)."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    charts = at.get("vega_lite_chart")
    assert len(charts) == 1, "expected exactly one timeline chart (only the selected day is drawn)"
    proto = charts[0].proto
    frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in proto.datasets]
    bars = [f for f in frames if {"label", "kind", "start", "end"} <= set(f.columns)]
    assert len(bars) == 1
    return json.loads(proto.spec), bars[0]


def map_component(at):
    """The day map's component element (its ``id`` is what the browser keeps the map's frame by)."""
    comps = [c for c in at.get("component_instance") if c.proto.component_name == "streamlit_folium.st_folium"]
    assert len(comps) == 1, "expected exactly one day map"
    return comps[0].proto


def map_args(at):
    return json.loads(map_component(at).json_args)


def text_of(at) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.success, *at.warning])


def open_raw_data(at) -> None:
    """The raw data section is drawn only once it is opened (issue 32): open it, as a person does."""
    at.session_state["it_details"] = True
    at.run()
    assert not at.exception, at.exception


def details_text(at) -> str:
    open_raw_data(at)
    [details] = [e for e in at.expander if e.label == "Raw data (for debugging)"]
    return "\n".join(str(e.value) for e in [*details.markdown, *details.caption])


def visits(result: ItineraryResult, day_index: int) -> list:
    """The day's visits (a visit split around a lunch on site counts once)."""
    return [e for e in result.days[day_index].entries if e.kind == "visit" and not e.continues_visit]


def check_timeline(frame, result: ItineraryResult, day_index: int) -> None:
    day = result.days[day_index]
    names = english(result)
    assert len(frame) == len(day.entries) > 0
    kinds = [e.kind for e in day.entries]
    assert {"visit", "travel"} <= set(kinds)
    words = {"visit": "Visit", "travel": "Travel", "lunch": "Lunch", "wait": "Wait"}
    assert list(frame["kind"]) == [words[k] for k in kinds]
    # visits are named in English from the pack; travel says where it goes
    for row, e in zip(frame.itertuples(index=False), day.entries, strict=True):
        if e.kind == "visit":
            assert row.name == names[e.key]
        if e.kind == "travel" and e.to_key in names:
            assert row.name.endswith("→ " + names[e.to_key])
    # In time order, one chain: each step starts where the previous one left off.
    starts = list(frame["start"])
    assert starts == sorted(starts)
    assert [e.arrival for e in day.entries][1:] == [e.departure for e in day.entries][:-1]
    assert all(e.arrival <= e.start <= e.end <= e.departure for e in day.entries)
    # Travel rows carry the planned and estimated minutes and the distance, from the offline estimate; no empty
    # number cell anywhere (a figure that does not apply is an empty text).
    for row, e in zip(frame.itertuples(index=False), day.entries, strict=True):
        if e.kind == "travel":
            assert e.robust_min >= e.nominal_min
            assert row.travel.startswith(f"{e.robust_min} min planned (estimate {e.nominal_min:.0f} min)")
            assert row.source == "straight-line estimate"
        else:
            assert row.travel == ""
    assert not frame.isna().any().any()
    if day.lunch_required:
        lunch = [e for e in day.entries if e.kind == "lunch"]
        assert len(lunch) == 1, "exactly one lunch"
        assert f"{lunch[0].start:%H:%M}" >= "11:30" and f"{lunch[0].end:%H:%M}" <= "13:30"


# --- demo trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("trip", TRIPS)
def test_demo_trip_optimises_and_renders(it_app, trip):
    at = load(it_app, trip)
    result = optimise(at)
    assert result.status == "ready"
    assert result.critic is not None and result.critic.passed

    # Day 1 is shown: the timeline table and the Gantt bars are that day's entries.
    assert at.radio(key="day_select").value == 0
    frame = timeline_table(at)
    check_timeline(frame, result, 0)
    spec, bars = gantt_bars(at)
    assert list(bars["kind"]) == [e.kind for e in result.days[0].entries]
    assert len(bars) == len(result.days[0].entries)
    # A visit split by a lunch on site shows as two labelled bars around the lunch bar.
    parts = [i for i, e in enumerate(result.days[0].entries) if e.part]
    assert [lbl[-5:] for lbl in bars["label"].iloc[parts]] == ["(1/2)", "(2/2)"] * (len(parts) // 2)
    if trip == "shanghai_family_day":  # relaxed pacing: the 150-min science museum becomes 180 min
        assert len(parts) == 2 and bars["kind"].iloc[parts[0] + 1] == "lunch"
    assert "Day 1" in json.dumps(spec, ensure_ascii=False)

    # The day map: local Leaflet only, no interaction sent back, hotel + one numbered pin per visit, sent as the
    # day's layers on a base map that holds no pin of its own (issue 32: the browser keeps the base).
    args = map_args(at)
    assert args["returned_objects"] == []
    assert args["js_links"] and all(u.startswith("/app/static/leaflet/") for u in args["js_links"])
    assert args["feature_group"].count("L.marker(") == len(visits(result, 0)) + 1
    assert "L.polyline(" in args["feature_group"]
    assert "L.marker(" not in args["script"] and "L.polyline(" not in args["script"]

    # Panels: the check's verdict, robustness, totals with sources; definitions, formulas and the decision log are
    # in the Details.
    text = text_of(at)
    assert f"**Independent check: passed ✓**, {len(result.critic.checks)} checks" in text
    assert f"**Robustness: {result.robustness.score:.2f}**" in text
    assert "Travel times from the straight-line estimate" in text
    details = details_text(at)
    assert result.robustness.definition in details
    assert "matrix_source=offline_estimate" in details and "robust_min = ceil(nominal_min" in details
    # ... and the same figures said in words in the Details above it (issue 32)
    [words] = [e for e in at.expander if e.label == "Details"]
    said = words.markdown[0].value
    p, r = result.policy, result.robustness
    assert f"Each journey is planned at {p.factor:g}× its usual time plus {p.buffer_min} min" in said
    assert f"{r.legs_fully_covered} of {r.legs} are" in said and "straight-line estimate" in said
    assert "matrix_source" not in said and "robust_min" not in said
    log = table(at, {"step", "action", "reason code", "facts"})
    assert len(log) == len(result.decision_log) and "MATRIX_BUILT" in set(log["reason code"])
    assert {m.label for m in at.metric} >= {"Visits", "Not on the plan", "Travel (planned)", "Travel (estimate)"}


def test_the_lunch_on_site_toggle_decides_whether_a_long_visit_is_split(it_app):
    at = load(it_app, "shanghai_family_day")
    assert at.toggle(key="lunch_on_site").value is True
    split = optimise(at)
    assert any(e.part for d in split.days for e in d.entries) and split.request.lunch.on_site
    at.toggle(key="lunch_on_site").set_value(False).run()
    whole = optimise(at)
    assert whole.request.lunch.on_site is False
    assert not any(e.part for d in whole.days for e in d.entries)
    assert whole.critic.passed and sum(1 for e in whole.days[0].entries if e.kind == "lunch") == 1


def test_per_day_hours_of_a_demo_trip_are_kept(it_app):
    at = load(it_app, "shanghai_2day_monday_museum")
    assert at.checkbox(key="per_day_hours").value is True
    assert at.time_input(key="day_end_1").value == time(18, 0)
    result = optimise(at)
    assert [f"{d.day_end:%H:%M}" for d in result.days] == ["22:00", "18:00"]
    # The museum closes on Mondays (day 1), so it is on day 2.
    assert "sh-shanghai-museum" in {e.key for e in visits(result, 1)}


def test_day_selector_switches_days(it_app):
    at = load(it_app, "shanghai_3day_30places")
    result = optimise(at)
    first = list(timeline_table(at)["name"])
    map_id = map_component(at).id
    at.radio(key="day_select").set_value(1).run()
    ok(at)
    second = timeline_table(at)
    check_timeline(second, result, 1)
    assert list(second["name"]) != first
    spec, bars = gantt_bars(at)
    assert "Day 2" in json.dumps(spec, ensure_ascii=False)
    assert list(bars["what"]) == list(second["kind"])  # the legend and the table say the same words
    assert map_args(at)["feature_group"].count("L.marker(") == len(visits(result, 1)) + 1
    assert map_component(at).id == map_id  # the same map (the browser keeps its frame), with day 2's layers


def test_dropped_items_table_has_reasons_and_fixes(it_app):
    at = load(it_app, "shanghai_family_day")
    result = optimise(at)
    frame = dropped_table(at)
    assert len(frame) == 4
    assert {d.reason_code for d in result.dropped_items} <= REASONS
    assert set(frame["Priority"]) == {"optional"}  # the glossary's word for the "nice" priority
    names = english(result)
    assert list(frame["Place"]) == [names[d.key] for d in result.dropped_items]
    # every place left out says why in a sentence and how to fit it in, worded from the fix's own figures
    for row, item in zip(frame.to_dict("records"), result.dropped_items, strict=True):
        assert row["Why it is not on the plan"] and item.reason_code not in row["Why it is not on the plan"]
        fix = item.smallest_fix
        assert fix is not None and f"day {fix.day_index + 1}" in row["How to fit it in"]
        new_time = fix.facts.get("new_end") or fix.facts.get("new_start")
        assert new_time is None or new_time in row["How to fit it in"]
    on_plan = {e.key for d in result.days for e in d.entries if e.kind == "visit"}
    assert not on_plan & {d.key for d in result.dropped_items}


# --- edits --------------------------------------------------------------------------------------


def apply_edit(at, key: str, action: str, day: int | None = None):
    at.selectbox(key="edit_stop").set_value(key).run()  # choosing a stop preselects its day
    ok(at)
    at.radio(key="edit_action").set_value(action).run()  # the day and time enable for lock / move
    ok(at)
    if day is not None:
        at.selectbox(key="edit_day").set_value(day)
    at.button(key="edit_apply").click().run()
    ok(at)
    return at.session_state["it_result"]


def test_remove_then_lock_edits(it_app):
    at = load(it_app, "shanghai_3day_30places")
    result = optimise(at)

    # Remove a 'should' stop of day 1: it leaves every timeline and is listed as removed.
    removed = next(e for e in visits(result, 0) if e.priority == "should")
    result = apply_edit(at, removed.key, "remove")
    names = english(result)
    assert removed.key not in {e.key for d in result.days for e in d.entries if e.kind == "visit"}
    assert names[removed.key] not in set(timeline_table(at)["name"])
    assert [d.reason_code for d in result.dropped_items if d.key == removed.key] == ["REMOVED_BY_USER"]
    drops = dropped_table(at)
    assert drops.loc[drops["Place"] == names[removed.key], "Why it is not on the plan"].tolist() == ["you removed it"]

    # Lock another day-1 stop to day 3: it is on day 3, marked locked; the removal still holds.
    locked = next(e for e in visits(result, 0) if e.priority in {"should", "nice"})
    result = apply_edit(at, locked.key, "lock", day=2)
    assert result.critic.passed
    assert locked.key in {e.key for e in visits(result, 2)}
    assert locked.key not in {e.key for e in visits(result, 0)}
    assert removed.key not in {e.key for d in result.days for e in d.entries if e.kind == "visit"}
    at.radio(key="day_select").set_value(2).run()
    ok(at)
    frame = timeline_table(at)
    row = frame[frame["name"] == names[locked.key]]
    assert len(row) == 1 and bool(row["locked"].iloc[0])

    edits = table(at, {"action", "place", "day", "start time"})
    assert list(edits["action"]) == ["Remove", "Lock to a day or time"]
    assert list(edits["place"]) == [names[removed.key], names[locked.key]]
    assert list(edits["day"]) == ["", "Day 3"]
    assert at.session_state["it_edits"] == [
        {"kind": "remove", "key": removed.key},
        {"kind": "lock", "key": locked.key, "day_index": 2},
    ]


# --- bad input ----------------------------------------------------------------------------------


def test_no_places_selected_shows_error(it_app):
    at = load(it_app, "shanghai_family_day")
    at.button(key="places_clear").click().run()
    assert not at.exception
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors == ["Tick at least one place (or load a demo trip)."], errors
    assert "it_result" not in at.session_state
    # The rest of the form is kept.
    assert at.selectbox(key="trip_hotel").value == "sh-pudong-shangri-la"
    assert at.time_input(key="day_start").value == time(9, 30)
    assert at.select_slider(key="pacing").value == "relaxed"


def test_end_before_start_shows_error_and_keeps_input(it_app):
    at = load(it_app, "shanghai_family_day")
    at.time_input(key="day_end").set_value(time(8, 0))
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors == ["Day end time: the day must end after it starts."], errors
    assert "it_result" not in at.session_state
    assert at.time_input(key="day_end").value == time(8, 0)
    assert at.time_input(key="day_start").value == time(9, 30)
    # Fixing the field is enough to plan.
    at.time_input(key="day_end").set_value(time(20, 0))
    result = optimise(at)
    assert result.totals.visits == 3


# --- downloads ----------------------------------------------------------------------------------


def test_json_and_ics_downloads(it_app, monkeypatch):
    from streamlit.runtime.media_file_manager import MediaFileManager

    deferred: dict[str, tuple[object, str | None]] = {}
    original = MediaFileManager.add_deferred

    def recording(self, callable_, mimetype, coordinates, file_name=None, **kwargs):
        file_id = original(self, callable_, mimetype, coordinates, file_name=file_name, **kwargs)
        deferred[file_id] = (callable_, file_name)
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", recording)
    at = load(it_app, "shanghai_family_day")
    result = optimise(at)
    buttons = {b.key: b for b in at.get("download_button")}
    assert {"it_dl_json", "it_dl_ics"} <= set(buttons)

    def content(key: str) -> tuple[bytes, str | None]:
        """What a click hands over: the file is made then (deferred), not stored as a media file on every run, which
        an edit's rerun could drop while the button was still on screen (a 404)."""
        proto = buttons[key].proto
        assert proto.deferred_file_id and not proto.url
        make, name = deferred[proto.deferred_file_id]
        data = make()
        return (data.encode("utf-8") if isinstance(data, str) else bytes(data)), name

    ics, ics_name = content("it_dl_ics")
    assert ics_name.endswith(".ics")
    text = ics.decode("utf-8")
    assert text.startswith("BEGIN:VCALENDAR")
    assert text.rstrip().endswith("END:VCALENDAR")
    expected = sum(1 for d in result.days for e in d.entries if e.kind in {"visit", "lunch"})
    assert text.count("BEGIN:VEVENT") == expected
    # the calendar is worded in the page's language: the places' English names, descriptions in English
    unfolded = text.replace("\r\n ", "")
    names = english(result)
    for e in (e for d in result.days for e in d.entries if e.kind == "visit"):
        assert f"SUMMARY:{names[e.key]}" in unfolded
    assert "X-WR-CALNAME:Pudong family day" in unfolded and "DESCRIPTION:Priority: must" in unfolded
    assert not re.search(r"[\u4e00-\u9fff]", unfolded)

    raw, json_name = content("it_dl_json")
    assert json_name.endswith(".json")
    again = ItineraryResult.model_validate_json(raw)
    assert again.totals == result.totals and again.dropped_items == result.dropped_items


# --- pure helpers (the place table cannot be driven through AppTest) ------------------------------------

CATALOG = [
    {
        "id": "a",
        "name_zh": "甲",
        "name_en": "Alpha Museum",
        "aliases": [],
        "district": "",
        "category": "museum",
        "tags": [],
        "opening_hours": "Tu-Su 09:00-17:00",
        "visit_minutes": 90,
        "lon": 121.4,
        "lat": 31.2,
    },
    {
        "id": "b",
        "name_zh": "乙",
        "name_en": "Beta Park",
        "aliases": ["B park"],
        "district": "",
        "category": "park",
        "tags": ["outdoor"],
        "opening_hours": None,
        "visit_minutes": None,
        "lon": 121.5,
        "lat": 31.2,
    },
    {
        "id": "h",
        "name_zh": "酒店",
        "name_en": "Hotel",
        "aliases": [],
        "district": "",
        "category": "hotel",
        "tags": [],
        "opening_hours": None,
        "visit_minutes": None,
        "lon": 121.45,
        "lat": 31.21,
    },
]


def test_place_table_edits_merge_into_the_selection():
    selection: dict = {}
    ids = state.view_ids(CATALOG, selection, "park")
    assert ids == ["b"]
    frame = frames.selection_frame(ids, CATALOG, selection, "en")
    assert list(frame.index) == ["b"] and not frame["include"].iloc[0]
    assert (frame["name"].iloc[0], frame["other name"].iloc[0], frame["category"].iloc[0]) == (
        "Beta Park",
        "乙",
        "park",
    )
    assert frame["opening hours"].iloc[0] == "always open"
    zh = frames.selection_frame(["a"], CATALOG, selection, "zh")
    assert (zh["name"].iloc[0], zh["other name"].iloc[0], zh["category"].iloc[0]) == ("甲", "Alpha Museum", "博物馆")
    assert zh["opening hours"].iloc[0] == "周二-周日 09:00-17:00"
    state.merge_editor_edits(selection, ids, CATALOG, {0: {"include": True, "priority": "must", "visit min": 40}})
    assert selection["b"] == {"include": True, "priority": "must", "visit_minutes": 40, "fixed_day": None, "meal": None}
    state.merge_editor_edits(selection, ids, CATALOG, {0: {"meal": "dinner"}})
    assert (
        selection["b"]["meal"] == "dinner"
        and frames.selection_frame(ids, CATALOG, selection, "zh")["meal"].iloc[0] == "dinner"
    )
    state.merge_editor_edits(selection, ids, CATALOG, {0: {"meal": "none"}})
    assert (
        selection["b"]["meal"] is None
        and frames.selection_frame(ids, CATALOG, selection, "en")["meal"].iloc[0] == "none"
    )
    # Included places come first in the unfiltered view, and survive a search that hides them.
    assert state.view_ids(CATALOG, selection) == ["b", "a", "h"]
    assert state.view_ids(CATALOG, selection, "museum") == ["a"]
    assert state.view_ids(CATALOG, selection, "博物馆") == ["a"]  # a category in words finds it in either language
    assert state.view_ids(CATALOG, selection, only_selected=True) == ["b"]
    assert state.included(selection) == ["b"]


def form_state(**over):
    state = {
        "trip_name": "t",
        "trip_start_date": __import__("datetime").date(2025, 6, 9),
        "trip_days": 2,
        "day_start": time(9, 0),
        "day_end": time(18, 0),
        "per_day_hours": False,
        "trip_hotel": "h",
        "lunch_enabled": True,
        "lunch_start": time(11, 30),
        "lunch_end": time(13, 30),
        "lunch_minutes": 60,
        "pacing": "normal",
        "trip_mode": "driving",
    }
    state.update(over)
    return state


def test_trip_request_builds_a_request_and_names_the_widget_of_each_bad_field():
    selection = {
        "a": {"include": True, "priority": "must", "visit_minutes": 90, "fixed_day": 2},
        "b": {"include": False, "priority": "nice", "visit_minutes": None, "fixed_day": None},
    }
    request = form.trip_request(form_state(), selection, CATALOG, "shanghai")
    assert [p.place_id for p in request.places] == ["a"]
    assert request.places[0].fixed_day == 1  # the table counts days from 1
    assert [str(d.date) for d in request.days] == ["2025-06-09", "2025-06-10"]

    # the form checks only what it alone knows; the request's own rules come from TripRequest, mapped to widgets
    cases = [
        ({}, {"a": {**selection["a"], "include": False}}, "places"),
        ({"day_end": time(8, 0)}, selection, "day_end"),
        ({"per_day_hours": True, "day_start_1": time(12, 0), "day_end_1": time(11, 0)}, selection, "day_end_1"),
        ({"lunch_end": time(12, 0)}, selection, "lunch_end"),
        ({"trip_days": 1}, selection, "places.a.fixed_day"),
    ]
    for over, sel, field in cases:
        with pytest.raises(InputError) as err:
            form.trip_request(form_state(**over), sel, CATALOG, "shanghai")
        assert err.value.field == field
    assert form.field_label("day_end_1") == "Day 2 end time"
    assert form.field_label("day_end_1", lang="zh") == "第 2 天结束时间"
    assert form.field_label("places.a.fixed_day", catalog=CATALOG) == "Place “Alpha Museum”, fixed day"
    assert form.field_label("places.a.fixed_day", catalog=CATALOG, lang="zh") == "地点“甲”的固定日期"
    assert form.error_section("day_end") == "days" and form.error_section("places") == "places"


def test_edit_from_form():
    assert form.edit_from_form("lock", "a", 1, None) == {"kind": "lock", "key": "a", "day_index": 1}
    assert form.edit_from_form("lock", "a", None, time(10, 15)) == {"kind": "lock", "key": "a", "start_time": "10:15"}
    assert form.edit_from_form("move", "a", 0, None) == {"kind": "move", "key": "a", "day_index": 0}
    assert form.edit_from_form("remove", "a", 2, time(9, 0)) == {"kind": "remove", "key": "a"}
    with pytest.raises(InputError):
        form.edit_from_form("move", "a", None, None)


# --- in the browser -------------------------------------------------------------------------------


@pytest.mark.browser
def test_itinerary_in_browser(streamlit_server):
    """The real app in headless Chromium (no request may leave the machine): load the family day,
    optimise, and see the Gantt chart, the day map's pins and the dropped-items table."""
    from playwright.sync_api import expect

    from tests.support.ui_flows import settle
    from tests.ui.test_browser import ARTIFACTS, offline_page

    with offline_page(streamlit_server, width=1500, height=1600) as run:
        page = run.page
        page.goto(f"{streamlit_server}/itinerary?lang=en")
        expect(page.locator(".st-key-region")).to_be_visible()  # app.py's frame is there
        expect(page.locator(".st-key-trip_load button")).to_be_visible()
        page.locator(".st-key-trip_demo input[role='combobox']").click()
        page.get_by_role("option", name="Pudong family day").first.click()
        expect(page.locator(".st-key-trip_demo input[role='combobox']")).to_have_value("Pudong family day")
        page.locator(".st-key-trip_load button").click()
        expect(page.get_by_text("Loaded demo trip")).to_be_visible()
        settle(page)  # until the run ends, the fragment's old Optimise button stands beside the new one
        page.locator(".st-key-optimise button").click()

        expect(page.locator(".st-key-timeline_box [data-testid='stVegaLiteChart']")).to_be_visible()
        day_map = page.frame_locator(".st-key-day_map_box iframe")
        expect(day_map.locator(".omni-pin").first).to_be_visible()
        # the hotel and 3 visits: drawn, or listed by the cluster that holds them at the fitted zoom
        shown = day_map.locator("body").evaluate(
            """() => [...document.querySelectorAll('.omni-pin')].map(e => e.textContent.trim()).concat(
                [...document.querySelectorAll('.omni-cluster')].flatMap(
                    e => e.title.match(/Places (.*): zoom in/)[1].split(', ')))"""
        )
        assert len(shown) == 4 and len(set(shown)) == 4, shown
        expect(page.locator(".st-key-dropped_box [data-testid='stTable']")).to_be_visible()
        page.get_by_text("Plan ready").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(ARTIFACTS / "itinerary.png"))

    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"


#: the pins the day map's frame shows, a cluster's disc counted as the pins it holds (the count it shows)
FRAME_PINS_JS = """() => [...document.querySelectorAll('.leaflet-marker-icon')].reduce((n, icon) => {
    const cluster = icon.querySelector('.omni-cluster');
    return n + (cluster ? parseInt(cluster.textContent, 10) : 1);
  }, 0)"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_edit_keeps_the_day_maps_frame_and_draws_the_edited_days_pins_in_it(streamlit_server, lang):
    """Issue 32: Apply (remove a stop) does not load a new map: the same iframe stays (Leaflet not loaded again) and
    takes in the plan's new pins: the hotel and one per visit of the day shown, as many as its day button says."""
    from playwright.sync_api import expect

    from core.i18n import t
    from tests.support.ui_flows import settle
    from tests.ui.test_browser import offline_page

    def day_one_visits(page) -> int:
        label = page.locator('.st-key-day_select [role="radiogroup"] label').first.inner_text()
        return int(re.findall(r"\d+", label)[-1])

    with offline_page(streamlit_server, width=1500, height=1600) as run:
        page = run.page
        page.goto(f"{streamlit_server}/itinerary?lang={lang}")
        page.locator(".st-key-trip_demo input[role='combobox']").click()
        page.get_by_role("option", name=t("itinerary.demo.shanghai_3day_30places", lang)).first.click()
        page.locator(".st-key-trip_load button").click()
        settle(page)
        page.locator(".st-key-optimise button").click()
        day_map = page.frame_locator(".st-key-day_map_box iframe")
        expect(day_map.locator(".omni-pin").first).to_be_visible()
        settle(page)
        before = day_one_visits(page)
        page.locator(".st-key-day_map_box iframe").evaluate("f => { f.dataset.kept = '1'; }")
        page.locator('.st-key-edit_action [role="radiogroup"] label').nth(2).click()  # remove
        settle(page)
        page.locator(".st-key-edit_apply button").click()
        expect(page.locator(".st-key-edits_table")).to_be_visible()
        settle(page)
        after = day_one_visits(page)
        assert page.locator(".st-key-day_map_box iframe[data-kept='1']").count() == 1  # the same frame
        frame = page.locator(".st-key-day_map_box iframe").element_handle().content_frame()
        frame.wait_for_function(f"() => ({FRAME_PINS_JS})() === {after + 1}")
        assert after <= before

    assert not run.errors, f"JavaScript errors: {run.errors}"
    assert not run.blocked, f"requests left the machine: {run.blocked}"


def test_opening_hours_are_shown_with_day_and_month_names_in_the_chosen_language():
    from components.itinerary.words import hours_words

    hours = 'Jun-Aug: Mo-Fr 10:00-18:00; Sa 11:00-15:00 open "on request"; PH off'
    assert hours_words(hours, "zh") == '6月-8月: 周一-周五 10:00-18:00; 周六 11:00-15:00 开放 "on request"; 节假日 休息'
    assert (
        hours_words(hours, "en")
        == 'Jun-Aug: Mon-Fri 10:00-18:00; Sat 11:00-15:00 open "on request"; public holidays closed'
    )
    assert hours_words("", "zh") == "全天开放" and hours_words("24/7", "en") == "always open"
