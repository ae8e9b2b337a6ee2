"""The route planner's form: its inputs, the request they make, and whether a result is stale.

Pure helpers (``request_payload``, ``changed_fields``, ``stale_message``) have no Streamlit calls and are
unit-testable; a field's name and a plan error in words are in components/route/errors.py. The ``render_*``
functions draw widgets; every widget carries a ``key=`` (tests drive them). Words come from the route catalog
(locales/*/LC_MESSAGES/route.po) in the session's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from components import choices as C
from components.frame import ACTIVE_PROVIDER, cached_region_info
from components.language import current_lang, t
from components.route.choices import ROUTE
from components.route.errors import ERROR, ERRORS, error_section, field_label
from components.route.places import PENDING_PLACES, PLACES, apply_pending_places, chosen_poi_id, fill_place
from components.services import settings
from components.session import StateView
from components.stops_table import (
    STOP_COLUMNS,
    clean,
    empty_stops_frame,
    parse_pasted_stops,
    renumbered,
    stops_frame,
    stops_from_frame,
)
from core.app.route import stops_words
from core.errors import OmniError
from core.i18n import Lang
from core.models.route import STRATEGIES, RoutePlanRequest, RoutePlanResult
from core.models.route_views import Scenario

ORIGIN_MODES = ("fixed", "current_location")
TRANSPORT_MODES = ("driving", "walking", "cycling")
DEEP_LINK_MODES = ("auto", "route_plan", "personal_map")
# The options' words (catalog keys, route.po); the options themselves stay codes.
ORIGIN_MODE_LABELS = {"fixed": "route.origin_mode.fixed", "current_location": "route.origin_mode.current_location"}
STRATEGY_LABELS = {
    "shortest_distance": "route.strategy.shortest_distance",
    "fastest_time": "route.strategy.fastest_time",
    "balanced": "route.strategy.balanced",
}
TRANSPORT_LABELS = {
    "driving": "route.transport.driving",
    "walking": "route.transport.walking",
    "cycling": "route.transport.cycling",
}
DEEP_LINK_LABELS = {
    "auto": "route.deep_link.auto",
    "route_plan": "route.deep_link.route_plan",
    "personal_map": "route.deep_link.personal_map",
}

# Session-state keys of the page (the last plan error's: components/route/errors.py ERROR).
RESULT = "route_result"
REQUEST = "route_request"
#: the sidebar's provider choice when the result on screen was planned: the stale check compares the sidebar with
#: it (like with like), never with the result's own provider name (``offline`` plans as ``offline+valhalla``)
PLANNED_PROVIDER = "route_planned_provider"
REPLAN = "route_replan"  # plan again on the next run (a place was just chosen)
STOPS_BASE = "stops_df"  # the table handed to st.data_editor
STOPS_CURRENT = "stops_current"  # the table as last edited (base + the editor's edits)
KEEP_ORDER = "route_keep_order"  # "keep my order" (components/route/own_order.py): the stops as listed, beside the best


@st.cache_data(show_spinner=False)
def cached_scenarios(region: str | None) -> list[Any]:
    from core.app.route import scenarios

    return scenarios(region)


def request_payload(state: StateView, stops_table: pd.DataFrame | None) -> dict[str, Any]:
    """The RoutePlanRequest fields from the form's session state and the stops table (with the POI ids of places
    chosen in "Did you mean…" that the fields still hold)."""
    mode = state.get("origin_mode") or "fixed"
    stops = stops_from_frame(stops_table)
    for i, stop in enumerate(stops):
        poi_id = chosen_poi_id(state, f"stops.{i}", stop.get("name"), stop.get("address"))
        if poi_id:
            stop["poi_id"] = poi_id
    payload: dict[str, Any] = {
        "origin_mode": mode,
        "destination_name": clean(state.get("destination_name")),
        "destination_address": clean(state.get("destination_address")),
        "destination_city": clean(state.get("destination_city")),
        "stops": stops,
        "route_strategy": state.get("route_strategy") or "shortest_distance",
        "transport_mode": state.get("transport_mode") or "driving",
        "deep_link_mode": state.get("deep_link_mode") or "auto",
        "max_permutations": int(state.get("max_permutations") or 24),
        "round_trip": bool(state.get("round_trip")) and mode == "fixed",
        # unticked: the planner decides (directions where the matrix differs from them); ticked: always
        "exact_legs": True if state.get("exact_legs") else None,
        "need_deep_link": True,
        "keep_order": bool(state.get(KEEP_ORDER)),
    }
    destination_poi = chosen_poi_id(
        state, "destination_address", state.get("destination_name"), state.get("destination_address")
    )
    if destination_poi:
        payload["destination_poi_id"] = destination_poi
    if mode == "fixed":
        payload["origin_name"] = clean(state.get("origin_name"))
        payload["origin_address"] = clean(state.get("origin_address"))
        payload["origin_city"] = clean(state.get("origin_city"))
        origin_poi = chosen_poi_id(state, "origin_address", state.get("origin_name"), state.get("origin_address"))
        if origin_poi:
            payload["origin_poi_id"] = origin_poi
    else:
        lon, lat = state.get("origin_lon"), state.get("origin_lat")
        payload["origin_lon"] = float(lon) if lon is not None else None
        payload["origin_lat"] = float(lat) if lat is not None else None
    return payload


#: the inputs a stale notice names, as words inside its sentence (lower case in English: "strategy, travel mode")
STALE_FIELD_WORDS = {
    field: f"route.stale.field.{field}"
    for field in (
        *("origin", "destination", "task_name", "stops", "route_strategy", "transport_mode", "need_deep_link"),
        *("deep_link_mode", "need_html", "max_permutations", "exact_legs", "round_trip", "region", "provider"),
        *("keep_order", "own_order"),
    )
}
#: the planned strategy inside the stale notice's sentence
STALE_STRATEGY_WORDS = {code: f"route.stale.strategy.{code}" for code in STRATEGIES}
#: ``changed_fields``' answer when the form no longer makes a valid request
INVALID = "input"


def changed_fields(state: StateView, stops_table: pd.DataFrame | None, planned: RoutePlanRequest | None) -> list[str]:
    """Which inputs differ from the request that produced the result on screen, as codes in form order (the start's
    and the destination's fields as ``origin`` / ``destination``).

    ``[INVALID]`` when the form no longer makes a valid request; ``[]`` when nothing changed.
    """
    if planned is None:
        return []
    try:
        current = RoutePlanRequest.model_validate(request_payload(state, stops_table))
    except (ValueError, OmniError):  # pydantic's ValidationError is a ValueError
        return [INVALID]
    fields: list[str] = []
    for name in RoutePlanRequest.model_fields:
        if getattr(current, name) != getattr(planned, name):
            head = name.split("_")[0]
            field = head if head in ("origin", "destination") else name
            if field not in fields:
                fields.append(field)
    return fields


def stale_message(
    state: StateView, stops_table: pd.DataFrame | None, result: RoutePlanResult, *, lang: Lang = "en"
) -> str | None:
    """A notice when the result on screen no longer matches the form (or the sidebar), else None; the inputs it
    names are words inside a sentence (``STALE_FIELD_WORDS``)."""
    changed = changed_fields(state, stops_table, state.get(REQUEST))
    region = state.get("region")
    if region and result.region and region != result.region:
        changed.append("region")
    active, planned = state.get(ACTIVE_PROVIDER), state.get(PLANNED_PROVIDER)
    if active and planned and active != planned:
        changed.append("provider")
    if not changed:
        return None
    strategy = result.route_strategy
    return t(
        "route.stale.invalid" if changed == [INVALID] else "route.stale.changed",
        lang,
        fields=t("route.list_separator", lang).join(
            t(STALE_FIELD_WORDS[f], lang) if f in STALE_FIELD_WORDS else field_label(f, lang=lang) for f in changed
        ),
        strategy=t(STALE_STRATEGY_WORDS[strategy], lang) if strategy in STALE_STRATEGY_WORDS else strategy,
        stops=stops_words(len(result.resolved_stops), lang),
    )


def init_form_state() -> None:
    defaults = {
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
        "max_permutations": 24,
        "exact_legs": False,
    }
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)
    kept = ROUTE.get()  # the word-option choices: kept as codes, handed to their widgets when they draw
    for field in ("origin_mode", "route_strategy", "transport_mode", "deep_link_mode"):
        st.session_state[field] = getattr(kept, field)
    if STOPS_BASE not in st.session_state:
        st.session_state[STOPS_BASE] = empty_stops_frame()
    elif "stops_editor" not in st.session_state and STOPS_CURRENT in st.session_state:
        # back from another page: the editor's edits went with its widget state (st.data_editor cannot persist
        # them), the table as last edited did not; it becomes the editor's table
        st.session_state[STOPS_BASE] = st.session_state[STOPS_CURRENT]
    if st.session_state.get(PENDING_PLACES):  # places chosen in the last run go into the widgets before they draw
        current = stops_from_frame(st.session_state.get(STOPS_CURRENT, st.session_state.get(STOPS_BASE)))
        stops = apply_pending_places(st.session_state, current)
        if stops is not None:
            _reset_stops(stops_frame(stops))


def render_place_choices(section: str) -> None:
    """“Did you mean…” beside the part of the form whose input fits several places (the last error's candidates,
    components/route/place_picker.py); the choice fills the field and plans again."""
    from components.route import place_picker

    error = st.session_state.get(ERROR)
    if not error or not error.get("candidates"):
        return
    mine = {f: c for f, c in error["candidates"].items() if error_section(f) == section}
    if not mine:
        return
    region = st.session_state.get("region") or settings().region  # the pack whose names the districts take
    chosen = place_picker.render_choices({"candidates": mine}, key="rp_pick", lang=current_lang(), region=region)
    for field, option in chosen.items():
        fill_place(field, place_picker.stop_fields(option))
    if chosen:
        ERRORS.clear()
        st.session_state[REPLAN] = True
        st.rerun()


def _reset_stops(frame: pd.DataFrame) -> None:
    st.session_state[STOPS_BASE] = frame
    st.session_state[STOPS_CURRENT] = frame
    st.session_state.pop("stops_editor", None)


def load_scenario_into_form() -> None:
    """on_click of "Load scenario": copy the scenario's request into the form's widgets."""
    region = st.session_state.get("region")
    wanted = ROUTE.get().scenario
    scenario = next((s for s in cached_scenarios(region) if s.id == wanted), None)
    if scenario is None:
        return
    fill_form_from_request(scenario.request)
    st.session_state["loaded_scenario"] = scenario.id


def fill_form_from_request(req: RoutePlanRequest) -> None:
    """Put a request into the form's widgets and stops table (a scenario, a shared link); the result goes."""
    ROUTE.set(
        st.session_state,
        origin_mode=req.origin_mode,
        route_strategy=req.route_strategy,
        transport_mode=req.transport_mode,
        deep_link_mode=req.deep_link_mode,
    )
    st.session_state.update(
        {
            "origin_name": (req.origin_name or "") if req.origin_mode == "fixed" else "",
            "origin_address": (req.origin_address or "") if req.origin_mode == "fixed" else "",
            "origin_city": req.origin_city or "",
            "origin_lon": req.origin_lon,
            "origin_lat": req.origin_lat,
            "destination_name": req.destination_name or "",
            "destination_address": req.destination_address or "",
            "destination_city": req.destination_city or "",
            "round_trip": bool(req.round_trip),
            "max_permutations": int(req.max_permutations),
            "exact_legs": bool(req.exact_legs),
        }
    )
    if req.round_trip and req.origin_mode == "fixed" and clean(req.destination_address) == clean(req.origin_address):
        # The round-trip destination is the origin: leave the fields blank (filled at validation).
        st.session_state["destination_name"] = ""
        st.session_state["destination_address"] = ""
    _reset_stops(stops_frame(req.stops))
    for key in (RESULT, REQUEST, ERROR, PLACES, "loaded_scenario"):
        st.session_state.pop(key, None)


def apply_pasted_stops() -> None:
    """on_click of "Add pasted stops": append the pasted lines to the table (keeping edits)."""
    pasted = parse_pasted_stops(st.session_state.get("paste_stops", ""))
    if not pasted:
        st.session_state["paste_feedback"] = t("route.stops.paste_nothing")
        return
    current = stops_from_frame(st.session_state.get(STOPS_CURRENT, st.session_state.get(STOPS_BASE)))
    _reset_stops(stops_frame(current + pasted))
    st.session_state["paste_stops"] = ""
    st.session_state["paste_feedback"] = t("route.stops.paste_added", stops=stops_words(len(pasted), current_lang()))


def sort_stops() -> None:
    """on_click of "Sort by order": apply the ``order`` column and renumber 1..n."""
    _reset_stops(renumbered(st.session_state.get(STOPS_CURRENT, st.session_state.get(STOPS_BASE))))


def clear_stops() -> None:
    _reset_stops(empty_stops_frame())


def show_field_error(section: str) -> None:
    """Show the last plan error next to the part of the form it concerns, and the places to choose from when an
    input there fits several."""
    ERRORS.show(section)
    render_place_choices(section)


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
    if st.button(t("route.origin.use_browser_location"), key="use_browser_location", icon=":material/my_location:"):
        st.session_state["geo_requested"] = True
    if not st.session_state.get("geo_requested"):
        return
    from streamlit_js_eval import get_geolocation

    loc = get_geolocation(component_key="browser_geolocation")
    if loc is None:
        st.caption(t("route.origin.waiting_for_browser"))
        return
    st.session_state["geo_requested"] = False
    if isinstance(loc, dict) and "coords" in loc:
        st.session_state["origin_lon"] = round(float(loc["coords"]["longitude"]), 6)
        st.session_state["origin_lat"] = round(float(loc["coords"]["latitude"]), 6)
        st.rerun()
    st.warning(t("route.origin.no_browser_position"))


def render_origin_inputs() -> None:
    lang = current_lang()
    C.select(
        st,
        ROUTE,
        "origin_mode",
        t("route.origin.mode", lang),
        ORIGIN_MODES,
        format_func=lambda mode: t(ORIGIN_MODE_LABELS[mode], lang),
        radio=True,
        horizontal=True,
    )
    if st.session_state["origin_mode"] == "fixed":
        name_hint, address_hint = origin_placeholders(st.session_state.get("region") or settings().region, lang)
        c1, c2, c3 = st.columns([2, 3, 1])
        c1.text_input(t("route.origin.name", lang), key="origin_name", placeholder=name_hint, persist_state="session")
        c2.text_input(
            t("route.origin.address", lang), key="origin_address", placeholder=address_hint, persist_state="session"
        )
        c3.text_input(t("route.form.city", lang), key="origin_city", persist_state="session")
        st.checkbox(t("route.origin.round_trip", lang), key="round_trip", persist_state="session")
    else:
        st.caption(t("route.origin.live_note", lang))
        _render_geolocation()
        c1, c2 = st.columns(2)
        c1.number_input(
            t("route.origin.lon", lang),
            key="origin_lon",
            value=None,
            min_value=-180.0,
            max_value=180.0,
            format="%.6f",
            step=0.001,
            persist_state="session",
        )
        c2.number_input(
            t("route.origin.lat", lang),
            key="origin_lat",
            value=None,
            min_value=-90.0,
            max_value=90.0,
            format="%.6f",
            step=0.001,
            persist_state="session",
        )
        if st.toggle(t("route.origin.pick_on_map", lang), key="origin_pick_toggle", persist_state="session"):
            from components.maps import render_pick_map

            region = st.session_state.get("region") or settings().region
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
                lang=lang,
            )
    show_field_error("origin")


