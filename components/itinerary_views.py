"""Inputs and result panels of the itinerary page (pages/itinerary.py).

Pure helpers (no Streamlit calls, unit-testable): the place catalogue of a region pack, the
selection store behind the place table (``view_ids``, ``selection_frame``, ``merge_editor_edits``),
``trip_payload`` (form state → TripRequest fields, with field-named errors), ``field_label``,
``edit_from_form`` and the result tables (``dropped_frame``, ``decision_log_frame``, ...).
The ``render_*`` functions draw widgets; every widget a test drives has a ``key=``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from components.forms import is_missing
from core.config import get_settings
from core.errors import InputError, OmniError
from core.models.itinerary import MAX_TRIP_DAYS
from core.models.itinerary_result import ItineraryResult

from core.models.common import PRIORITIES  # noqa: E402 (one vocabulary)
PACINGS = ("relaxed", "normal", "tight")
MODES = ("driving", "walking")
PACING_LABELS = {"relaxed": "relaxed 轻松", "normal": "normal 适中", "tight": "tight 紧凑"}
MODE_LABELS = {"driving": "Driving 驾车", "walking": "Walking 步行"}
EDIT_ACTIONS = ("lock", "move", "remove", "unlock")
EDIT_ACTION_LABELS = {
    "lock": "Lock to day/time 锁定",
    "move": "Move to day 移到某天",
    "remove": "Remove 删除",
    "unlock": "Unlock 解锁",
}
EDITOR_COLUMNS = ["include", "name", "category", "opening hours", "visit min", "priority", "fixed day"]
HOTEL_CATEGORIES = ("hotel",)

# Session-state keys of the page (widget keys are the literals in the render functions).
RESULT = "it_result"  # the ItineraryResult shown
BASE_REQUEST = "it_request"  # the TripRequest Optimise built (edits apply on top of it)
EDITS = "it_edits"  # the accumulated edits (list of UserEdit dicts)
ERROR = "it_error"  # {"field", "label", "message", "section"}
SELECTION = "it_selection"  # place id -> {"include", "priority", "visit_minutes", "fixed_day"}
SELECTION_REGION = "it_selection_region"
VIEW = "it_view_ids"  # the place ids the table shows, in order (frozen until the view is rebuilt)
LOADED_TRIP = "it_loaded_trip"
FORM_KEYS = (
    "trip_name",
    "trip_start_date",
    "trip_days",
    "day_start",
    "day_end",
    "per_day_hours",
    "trip_hotel",
    "lunch_enabled",
    "lunch_start",
    "lunch_end",
    "lunch_minutes",
    "lunch_on_site",
    "pacing",
    "trip_mode",
    "place_search",
    "places_only_selected",
)


# --- cached data -------------------------------------------------------------------------------


@st.cache_data(show_spinner=False)
def cached_catalog(region: str) -> list[dict[str, Any]]:
    """The region pack's places as plain dicts (id, names, category, hours, visit minutes, position)."""
    from core.packs.loader import load_region

    pack = load_region(region)
    return [
        {
            "id": p.id,
            "name_zh": p.name_zh,
            "name_en": p.name_en,
            "aliases": list(p.aliases),
            "district": p.district,
            "category": p.category,
            "tags": list(p.tags),
            "opening_hours": p.opening_hours,
            "visit_minutes": p.visit_minutes,
            "lon": p.lon,
            "lat": p.lat,
        }
        for p in pack.places
    ]


def trips_dir() -> Path:
    return Path(get_settings().data_dir) / "trips"


