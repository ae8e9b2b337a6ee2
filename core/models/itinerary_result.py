"""The itinerary result: day timelines with sources, dropped items with reasons and fixes, totals,
robustness, the critic's report and the decision log."""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from core.models.common import Priority, TravelMode, is_straight_line
from core.models.itinerary import EntryKind, LunchPolicy, Meal, Pacing, PlanStatus, PlanVariant, TripRequest
from core.models.itinerary_problem import RobustnessPolicy


class AnchorPoint(BaseModel):
    """A day's start or end place, as the renderers need it (name and WGS-84 coordinates)."""

    key: str
    name: str
    lon: float
    lat: float


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
    meal: Meal | None = Field(
        default=None, description="visit: the place is this meal (a lunch one is the day's lunch: no lunch entry)"
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
    start_anchor: AnchorPoint | None = None
    end_anchor: AnchorPoint | None = None
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


#: Why the days stay uneven (core/itinerary/balance.py); the faces word each code (itinerary.balance.reason.*).
BalanceReasonCode = Literal[
    "LOCKED_TO_DAY",  # places on the busy day are locked to it (a day or a start time the user set)
    "ONLY_OPEN_THAT_DAY",  # places on the busy day are closed, or not open long enough, on the light day
    "SHORTER_DAY",  # the light day's hours are shorter: nothing more fits in them
    "LIGHT_DAY_FULL",  # the light day has fewer but longer visits: its time is already full
    "REMOTE_CLUSTER",  # the busy day's places are far from the light day's: moving one costs too much travel
    "HOTEL_DISTANCE",  # the light day starts or ends at another place, far from the busy day's places
    "NO_BETTER_SPLIT",  # every place could move, but no move makes the days more even
]


class DayLoad(BaseModel):
    """How full one day is: visits, busy minutes (visits + robust travel) and its free minutes (bounds - lunch)."""

    day_index: int
    visits: int
    busy_min: int
    free_min: int


class BalanceReason(BaseModel):
    """Why ``heavy_day`` keeps more than ``light_day`` (a code and its facts; words at the edge)."""

    code: BalanceReasonCode
    heavy_day: int
    light_day: int
    keys: list[str] = Field(default_factory=list, description="The places the reason is about")
    facts: dict[str, Any] = Field(default_factory=dict)


class DayBalance(BaseModel):
    """How even the days are. Balanced: visit counts differ by at most ``max_visit_spread`` (``busy_spread_min`` is a
    fact beside it, not a second rule). ``moves`` stops were moved between days to get there (no place dropped for it);
    when the days stay uneven, ``reasons`` say why."""

    balanced: bool
    visit_spread: int
    busy_spread_min: int
    max_visit_spread: int
    days: list[DayLoad]
    moves: int = 0
    extra_travel_min: int = Field(default=0, description="Robust travel minutes the balancing moves added")
    reasons: list[BalanceReason] = Field(default_factory=list)


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
    balance: DayBalance | None = Field(default=None, description="How even the days are, and why not when they are not")
    matrix_source: str
    warnings: list[str] = Field(default_factory=list)
    request: TripRequest
    seconds: float = 0.0

    @computed_field(  # type: ignore[prop-decorator]
        description="Every travel figure is a straight-line estimate (distance × detour, time at one speed)"
    )
    @property
    def straight_line_estimate(self) -> bool:
        return is_straight_line(self.matrix_source)

    def day_orders(self) -> list[list[str]]:
        """Each day's visits by place key, in order (a visit split by a lunch on site counted once): the plan's
        shape, as a link carries it."""
        return [[e.key for e in day.entries if e.kind == "visit" and e.key and e.part != 2] for day in self.days]
