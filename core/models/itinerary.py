"""Contracts of the multi-day itinerary optimiser (tech spec §1.2, §3-§5, §10).

Times on the wire are local wall-clock times of the region (``HH:MM`` for a day's bounds,
ISO datetimes with the region's UTC offset on the timeline). Inside the optimiser every time
is an integer number of minutes from local midnight of the trip's first day; that integer
scale is what OR-Tools sees and what the critic re-checks.

Every number that came from somewhere carries its ``source`` (``offline_estimate``, ``amap``,
``opening_hours``, ``settings`` ...).
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime, time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.errors import InputError
from core.geo.base import TravelMode

MAX_TRIP_DAYS = 14
MAX_TRIP_PLACES = 120
# Robust minutes of a pair the provider cannot answer (AMap returns inf, e.g. walking > 5 km): far
# beyond any trip's horizon, so no schedule can use the leg, but still an integer for OR-Tools.
UNREACHABLE_MIN = 1_000_000

Priority = Literal["must", "should", "nice"]
Pacing = Literal["relaxed", "normal", "tight"]
EntryKind = Literal["travel", "visit", "lunch", "wait"]
PlanStatus = Literal["ready", "infeasible", "needs_review"]
PlanVariant = Literal["per_day", "multi_vehicle"]

# Why a stop is not on the plan. Ordered from "hopeless on that day" to "a choice we made".
DropReason = Literal[
    "CLOSED_ON_DAY",  # the place is closed on every trip day it may go on
    "OUTSIDE_OPENING_HOURS",  # open, but no opening interval inside the day's bounds is long enough for the visit
    "UNREACHABLE_IN_WINDOW",  # open long enough, but the start/end place cannot reach it in time (robust travel)
    "LUNCH_CONFLICT",  # reachable and open on its own, but no schedule fits it around the day's lunch break
    "DAY_TOO_FULL",  # fits the day alone, but not together with that day's must-visits
    "LOW_PRIORITY_TRADEOFF",  # fits with the must-visits; left out for higher-priority or cheaper stops
    "REMOVED_BY_USER",  # a user edit removed it
]
DROP_REASONS: tuple[str, ...] = (
    "CLOSED_ON_DAY",
    "OUTSIDE_OPENING_HOURS",
    "UNREACHABLE_IN_WINDOW",
    "LUNCH_CONFLICT",
    "DAY_TOO_FULL",
    "LOW_PRIORITY_TRADEOFF",
    "REMOVED_BY_USER",
)

_EXPLAIN = {
    "CLOSED_ON_DAY": "closed on {days}",
    "OUTSIDE_OPENING_HOURS": "open on {days}, but never long enough inside the day's hours for a {visit}-minute visit",
    "UNREACHABLE_IN_WINDOW": "cannot be reached and left in time while it is open (robust travel, start/end place)",
    "LUNCH_CONFLICT": "open and reachable on {days}, but it cannot fit around the {lunch}-minute lunch break "
    "({window})",
    "DAY_TOO_FULL": "fits a day on its own, but not together with that day's must-visits and locked stops",
    "LOW_PRIORITY_TRADEOFF": "fits, but was left out in favour of higher-priority or better-placed stops",
    "REMOVED_BY_USER": "removed by your edit",
}


def explain_reason(code: str, **facts: Any) -> str:
    """A plain sentence for a reason code, filled with facts (never free text from a model)."""
    template = _EXPLAIN.get(code, code)
    try:
        return template.format(**facts)
    except (KeyError, IndexError):
        return template


def _parse_hhmm(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text in {"24:00", "24:00:00"}:
            return time(23, 59)
        try:
            return time.fromisoformat(text)
        except ValueError:
            raise ValueError(f"'{value}' is not a time of day (HH:MM)") from None
    return value


Clock = Annotated[time, Field(description="Local wall-clock time, HH:MM")]


# ----------------------------------------------------------------------------------------------
# Request
# ----------------------------------------------------------------------------------------------
class PlaceRef(BaseModel):
    """A region-pack reference (``place_id``) or a resolved point (``lon``/``lat``, WGS-84)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    place_id: str | None = None
    name: str | None = None
    lon: float | None = Field(default=None, ge=-180, le=180)
    lat: float | None = Field(default=None, ge=-90, le=90)

    @model_validator(mode="after")
    def _reference_or_point(self) -> PlaceRef:
        if (self.lon is None) != (self.lat is None):
            raise InputError("a resolved point needs both lon and lat", field="lat")
        if not self.place_id and self.lon is None:
            raise InputError("a place needs a region-pack place_id or lon/lat", field="place_id")
        return self

    def label(self) -> str:
        return self.name or self.place_id or f"{self.lon:.5f},{self.lat:.5f}"


