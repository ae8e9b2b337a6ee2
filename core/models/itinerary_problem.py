"""The itinerary problem on one integer time scale (minutes from local midnight of the first day) and the
typed intermediate steps of the pipeline (clusters, day plans)."""

from __future__ import annotations

from datetime import date as Date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.models.common import Priority, TravelMode
from core.models.itinerary import UNREACHABLE_MIN, Meal, Pacing, TripRequest


class ItineraryPoint(BaseModel):
    """One point of the time matrix: a stop or a day's start/end place."""

    key: str
    name: str
    lon: float
    lat: float
    role: Literal["stop", "anchor"]
    source: str = Field(description="Where the coordinate came from: offline:<region> or user_input")


class RobustnessPolicy(BaseModel):
    """robust travel minutes = ceil(nominal minutes x factor + buffer_min); visits x visit_factor."""

    mode: TravelMode
    pacing: Pacing
    factor: float = Field(ge=1.0)
    buffer_min: int = Field(ge=0)
    visit_factor: float = Field(gt=0)
    source: str = "settings"

    def robust_minutes(self, nominal_s: float) -> int:
        from math import ceil, isfinite

        if not isfinite(nominal_s):
            return UNREACHABLE_MIN
        if nominal_s <= 0:
            return 0
        # 1e-9 guards float noise so an exact integer does not round up a whole minute.
        return int(ceil(nominal_s / 60.0 * self.factor + self.buffer_min - 1e-9))


class TimeMatrix(BaseModel):
    """Travel between every ordered pair of ``keys``: nominal (provider) and robust (policy)."""

    keys: list[str]
    distances_m: list[list[float]]
    nominal_s: list[list[float]]
    robust_min: list[list[int]] | None = Field(default=None, description="Set by apply_robustness_policy")
    policy: RobustnessPolicy | None = None
    source: str
    mode: TravelMode
    notes: list[str] = Field(default_factory=list)

    def robust(self) -> list[list[int]]:
        """``robust_min``, which every prepared problem's matrix has (apply_robustness_policy sets it)."""
        if self.robust_min is None:
            raise ValueError("the matrix has no robust minutes yet (apply_robustness_policy sets them)")
        return self.robust_min


class MinuteInterval(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: int
    end: int


class ProblemDay(BaseModel):
    """A day in absolute minutes from local midnight of the trip's first day."""

    index: int
    date: Date
    offset_min: int = Field(description="Minutes from the first day's midnight to this day's midnight")
    start_min: int
    end_min: int
    start_key: str
    end_key: str
    lunch_earliest_start: int | None = Field(default=None, description="None: no lunch fits this day")
    lunch_latest_start: int | None = None
    lunch_min: int = 0


class ProblemStop(BaseModel):
    key: str
    name: str
    point_index: int
    visit_min: int = Field(description="Visit length after the pacing factor")
    priority: Priority
    penalty: int = Field(description="Objective cost of leaving it out (0 for must: it is hard)")
    opening_hours: str | None
    opening_source: str
    open_by_day: list[list[MinuteInterval]] = Field(description="Absolute opening intervals per trip day (raw)")
    windows_by_day: list[list[MinuteInterval]] = Field(
        description="Allowed visit START intervals per day: opening ∩ day bounds, ending before closing"
    )
    fixed_day: int | None = None
    fixed_start_min: int | None = None
    lunch_on_site: bool = Field(
        default=False, description="Long visit: lunch may be taken on site, splitting the visit around it"
    )
    meal: Meal | None = Field(default=None, description="The visit is this meal (a lunch one is the day's lunch)")
    meal_starts: MinuteInterval | None = Field(
        default=None,
        description="A meal: its earliest and latest start, minutes from the day's midnight (windows_by_day keep to it)",
    )


class ItineraryProblem(BaseModel):
    """The request resolved: points, robust matrix, days and stops on one integer time scale."""

    request: TripRequest
    timezone: str
    points: list[ItineraryPoint]
    matrix: TimeMatrix
    policy: RobustnessPolicy
    days: list[ProblemDay]
    stops: list[ProblemStop]
    removed_keys: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def stop(self, key: str) -> ProblemStop:
        for s in self.stops:
            if s.key == key:
                return s
        raise KeyError(key)

    def point_index(self, key: str) -> int:
        return self.matrix.keys.index(key)


class DayAssignment(BaseModel):
    day_index: int
    keys: list[str]
    load_min: int = Field(description="Visit minutes + estimated robust travel")
    capacity_min: int


class DayClusters(BaseModel):
    days: list[DayAssignment]
    unassignable: list[str] = Field(default_factory=list, description="Open on no trip day (or locked to a closed one)")
    method: str = "balanced_greedy_capacity"


class DayPlan(BaseModel):
    """One day's chosen stops in order (before the timeline is laid out)."""

    day_index: int
    order: list[str]
    dropped: list[str] = Field(default_factory=list)
    objective: int | None = None
    solver_status: str = ""


# ----------------------------------------------------------------------------------------------
# Result
# ----------------------------------------------------------------------------------------------
