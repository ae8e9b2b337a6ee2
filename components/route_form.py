"""The route planner's form: its inputs, the request they make, and whether a result is stale.

Pure helpers (``request_payload``, ``changed_fields``, ``field_label``) have no Streamlit calls and are
unit-testable; the ``render_*`` functions draw widgets. Every widget carries a ``key=`` (tests drive them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from components.field_errors import FormErrors
from components.frame import ACTIVE_PROVIDER, cached_region_info
from components.stops_table import (
    STOP_COLUMNS,
    clean,
    empty_stops_frame,
    parse_pasted_stops,
    renumbered,
    stops_frame,
    stops_from_frame,
)
from core.config import get_settings
from core.errors import OmniError
from core.models.route import STRATEGIES, RoutePlanRequest, RoutePlanResult

ORIGIN_MODES = ("fixed", "current_location")
TRANSPORT_MODES = ("driving", "walking", "cycling")
DEEP_LINK_MODES = ("auto", "route_plan", "personal_map")
ORIGIN_MODE_LABELS = {"fixed": "Fixed start 固定起点", "current_location": "My current location 我的位置"}
STRATEGY_LABELS = {
    "shortest_distance": "Shortest distance 里程最短",
    "fastest_time": "Fastest time 时间最短",
    "balanced": "Balanced 折中",
}
TRANSPORT_LABELS = {"driving": "Driving 驾车", "walking": "Walking 步行", "cycling": "Cycling 骑行"}

# Session-state keys of the page.
RESULT = "route_result"
REQUEST = "route_request"
ERROR = "route_error"
STOPS_BASE = "stops_df"  # the table handed to st.data_editor
STOPS_CURRENT = "stops_current"  # the table as last edited (base + the editor's edits)


@st.cache_data(show_spinner=False)
def cached_scenarios(region: str | None) -> list[Any]:
    from core.route.scenarios import list_scenarios

    return list(list_scenarios(region))


def request_payload(state: Mapping[str, Any], stops_table: pd.DataFrame | None) -> dict[str, Any]:
    """The RoutePlanRequest fields from the form's session state and the stops table."""
    mode = state.get("origin_mode") or "fixed"
    payload: dict[str, Any] = {
        "origin_mode": mode,
        "destination_name": clean(state.get("destination_name")),
        "destination_address": clean(state.get("destination_address")),
        "destination_city": clean(state.get("destination_city")),
        "stops": stops_from_frame(stops_table),
        "route_strategy": state.get("route_strategy") or "shortest_distance",
        "transport_mode": state.get("transport_mode") or "driving",
        "deep_link_mode": state.get("deep_link_mode") or "auto",
        "max_permutations": int(state.get("max_permutations") or 24),
        "round_trip": bool(state.get("round_trip")) and mode == "fixed",
        "exact_legs": bool(state.get("exact_legs")),
        "need_deep_link": True,
    }
    if mode == "fixed":
        payload["origin_name"] = clean(state.get("origin_name"))
        payload["origin_address"] = clean(state.get("origin_address"))
        payload["origin_city"] = clean(state.get("origin_city"))
    else:
        lon, lat = state.get("origin_lon"), state.get("origin_lat")
        payload["origin_lon"] = float(lon) if lon is not None else None
        payload["origin_lat"] = float(lat) if lat is not None else None
    return payload


def changed_fields(
    state: Mapping[str, Any], stops_table: pd.DataFrame | None, planned: RoutePlanRequest | None
) -> list[str]:
    """Which inputs differ from the request that produced the result on screen (labels, form order).

    ``["Input"]`` when the form no longer makes a valid request; ``[]`` when nothing changed.
    """
    if planned is None:
        return []
    try:
        current = RoutePlanRequest.model_validate(request_payload(state, stops_table))
    except (ValueError, OmniError):  # pydantic's ValidationError is a ValueError
        return ["Input"]
    labels: list[str] = []
    for name in RoutePlanRequest.model_fields:
        if getattr(current, name) != getattr(planned, name):
            head = name.split("_")[0]
            label = {"origin": "Start", "destination": "Destination"}.get(head) or field_label(name)
            if label not in labels:
                labels.append(label)
    return labels