class TripDay(BaseModel):
    date: Date
    start_time: Clock = time(10, 0)
    end_time: Clock = time(22, 0)
    start_place: PlaceRef | None = Field(default=None, description="Where the day starts (hotel); default: trip hotel")
    end_place: PlaceRef | None = Field(default=None, description="Where the day ends; default: the day's start place")

    _hhmm = field_validator("start_time", "end_time", mode="before")(_parse_hhmm)

    @model_validator(mode="after")
    def _ordered(self) -> TripDay:
        if self.end_time <= self.start_time:
            raise InputError(f"day {self.date}: end_time must be after start_time", field="end_time")
        return self


class LunchPolicy(BaseModel):
    enabled: bool = True
    window_start: Clock = time(11, 30)
    window_end: Clock = time(13, 30)
    duration_min: int = Field(default=60, ge=10, le=180)
    on_site: bool = Field(
        default=True,
        description="A long visit (settings: itinerary_lunch_on_site_min_visit_min) may host the lunch on site",
    )

    _hhmm = field_validator("window_start", "window_end", mode="before")(_parse_hhmm)

    @model_validator(mode="after")
    def _fits(self) -> LunchPolicy:
        span = (self.window_end.hour * 60 + self.window_end.minute) - (
            self.window_start.hour * 60 + self.window_start.minute
        )
        if span < self.duration_min:
            raise InputError("the lunch window is shorter than the lunch itself", field="lunch.window_end")
        return self


class TripPlace(BaseModel):
    """A place to visit. ``key`` identifies it in the result, edits and the decision log."""

    model_config = ConfigDict(str_strip_whitespace=True)

    key: str | None = Field(default=None, description="Unique id in this trip; default: place_id")
    place_id: str | None = None
    name: str | None = None
    lon: float | None = Field(default=None, ge=-180, le=180)
    lat: float | None = Field(default=None, ge=-90, le=90)
    visit_minutes: int | None = Field(default=None, ge=1, le=720, description="Default: the pack's, else settings")
    priority: Priority = "should"
    opening_hours: str | None = Field(default=None, description="OSM syntax; default: the pack's (none = always open)")
    fixed_day: int | None = Field(default=None, ge=0, description="Hard node: 0-based day index it must go on")
    fixed_start: Clock | None = Field(default=None, description="Hard node: the visit starts exactly then")

    _hhmm = field_validator("fixed_start", mode="before")(_parse_hhmm)

    @model_validator(mode="after")
    def _identity(self) -> TripPlace:
        if (self.lon is None) != (self.lat is None):
            raise InputError("a resolved point needs both lon and lat", field="lat")
        if not self.place_id and self.lon is None:
            raise InputError("each place needs a region-pack place_id or lon/lat", field="place_id")
        if not self.key:
            self.key = self.place_id or self.name or f"{self.lon:.5f},{self.lat:.5f}"
        return self

    @property
    def is_hard(self) -> bool:
        return self.fixed_day is not None or self.fixed_start is not None


