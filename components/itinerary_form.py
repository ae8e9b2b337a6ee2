"""The itinerary page's form: demo trips, the place table, days, lunch and pacing, the edit controls, and the
request they make. The form reads its widgets; TripRequest checks the rules, and FormErrors puts a failed
rule's message beside the widget it concerns (docs/ARCHITECTURE.md, "Pages")."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, time, timedelta
from typing import Any

import streamlit as st

from components.field_errors import FormErrors
from components.itinerary_frames import selection_frame
from components.itinerary_state import (
    EDITOR_COLUMNS,
    ERROR,
    LOADED_TRIP,
    MODE_LABELS,
    MODES,
    PACING_LABELS,
    PACINGS,
    SELECTION,
    VIEW,
    _on_editor_change,
    cached_demo_trips,
    catalog_index,
    clear_selection,
    hotels_of,
    included,
    int_or_none,
    load_demo_trip,
    parse_time,
    place_label,
    refresh_view,
)
from core.config import get_settings
from core.errors import InputError, OmniError
from core.models.common import PRIORITIES
from core.models.itinerary import MAX_TRIP_DAYS, TripRequest


def day_hours(state: Mapping[str, Any], n_days: int) -> list[tuple[time | None, time | None]]:
    """(start, end) of each day: the per-day inputs when switched on, else the general ones."""
    general = (parse_time(state.get("day_start")), parse_time(state.get("day_end")))
    if not state.get("per_day_hours"):
        return [general] * n_days
    return [
        (parse_time(state.get(f"day_start_{i}", general[0])), parse_time(state.get(f"day_end_{i}", general[1])))
        for i in range(n_days)
    ]


def trip_payload(
    state: Mapping[str, Any],
    selection: Mapping[str, Mapping[str, Any]],
    catalog: Sequence[Mapping[str, Any]],
    region: str,
) -> dict[str, Any]:
    """TripRequest fields from the form's session state and the place selection.

    Only what the form alone knows is checked here (nothing ticked, an empty date or time widget, no hotel);
    every rule of the request itself (day order, lunch window, fixed days within the trip) is TripRequest's,
    and ``trip_request`` maps its errors back to the widgets.
    """
    index = catalog_index(catalog)
    chosen = [pid for pid in included(selection) if pid in index]
    if not chosen:
        raise InputError(
            "no places selected: tick 'include' for at least one place (or load a demo trip)", field="places"
        )
    n_days = int_or_none(state.get("trip_days")) or 0
    start_date = state.get("trip_start_date")
    if not isinstance(start_date, date):
        raise InputError("choose the first day of the trip", field="trip_start_date")
    per_day = bool(state.get("per_day_hours"))
    days = []
    for i, (start, end) in enumerate(day_hours(state, n_days)):
        suffix = f"_{i}" if per_day else ""
        if start is None:
            raise InputError("set the time the day starts", field=f"day_start{suffix}")
        if end is None:
            raise InputError("set the time the day ends", field=f"day_end{suffix}")
        days.append(
            {
                "date": (start_date + timedelta(days=i)).isoformat(),
                "start_time": f"{start:%H:%M}",
                "end_time": f"{end:%H:%M}",
            }
        )
    hotel = state.get("trip_hotel")
    if not hotel or hotel not in index:
        raise InputError("choose where each day starts and ends", field="trip_hotel")
    lunch: dict[str, Any] = {"enabled": bool(state.get("lunch_enabled"))}
    if lunch["enabled"]:
        ls, le = parse_time(state.get("lunch_start")), parse_time(state.get("lunch_end"))
        if ls is None or le is None:
            raise InputError("set the lunch window", field="lunch_end")
        lunch.update(
            window_start=f"{ls:%H:%M}",
            window_end=f"{le:%H:%M}",
            duration_min=int_or_none(state.get("lunch_minutes")) or 0,
            on_site=bool(state.get("lunch_on_site", True)),
        )
    places = []
    for pid in chosen:
        entry = selection[pid]
        place: dict[str, Any] = {
            "place_id": pid,
            "name": index[pid]["name_zh"],
            "priority": entry.get("priority") or "should",
        }
        visit = int_or_none(entry.get("visit_minutes"))
        if visit:  # blank or the pack's 0 (hotels, stations): the planner's default applies
            place["visit_minutes"] = visit
        fixed = int_or_none(entry.get("fixed_day"))
        if fixed is not None:
            place["fixed_day"] = fixed - 1  # the table counts days from 1
        places.append(place)
    return {
        "trip_name": (str(state.get("trip_name") or "").strip() or "trip"),
        "region": region,
        "hotel": {"place_id": hotel},
        "days": days,
        "lunch": lunch,
        "pacing": state.get("pacing") or "normal",
        "mode": state.get("trip_mode") or "driving",
        "places": places,
    }


def widget_of(field: str | None, *, payload: Mapping[str, Any] | None, per_day: bool) -> str | None:
    """The widget a TripRequest error location belongs to: ``days.1.end_time`` → ``day_end_1`` (per-day hours)
    or ``day_end``; ``days`` → ``trip_days``; ``lunch.*`` → ``lunch_end``; ``places.3.fixed_day`` →
    ``places.<place id>.fixed_day`` (the table row)."""
    if not field:
        return None
    parts = field.split(".")
    if parts[0] == "days":
        if len(parts) > 2 and parts[1].isdigit():
            which = "start" if parts[2].startswith("start") else "end"
            return f"day_{which}_{parts[1]}" if per_day else f"day_{which}"
        return "trip_days"
    if parts[0] == "lunch":
        return "lunch_end"
    if parts[0] == "hotel":
        return "trip_hotel"
    if parts[0] == "places" and len(parts) > 1 and parts[1].isdigit() and payload is not None:
        i = int(parts[1])
        rows = payload.get("places", [])
        if i < len(rows) and rows[i].get("place_id"):
            return ".".join(["places", rows[i]["place_id"], *parts[2:]])
    return field


def trip_request(
    state: Mapping[str, Any],
    selection: Mapping[str, Mapping[str, Any]],
    catalog: Sequence[Mapping[str, Any]],
    region: str,
) -> TripRequest:
    """The validated TripRequest of the form; an error names the widget it concerns (``InputError.field``)."""
    from pydantic import ValidationError

    from core.errors import error_from_validation

    payload = trip_payload(state, selection, catalog, region)
    try:
        return TripRequest.model_validate(payload)
    except ValidationError as exc:
        error = error_from_validation(exc)
        field = widget_of(error.field, payload=payload, per_day=bool(state.get("per_day_hours")))
        raise InputError(error.message, field=field) from None


FIELD_LABELS = {
    "places": "Places 地点",
    "trip_days": "Number of days 天数",
    "trip_start_date": "Start date 开始日期",
    "day_start": "Day start time 每日开始",
    "day_end": "Day end time 每日结束",
    "trip_hotel": "Hotel 酒店",
    "hotel": "Hotel 酒店",
    "lunch_end": "Lunch window 午餐时段",
    "lunch": "Lunch 午餐",
    "pacing": "Pacing 节奏",
    "mode": "Travel mode 出行方式",
    "trip_name": "Trip name",
    "days": "Days 日期",
    "edit": "Edit 调整",
}


def field_label(
    field: str | None, payload: Mapping[str, Any] | None = None, catalog: Sequence[Mapping[str, Any]] | None = None
) -> str:
    """A human name for an error's field: ``day_end_1`` → ``Day 2 end time``, ``places.3.visit_minutes`` →
    ``Place '外滩' visit_minutes``."""
    if not field:
        return "Input"
    if field in FIELD_LABELS:
        return FIELD_LABELS[field]
    m = re.fullmatch(r"day_(start|end)_(\d+)", field)
    if m:
        return f"Day {int(m.group(2)) + 1} {m.group(1)} time"
    parts = field.split(".")
    if parts[0] == "days" and len(parts) > 1 and parts[1].isdigit():
        return f"Day {int(parts[1]) + 1} hours" + (f" ({parts[2]})" if len(parts) > 2 else "")
    if parts[0] == "lunch":
        return FIELD_LABELS["lunch_end"]
    if parts[0] == "places" and len(parts) > 1:
        pid = parts[1]
        if pid.isdigit() and payload is not None and int(pid) < len(payload.get("places", [])):
            pid = payload["places"][int(pid)].get("place_id") or pid
        name = pid
        if catalog is not None:
            name = catalog_index(catalog).get(pid, {}).get("name_zh", pid)
        rest = " ".join(p.replace("_", " ") for p in parts[2:])
        return f"Place '{name}'" + (f" {rest}" if rest else "")
    if parts[0].startswith("edit"):
        return FIELD_LABELS["edit"]
    return field


def error_section(field: str | None) -> str:
    """Where the message goes: places, days, lunch, edit or plan."""
    head = (field or "").split(".")[0]
    if head == "places":
        return "places"
    if head in {"trip_days", "trip_start_date", "days", "trip_hotel", "hotel"} or head.startswith("day_"):
        return "days"
    if head.startswith("lunch"):
        return "lunch"
    if head.startswith("edit"):
        return "edit"
    return "plan"


#: The form's last error, shown beside the section it concerns.
ERRORS = FormErrors(state_key=ERROR, label=lambda field: field_label(field), section=lambda field: error_section(field))


def show_error(section: str) -> None:
    ERRORS.show(section)


def edit_from_form(action: str, key: str, day_index: Any, start_time: time | None) -> dict[str, Any]:
    """A UserEdit dict from the edit controls (validated by core when re-optimising)."""
    if not key:
        raise InputError("choose a stop to change", field="edit_stop")
    day = int_or_none(day_index)
    if action == "lock":
        if day is None and start_time is None:
            raise InputError("a lock needs a day or a start time", field="edit_day")
        edit: dict[str, Any] = {"kind": "lock", "key": key}
        if day is not None:
            edit["day_index"] = day
        if start_time is not None:
            edit["start_time"] = f"{start_time:%H:%M}"
        return edit
    if action == "move":
        if day is None:
            raise InputError("choose the day to move the stop to", field="edit_day")
        return {"kind": "move", "key": key, "day_index": day}
    if action == "remove":
        return {"kind": "remove", "key": key}
    if action == "unlock":
        return {"kind": "unlock", "key": key}
    raise InputError(f"unknown action '{action}'", field="edit_action")


def render_demo_picker() -> None:
    trips = cached_demo_trips()
    if not trips:
        st.caption("No demo trips in data/trips.")
        return
    ids = list(trips)
    if st.session_state.get("trip_demo") not in ids:
        st.session_state["trip_demo"] = ids[0]
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    c1.selectbox(
        "Demo trip 示例行程", ids, key="trip_demo", format_func=lambda i: f"{trips[i].get('trip_name', i)} ({i})"
    )
    c2.button("Load", key="trip_load", on_click=load_demo_trip, width="stretch", icon=":material/download:")
    loaded = st.session_state.get(LOADED_TRIP)
    if loaded in trips:
        st.caption(f"Loaded demo trip **{trips[loaded].get('trip_name', loaded)}** — change anything, then optimise.")


def render_place_picker(catalog: Sequence[Mapping[str, Any]]) -> None:
    """Search box + the editable place table (include, priority, visit minutes, fixed day)."""
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    c1.text_input(
        "Search the region's places 搜索地点",
        key="place_search",
        on_change=refresh_view,
        placeholder="name, 中文名, category (museum, park…), district or tag",
    )
    c2.toggle("Only selected 仅已选", key="places_only_selected", on_change=refresh_view)
    c3.button("Clear selection", key="places_clear", on_click=clear_selection, width="stretch")
    if VIEW not in st.session_state:
        refresh_view()
    ids = [pid for pid in st.session_state[VIEW] if pid in catalog_index(catalog)]
    selection = st.session_state[SELECTION]
    frame = selection_frame(ids, catalog, selection)
    st.data_editor(
        frame,
        key="places_editor",
        on_change=_on_editor_change,
        num_rows="fixed",
        hide_index=True,
        width="stretch",
        height=320,
        column_order=EDITOR_COLUMNS,
        disabled=["name", "category", "opening hours"],
        column_config={
            "include": st.column_config.CheckboxColumn("include 选择", width="small"),
            "name": st.column_config.TextColumn("name 名称", width="medium"),
            "category": st.column_config.TextColumn("category", width="small"),
            "opening hours": st.column_config.TextColumn(
                "opening hours", help="From the region pack (OSM syntax); blank = always open"
            ),
            "visit min": st.column_config.NumberColumn(
                "visit min", min_value=1, max_value=720, step=5, help="Visit length; default from the region pack"
            ),
            "priority": st.column_config.SelectboxColumn(
                "priority",
                options=list(PRIORITIES),
                required=True,
                help="must: always kept (or reported infeasible); should / nice: dropped first when time is short",
            ),
            "fixed day": st.column_config.NumberColumn(
                "fixed day",
                min_value=1,
                max_value=MAX_TRIP_DAYS,
                step=1,
                help="Optional: the day (1, 2, …) it must go on",
            ),
        },
    )
    chosen = included(selection)
    counts = {p: sum(1 for pid in chosen if selection[pid].get("priority") == p) for p in PRIORITIES}
    shown = f"{len(ids)} of {len(catalog)} places shown"
    st.caption(
        f"**{len(chosen)} selected** (must {counts['must']} · should {counts['should']} · nice {counts['nice']})"
        f" · {shown}"
        " · places and opening hours from the offline region pack"
    )
    show_error("places")


def render_day_inputs(catalog: Sequence[Mapping[str, Any]]) -> None:
    index = catalog_index(catalog)
    hotels = hotels_of(catalog)
    current = st.session_state.get("trip_hotel")
    if current and current in index and current not in hotels:
        hotels = [current, *hotels]
    if current not in hotels and hotels:
        st.session_state["trip_hotel"] = hotels[0]
    c1, c2, c3, c4, c5 = st.columns([2, 1, 1, 1, 3])
    c1.date_input("Start date 开始日期", key="trip_start_date")
    c2.number_input("Days 天数", key="trip_days", min_value=1, max_value=MAX_TRIP_DAYS, step=1)
    per_day = bool(st.session_state.get("per_day_hours"))
    c3.time_input("Day starts 出发", key="day_start", step=timedelta(minutes=15), disabled=per_day)
    c4.time_input("Day ends 结束", key="day_end", step=timedelta(minutes=15), disabled=per_day)
    c5.selectbox(
        "Hotel (start & end of each day) 酒店",
        hotels,
        key="trip_hotel",
        format_func=lambda pid: place_label(index[pid]) if pid in index else pid,
    )
    st.checkbox("Different hours per day 每天不同时间", key="per_day_hours")
    if st.session_state.get("per_day_hours"):
        n = int(st.session_state.get("trip_days") or 1)
        start_date = st.session_state.get("trip_start_date")
        cols = st.columns(min(n, 4))
        for i in range(n):
            st.session_state.setdefault(f"day_start_{i}", st.session_state.get("day_start"))
            st.session_state.setdefault(f"day_end_{i}", st.session_state.get("day_end"))
            label = f"Day {i + 1}"
            if isinstance(start_date, date):
                label += f" · {start_date + timedelta(days=i):%a %m-%d}"
            with cols[i % len(cols)]:
                st.caption(label)
                a, b = st.columns(2)
                a.time_input("starts", key=f"day_start_{i}", step=timedelta(minutes=15))
                b.time_input("ends", key=f"day_end_{i}", step=timedelta(minutes=15))
    show_error("days")


def render_lunch_and_pacing() -> None:
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1], vertical_alignment="bottom")
    c1.toggle("Lunch break 午餐", key="lunch_enabled")
    on = bool(st.session_state.get("lunch_enabled"))
    c2.time_input("Lunch window from", key="lunch_start", step=timedelta(minutes=15), disabled=not on)
    c3.time_input("Lunch window to", key="lunch_end", step=timedelta(minutes=15), disabled=not on)
    c4.number_input("Lunch minutes", key="lunch_minutes", min_value=10, max_value=180, step=5, disabled=not on)
    long_visit = get_settings().itinerary_lunch_on_site_min_visit_min
    st.toggle(
        f"Lunch inside long visits (≥ {long_visit} min) 长时游览内用餐",
        key="lunch_on_site",
        disabled=not on or not long_visit,
        help="A long visit (a theme park, a big museum) may be split around the lunch, taken on site.",
    )
    show_error("lunch")
    c5, c6 = st.columns([3, 2])
    c5.select_slider(
        "Pacing 节奏",
        options=list(PACINGS),
        key="pacing",
        format_func=PACING_LABELS.get,
        help="relaxed: longer visits and more travel buffer; tight: shorter visits, less buffer",
    )
    c6.selectbox("Travel mode 出行方式", list(MODES), key="trip_mode", format_func=MODE_LABELS.get)
    policy_caption(st.session_state.get("trip_mode") or "driving", st.session_state.get("pacing") or "normal")


def policy_caption(mode: str, pacing: str) -> None:
    """What the pacing means in numbers (from the settings)."""
    from core.itinerary.travel import robustness_policy_for

    try:
        p = robustness_policy_for(mode, pacing, settings=get_settings())
    except (OmniError, ValueError, KeyError, TypeError):
        return
    st.caption(
        f"{pacing} pacing: travel planned as ceil(nominal × {p.factor:g} + {p.buffer_min} min), "
        f"visits × {p.visit_factor:g} (source: {p.source})"
    )
