"""The words of the day's window an agent plan used (issue 31): the hours each day runs, and whether the message set
them or the default holds (and why the words said could not be the window)."""

from __future__ import annotations

from core.i18n import Lang, t
from core.models.agent import TripState


def day_window_sentence(trip: TripState, lang: Lang) -> str:
    """The window of the plan's days and where it came from, in ``lang``; and, for a trip starting today, that its
    first day begins now (or that today's hours are over)."""
    said = _window_sentence(trip, lang)
    window = trip.day_boundaries[0]
    if trip.window_problem == "DAY_OVER":
        return said + " " + t("agent.day_window.day_over", lang, start=window.start, end=window.end)
    if trip.first_day_start:
        return said + " " + t("agent.day_window.starts_now", lang, begins=trip.first_day_start)
    return said


def _window_sentence(trip: TripState, lang: Lang) -> str:
    window = trip.day_boundaries[0]
    facts = {"start": window.start, "end": window.end, "said": trip.window_said or ""}
    if trip.window_source == "message":  # hours said and usable (DAY_OVER: usable, but today's are over)
        return t("agent.day_window.said", lang, **facts)
    if trip.window_problem == "END_NOT_AFTER_START":
        return t("agent.day_window.end_not_after_start", lang, **facts)
    if trip.window_problem == "WINDOW_PAST":
        return t("agent.day_window.past", lang, **facts)
    if trip.window_problem not in (None, "DAY_OVER"):
        return t("agent.day_window.not_a_time", lang, **facts)
    return t("agent.day_window.default", lang, **facts)
