"""The itinerary page's form as data, in one language (itinerary.po): the request its widgets make, the edit the
edit controls make, a failed rule's message beside the widget it concerns (TripRequest checks the rules, FormErrors
places the words: docs/ARCHITECTURE.md, "Pages"), and the notice of a form changed since the plan. The widgets
themselves are components/itinerary/inputs.py's."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, time, timedelta
from typing import Any

from components.field_errors import FormErrors
from components.itinerary.state import (
    ERROR,
    catalog_index,
    included,
    int_or_none,
    parse_time,
)
from components.itinerary.words import catalog_name
from components.language import current_lang
from components.session import StateView
from core.errors import InputError, OmniError
from core.i18n import Lang, t
from core.models.itinerary import TripRequest


def day_hours(state: StateView, n_days: int) -> list[tuple[time | None, time | None]]:
    """(start, end) of each day: the per-day inputs when switched on, else the general ones."""
    general = (parse_time(state.get("day_start")), parse_time(state.get("day_end")))
    if not state.get("per_day_hours"):
        return [general] * n_days
    return [
        (parse_time(state.get(f"day_start_{i}", general[0])), parse_time(state.get(f"day_end_{i}", general[1])))
        for i in range(n_days)
    ]


def trip_payload(
    state: StateView,
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
        if entry.get("meal"):
            place["meal"] = entry["meal"]
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
    state: StateView,
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
    "places": "itinerary.field.places",
    "trip_days": "itinerary.field.trip_days",
    "trip_start_date": "itinerary.field.trip_start_date",
    "day_start": "itinerary.field.day_start",
    "day_end": "itinerary.field.day_end",
    "trip_hotel": "itinerary.field.hotel",
    "hotel": "itinerary.field.hotel",
    "lunch_end": "itinerary.field.lunch_window",
    "lunch": "itinerary.field.lunch_window",
    "pacing": "itinerary.field.pacing",
    "mode": "itinerary.field.mode",
    "trip_mode": "itinerary.field.mode",
    "trip_name": "itinerary.field.trip_name",
    "days": "itinerary.field.days",
    "edit": "itinerary.field.edit",
}
PLACE_FIELDS = {
    "fixed_day": "itinerary.field.place.fixed_day",
    "visit_minutes": "itinerary.field.place.visit_minutes",
    "priority": "itinerary.field.place.priority",
    "fixed_start": "itinerary.field.place.fixed_start",
    "meal": "itinerary.field.place.meal",
}
#: the form's own checks and the request's rules, by the widget they concern → a sentence
ERROR_WORDS = {
    "places": "itinerary.error.no_places",
    "trip_start_date": "itinerary.error.no_start_date",
    "trip_hotel": "itinerary.error.no_hotel",
    "lunch_end": "itinerary.error.lunch_window",
    "day_start": "itinerary.error.day_start",
    "day_end": "itinerary.error.day_end",
    "trip_days": "itinerary.error.days",
    "edit_stop": "itinerary.error.edit_stop",
    "edit_day": "itinerary.error.edit_day",
}
PLACE_ERRORS = {"fixed_day": "itinerary.error.place_fixed_day", "fixed_start": "itinerary.error.place_meal_start"}
#: a request rule met only when planning, by its exact field (core/itinerary/problem.py refuse_impossible_meal)
FIELD_ERRORS = {"lunch.duration_min": "itinerary.error.meal_longer_than_window"}


def field_label(
    field: str | None,
    payload: Mapping[str, Any] | None = None,
    catalog: Sequence[Mapping[str, Any]] | None = None,
    *,
    lang: Lang = "en",
) -> str:
    """A human name for an error's field in ``lang``: ``day_end_1`` → ``Day 2 end time``,
    ``places.sh-bund.fixed_day`` → ``The Bund: fixed day``."""
    if not field:
        return t("itinerary.field.input", lang)
    if field in FIELD_LABELS:
        return t(FIELD_LABELS[field], lang)
    m = re.fullmatch(r"day_(start|end)_(\d+)", field)
    if m:
        key = "itinerary.field.day_n_start" if m.group(1) == "start" else "itinerary.field.day_n_end"
        return t(key, lang, n=int(m.group(2)) + 1)
    parts = field.split(".")
    if parts[0] == "days" and len(parts) > 1 and parts[1].isdigit():
        return t("itinerary.field.day_n_hours", lang, n=int(parts[1]) + 1)
    if parts[0] == "lunch":
        return t(FIELD_LABELS["lunch"], lang)
    if parts[0] == "places" and len(parts) > 1:
        pid = parts[1]
        if pid.isdigit() and payload is not None and int(pid) < len(payload.get("places", [])):
            pid = payload["places"][int(pid)].get("place_id") or pid
        name = pid
        if catalog is not None and pid in catalog_index(catalog):
            name = catalog_name(catalog_index(catalog)[pid], lang).shown
        rest = parts[2] if len(parts) > 2 else ""
        if rest in PLACE_FIELDS:
            return t("itinerary.field.place_field", lang, place=name, field=t(PLACE_FIELDS[rest], lang))
        return t("itinerary.field.place", lang, place=name)
    if parts[0].startswith("edit"):
        return t(FIELD_LABELS["edit"], lang)
    return t("itinerary.field.input", lang)


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


def error_words(error: Mapping[str, Any], *, lang: Lang = "en") -> str:
    """A kept error (code, field, message, label) as a sentence in ``lang``, from its field and code; the core's own
    message is in the error's details."""
    field = str(error.get("field") or "")
    code = str(error.get("code") or "")
    said = error.get("words") or {}
    if lang in said:  # worded when it was made (a refused edit), in both languages
        return str(said[lang])
    label = str((error.get("labels") or {}).get(lang) or field_label(field, lang=lang))
    if code.startswith("PROVIDER"):
        return t("itinerary.error.provider", lang)
    head = re.sub(r"_\d+$", "", field.split(".")[0])
    if field in FIELD_ERRORS:
        return t(FIELD_ERRORS[field], lang, label=label)
    parts = field.split(".")
    if parts[0] == "places" and len(parts) > 2 and parts[2] in PLACE_ERRORS:  # a row's field before "no places"
        return t(PLACE_ERRORS[parts[2]], lang, label=label)
    if head in ERROR_WORDS:
        return t(ERROR_WORDS[head], lang, label=label)
    if parts[0].startswith("edits") and len(parts) > 2 and parts[2] == "day_index":
        return t("itinerary.error.edit_day_beyond", lang)
    return t("itinerary.error.other", lang, label=label)