def origin_placeholders(region: str, lang: Lang) -> tuple[str, str]:
    """The start's name and address placeholders: the region pack's own example place ("" when it has none), so
    a Helsinki form never suggests a Shanghai address."""
    from core.app.regions import example_place

    example = example_place(region, lang)
    if example is None:
        return "", ""
    name, address = example
    return t("route.origin.example", lang, example=name), t("route.origin.example", lang, example=address)


def paste_placeholder(region: str, lang: Lang) -> str:
    """The pasted stops' example: the region pack's own example place (a Helsinki form suggested the Bund), the
    catalog's Shanghai example when the pack has none."""
    from core.app.regions import example_place

    example = example_place(region, lang)
    if example is None:
        return t("route.stops.paste_placeholder", lang)
    name, address = example
    return f"{name} | {address}\n{name}"


def render_destination_inputs() -> None:
    lang = current_lang()
    c1, c2, c3 = st.columns([2, 3, 1])
    c1.text_input(t("route.destination.name", lang), key="destination_name", persist_state="session")
    c2.text_input(
        t("route.destination.address", lang),
        key="destination_address",
        placeholder=t("route.destination.address_placeholder", lang),
        persist_state="session",
    )
    c3.text_input(t("route.form.city", lang), key="destination_city", persist_state="session")
    show_field_error("destination")


