"""The itinerary page's state: its session keys, the region's place catalogue, the selection store behind the
place table, the undo history, and the callbacks that reset, load, clear or undo (docs/ARCHITECTURE.md, "Pages")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import streamlit as st

from components.frame import region_today
from components.itinerary.choices import FIELDS as CHOICE_FIELDS
from components.itinerary.choices import ITINERARY, sync_widgets
from components.itinerary.words import CATEGORY_WORDS
from components.language import current_lang
from components.services import settings
from components.stops_table import is_missing
from core.i18n import Lang, t
from core.models.common import PRIORITIES

PACINGS = ("relaxed", "normal", "tight")
MODES = ("driving", "walking", "cycling")
EDIT_ACTIONS = ("lock", "move", "remove", "unlock")
EDITOR_COLUMNS = [
    "include", "name", "other name", "category", "opening hours", "visit min", "priority", "fixed day", "meal",
]  # fmt: skip
#: the place table's meal column: its codes ("none": a plain visit) → TripPlace.meal
MEAL_CHOICES = ("none", "lunch", "dinner")
HOTEL_CATEGORIES = ("hotel",)
#: the demo trips' names in words (data/trips/<stem>.json); a trip not listed keeps its own name
DEMO_NAMES = {
    "shanghai_family_day": "itinerary.demo.shanghai_family_day",
    "shanghai_3day_30places": "itinerary.demo.shanghai_3day_30places",
    "shanghai_2day_monday_museum": "itinerary.demo.shanghai_2day_monday_museum",
    "shanghai_many_drops_2day": "itinerary.demo.shanghai_many_drops_2day",
}
DEFAULT_TRIP_NAME = "itinerary.demo.default_name"

# Session-state keys of the page (widget keys are the literals in the render functions).
RESULT = "it_result"  # the ItineraryResult shown
BASE_REQUEST = "it_request"  # the TripRequest Optimise built (edits apply on top of it)
EDITS = "it_edits"  # the accumulated edits (list of UserEdit dicts)
ERROR = "it_error"  # {"field", "label", "message", "section"}
SELECTION = "it_selection"  # place id -> {"include", "priority", "visit_minutes", "fixed_day", "meal"}
SELECTION_REGION = "it_selection_region"
VIEW = "it_view_ids"  # the place ids the table shows, in order (frozen until the view is rebuilt)
LOADED_TRIP = "it_loaded_trip"
HISTORY = "it_history"  # what "Undo last edit" restores: [{"result", "edits", "day_select", "edit_stop"}], newest last
EDIT_NOTE = "it_edit_note"  # what the last edit did: {"edit": {...}, "dropped": [keys]} (worded when shown)
MAP_FRAME = "it_map_frame"  # the box the day map's base is drawn on (kept while it holds the plan: day_map.py)
HISTORY_LIMIT = 5


def demo_name(stem: str | None, trip: Mapping[str, Any], lang: Lang) -> str:
    """A demo trip's name in ``lang`` (its own name when the catalog has none for it)."""
    key = DEMO_NAMES.get(stem or "")
    return t(key, lang) if key else str(trip.get("trip_name") or stem or "")


def trip_title(name: str, lang: Lang) -> str:
    """A result's trip name in ``lang`` when it is a demo trip's or the default name, else as the user gave it."""
    for key in [*DEMO_NAMES.values(), DEFAULT_TRIP_NAME]:
        if name in {t(key, "zh"), t(key, "en")}:
            return t(key, lang)
    for stem, trip in cached_demo_trips().items():
        if name == trip.get("trip_name") and stem in DEMO_NAMES:
            return t(DEMO_NAMES[stem], lang)
    return name


@st.cache_data(show_spinner=False)
def cached_catalog(region: str) -> list[dict[str, Any]]:
    """The region pack's places as plain dicts (id, names, category, hours, visit minutes, position)."""
    from core.app.regions import load_region

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
    return Path(settings().data_dir) / "trips"


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


def place_label(place: Mapping[str, Any], lang: Lang) -> str:
    """A catalogue place's name in ``lang`` (the pack's other name where it has no name in ``lang``)."""
    en, zh = str(place.get("name_en") or ""), str(place.get("name_zh") or "")
    return (en or zh) if lang == "en" else (zh or en)