class TripRequest(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)

    trip_name: str = "trip"
    region: str | None = Field(default=None, description="Region pack; default: the provider's")
    timezone: str | None = Field(default=None, description="IANA zone; default: the region pack's")
    hotel: PlaceRef | None = Field(default=None, description="Default start/end place of every day")
    days: list[TripDay] = Field(min_length=1, max_length=MAX_TRIP_DAYS)
    lunch: LunchPolicy = Field(default_factory=LunchPolicy)
    pacing: Pacing = "normal"
    mode: TravelMode = "driving"
    places: list[TripPlace] = Field(min_length=1, max_length=MAX_TRIP_PLACES)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(value)
        except (ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError; bad paths are ValueError
            raise InputError(f"unknown time zone '{value}' (use an IANA name such as Asia/Shanghai)",
                             field="timezone") from None
        return value

    @model_validator(mode="after")
    def _rules(self) -> TripRequest:
        dates = [d.date for d in self.days]
        if len(set(dates)) != len(dates):
            raise InputError("two trip days share a date", field="days")
        if dates != sorted(dates):
            raise InputError("trip days must be in date order", field="days")
        for i, day in enumerate(self.days):
            if day.start_place is None and self.hotel is None:
                raise InputError(f"day {i + 1} has no start place; set hotel or days.{i}.start_place", field="hotel")
        seen: set[str] = set()
        for i, place in enumerate(self.places):
            if place.key in seen:
                raise InputError(f"two places share the key '{place.key}'", field=f"places.{i}.key")
            seen.add(place.key or "")
            if place.fixed_day is not None and place.fixed_day >= len(self.days):
                raise InputError(
                    f"place '{place.key}' is fixed to day index {place.fixed_day}, but the trip has "
                    f"{len(self.days)} day(s)",
                    field=f"places.{i}.fixed_day",
                )
        return self

    def day_start_place(self, index: int) -> PlaceRef:
        return self.days[index].start_place or self.hotel  # type: ignore[return-value]

    def day_end_place(self, index: int) -> PlaceRef:
        return self.days[index].end_place or self.day_start_place(index)

    def place(self, key: str) -> TripPlace | None:
        return next((p for p in self.places if p.key == key), None)


# ----------------------------------------------------------------------------------------------
# User edits (then ``core.itinerary.planner.reoptimize``)
# ----------------------------------------------------------------------------------------------
class LockEdit(BaseModel):
    """Lock a stop to a day and/or a start time (it becomes a hard node)."""

    kind: Literal["lock"] = "lock"
    key: str
    day_index: int | None = Field(default=None, ge=0)
    start_time: Clock | None = None

    _hhmm = field_validator("start_time", mode="before")(_parse_hhmm)

    @model_validator(mode="after")
    def _something(self) -> LockEdit:
        if self.day_index is None and self.start_time is None:
            raise InputError("a lock needs a day_index or a start_time", field="day_index")
        return self


class MoveEdit(BaseModel):
    """Move a stop to another day (locks it there; a time lock on it is released)."""

    kind: Literal["move"] = "move"
    key: str
    day_index: int = Field(ge=0)


class RemoveEdit(BaseModel):
    kind: Literal["remove"] = "remove"
    key: str


class UnlockEdit(BaseModel):
    kind: Literal["unlock"] = "unlock"
    key: str


class AddEdit(BaseModel):
    kind: Literal["add"] = "add"
    place: TripPlace


UserEdit = Annotated[LockEdit | MoveEdit | RemoveEdit | UnlockEdit | AddEdit, Field(discriminator="kind")]


# ----------------------------------------------------------------------------------------------
# Intermediate typed steps (Action Registry inputs/outputs)
# ----------------------------------------------------------------------------------------------
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
class TimelineEntry(BaseModel):
    """One step of a day. The day is a chain: each entry's ``arrival`` is the previous ``departure``.

    - travel: start = leave, end = arrive; duration = ``robust_min`` (feasibility uses robust time);
      ``nominal_min`` is what the provider said.
    - visit / lunch: arrival <= start <= end <= departure; start - arrival is a short implicit wait
      (<= the explicit-wait threshold, else a ``wait`` entry is shown).
    - wait: an explicit wait (e.g. for opening time or the lunch window).
    - a long visit may host the lunch on site: visit (part 1), lunch at the same place, visit (part 2).

    ``slack_min``: how many minutes this entry could start later without breaking any later time
    window, the lunch window or the day's end (latest start - planned start).
    """

    kind: EntryKind
    key: str | None = Field(default=None, description="Trip place key (visit), anchor key, or None")
    name: str
    arrival: datetime
    start: datetime
    end: datetime
    departure: datetime
    slack_min: int = 0
    from_key: str | None = None
    to_key: str | None = None
    nominal_min: float | None = Field(default=None, description="travel: the provider's time, minutes")
    nominal_s: float | None = None
    robust_min: int | None = Field(default=None, description="travel: nominal x factor + buffer, minutes")
    distance_m: float | None = None
    source: str | None = Field(default=None, description="travel: matrix source; visit: opening-hours source")
    priority: Priority | None = None
    opening_windows: list[tuple[datetime, datetime]] = Field(
        default_factory=list, description="visit: the place's opening intervals that day"
    )
    lon: float | None = None
    lat: float | None = None
    locked: bool = False
    part: int | None = Field(
        default=None,
        description="visit split by a lunch on site: 1 = before the lunch, 2 = after it (None = whole visit)",
    )

    @property
    def continues_visit(self) -> bool:
        """The second part of a visit split by a lunch on site (not a visit of its own)."""
        return self.kind == "visit" and self.part == 2

    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)