def render_stops_inputs() -> pd.DataFrame:
    """The editable stops table plus a paste box; returns the table as edited now."""
    lang = current_lang()
    edited = st.data_editor(
        st.session_state[STOPS_BASE],
        key="stops_editor",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_order=STOP_COLUMNS,
        column_config={
            "order": st.column_config.NumberColumn(
                t("route.stops.col.order", lang),
                help=t("route.stops.col.order_help", lang),
                min_value=1,
                step=1,
                width="small",
            ),
            "name": st.column_config.TextColumn(t("route.stops.col.name", lang)),
            "address": st.column_config.TextColumn(t("route.stops.col.address", lang), width="large"),
            "city": st.column_config.TextColumn(t("route.stops.col.city", lang), width="small"),
            "contact": st.column_config.TextColumn(t("route.stops.col.contact", lang)),
        },
    )
    st.session_state[STOPS_CURRENT] = edited
    b1, b2, _ = st.columns([1, 1, 3])
    b1.button(t("route.stops.sort", lang), key="stops_sort", on_click=sort_stops, help=t("route.stops.sort_help", lang))
    b2.button(t("route.stops.clear", lang), key="stops_clear", on_click=clear_stops)
    with st.expander(t("route.stops.paste_title", lang), expanded=False):
        st.text_area(
            t("route.stops.paste_label", lang),
            key="paste_stops",
            height=120,
            placeholder=paste_placeholder(st.session_state.get("region") or settings().region, lang),
            persist_state="session",
        )
        st.button(t("route.stops.paste_apply", lang), key="paste_apply", on_click=apply_pasted_stops)
        feedback = st.session_state.pop("paste_feedback", None)
        if feedback:
            st.caption(feedback)
    show_field_error("stops")
    return edited