def stale_message(state: Mapping[str, Any], stops_table: pd.DataFrame | None, result: RoutePlanResult) -> str | None:
    """A notice when the result on screen no longer matches the form (or the sidebar), else None."""
    changed = changed_fields(state, stops_table, state.get(REQUEST))
    region = state.get("region")
    if region and result.region and region != result.region:
        changed.append("Region")
    active = state.get(ACTIVE_PROVIDER)
    if active and result.provider and active != result.provider:
        changed.append("Provider")
    if not changed:
        return None
    what = "the inputs" if changed == ["Input"] else ", ".join(changed)
    return (
        f"Changed since this plan: {what}. The result below is for the previous inputs "
        f"(strategy {result.route_strategy}, {len(result.resolved_stops)} stops) "
        "— press Plan route to update it."
    )


def field_label(field: str | None, stops: list[dict[str, Any]] | None = None) -> str:
    """A human name for an error's field: ``stops.2`` → ``Stop 3 ('name')``."""
    if not field:
        return "Input"
    parts = field.split(".")
    if parts[0] == "stops" and len(parts) > 1 and parts[1].isdigit():
        i = int(parts[1])
        label = f"Stop {i + 1}"
        if stops and 0 <= i < len(stops):
            name = stops[i].get("name") or stops[i].get("address")
            if name:
                label += f" ('{name}')"
        if len(parts) > 2:
            label += f" {parts[2]}"
        return label
    names = {
        "stops": "Stops",
        "origin_address": "Origin address",
        "origin_name": "Origin name",
        "origin_lon": "Start longitude",
        "origin_lat": "Start latitude",
        "origin": "Origin",
        "destination_address": "Destination address",
        "destination_name": "Destination name",
        "destination": "Destination",
        "round_trip": "Round trip",
        "exact_legs": "Exact legs",
        "max_permutations": "Max permutations",
        "route_strategy": "Strategy",
        "transport_mode": "Travel mode",
        "deep_link_mode": "Deep link mode",
        "provider": "Provider",
    }
    return names.get(field, field)


def error_section(field: str | None) -> str:
    """Which part of the form an error belongs to: origin, destination, stops or options."""
    if not field:
        return "plan"
    head = field.split(".")[0]
    if head.startswith("origin") or head == "round_trip":
        return "origin"
    if head.startswith("destination"):
        return "destination"
    if head == "stops":
        return "stops"
    return "options"


#: The form's last plan error, shown beside the section it concerns (fields are the request's own names).
ERRORS = FormErrors(state_key=ERROR, label=field_label, section=error_section)


def init_form_state() -> None:
    defaults = {
        "origin_mode": "fixed",
        "origin_name": "",
        "origin_address": "",
        "origin_city": "",
        "origin_lon": None,
        "origin_lat": None,
        "destination_name": "",
        "destination_address": "",
        "destination_city": "",
        "round_trip": False,
        "paste_stops": "",
        "route_strategy": "shortest_distance",
        "transport_mode": "driving",
        "deep_link_mode": "auto",
        "max_permutations": 24,
        "exact_legs": False,
    }
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)
    if STOPS_BASE not in st.session_state:
        st.session_state[STOPS_BASE] = empty_stops_frame()


def _reset_stops(frame: pd.DataFrame) -> None:
    st.session_state[STOPS_BASE] = frame
    st.session_state[STOPS_CURRENT] = frame
    st.session_state.pop("stops_editor", None)


def load_scenario_into_form() -> None:
    """on_click of "Load scenario": copy the scenario's request into the form's widgets."""
    region = st.session_state.get("region")
    wanted = st.session_state.get("scenario")
    scenario = next((s for s in cached_scenarios(region) if s.id == wanted), None)
    if scenario is None:
        return
    req: RoutePlanRequest = scenario.request
    st.session_state.update(
        {
            "origin_mode": req.origin_mode,
            "origin_name": (req.origin_name or "") if req.origin_mode == "fixed" else "",
            "origin_address": (req.origin_address or "") if req.origin_mode == "fixed" else "",
            "origin_city": req.origin_city or "",
            "origin_lon": req.origin_lon,
            "origin_lat": req.origin_lat,
            "destination_name": req.destination_name or "",
            "destination_address": req.destination_address or "",
            "destination_city": req.destination_city or "",
            "round_trip": bool(req.round_trip),
            "route_strategy": req.route_strategy,
            "transport_mode": req.transport_mode,
            "deep_link_mode": req.deep_link_mode,
            "max_permutations": int(req.max_permutations),
            "exact_legs": bool(req.exact_legs),
            "loaded_scenario": scenario.id,
        }
    )
    if req.round_trip and req.origin_mode == "fixed" and clean(req.destination_address) == clean(req.origin_address):
        # The round-trip destination is the origin: leave the fields blank (filled at validation).
        st.session_state["destination_name"] = ""
        st.session_state["destination_address"] = ""
    _reset_stops(stops_frame(req.stops))
    for key in (RESULT, REQUEST, ERROR):
        st.session_state.pop(key, None)


