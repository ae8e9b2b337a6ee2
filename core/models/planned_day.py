"""The day a conditional request is about, as the agent judged it (core/agent/planned_day.py reads it from the
message; core/words/branches.py words it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class PlannedDay:
    """The day the request plans: its date, when its plan leaves and when its day ends, and whether the day was said
    (``today``: the message names no later day, so the plan leaves now)."""

    day: date
    leave: datetime
    end: datetime
    today: bool
    start_source: str  # now | message | default
