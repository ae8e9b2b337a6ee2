"""Contracts of the multi-day itinerary optimiser: the request and its edits (docs/ARCHITECTURE.md).

Times on the wire are local wall-clock times of the region (``HH:MM`` for a day's bounds,
ISO datetimes with the region's UTC offset on the timeline). Inside the optimiser every time
is an integer number of minutes from local midnight of the trip's first day; that integer
scale is what OR-Tools sees and what the critic re-checks.

Every number that came from somewhere carries its ``source`` (``offline_estimate``, ``amap``,
``opening_hours``, ``settings`` ...).
"""

from __future__ import annotations

import re
from datetime import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.errors import InputError
from core.models.common import REGION_NAME_PATTERN, CleanStr, PlaceName, PlanDate, Priority, TravelMode, echo

MAX_TRIP_DAYS = 14
MAX_TRIP_PLACES = 120
# Robust minutes of a pair the provider cannot answer (AMap returns inf, e.g. walking > 5 km): far
# beyond any trip's horizon, so no schedule can use the leg, but still an integer for OR-Tools.
UNREACHABLE_MIN = 1_000_000

Pacing = Literal["relaxed", "normal", "tight"]
EntryKind = Literal["travel", "visit", "lunch", "wait"]
PlanStatus = Literal["ready", "infeasible", "needs_review"]
PlanVariant = Literal["per_day", "multi_vehicle"]
#: A place visited as a meal: lunch in the trip's lunch window (it is that day's lunch), dinner in the settings'
#: dinner window (core/config.py itinerary_dinner_window_*).
Meal = Literal["lunch", "dinner"]

# Why a stop is not on the plan. Ordered from "hopeless on that day" to "a choice we made".
DropReason = Literal[
    "CLOSED_ON_DAY",  # the place is closed on every trip day it may go on
    "OUTSIDE_OPENING_HOURS",  # open, but no opening interval inside the day's bounds is long enough for the visit
    "UNREACHABLE_IN_WINDOW",  # open long enough, but the start/end place cannot reach it in time (robust travel)
    "PAST_DAY_END",  # locked to a start time that leaves no room for the visit and the way back before the day's end
    "BEFORE_DAY_START",  # locked to a start time before the day's start
    "LUNCH_CONFLICT",  # reachable and open on its own, but no schedule fits it around the day's lunch break
    "MEAL_TIME_CLOSED",  # a meal stop: open that day, but not at its meal's time (or the day does not reach it)
    "LUNCH_TAKEN",  # a lunch meal that fits the day alone, but the day's lunch is another lunch meal (facts name it)
    "DAY_TOO_FULL",  # fits the day alone, but not together with that day's must-visits
    "LOW_PRIORITY_TRADEOFF",  # fits with the must-visits; left out for higher-priority or cheaper stops
    "REMOVED_BY_USER",  # a user edit removed it
]
DROP_REASONS: tuple[str, ...] = (
    "CLOSED_ON_DAY",
    "OUTSIDE_OPENING_HOURS",
    "UNREACHABLE_IN_WINDOW",
    "PAST_DAY_END",
    "BEFORE_DAY_START",
    "LUNCH_CONFLICT",
    "MEAL_TIME_CLOSED",
    "LUNCH_TAKEN",
    "DAY_TOO_FULL",
    "LOW_PRIORITY_TRADEOFF",
    "REMOVED_BY_USER",
)

_EXPLAIN = {
    "CLOSED_ON_DAY": "closed on {days}",
    "OUTSIDE_OPENING_HOURS": "open on {days}, but never long enough inside the day's hours for a {visit}-minute visit",
    "UNREACHABLE_IN_WINDOW": "cannot be reached and left in time while it is open (robust travel, start/end place)",
    "PAST_DAY_END": "a {visit}-minute visit from {start}, with the way to the day's end place, does not fit before "
    "the day ends at {day_end}",
    "BEFORE_DAY_START": "{start} is before the day starts at {day_start}",
    "LUNCH_CONFLICT": "open and reachable on {days}, but it cannot fit around the {lunch}-minute lunch break "
    "({window})",
    "MEAL_TIME_CLOSED": "open on {days}, but not for {meal} ({meal_window}) within the day's hours",
    "LUNCH_TAKEN": "a lunch, but that day's lunch is already {lunch_place}",
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


_HHMM = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$")


def _parse_hhmm(value: Any) -> Any:
    """A local wall-clock time: ``"HH:MM"`` (or ``HH:MM:SS``) or a naive ``time``. Numbers and times with a UTC
    offset are refused: the trip's times are local to its region, and an offset would make them incomparable."""
    if value is None:
        return value
    if isinstance(value, time):
        if value.tzinfo is not None:
            raise ValueError("give a local time of day (HH:MM) without a UTC offset")
        return value
    if not isinstance(value, str):
        raise ValueError(f"'{echo(value)}' is not a time of day (HH:MM)")
    m = _HHMM.match(value)
    if not m:
        raise ValueError(f"'{echo(value)}' is not a time of day (HH:MM)")
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if (hour, minute, second) in {(24, 0, 0)}:
        return time(23, 59)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"'{echo(value)}' is not a time of day (HH:MM)")
    return time(hour, minute, second)


Clock = Annotated[time, Field(description="Local wall-clock time, HH:MM")]


