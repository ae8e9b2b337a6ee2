"""The route planner's form in words where it went wrong: a field's name for people, a plan error as a sentence
in the reader's language, which section of the form it belongs beside, and the pointer under the Plan button.

Pure helpers (``field_label``, ``error_words``, ``error_section``, ``error_pointer``) have no Streamlit calls;
``ERRORS`` keeps the last plan error in the session (components/field_errors.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.field_errors import FormErrors
from components.language import current_lang, t
from core.i18n import Lang
from core.words.place_choice import coverage_name, unresolved_sentences

#: the session key of the form's last plan error
ERROR = "route_error"

#: the form's fields in words (catalog keys), for errors and the stale notice
FIELD_LABELS = {
    "stops": "route.field.stops",
    "origin_address": "route.field.origin_address",
    "origin_name": "route.field.origin_name",
    "origin_lon": "route.field.origin_lon",
    "origin_lat": "route.field.origin_lat",
    "origin": "route.field.origin",
    "destination_address": "route.field.destination_address",
    "destination_name": "route.field.destination_name",
    "destination": "route.field.destination",
    "round_trip": "route.field.round_trip",
    "exact_legs": "route.field.exact_legs",
    "max_permutations": "route.field.max_permutations",
    "route_strategy": "route.field.route_strategy",
    "transport_mode": "route.field.transport_mode",
    "deep_link_mode": "route.field.deep_link_mode",
    "provider": "route.field.provider",
    "region": "route.field.region",
    "task_name": "route.field.task_name",
    "need_deep_link": "route.field.need_deep_link",
    "need_html": "route.field.need_html",
}


def field_label(field: str | None, stops: list[Any] | None = None, *, lang: Lang = "en") -> str:
    """A human name for an error's field in ``lang``: ``stops.2`` → ``Stop 3 ('name')``. ``stops`` are the
    request's stops (dicts with name/address) or their names."""
    if not field:
        return t("route.field.input", lang)
    parts = field.split(".")
    if parts[0] == "stops" and len(parts) > 1 and parts[1].isdigit():
        i = int(parts[1])
        name = ""
        if stops and 0 <= i < len(stops):
            stop = stops[i]
            name = (stop.get("name") or stop.get("address") or "") if isinstance(stop, Mapping) else str(stop or "")
        label = t("route.field.stop_named" if name else "route.field.stop", lang, n=i + 1, name=name)
        if len(parts) > 2:
            label += " · " + field_label(f"stop_{parts[2]}" if parts[2] in ("name", "address") else parts[2], lang=lang)
        return label
    key = FIELD_LABELS.get(field) or STOP_FIELD_LABELS.get(field)
    return t(key, lang) if key else field


STOP_FIELD_LABELS = {"stop_name": "route.field.stop_name", "stop_address": "route.field.stop_address"}


def error_words(error: Mapping[str, Any], *, lang: Lang = "en") -> str:
    """A plan error (what ``ERRORS`` keeps: code, field, message, stop names) as a sentence in ``lang``, from its
    code and field; the core's own message is shown in the error's details."""
    code, field = error.get("code"), error.get("field") or ""
    label = field_label(field, error.get("stop_names"), lang=lang)
    head = field.split(".")[0]
    if code == "UNRESOLVED_POINT":
        facts = error.get("facts") or {}
        if facts.get("not_found") and facts.get("coverage"):
            return not_found_words(facts, error.get("stop_names"), lang=lang)
        return t("route.error.unresolved", lang, label=label)
    if code == "AMBIGUOUS_PLACE":
        return t("route.error.ambiguous", lang, label=label)
    if str(code).startswith("PROVIDER") or code in ("ROUTE_NOT_FOUND", "OUTSIDE_COVERAGE"):
        return t("route.error.provider", lang)
    if code != "INVALID_INPUT":
        return t("route.error.other", lang, label=label)
    if field == "stops":
        count = len(error.get("stop_names") or [])
        return t("route.error.too_many_stops" if count else "route.error.no_stops", lang, count=count)
    if head == "stops":
        return t("route.error.stop_is_destination", lang, label=label)
    known = {
        "destination_address": "route.error.no_destination",
        "origin_address": "route.error.no_origin",
        "origin_lat": "route.error.both_coordinates",
        "origin_lon": "route.error.both_coordinates",
        "round_trip": "route.error.round_trip_fixed",
    }
    return t(known[field], lang) if field in known else t("route.error.other", lang, label=label)


def not_found_words(facts: Mapping[str, Any], stops: list[Any] | None, *, lang: Lang) -> str:
    """Every place not found in one answer, where a gazetteer knows those outside the map data to be, and what the
    map data covers (the core's facts: core/route/elsewhere.py)."""
    cover = facts["coverage"]
    region = coverage_name(facts, lang)
    sep = "、" if lang == "zh" else ", "
    typed = facts.get("inputs") or {}
    quoted = "(“{}”)" if lang == "zh" else " ('{}')"
    labels = sep.join(
        field_label(f, stops, lang=lang) + ("" if f.startswith("stops.") or f not in typed else quoted.format(typed[f]))
        for f in facts["not_found"]
    )
    said = unresolved_sentences(facts, labels, lang)
    west, south, east, north = cover["bbox"]
    said.append(
        t(
            "route.error.unresolved_coverage",
            lang,
            region=region,
            west=f"{west:.3f}",
            east=f"{east:.3f}",
            south=f"{south:.3f}",
            north=f"{north:.3f}",
            width=cover["width_km"],
            height=cover["height_km"],
        )
    )
    return (" " if lang == "en" else "").join(said)


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


def _error_words(error: Mapping[str, Any]) -> str:
    return error_words(error, lang=current_lang())


#: The form's last plan error, shown beside the section it concerns (fields are the request's own names).
ERRORS = FormErrors(state_key=ERROR, label=field_label, section=error_section, words=_error_words)


#: the heading of each form section an error can be shown beside
SECTION_TITLES = {
    "origin": "route.page.start",
    "destination": "route.page.destination",
    "stops": "route.page.stops",
    "options": "route.page.options",
}


def error_pointer(error: Mapping[str, Any] | None, *, lang: Lang) -> str | None:
    """The line under the Plan button when the plan's error is shown beside a section further up: a person who
    clicked Plan looks there, not at the form above, and would otherwise see nothing happen."""
    section = (error or {}).get("section")
    if section not in SECTION_TITLES:
        return None
    # a "which one?" question is a choice to make, not a fault
    key = "route.error.choose_above" if (error or {}).get("code") == "AMBIGUOUS_PLACE" else "route.error.see_above"
    return t(key, lang, section=t(SECTION_TITLES[section], lang))