def render_options() -> None:
    lang = current_lang()
    c1, c2, c3, c4 = st.columns(4)
    C.select(
        c1,
        ROUTE,
        "route_strategy",
        t("route.options.strategy", lang),
        STRATEGIES,
        format_func=lambda code: t(STRATEGY_LABELS[code], lang),
    )
    C.select(
        c2,
        ROUTE,
        "transport_mode",
        t("route.options.transport", lang),
        TRANSPORT_MODES,
        format_func=lambda code: t(TRANSPORT_LABELS[code], lang),
    )
    C.select(
        c3,
        ROUTE,
        "deep_link_mode",
        t("route.options.deep_link", lang),
        DEEP_LINK_MODES,
        format_func=lambda code: t(DEEP_LINK_LABELS[code], lang),
        help=t("route.options.deep_link_help", lang),
    )
    c4.number_input(
        t("route.options.max_permutations", lang),
        key="max_permutations",
        min_value=1,
        max_value=40320,
        step=1,
        help=t("route.options.max_permutations_help", lang),
        persist_state="session",
    )
    st.checkbox(
        t("route.options.exact_legs", lang),
        key="exact_legs",
        help=t("route.options.exact_legs_help", lang),
        persist_state="session",
    )
    show_field_error("options")


def _is_english_only(text: str) -> bool:
    """Mostly not Chinese (a demo's description written in English, quoting a few Chinese names)."""
    letters = [ch for ch in text if ch.isalpha()]
    return sum("\u4e00" <= ch <= "\u9fff" for ch in letters) < 0.3 * max(1, len(letters))


