"""What an edit of the plan on screen did, as facts (issue 32, X8): the difference to the plan before it, per day and
overall, and, for an edit the day cannot hold, the constraint it breaks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Measure(BaseModel):
    """One side of a difference: robust travel minutes, metres travelled and visits."""

    travel_min: int = 0
    distance_m: float = 0.0
    stops: int = 0


class DayDifference(BaseModel):
    day_index: int
    before: Measure
    after: Measure

    @property
    def changed(self) -> bool:
        return self.before != self.after


class PlanDifference(BaseModel):
    """The plan after an edit against the plan before it: each day and the whole trip (``travel_min`` robust
    minutes as the timelines count them; ``distance_m`` the legs' sources' distances)."""

    days: list[DayDifference] = Field(default_factory=list)
    before: Measure
    after: Measure


#: Why an edit of the plan on screen cannot be kept, the constraint it breaks:
ShapeConflict = Literal[
    "CLOSED_ON_DAY",  # the place is closed that day
    "OUTSIDE_OPENING_HOURS",  # a place (``key``, maybe another than the edited one) is reached after its hours
    "LOCKED_TIME",  # a stop locked to a start time (``key``) can no longer start then
    "LUNCH_WINDOW",  # the day's lunch no longer fits its window
    "LUNCH_TAKEN",  # a lunch meal put on a day whose lunch is another lunch meal (facts ``lunch_key``)
    "MEAL_TIME",  # a meal stop (``key``) cannot begin in its meal's window there (its hours, or reached too late)
    "PAST_DAY_END",  # the day would end after its end time
    "BEFORE_DAY_START",  # a locked start before the day's start
    "DAY_TOO_FULL",  # none of the above alone: the day has no room for it
]


class ShapeRefusal(BaseModel):
    """An edit refused: the constraint (``code``), the place it concerns (``key``), the day and the facts (times as
    HH:MM on the day's clock)."""

    code: ShapeConflict
    key: str
    day_index: int
    facts: dict[str, Any] = Field(default_factory=dict)