@st.cache_data(show_spinner=False)
def cached_demo_trips() -> dict[str, dict[str, Any]]:
    """The demo TripRequests in data/trips, by file stem (raw JSON dicts, validated when loaded)."""
    folder = trips_dir()
    trips: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            trips[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return trips


# --- place catalogue and selection (pure) --------------------------------------------------------


def place_label(place: Mapping[str, Any]) -> str:
    en = place.get("name_en") or ""
    return f"{place['name_zh']} · {en}" if en else str(place["name_zh"])


def catalog_index(catalog: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {p["id"]: p for p in catalog}


def matches(place: Mapping[str, Any], query: str) -> bool:
    """Case-insensitive substring search over names, aliases, category, district, tags and id."""
    q = (query or "").strip().casefold()
    if not q:
        return True
    fields = [place["id"], place["name_zh"], place.get("name_en") or "", place.get("category") or "",
              place.get("district") or "", *place.get("aliases", []), *place.get("tags", [])]
    return any(q in str(f).casefold() for f in fields)


def new_entry(place: Mapping[str, Any], include: bool = False) -> dict[str, Any]:
    return {"include": include, "priority": "should", "visit_minutes": place.get("visit_minutes"), "fixed_day": None}


def view_ids(
    catalog: Sequence[Mapping[str, Any]], selection: Mapping[str, Mapping[str, Any]], query: str = "",
    only_selected: bool = False,
) -> list[str]:
    """Ids the place table shows: matching places, the included ones first (in selection order)."""
    index = catalog_index(catalog)
    chosen = [pid for pid, s in selection.items() if s.get("include") and pid in index and matches(index[pid], query)]
    if only_selected:
        return chosen
    taken = set(chosen)
    return chosen + [p["id"] for p in catalog if p["id"] not in taken and matches(p, query)]


def selection_frame(
    ids: Sequence[str], catalog: Sequence[Mapping[str, Any]], selection: Mapping[str, Mapping[str, Any]]
) -> pd.DataFrame:
    """The table handed to st.data_editor: one row per id (index = place id)."""
    index = catalog_index(catalog)
    rows = []
    for pid in ids:
        place = index[pid]
        entry = selection.get(pid) or new_entry(place)
        rows.append(
            {
                "include": bool(entry.get("include")),
                "name": place_label(place),
                "category": place.get("category") or "",
                "opening hours": place.get("opening_hours") or "",
                "visit min": entry.get("visit_minutes"),
                "priority": entry.get("priority") or "should",
                "fixed day": entry.get("fixed_day"),
            }
        )
    frame = pd.DataFrame(rows, columns=EDITOR_COLUMNS, index=pd.Index(list(ids), name="id", dtype="object"))
    frame["include"] = frame["include"].astype(bool)
    frame["visit min"] = pd.array(frame["visit min"].tolist(), dtype="Int64")
    frame["fixed day"] = pd.array(frame["fixed day"].tolist(), dtype="Int64")
    return frame


def _int_or_none(value: Any) -> int | None:
    if is_missing(value):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def merge_editor_edits(
    selection: dict[str, dict[str, Any]],
    ids: Sequence[str],
    catalog: Sequence[Mapping[str, Any]],
    edited_rows: Mapping[Any, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Apply st.data_editor's ``edited_rows`` (row position → {column: value}) to the selection store.

    Rows are positions in ``ids`` (the table as shown). Returns the store (updated in place).
    """
    index = catalog_index(catalog)
    for pos, changes in (edited_rows or {}).items():
        try:
            pid = ids[int(pos)]
        except (IndexError, ValueError, TypeError):
            continue
        entry = selection.get(pid) or new_entry(index[pid])
        for col, value in changes.items():
            if col == "include":
                entry["include"] = bool(value)
            elif col == "priority" and value in PRIORITIES:
                entry["priority"] = value
            elif col == "visit min":
                entry["visit_minutes"] = _int_or_none(value)
            elif col == "fixed day":
                entry["fixed_day"] = _int_or_none(value)
        selection[pid] = entry
    return selection


def selection_from_trip(trip: Mapping[str, Any], catalog: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The selection store of a demo TripRequest (its places included, in its order)."""
    index = catalog_index(catalog)
    selection: dict[str, dict[str, Any]] = {}
    for place in trip.get("places", []):
        pid = place.get("place_id")
        if pid not in index:
            continue
        fixed = place.get("fixed_day")
        selection[pid] = {
            "include": True,
            "priority": place.get("priority") or "should",
            "visit_minutes": place.get("visit_minutes") or index[pid].get("visit_minutes"),
            "fixed_day": int(fixed) + 1 if fixed is not None else None,  # the table counts days from 1
        }
    return selection


def included(selection: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return [pid for pid, s in selection.items() if s.get("include")]


# --- the request (pure) --------------------------------------------------------------------------


def _parse_time(value: Any) -> time | None:
    if value is None or isinstance(value, time):
        return value
    try:
        return time.fromisoformat(str(value))
    except ValueError:
        return None


def day_hours(state: Mapping[str, Any], n_days: int) -> list[tuple[time | None, time | None]]:
    """(start, end) of each day: the per-day inputs when switched on, else the general ones."""
    general = (_parse_time(state.get("day_start")), _parse_time(state.get("day_end")))
    if not state.get("per_day_hours"):
        return [general] * n_days
    return [
        (_parse_time(state.get(f"day_start_{i}", general[0])), _parse_time(state.get(f"day_end_{i}", general[1])))
        for i in range(n_days)
    ]


def trip_payload(
    state: Mapping[str, Any],
    selection: Mapping[str, Mapping[str, Any]],
    catalog: Sequence[Mapping[str, Any]],
    region: str,
) -> dict[str, Any]:
    """TripRequest fields from the form's session state and the place selection.

    Raises InputError naming the form field (``places``, ``day_end``, ``day_end_2``, ``trip_hotel``,
    ``lunch_end``, ``places.<id>.fixed_day``) for what the form can check itself; the rest is left
    to TripRequest's own validation.
    """
    index = catalog_index(catalog)
    chosen = [pid for pid in included(selection) if pid in index]
    if not chosen:
        raise InputError("no places selected: tick 'include' for at least one place (or load a demo trip)",
                         field="places")
    n_days = _int_or_none(state.get("trip_days")) or 0
    if not 1 <= n_days <= MAX_TRIP_DAYS:
        raise InputError(f"the trip needs 1 to {MAX_TRIP_DAYS} days", field="trip_days")
    start_date = state.get("trip_start_date")
    if not isinstance(start_date, date):
        raise InputError("choose the first day of the trip", field="trip_start_date")
    hours = day_hours(state, n_days)
    per_day = bool(state.get("per_day_hours"))
    days = []
    for i, (start, end) in enumerate(hours):
        suffix = f"_{i}" if per_day else ""
        if start is None:
            raise InputError("set the time the day starts", field=f"day_start{suffix}")
        if end is None:
            raise InputError("set the time the day ends", field=f"day_end{suffix}")
        if end <= start:
            raise InputError(
                f"the day ends at {end:%H:%M}, before it starts at {start:%H:%M}: the end time must be later",
                field=f"day_end{suffix}",
            )
        days.append({"date": (start_date + timedelta(days=i)).isoformat(), "start_time": f"{start:%H:%M}",
                     "end_time": f"{end:%H:%M}"})
    hotel = state.get("trip_hotel")
    if not hotel or hotel not in index:
        raise InputError("choose where each day starts and ends", field="trip_hotel")
    lunch_on = bool(state.get("lunch_enabled"))
    lunch: dict[str, Any] = {"enabled": lunch_on}
    if lunch_on:
        ls, le = _parse_time(state.get("lunch_start")), _parse_time(state.get("lunch_end"))
        minutes = _int_or_none(state.get("lunch_minutes")) or 0
        if ls is None or le is None or le <= ls:
            raise InputError("the lunch window must end after it starts", field="lunch_end")
        if (le.hour * 60 + le.minute) - (ls.hour * 60 + ls.minute) < minutes:
            raise InputError(f"the lunch window is shorter than the {minutes}-minute lunch", field="lunch_end")
        lunch.update(window_start=f"{ls:%H:%M}", window_end=f"{le:%H:%M}", duration_min=minutes,
                     on_site=bool(state.get("lunch_on_site", True)))
    places = []
    for pid in chosen:
        entry = selection[pid]
        fixed = _int_or_none(entry.get("fixed_day"))
        if fixed is not None and not 1 <= fixed <= n_days:
            raise InputError(
                f"'{index[pid]['name_zh']}' is fixed to day {fixed}, but the trip has {n_days} day(s)",
                field=f"places.{pid}.fixed_day",
            )
        place: dict[str, Any] = {"place_id": pid, "priority": entry.get("priority") or "should"}
        visit = _int_or_none(entry.get("visit_minutes"))
        if visit:  # blank or the pack's 0 (hotels, stations): the planner's default applies
            place["visit_minutes"] = visit
        if fixed is not None:
            place["fixed_day"] = fixed - 1
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


def field_label(field: str | None, payload: Mapping[str, Any] | None = None,
                catalog: Sequence[Mapping[str, Any]] | None = None) -> str:
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


def error_text(error: Mapping[str, Any]) -> str:
    label = error.get("label") or "Input"
    message = str(error.get("message") or "")
    return f"{label}: {message}"


# --- edits (pure) -----------------------------------------------------------------------------------


def stop_whereabouts(result: ItineraryResult) -> dict[str, str]:
    """Place key → where it is in the result: "day 2 14:05", "dropped (CODE)" or "removed"."""
    where: dict[str, str] = {}
    for day in result.days:
        for e in day.entries:
            if e.kind == "visit" and e.key and not e.continues_visit:
                lock = " · locked" if e.locked else ""
                where[e.key] = f"day {day.day_index + 1} {e.start:%H:%M}{lock}"
    for item in result.dropped_items:
        where[item.key] = "removed" if item.reason_code == "REMOVED_BY_USER" else f"dropped ({item.reason_code})"
    return where


def stop_day(result: ItineraryResult, key: str) -> int | None:
    for day in result.days:
        if any(e.kind == "visit" and e.key == key for e in day.entries):
            return day.day_index
    return None


def edit_from_form(action: str, key: str, day_index: Any, start_time: time | None) -> dict[str, Any]:
    """A UserEdit dict from the edit controls (validated by core when re-optimising)."""
    if not key:
        raise InputError("choose a stop to change", field="edit_stop")
    day = _int_or_none(day_index)
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


def edits_frame(edits: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> pd.DataFrame:
    rows = [
        {
            "#": i + 1,
            "action": e["kind"],
            "place": names.get(e.get("key", ""), e.get("key", "")),
            "day": (int(e["day_index"]) + 1) if e.get("day_index") is not None else None,
            "start time": e.get("start_time") or "",
        }
        for i, e in enumerate(edits)
    ]
    frame = pd.DataFrame(rows, columns=["#", "action", "place", "day", "start time"])
    frame["day"] = frame["day"].astype("Int64")
    return frame


# --- result tables (pure) --------------------------------------------------------------------------


def dropped_frame(result: ItineraryResult) -> pd.DataFrame:
    """One row per dropped place: reason code, the plain explanation and the smallest fix."""
    rows = []
    for d in result.dropped_items:
        per_day = ", ".join(f"day {int(i) + 1}: {code}" for i, code in sorted(d.per_day_reasons.items()))
        rows.append(
            {
                "place": d.name,
                "key": d.key,
                "priority": d.priority,
                "reason code": d.reason_code,
                "why": d.explanation,
                "smallest fix": d.smallest_fix.description if d.smallest_fix else "",
                "fix kind": d.smallest_fix.kind if d.smallest_fix else "",
                "per day": per_day,
            }
        )
    return pd.DataFrame(
        rows, columns=["place", "priority", "reason code", "smallest fix", "why", "fix kind", "per day", "key"]
    )


def _facts_text(facts: Mapping[str, Any]) -> str:
    return json.dumps(facts, ensure_ascii=False, default=str, sort_keys=True)


def decision_log_frame(result: ItineraryResult) -> pd.DataFrame:
    rows = [
        {"step": e.step, "action": e.action, "reason code": e.reason_code, "facts": _facts_text(e.facts)}
        for e in result.decision_log
    ]
    return pd.DataFrame(rows, columns=["step", "action", "reason code", "facts"])


def variants_frame(result: ItineraryResult) -> pd.DataFrame:
    rows = [
        {
            "variant": v.variant,
            "chosen": "✓" if v.chosen else "",
            "visits": v.visits,
            "must dropped": v.must_dropped,
            "dropped penalty": v.dropped_penalty,
            "travel robust min": v.travel_robust_min,
            "wait min": v.wait_min,
        }
        for v in result.variants
    ]
    return pd.DataFrame(
        rows,
        columns=["variant", "chosen", "visits", "must dropped", "dropped penalty", "travel robust min", "wait min"],
    )


def violations_frame(result: ItineraryResult) -> pd.DataFrame:
    violations = result.critic.violations if result.critic else []
    rows = [
        {"code": v.code, "message": v.message, "day": (v.day_index + 1) if v.day_index is not None else None,
         "place": v.key or ""}
        for v in violations
    ]
    frame = pd.DataFrame(rows, columns=["code", "message", "day", "place"])
    frame["day"] = frame["day"].astype("Int64")
    return frame


def anchor_points(result: ItineraryResult, catalog: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, float, float]]:
    """Anchor key (``anchor:<place_id>`` or ``anchor:lon,lat``) → (name, lon, lat) for the day maps."""
    index = catalog_index(catalog)
    out: dict[str, tuple[str, float, float]] = {}
    for day in result.days:
        for key in (day.start_key, day.end_key):
            ref = key.removeprefix("anchor:")
            if ref in index:
                p = index[ref]
                out[key] = (place_label(p), float(p["lon"]), float(p["lat"]))
                continue
            try:
                lon, lat = (float(v) for v in ref.split(",")[:2])
            except ValueError:
                continue
            out[key] = (ref, lon, lat)
    return out


def file_stem(result: ItineraryResult) -> str:
    stem = re.sub(r"[^\w\-]+", "_", result.trip_name, flags=re.UNICODE).strip("_")
    return stem or "itinerary"


def day_option_label(result: ItineraryResult, index: int) -> str:
    day = result.days[index]
    return f"Day {index + 1} · {day.date:%a %m-%d} · {day.totals.visits} visits"


# --- Streamlit: state and inputs ------------------------------------------------------------------


def _hotels(catalog: Sequence[Mapping[str, Any]]) -> list[str]:
    return [p["id"] for p in catalog if p.get("category") in HOTEL_CATEGORIES]


def init_state(region: str, catalog: Sequence[Mapping[str, Any]]) -> None:
    """Defaults of the form, and the selection store (reset when the region changes).

    Re-assigning the form's own values keeps them when the user visits another page and comes back.
    """
    hotels = _hotels(catalog)
    defaults = {
        "trip_name": "My trip",
        "trip_start_date": date.today() + timedelta(days=1),
        "trip_days": 1,
        "day_start": time(9, 0),
        "day_end": time(20, 0),
        "per_day_hours": False,
        "trip_hotel": hotels[0] if hotels else (catalog[0]["id"] if catalog else None),
        "lunch_enabled": True,
        "lunch_start": time(11, 30),
        "lunch_end": time(13, 30),
        "lunch_minutes": 60,
        "lunch_on_site": True,
        "pacing": "normal",
        "trip_mode": "driving",
        "place_search": "",
        "places_only_selected": False,
    }
    for key, value in defaults.items():
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
        else:
            st.session_state[key] = value
    for key in list(st.session_state.keys()):
        if isinstance(key, str) and re.fullmatch(r"day_(start|end)_\d+", key):
            st.session_state[key] = st.session_state[key]
    if st.session_state.get(SELECTION_REGION) != region or SELECTION not in st.session_state:
        st.session_state[SELECTION] = {}
        st.session_state[SELECTION_REGION] = region
        st.session_state.pop(VIEW, None)
        st.session_state.pop("places_editor", None)
    st.session_state.setdefault(EDITS, [])


def current_region() -> str:
    return st.session_state.get("region") or get_settings().region


def refresh_view() -> None:
    """Rebuild the table's rows (after a search, a load or a clear); the editor starts fresh."""
    catalog = cached_catalog(current_region())
    st.session_state[VIEW] = view_ids(
        catalog,
        st.session_state.get(SELECTION, {}),
        st.session_state.get("place_search", ""),
        bool(st.session_state.get("places_only_selected")),
    )
    st.session_state.pop("places_editor", None)


def _on_editor_change() -> None:
    state = st.session_state.get("places_editor") or {}
    merge_editor_edits(
        st.session_state.setdefault(SELECTION, {}),
        st.session_state.get(VIEW, []),
        cached_catalog(current_region()),
        state.get("edited_rows", {}),
    )


def clear_selection() -> None:
    for entry in st.session_state.get(SELECTION, {}).values():
        entry["include"] = False
    refresh_view()


def clear_error() -> None:
    """on_click of the solve buttons: an old message must not show while the new attempt runs."""
    st.session_state.pop(ERROR, None)


def clear_result() -> None:
    for key in (RESULT, BASE_REQUEST, ERROR):
        st.session_state.pop(key, None)
    st.session_state[EDITS] = []


def load_demo_trip() -> None:
    """on_click of Load: copy the demo TripRequest into the form and the place table."""
    trips = cached_demo_trips()
    trip = trips.get(st.session_state.get("trip_demo"))
    if trip is None:
        return
    from core.packs.loader import list_regions

    region = trip.get("region") or current_region()
    if region in list_regions() and region != st.session_state.get("region"):
        st.session_state["region"] = region
    catalog = cached_catalog(region)
    days = trip.get("days") or []
    first = days[0] if days else {}
    lunch = trip.get("lunch") or {}
    updates: dict[str, Any] = {
        "trip_name": trip.get("trip_name") or "trip",
        "trip_days": max(1, len(days)),
        "day_start": _parse_time(first.get("start_time")) or time(10, 0),
        "day_end": _parse_time(first.get("end_time")) or time(22, 0),
        "lunch_enabled": bool(lunch.get("enabled", True)),
        "lunch_start": _parse_time(lunch.get("window_start")) or time(11, 30),
        "lunch_end": _parse_time(lunch.get("window_end")) or time(13, 30),
        "lunch_minutes": int(lunch.get("duration_min") or 60),
        "lunch_on_site": bool(lunch.get("on_site", True)),
        "pacing": trip.get("pacing") or "normal",
        "trip_mode": trip.get("mode") or "driving",
        "place_search": "",
        "places_only_selected": False,
        LOADED_TRIP: st.session_state.get("trip_demo"),
    }
    if first.get("date"):
        updates["trip_start_date"] = date.fromisoformat(first["date"])
    hotel = (trip.get("hotel") or {}).get("place_id")
    if hotel:
        updates["trip_hotel"] = hotel
    hours = [(d.get("start_time"), d.get("end_time")) for d in days]
    updates["per_day_hours"] = len(set(hours)) > 1
    for i, (start, end) in enumerate(hours):
        updates[f"day_start_{i}"] = _parse_time(start) or time(10, 0)
        updates[f"day_end_{i}"] = _parse_time(end) or time(22, 0)
    st.session_state.update(updates)
    st.session_state[SELECTION] = selection_from_trip(trip, catalog)
    st.session_state[SELECTION_REGION] = region
    clear_result()
    refresh_view()


def show_error(section: str) -> None:
    error = st.session_state.get(ERROR)
    if error and error.get("section") == section:
        st.error(error_text(error), icon=":material/error:")


def render_demo_picker() -> None:
    trips = cached_demo_trips()
    if not trips:
        st.caption("No demo trips in data/trips.")
        return
    ids = list(trips)
    if st.session_state.get("trip_demo") not in ids:
        st.session_state["trip_demo"] = ids[0]
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    c1.selectbox("Demo trip 示例行程", ids, key="trip_demo",
                 format_func=lambda i: f"{trips[i].get('trip_name', i)} ({i})")
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
                "priority", options=list(PRIORITIES), required=True,
                help="must: always kept (or reported infeasible); should / nice: dropped first when time is short",
            ),
            "fixed day": st.column_config.NumberColumn(
                "fixed day", min_value=1, max_value=MAX_TRIP_DAYS, step=1,
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
    hotels = _hotels(catalog)
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
    st.toggle(f"Lunch inside long visits (≥ {long_visit} min) 长时游览内用餐", key="lunch_on_site",
              disabled=not on or not long_visit,
              help="A long visit (a theme park, a big museum) may be split around the lunch, taken on site.")
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


# --- Streamlit: results -----------------------------------------------------------------------------


def render_status(result: ItineraryResult) -> None:
    t = result.totals
    if result.status == "ready":
        st.success(
            f"Plan ready: {t.visits} of {t.places_requested} places over {t.days} day(s); {t.dropped} dropped.",
            icon=":material/check_circle:",
        )
    elif result.status == "infeasible":
        musts = [d.name for d in result.dropped_items if d.priority == "must" and d.reason_code != "REMOVED_BY_USER"]
        st.warning(
            f"Not every must-visit fits ({result.error_code}): "
            + (", ".join(musts) if musts else "a locked stop cannot be kept")
            + ". See the dropped items for the reason and the smallest fix.",
            icon=":material/warning:",
        )
    else:
        st.warning("The plan needs review: the critic found problems (below).", icon=":material/warning:")
    for warning in result.warnings:
        st.warning(warning, icon=":material/info:")


def render_totals(result: ItineraryResult) -> None:
    t = result.totals
    p = result.policy
    c = st.columns(7)
    c[0].metric("Visits 游览", f"{t.visits} / {t.places_requested}", help="Places on the plan / places requested")
    c[1].metric("Dropped 未安排", t.dropped, help=f"{t.must_dropped} of them must-visits")
    c[2].metric("Visiting", f"{t.visit_min / 60:.1f} h",
                help=f"Visit minutes, × {p.visit_factor:g} for {result.pacing} pacing")
    c[3].metric(
        "Travel (robust)",
        f"{t.travel_robust_min} min",
        help=f"Planned travel: ceil(nominal × {p.factor:g} + {p.buffer_min} min) per leg ({p.source})",
    )
    c[4].metric("Travel (nominal)", f"{t.travel_nominal_min:.0f} min",
                help=f"Provider's figure: {result.matrix_source}")
    c[5].metric("Waiting 等候", f"{t.wait_min} min",
                help=f"Explicit waits (e.g. for opening time); lunch: {t.lunch_min} min in all")
    c[6].metric("Distance", f"{t.distance_m / 1000:.1f} km", help=f"Source: {result.matrix_source}")
    st.caption(
        f"Travel figures: nominal from **{result.matrix_source}** ({result.mode}); robust = ceil(nominal × "
        f"{p.factor:g} + {p.buffer_min} min), the time the plan reserves (policy: {p.source}, {result.pacing} pacing). "
        f"Lunch {t.lunch_min} min in all (lunch policy). "
        f"Variant used: {result.variant}. Solved in {result.seconds:.2f} s."
    )


def render_quality(result: ItineraryResult) -> None:
    """The critic's verdict and the robustness score with its definition."""
    c1, c2 = st.columns(2)
    with c1.container(border=True, key="critic_box"):
        critic = result.critic
        if critic is None:
            st.markdown("**Critic 校验:** not run")
        elif critic.passed:
            st.markdown(f"**Critic 校验: passed ✓** — {len(critic.checks)} independent checks")
            st.caption(", ".join(critic.checks))
        else:
            st.markdown(f"**Critic 校验: {len(critic.violations)} violation(s) ✗**")
            st.dataframe(violations_frame(result), key="critic_table", hide_index=True, width="stretch")
    with c2.container(border=True, key="robustness_box"):
        r = result.robustness
        st.markdown(f"**Robustness 稳健度: {r.score:.2f}** (0 = any delay breaks the plan, 1 = every leg covered)")
        slack = "no legs"
        if r.min_slack_min is not None:
            slack = f"min slack {r.min_slack_min} min, mean {r.mean_slack_min:.0f} min"
        st.caption(
            f"Definition: {r.definition}; tolerance {r.tolerance:g} (a leg is covered when the rest of its day could "
            f"absorb it taking {r.tolerance:.0%} longer than its robust time). "
            f"{r.legs_fully_covered} of {r.legs} legs covered · {slack}."
        )


def render_day_map(result: ItineraryResult, day_index: int, catalog: Sequence[Mapping[str, Any]]) -> None:
    from streamlit_folium import st_folium

    from components.maps import _base_url_path, build_day_map

    day = result.days[day_index]
    m = build_day_map(day, anchor_points(result, catalog), base_url_path=_base_url_path())
    with st.container(key="day_map_box"):
        st_folium(m, key="day_map", height=460, use_container_width=True, returned_objects=[])
    st.caption("Numbers = visiting order; H = hotel. Dashed lines join the stops in order (straight lines, "
               "not the road path). Colours: red must, blue should, grey nice, purple locked.")


def render_dropped(result: ItineraryResult) -> None:
    frame = dropped_frame(result)
    if frame.empty:
        st.success("Nothing dropped: every requested place is on the plan.", icon=":material/done_all:")
        return
    with st.container(key="dropped_box"):  # .st-key-dropped_box in the page (browser tests)
        st.dataframe(
            frame,
            key="dropped_table",
            hide_index=True,
            width="stretch",
            column_config={
                "why": st.column_config.TextColumn("why", width="large"),
                "smallest fix": st.column_config.TextColumn("smallest fix", width="medium"),
            },
        )
    st.caption(
        "Reason codes: CLOSED_ON_DAY · OUTSIDE_OPENING_HOURS · UNREACHABLE_IN_WINDOW · DAY_TOO_FULL · "
        "LUNCH_CONFLICT · LOW_PRIORITY_TRADEOFF · REMOVED_BY_USER. The smallest fix is the least change found that makes it fit."
    )


def render_decision_log(result: ItineraryResult) -> None:
    st.dataframe(
        decision_log_frame(result),
        key="decision_log_table",
        hide_index=True,
        width="stretch",
        column_config={"facts": st.column_config.TextColumn("facts", width="large")},
    )
    if result.variants:
        st.caption("Variants compared (fewest must dropped, then least dropped penalty, then least travel + wait):")
        st.dataframe(variants_frame(result), key="variants_table", hide_index=True, width="stretch")


def render_downloads(result: ItineraryResult) -> None:
    from core.itinerary.ics import itinerary_to_ics

    stem = file_stem(result)
    c1, c2 = st.columns(2)
    c1.download_button(
        "Download JSON",
        data=result.model_dump_json(indent=2),
        file_name=f"{stem}.json",
        mime="application/json",
        key="it_dl_json",
        icon=":material/data_object:",
        width="stretch",
    )
    c2.download_button(
        "Download calendar (ICS)",
        data=itinerary_to_ics(result),
        file_name=f"{stem}.ics",
        mime="text/calendar",
        key="it_dl_ics",
        icon=":material/calendar_month:",
        width="stretch",
    )
    st.caption("The ICS has one event per visit and lunch, in the trip's time zone "
               f"({result.timezone}); import it into any calendar app.")