def apply_pasted_stops() -> None:
    """on_click of "Add pasted stops": append the pasted lines to the table (keeping edits)."""
    pasted = parse_pasted_stops(st.session_state.get("paste_stops", ""))
    if not pasted:
        st.session_state["paste_feedback"] = "Nothing to add: paste one stop a line."
        return
    current = stops_from_frame(st.session_state.get(STOPS_CURRENT, st.session_state.get(STOPS_BASE)))
    _reset_stops(stops_frame(current + pasted))
    st.session_state["paste_stops"] = ""
    st.session_state["paste_feedback"] = f"Added {len(pasted)} stop(s)."


def sort_stops() -> None:
    """on_click of "Sort by order": apply the ``order`` column and renumber 1..n."""
    _reset_stops(renumbered(st.session_state.get(STOPS_CURRENT, st.session_state.get(STOPS_BASE))))


def clear_stops() -> None:
    _reset_stops(empty_stops_frame())


def show_field_error(section: str) -> None:
    """Show the last plan error next to the part of the form it concerns."""
    ERRORS.show(section)


def _set_location_from_pick() -> None:
    value = st.session_state.get("origin_pick_map") or {}
    clicked = value.get("last_clicked") if isinstance(value, dict) else None
    if clicked:
        from components.basemap import from_display

        datum = st.session_state.get("origin_pick_map_datum", "WGS84")  # GCJ-02 when drawn over AMap's tiles
        lon, lat = from_display(float(clicked["lng"]), float(clicked["lat"]), datum)
        st.session_state["origin_lon"] = round(lon, 6)
        st.session_state["origin_lat"] = round(lat, 6)


def _render_geolocation() -> None:
    """Browser position via streamlit_js_eval, only after the user asks for it."""
    if st.button("Use my browser location", key="use_browser_location", icon=":material/my_location:"):
        st.session_state["geo_requested"] = True
    if not st.session_state.get("geo_requested"):
        return
    from streamlit_js_eval import get_geolocation

    loc = get_geolocation(component_key="browser_geolocation")
    if loc is None:
        st.caption("Waiting for the browser… allow location access when it asks.")
        return
    st.session_state["geo_requested"] = False
    if isinstance(loc, dict) and "coords" in loc:
        st.session_state["origin_lon"] = round(float(loc["coords"]["longitude"]), 6)
        st.session_state["origin_lat"] = round(float(loc["coords"]["latitude"]), 6)
        st.rerun()
    err = (loc or {}).get("error", {}) if isinstance(loc, dict) else {}
    st.warning(
        f"The browser gave no position ({err.get('message', 'permission denied or unavailable')}). "
        "Type the coordinates or click on the map instead."
    )


def render_origin_inputs() -> None:
    st.radio(
        "Start 起点",
        ORIGIN_MODES,
        key="origin_mode",
        format_func=ORIGIN_MODE_LABELS.get,
        horizontal=True,
    )
    if st.session_state["origin_mode"] == "fixed":
        c1, c2, c3 = st.columns([2, 3, 1])
        c1.text_input("Origin name 起点名称", key="origin_name", placeholder="e.g. 人民广场")
        c2.text_input("Origin address 起点地址", key="origin_address", placeholder="e.g. 黄浦区人民大道")
        c3.text_input("City 城市", key="origin_city")
        st.checkbox("Round trip (return to the start) 往返", key="round_trip")
    else:
        st.caption(
            "Start from where you are. Without coordinates only the stops → destination part is compared "
            "(the true best order depends on your position)."
        )
        _render_geolocation()
        c1, c2 = st.columns(2)
        c1.number_input(
            "Start longitude 经度 (WGS-84)",
            key="origin_lon",
            value=None,
            min_value=-180.0,
            max_value=180.0,
            format="%.6f",
            step=0.001,
        )
        c2.number_input(
            "Start latitude 纬度 (WGS-84)",
            key="origin_lat",
            value=None,
            min_value=-90.0,
            max_value=90.0,
            format="%.6f",
            step=0.001,
        )
        if st.toggle("Pick the start on a map 在地图上选择起点", key="origin_pick_toggle"):
            from components.maps import render_pick_map

            region = st.session_state.get("region") or get_settings().region
            try:
                centre = cached_region_info(region)["center"]
            except (OmniError, ValueError, OSError):
                centre = (121.4737, 31.2304)  # central Shanghai
            lon, lat = st.session_state.get("origin_lon"), st.session_state.get("origin_lat")
            picked = (lon, lat) if lon is not None and lat is not None else None
            render_pick_map(
                centre,
                picked,
                on_change=_set_location_from_pick,
                region=region,
                provider=st.session_state.get("active_provider"),
            )
    show_field_error("origin")


