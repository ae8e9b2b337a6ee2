"""What a shared half-day link means when it is opened (issue 22): the window it was made for, or why it can no
longer be planned.

A link keeps its window absolute (core/share.py), so opening it on any later day plans the same day and hours; a
window that is over is ``past`` (the face says so, with the date). A link of the earlier format kept the goal's
words and the day they were read for; it is read once, as it was then: its words from the start of that day, the
day itself kept. When the words name another day from there (a relative word: "明天", "tomorrow"), the day kept
wins and the reading is ``legacy_ambiguous`` (the face says which day and hours it took).
"""

from __future__ import annotations

from datetime import date, datetime, time

from core.halfday.goal import decompose_goal
from core.halfday.goal_window import resolve_window
from core.models.halfday.goal import ExactWindow, LinkNote, LinkReading


def read_link_window(goal: str, *, window: ExactWindow | None, legacy_day: date | None, now: datetime) -> LinkReading:
    """The window of a link opened at ``now`` (an aware moment on the region's clock)."""
    if window is None and legacy_day is not None:
        window, note = _legacy(goal, legacy_day, now)
    else:
        note = "same" if window is not None else "legacy"
    if window is not None and resolve_window(window, now)[0] is None:
        return LinkReading(window=window, note="past")
    return LinkReading(window=window, note=note)


def _legacy(goal: str, day: date, now: datetime) -> tuple[ExactWindow | None, LinkNote]:
    start_of_day = datetime.combine(day, time(0, 0), tzinfo=now.tzinfo)
    read = decompose_goal(goal, now=start_of_day).window
    if read is None:
        return None, "legacy"
    exact = ExactWindow(date=day, start=read.start, end=read.end)
    return exact, "legacy" if read.date == day else "legacy_ambiguous"
