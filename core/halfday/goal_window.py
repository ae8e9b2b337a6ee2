"""A window given beside the goal (``HalfDayRequest.window``, a quick answer to "when?"): resolved against the
request's now, and put into stage 1's reading in place of any time the text says, so the goal's words stay as the
person wrote them.

A window is a named choice or a whole one (date, start, end). A named choice (``this_afternoon``,
``tomorrow_morning``, ``saturday_afternoon``) is a day and a part of the day with the part's default hours
(goal_lexicon.PART_HOURS); "Saturday" is the next one, today on a Saturday, as in the goal's words. Against now a
window settles as the rules settle one read from text (goal.settle_start): over is ``time_window_past``, begun starts
now (rounded up to the quarter hour); a whole window that ends before it starts is ``time_window_invalid``.
``offered_choices`` lists the choices a face may offer at a moment: those with at least ``MIN_OFFERED_MINUTES``
still ahead (at 20:00 "this afternoon" is not one).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from core.halfday.goal import settle_start
from core.halfday.goal_lexicon import PART_HOURS
from core.models.common import EARLIEST_PLAN_DATE, LATEST_PLAN_DATE
from core.models.halfday.goal import (
    WINDOW_CHOICES,
    DecomposedGoal,
    NamedWindow,
    RequestWindow,
    TimeWindow,
    WindowChoice,
)

#: a quick choice is offered only with this much of it still ahead
MIN_OFFERED_MINUTES = 60
#: the assumptions about who goes; every other assumption is about the window, replaced by a given one
PARTY_ASSUMPTIONS: frozenset[str] = frozenset({"party_default_one_adult", "child_age_unknown"})


def _minutes(t: time) -> int:
    return t.hour * 60 + t.minute


def choice_day_and_part(choice: WindowChoice, today: date) -> tuple[date, str]:
    """The day and the part of the day (a PART_HOURS key) a named choice means, seen from ``today``."""
    if choice == "this_afternoon":
        return today, "afternoon"
    if choice == "tomorrow_morning":
        return today + timedelta(days=1), "morning"
    return today + timedelta(days=(5 - today.weekday()) % 7), "afternoon"  # saturday_afternoon


def resolve_window(window: RequestWindow, now: datetime) -> tuple[TimeWindow | None, list[str]]:
    """The window on the region's clock at ``now`` (a local, aware moment) and what was assumed for it (codes); or
    None and what is missing (``time_window_invalid``: it ends before it starts or is on a day no plan covers;
    ``time_window_past``: it is over)."""
    assumed: list[str] = []
    if isinstance(window, NamedWindow):
        day, part = choice_day_and_part(window.choice, now.date())
        start, end = PART_HOURS[part]
        assumed.append("part_of_day_default_hours")
    else:
        day, start, end = window.date, window.start, window.end
        if end <= start or not EARLIEST_PLAN_DATE <= day <= LATEST_PLAN_DATE:
            return None, ["time_window_invalid"]
    settled = settle_start(day, _minutes(start), _minutes(end), now=now)
    if settled is None:
        return None, ["time_window_past"]
    if settled != _minutes(start):
        assumed.append("start_moved_to_now")
    return TimeWindow(date=day, start=time(settled // 60, settled % 60), end=end), assumed


def apply_window(goal: DecomposedGoal, window: RequestWindow | None, now: datetime) -> DecomposedGoal:
    """Stage 1's reading with the given window in place of the one read from the text (and of what the text's
    time was missing or assumed); the goal unchanged when no window is given."""
    if window is None:
        return goal
    resolved, codes = resolve_window(window, now)
    kept = [a for a in goal.assumed if a in PARTY_ASSUMPTIONS]
    if resolved is None:
        return goal.model_copy(update={"window": None, "missing": codes, "assumed": kept})
    return goal.model_copy(update={"window": resolved, "missing": [], "assumed": codes + kept})


def offered_choices(now: datetime) -> list[WindowChoice]:
    """The named choices worth offering at ``now``: those with at least MIN_OFFERED_MINUTES still ahead."""
    out: list[WindowChoice] = []
    for choice in WINDOW_CHOICES:
        resolved, _ = resolve_window(NamedWindow(choice=choice), now)
        if resolved is not None and resolved.minutes >= MIN_OFFERED_MINUTES:
            out.append(choice)
    return out