def catalog_index(catalog: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {p["id"]: p for p in catalog}


def matches(place: Mapping[str, Any], query: str) -> bool:
    """Case-insensitive substring search over names, aliases, category (its code and its words in both languages),
    district, tags and id."""
    q = (query or "").strip().casefold()
    if not q:
        return True
    category = place.get("category") or ""
    words = [t(CATEGORY_WORDS[category], lang) for lang in ("zh", "en")] if category in CATEGORY_WORDS else []
    fields = [
        place["id"],
        place["name_zh"],
        place.get("name_en") or "",
        category,
        *words,
        place.get("district") or "",
        *place.get("aliases", []),
        *place.get("tags", []),
    ]
    return any(q in str(f).casefold() for f in fields)


def new_entry(place: Mapping[str, Any], include: bool = False) -> dict[str, Any]:
    return {
        "include": include, "priority": "should", "visit_minutes": place.get("visit_minutes"), "fixed_day": None,
        "meal": None,
    }  # fmt: skip


def view_ids(
    catalog: Sequence[Mapping[str, Any]],
    selection: Mapping[str, Mapping[str, Any]],
    query: str = "",
    only_selected: bool = False,
) -> list[str]:
    """Ids the place table shows: matching places, the included ones first (in selection order)."""
    index = catalog_index(catalog)
    chosen = [pid for pid, s in selection.items() if s.get("include") and pid in index and matches(index[pid], query)]
    if only_selected:
        return chosen
    taken = set(chosen)
    return chosen + [p["id"] for p in catalog if p["id"] not in taken and matches(p, query)]


def int_or_none(value: Any) -> int | None:
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
                entry["visit_minutes"] = int_or_none(value)
            elif col == "fixed day":
                entry["fixed_day"] = int_or_none(value)
            elif col == "meal":
                entry["meal"] = value if value in MEAL_CHOICES[1:] else None  # "none" or a cleared cell: a visit
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
            "meal": place.get("meal"),  # a meal stop stays one (a shared or stored plan's request holds it)
        }
    return selection