def scenario_title(title: Mapping[str, str], lang: Lang, fallback: str) -> str:
    """A scenario's title in ``lang`` (the other language's when it has only that one)."""
    return title.get(lang) or title.get("en" if lang == "zh" else "zh") or fallback


def scenario_description(scenario: Scenario, lang: Lang) -> str:
    """A scenario's description in ``lang``: its Chinese one in Chinese; the English one in English, or in Chinese
    when the file has no Chinese one and the English text is mostly Chinese anyway; else nothing."""
    if lang == "zh" and scenario.description_zh:
        return scenario.description_zh
    if lang == "en" or not _is_english_only(scenario.description):
        return scenario.description
    return ""


def render_scenario_picker() -> None:
    lang = current_lang()
    region = st.session_state.get("region") or settings().region
    scenarios = cached_scenarios(region)
    if not scenarios:
        st.caption(t("route.scenario.none", lang))
        return
    ids = [s.id for s in scenarios]
    titles = {s.id: scenario_title(s.title, lang, s.id) for s in scenarios}
    wanted = st.query_params.get("scenario")  # /route_planner?scenario=<id> preselects a demo
    if wanted in ids and st.session_state.get("_scenario_from_url") != wanted:
        st.session_state["_scenario_from_url"] = wanted
        ROUTE.set(st.session_state, scenario=wanted)
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    C.select(c1, ROUTE, "scenario", t("route.scenario.label", lang), ids, format_func=lambda i: titles.get(i, i))
    c2.button(t("route.scenario.load", lang), key="load_scenario", on_click=load_scenario_into_form, width="stretch")
    chosen = next((s for s in scenarios if s.id == st.session_state["scenario"]), None)
    if chosen is not None and (description := scenario_description(chosen, lang)):
        st.caption(description)
    loaded = st.session_state.get("loaded_scenario")
    if loaded:
        with st.container(key="scenario_loaded"):
            st.caption(t("route.scenario.loaded", lang, title=titles.get(loaded, loaded)))
