"""A calendar file's words (issue 31: the core returns codes and facts, the words come from the catalogs): each
event's title and description in ``lang`` from itinerary.po (itinerary.ics.*, itinerary.gantt.*,
itinerary.timeline.travel_*). core/itinerary/ics.py lays the events out and takes these as callables; the use case
(core.app.itinerary.ics) and the itinerary page pass them in the reader's language."""

from __future__ import annotations

from core.i18n import Lang, t
from core.models.common import is_straight_line
from core.models.itinerary_result import TimelineEntry
from core.words.itinerary import PRIORITY_KEYS


def travel_words(entry: TimelineEntry, lang: Lang) -> str:
    """A journey's figures: the minutes the plan reserves, the estimate and the distance ("" for other steps)."""
    if entry.kind != "travel" or entry.robust_min is None:
        return ""
    text = t("itinerary.timeline.travel_planned", lang, minutes=entry.robust_min)
    if entry.nominal_min is not None:
        text += t("itinerary.timeline.travel_estimate", lang, minutes=f"{entry.nominal_min:.0f}")
    if entry.distance_m is not None:
        text += t("itinerary.timeline.travel_km", lang, km=f"{entry.distance_m / 1000:.1f}")
    if is_straight_line(entry.source):
        text += t("itinerary.timeline.travel_straight_line", lang)
    return text


def ics_title(entry: TimelineEntry, lang: Lang) -> str:
    """An event's title: the place (or the lunch break) as named; a journey says it is one."""
    return t("itinerary.ics.travel_title", lang, name=entry.name) if entry.kind == "travel" else entry.name


def ics_description(entry: TimelineEntry, lang: Lang) -> str:
    """A calendar event's description in ``lang``: priority, meal, arrival, spare time and lock of a visit; a
    journey's figures (a straight-line estimate said as one); the lunch break."""
    parts: list[str] = []
    if entry.kind == "visit":
        if entry.priority in PRIORITY_KEYS:
            parts.append(t("itinerary.ics.priority", lang, priority=t(PRIORITY_KEYS[entry.priority], lang)))
        if entry.meal:
            parts.append(t(f"itinerary.ics.meal_{entry.meal}", lang))
        if entry.part:
            parts.append(t("itinerary.gantt.before_lunch" if entry.part == 1 else "itinerary.gantt.after_lunch", lang))
        if entry.start > entry.arrival:
            parts.append(t("itinerary.gantt.arrive", lang, time=f"{entry.arrival:%H:%M}"))
        parts.append(t("itinerary.ics.spare", lang, minutes=entry.slack_min))
        if entry.locked:
            parts.append(t("itinerary.gantt.locked", lang))
    elif entry.kind == "travel":
        parts.append(travel_words(entry, lang))
    elif entry.kind == "lunch":
        parts.append(t("itinerary.ics.lunch", lang))
    return "\n".join(p for p in parts if p)
