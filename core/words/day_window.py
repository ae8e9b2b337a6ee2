"""The words of the day's window an agent plan used (issue 31): the hours each day runs, and whether the message set
them or the default holds (and why the words said could not be the window)."""

from __future__ import annotations

from core.i18n import Lang, t
from core.models.agent import TripState


def day_window_sentence(trip: TripState, lang: Lang) -> str:
    """One sentence: the window of the plan's days and where it came from, in ``lang``."""
    window = trip.day_boundaries[0]
    facts = {"start": window.start, "end": window.end, "said": trip.window_said or ""}
    if trip.window_source == "message":
        return t("agent.day_window.said", lang, **facts)
    if trip.window_problem == "END_NOT_AFTER_START":
        return t("agent.day_window.end_not_after_start", lang, **facts)
    if trip.window_problem == "WINDOW_PAST":
        return t("agent.day_window.past", lang, **facts)
    if trip.window_problem is not None:
        return t("agent.day_window.not_a_time", lang, **facts)
    return t("agent.day_window.default", lang, **facts)