class DayTotals(BaseModel):
    visits: int = 0
    visit_min: int = 0
    travel_nominal_min: float = 0.0
    travel_robust_min: int = 0
    wait_min: int = 0
    lunch_min: int = 0
    distance_m: float = 0.0
    span_min: int = Field(default=0, description="First departure to last arrival")


class DayTimeline(BaseModel):
    day_index: int
    date: Date
    day_start: datetime
    day_end: datetime
    start_key: str
    end_key: str
    lunch_required: bool
    entries: list[TimelineEntry]
    totals: DayTotals


class SmallestFix(BaseModel):
    kind: Literal["extend_day_end", "start_day_earlier", "drop_stop", "shorten_visit"]
    day_index: int | None = None
    minutes: int | None = None
    drop_key: str | None = None
    description: str
    facts: dict[str, Any] = Field(default_factory=dict)


class DroppedItem(BaseModel):
    key: str
    name: str
    priority: Priority
    reason_code: str
    explanation: str
    per_day_reasons: dict[int, str] = Field(default_factory=dict, description="Reason code for each trip day")
    smallest_fix: SmallestFix | None = None
    facts: dict[str, Any] = Field(default_factory=dict)


class ItineraryTotals(BaseModel):
    days: int
    places_requested: int
    visits: int
    dropped: int
    must_dropped: int
    visit_min: int
    travel_nominal_min: float
    travel_robust_min: int
    wait_min: int
    lunch_min: int
    distance_m: float


class RobustnessScore(BaseModel):
    """Mean over travel legs of min(1, slack after the leg / (tolerance x robust leg minutes)).

    A leg scores 1 when the rest of its day could absorb the leg taking ``tolerance`` (e.g. 50 %)
    longer than even its robust time without breaking a window, lunch or the day's end. 0 means
    any extra delay breaks something.
    """

    score: float = Field(ge=0, le=1)
    tolerance: float
    legs: int
    legs_fully_covered: int
    min_slack_min: int | None
    mean_slack_min: float | None
    definition: str = "mean over legs of min(1, slack_after_leg / (tolerance x robust_leg_min))"


class DecisionLogEntry(BaseModel):
    step: int
    action: str
    reason_code: str
    facts: dict[str, Any] = Field(default_factory=dict)


class Violation(BaseModel):
    code: str
    message: str
    day_index: int | None = None
    entry_index: int | None = None
    key: str | None = None


class CriticReport(BaseModel):
    passed: bool
    violations: list[Violation] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)

    def codes(self) -> set[str]:
        return {v.code for v in self.violations}


class VariantMeasure(BaseModel):
    variant: PlanVariant
    seconds: float
    must_dropped: int
    dropped_penalty: int
    visits: int
    travel_robust_min: int
    wait_min: int
    chosen: bool = False


class ItineraryResult(BaseModel):
    status: PlanStatus
    error_code: str | None = Field(default=None, description="PLANNER_INFEASIBLE_HARD_NODES when a must cannot fit")
    trip_name: str
    timezone: str
    mode: TravelMode
    pacing: Pacing
    policy: RobustnessPolicy
    lunch: LunchPolicy
    days: list[DayTimeline]
    dropped_items: list[DroppedItem]
    totals: ItineraryTotals
    robustness: RobustnessScore
    decision_log: list[DecisionLogEntry]
    variants: list[VariantMeasure] = Field(default_factory=list)
    variant: PlanVariant
    critic: CriticReport | None = None
    matrix_source: str
    warnings: list[str] = Field(default_factory=list)
    request: TripRequest
    seconds: float = 0.0