def _error_words(error: Mapping[str, Any]) -> str:
    return error_words(error, lang=current_lang())


def _label(field: str | None) -> str:
    return field_label(field, lang=current_lang())


#: The form's last error, shown beside the section it concerns, worded in the user's language.
ERRORS = FormErrors(state_key=ERROR, label=_label, section=lambda field: error_section(field), words=_error_words)


def show_error(section: str) -> None:
    ERRORS.show(section)


def edit_from_form(action: str, key: str | None, day_index: Any, start_time: time | None) -> dict[str, Any]:
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


#: the inputs a stale notice names, as words inside its sentence (lower case in English: "places, hotel")
STALE_FIELD_WORDS = {
    field: f"itinerary.stale.field.{field}"
    for field in ("region", "places", "trip_days", "trip_start_date", "hours", "hotel", "lunch", "pacing", "mode")
}


def changed_fields(
    state: StateView,
    selection: Mapping[str, Mapping[str, Any]],
    catalog: Sequence[Mapping[str, Any]],
    region: str,
    planned: TripRequest | None,
) -> list[str] | None:
    """Which inputs differ from the request that made the result on screen, as codes in form order
    (``STALE_FIELD_WORDS``); ``[]`` when nothing changed, ``None`` when the form no longer makes a valid request."""
    if planned is None:
        return []
    try:
        current = trip_request(state, selection, catalog, region)
    except (ValueError, OmniError):  # pydantic's ValidationError is a ValueError
        return None
    changed: list[str] = []
    if current.region != planned.region:
        changed.append("region")
    if [p.model_dump() for p in current.places] != [p.model_dump() for p in planned.places]:
        changed.append("places")
    if len(current.days) != len(planned.days):
        changed.append("trip_days")
    elif current.days[0].date != planned.days[0].date:
        changed.append("trip_start_date")
    if len(current.days) == len(planned.days) and [(d.start_time, d.end_time) for d in current.days] != [
        (d.start_time, d.end_time) for d in planned.days
    ]:
        changed.append("hours")
    if current.hotel != planned.hotel:
        changed.append("hotel")
    if current.lunch != planned.lunch:
        changed.append("lunch")
    if current.pacing != planned.pacing:
        changed.append("pacing")
    if current.mode != planned.mode:
        changed.append("mode")
    return changed


def stale_message(
    state: StateView,
    selection: Mapping[str, Mapping[str, Any]],
    catalog: Sequence[Mapping[str, Any]],
    region: str,
    planned: TripRequest | None,
    *,
    lang: Lang = "en",
) -> str | None:
    """A notice when the plan on screen no longer matches the form, else None; the inputs it names are words inside
    a sentence."""
    changed = changed_fields(state, selection, catalog, region, planned)
    if changed == []:
        return None
    days = len(planned.days) if planned is not None else 0
    if changed is None:
        return t("itinerary.stale.invalid", lang, days=days)
    fields = t("itinerary.list_separator", lang).join(t(STALE_FIELD_WORDS[f], lang) for f in changed)
    return t("itinerary.stale.changed", lang, fields=fields, days=days)