def included(selection: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return [pid for pid, s in selection.items() if s.get("include")]


def parse_time(value: Any) -> time | None:
    if value is None or isinstance(value, time):
        return value
    try:
        return time.fromisoformat(str(value))
    except ValueError:
        return None


def hotels_of(catalog: Sequence[Mapping[str, Any]]) -> list[str]:
    return [p["id"] for p in catalog if p.get("category") in HOTEL_CATEGORIES]


def init_state(region: str, catalog: Sequence[Mapping[str, Any]], lang: Lang) -> None:
    """Defaults of the form, and the selection store (reset when the region changes).

    Re-assigning the form's own values keeps them when the user visits another page and comes back.
    """
    hotels = hotels_of(catalog)
    defaults = {
        "trip_name": t(DEFAULT_TRIP_NAME, lang),
        "trip_start_date": region_today(region) + timedelta(days=1),
        "trip_days": 1,
        "day_start": time(9, 0),
        "day_end": time(20, 0),
        "per_day_hours": False,
        "lunch_enabled": True,
        "lunch_start": time(11, 30),
        "lunch_end": time(13, 30),
        "lunch_minutes": 60,
        "lunch_on_site": True,
        "place_search": "",
        "places_only_selected": False,
    }
    for key, value in defaults.items():
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
        else:
            st.session_state[key] = value
    if ITINERARY.get().trip_hotel is None:
        ITINERARY.set(trip_hotel=hotels[0] if hotels else (catalog[0]["id"] if catalog else None))
    sync_widgets(st.session_state)  # the choices: kept as codes (components/itinerary/choices.py)
    for widget in list(st.session_state.keys()):
        if isinstance(widget, str) and re.fullmatch(r"day_(start|end)_\d+", widget):
            st.session_state[widget] = st.session_state[widget]
    if st.session_state.get(SELECTION_REGION) != region or SELECTION not in st.session_state:
        st.session_state[SELECTION] = {}
        st.session_state[SELECTION_REGION] = region
        st.session_state.pop(VIEW, None)
        st.session_state.pop("places_editor", None)
    st.session_state.setdefault(EDITS, [])
    st.session_state.setdefault(HISTORY, [])


def current_region() -> str:
    return st.session_state.get("region") or settings().region


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
    for key in (RESULT, BASE_REQUEST, ERROR, EDIT_NOTE):
        st.session_state.pop(key, None)
    st.session_state[EDITS] = []
    st.session_state[HISTORY] = []


def remember_for_undo() -> None:
    """Keep what is on screen (result, edits, the chosen day and stop) so that "Undo last edit" can restore it."""
    if st.session_state.get(RESULT) is None:
        return
    snapshot = {
        "result": st.session_state[RESULT],
        "edits": list(st.session_state.get(EDITS, [])),
        "day_select": ITINERARY.get().day_select,
        "edit_stop": ITINERARY.get().edit_stop,
    }
    history = [*st.session_state.get(HISTORY, []), snapshot]
    st.session_state[HISTORY] = history[-HISTORY_LIMIT:]


def undo_last_edit() -> None:
    """on_click of "Undo last edit": the previous result, its edits and the selection come back."""
    history = list(st.session_state.get(HISTORY, []))
    st.session_state.pop(ERROR, None)
    st.session_state.pop(EDIT_NOTE, None)
    if not history:
        return
    snapshot = history.pop()
    st.session_state[HISTORY] = history
    st.session_state[RESULT] = snapshot["result"]
    st.session_state[EDITS] = snapshot["edits"]
    ITINERARY.set(**{key: snapshot[key] for key in ("day_select", "edit_stop") if snapshot.get(key) is not None})


def load_demo_trip() -> None:
    """on_click of Load: copy the demo TripRequest into the form and the place table."""
    trips = cached_demo_trips()
    chosen = ITINERARY.get().trip_demo
    trip = trips.get(chosen or "")
    if trip is None:
        return
    from core.app.regions import list_regions

    region = trip.get("region") or current_region()
    if region in list_regions() and region != st.session_state.get("region"):
        from components.frame import set_region

        set_region(region)
    from components.frame import cached_region_info
    from components.services import request_clock
    from core.app.itinerary import demo_trip_from_today

    zone = cached_region_info(region)["timezone"] if region in list_regions() else "UTC"
    # a demo is never planned in the past (issue 12 §4)
    trip = demo_trip_from_today(trip, timezone=zone, now=request_clock())
    fill_form_from_trip(trip, region, name=demo_name(chosen, trip, current_lang()))
    st.session_state[LOADED_TRIP] = chosen


def trip_form_values(
    trip: Mapping[str, Any], catalog: Sequence[Mapping[str, Any]], *, name: str
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The form's widget values and the place selection of a TripRequest (a JSON dict: a demo, a shared link)."""
    days = trip.get("days") or []
    first = days[0] if days else {}
    lunch = trip.get("lunch") or {}
    updates: dict[str, Any] = {
        "trip_name": name,
        "trip_days": max(1, len(days)),
        "day_start": parse_time(first.get("start_time")) or time(10, 0),
        "day_end": parse_time(first.get("end_time")) or time(22, 0),
        "lunch_enabled": bool(lunch.get("enabled", True)),
        "lunch_start": parse_time(lunch.get("window_start")) or time(11, 30),
        "lunch_end": parse_time(lunch.get("window_end")) or time(13, 30),
        "lunch_minutes": int(lunch.get("duration_min") or 60),
        "lunch_on_site": bool(lunch.get("on_site", True)),
        "pacing": trip.get("pacing") or "normal",
        "trip_mode": trip.get("mode") or "driving",
        "place_search": "",
        "places_only_selected": False,
    }
    if first.get("date"):
        updates["trip_start_date"] = date.fromisoformat(first["date"])
    hotel = (trip.get("hotel") or {}).get("place_id")
    if hotel:
        updates["trip_hotel"] = hotel
    hours = [(d.get("start_time"), d.get("end_time")) for d in days]
    updates["per_day_hours"] = len(set(hours)) > 1
    for i, (start, end) in enumerate(hours):
        updates[f"day_start_{i}"] = parse_time(start) or time(10, 0)
        updates[f"day_end_{i}"] = parse_time(end) or time(22, 0)
    return updates, selection_from_trip(trip, catalog)


def fill_form_from_trip(trip: Mapping[str, Any], region: str, *, name: str) -> None:
    """Put a TripRequest (a JSON dict) into the form and the place table; the plan on screen goes."""
    updates, selection = trip_form_values(trip, cached_catalog(region), name=name)
    st.session_state.update({k: v for k, v in updates.items() if k not in CHOICE_FIELDS})
    ITINERARY.set(**{k: v for k, v in updates.items() if k in CHOICE_FIELDS})
    st.session_state.pop(LOADED_TRIP, None)
    st.session_state[SELECTION] = selection
    st.session_state[SELECTION_REGION] = region
    clear_result()
    refresh_view()