def render_destination_inputs() -> None:
    c1, c2, c3 = st.columns([2, 3, 1])
    c1.text_input("Destination name 终点名称", key="destination_name")
    c2.text_input(
        "Destination address 终点地址",
        key="destination_address",
        placeholder="blank on a round trip = back to the start",
    )
    c3.text_input("City 城市", key="destination_city")
    show_field_error("destination")


def render_stops_inputs() -> pd.DataFrame:
    """The editable stops table plus a paste box; returns the table as edited now."""
    edited = st.data_editor(
        st.session_state[STOPS_BASE],
        key="stops_editor",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_order=STOP_COLUMNS,
        column_config={
            "order": st.column_config.NumberColumn(
                "order", help="Row order (sort with the button)", min_value=1, step=1, width="small"
            ),
            "name": st.column_config.TextColumn("name 名称"),
            "address": st.column_config.TextColumn("address 地址", width="large"),
            "city": st.column_config.TextColumn("city 城市", width="small"),
            "contact": st.column_config.TextColumn("contact 联系人"),
        },
    )
    st.session_state[STOPS_CURRENT] = edited
    b1, b2, _ = st.columns([1, 1, 3])
    b1.button("Sort by order", key="stops_sort", on_click=sort_stops, help="Reorder rows by the order column")
    b2.button("Clear stops", key="stops_clear", on_click=clear_stops)
    with st.expander("Paste many stops 批量粘贴", expanded=False):
        st.text_area(
            "One stop a line: `name | address` or just an address",
            key="paste_stops",
            height=120,
            placeholder="外滩 | 上海市黄浦区中山东一路\n上海博物馆\n",
        )
        st.button("Add pasted stops", key="paste_apply", on_click=apply_pasted_stops)
        feedback = st.session_state.pop("paste_feedback", None)
        if feedback:
            st.caption(feedback)
    show_field_error("stops")
    return edited


def render_options() -> None:
    c1, c2, c3, c4 = st.columns(4)
    c1.selectbox("Strategy 策略", STRATEGIES, key="route_strategy", format_func=STRATEGY_LABELS.get)
    c2.selectbox("Travel mode 出行方式", TRANSPORT_MODES, key="transport_mode", format_func=TRANSPORT_LABELS.get)
    c3.selectbox(
        "Deep link mode",
        DEEP_LINK_MODES,
        key="deep_link_mode",
        help="auto / route_plan: AMap route links; personal_map: import the points (needs POI ids)",
    )
    c4.number_input(
        "Max permutations",
        key="max_permutations",
        min_value=1,
        max_value=40320,
        step=1,
        help="Cap on enumerated stop orders; beyond it the optimiser searches instead",
    )
    st.checkbox(
        "Exact legs 逐段精确路程",
        key="exact_legs",
        help="Measure each leg of the best route with the travel service's directions (one call per leg); "
        "the order search still uses the matrix.",
    )
    show_field_error("options")


def render_scenario_picker() -> None:
    region = st.session_state.get("region") or get_settings().region
    scenarios = cached_scenarios(region)
    if not scenarios:
        st.caption("No demo scenarios for this region.")
        return
    ids = [s.id for s in scenarios]
    titles = {s.id: f"{s.title.get('zh', s.id)} · {s.title.get('en', '')}".strip(" ·") for s in scenarios}
    wanted = st.query_params.get("scenario")  # /route_planner?scenario=<id> preselects a demo
    if wanted in ids and st.session_state.get("_scenario_from_url") != wanted:
        st.session_state["_scenario_from_url"] = wanted
        st.session_state["scenario"] = wanted
    if st.session_state.get("scenario") not in ids:
        st.session_state["scenario"] = ids[0]
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    c1.selectbox("Demo scenario 示例场景", ids, key="scenario", format_func=lambda i: titles.get(i, i))
    c2.button("Load scenario", key="load_scenario", on_click=load_scenario_into_form, width="stretch")
    chosen = next((s for s in scenarios if s.id == st.session_state["scenario"]), None)
    if chosen is not None and chosen.description:
        st.caption(chosen.description)
    loaded = st.session_state.get("loaded_scenario")
    if loaded:
        with st.container(key="scenario_loaded"):
            st.caption(f"Loaded demo scenario **{titles.get(loaded, loaded)}** — edit anything below, then plan.")