# ----------------------------------------------------------------------------------------------
# Request
# ----------------------------------------------------------------------------------------------
class PlaceRef(BaseModel):
    """A region-pack reference (``place_id``) or a resolved point (``lon``/``lat``, WGS-84)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    place_id: str | None = Field(default=None, max_length=80)
    name: PlaceName | None = None
    lon: float | None = Field(default=None, ge=-180, le=180, allow_inf_nan=False)
    lat: float | None = Field(default=None, ge=-90, le=90, allow_inf_nan=False)

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
    date: PlanDate
    start_time: Clock = time(10, 0)
    end_time: Clock = time(22, 0)
    start_place: PlaceRef | None = Field(default=None, description="Where the day starts (hotel); default: trip hotel")
    end_place: PlaceRef | None = Field(default=None, description="Where the day ends; default: the day's start place")

    _hhmm = field_validator("start_time", "end_time", mode="before")(_parse_hhmm)

    @model_validator(mode="after")
    def _ordered(self) -> TripDay:
        if self.end_time <= self.start_time:
            raise InputError(
                f"day {self.date}: the day ends at {self.end_time:%H:%M}, before it starts at {self.start_time:%H:%M}: "
                "the end time must be later",
                field="end_time",
            )
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

    key: str | None = Field(default=None, max_length=80, description="Unique id in this trip; default: place_id")
    place_id: str | None = Field(default=None, max_length=80)
    name: PlaceName | None = None
    lon: float | None = Field(default=None, ge=-180, le=180, allow_inf_nan=False)
    lat: float | None = Field(default=None, ge=-90, le=90, allow_inf_nan=False)
    visit_minutes: int | None = Field(default=None, ge=1, le=720, description="Default: the pack's, else settings")
    priority: Priority = "should"
    opening_hours: CleanStr | None = Field(
        default=None, max_length=500, description="OSM syntax; default: the pack's (none = always open)"
    )
    fixed_day: int | None = Field(default=None, ge=0, description="Hard node: 0-based day index it must go on")
    fixed_start: Clock | None = Field(default=None, description="Hard node: the visit starts exactly then")
    meal: Meal | None = Field(
        default=None,
        description="The visit is this meal: lunch begins in the trip's lunch window and is that day's lunch (no "
        "separate lunch break); dinner begins in the dinner window (settings: itinerary_dinner_window_*). Either "
        "begins early enough for the trip's lunch length (or the visit, when shorter) before its window closes.",
    )

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

    trip_name: CleanStr = Field(default="trip", max_length=120)
    region: str | None = Field(default=None, max_length=63, description="Region pack name; default: the provider's")
    timezone: str | None = Field(default=None, max_length=64, description="IANA zone; default: the region pack's")
    hotel: PlaceRef | None = Field(default=None, description="Default start/end place of every day")
    days: list[TripDay] = Field(min_length=1, max_length=MAX_TRIP_DAYS)
    lunch: LunchPolicy = Field(default_factory=LunchPolicy)
    pacing: Pacing = "normal"
    mode: TravelMode = "driving"
    places: list[TripPlace] = Field(min_length=1, max_length=MAX_TRIP_PLACES)

    @field_validator("region")
    @classmethod
    def _region_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(REGION_NAME_PATTERN, value):
            raise InputError(
                f"'{echo(value)}' is not a region name (a short lowercase name such as shanghai)", field="region"
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(value)
        except (ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError; bad paths are ValueError
            raise InputError(
                f"unknown time zone '{value}' (use an IANA name such as Asia/Shanghai)", field="timezone"
            ) from None
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
                    f"'{place.name or place.key}' is fixed to day {place.fixed_day + 1}, but the trip has "
                    f"{len(self.days)} day(s)",
                    field=f"places.{i}.fixed_day",
                )
        return self

    def day_start_place(self, index: int) -> PlaceRef:
        place = self.days[index].start_place or self.hotel
        assert place is not None, "validation gives every day a start place or the trip a hotel"
        return place

    def day_end_place(self, index: int) -> PlaceRef:
        return self.days[index].end_place or self.day_start_place(index)

    def place(self, key: str) -> TripPlace | None:
        return next((p for p in self.places if p.key == key), None)


# ----------------------------------------------------------------------------------------------
# User edits (then ``core.itinerary.edits.reoptimize``)
# ----------------------------------------------------------------------------------------------
class LockEdit(BaseModel):
    """Lock a stop to a day and/or a start time (it becomes a hard node)."""

    kind: Literal["lock"] = "lock"
    key: str = Field(max_length=80)
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
    key: str = Field(max_length=80)
    day_index: int = Field(ge=0)


class RemoveEdit(BaseModel):
    kind: Literal["remove"] = "remove"
    key: str = Field(max_length=80)


class UnlockEdit(BaseModel):
    kind: Literal["unlock"] = "unlock"
    key: str = Field(max_length=80)


class AddEdit(BaseModel):
    """Add a place; with ``day_index`` to that day of the plan on screen (it stays on that day), at ``position``
    (0-based among the day's visits) or where it costs least."""

    kind: Literal["add"] = "add"
    place: TripPlace
    day_index: int | None = Field(default=None, ge=0)
    position: int | None = Field(default=None, ge=0)


class ReorderEdit(BaseModel):
    """Put a stop at ``position`` (0-based among the day's visits) of its day, or of ``day_index`` (a move to that
    position); the stop stays on that day, the other stops keep their order."""

    kind: Literal["reorder"] = "reorder"
    key: str = Field(max_length=80)
    position: int = Field(ge=0)
    day_index: int | None = Field(default=None, ge=0)


UserEdit = Annotated[LockEdit | MoveEdit | RemoveEdit | UnlockEdit | AddEdit | ReorderEdit, Field(discriminator="kind")]
