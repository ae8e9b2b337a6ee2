"""Contracts of the half-day planner's stages 2–7 (codes and facts only); its events and result are in events.py.

Every stage is a registered tool (core/halfday/tools.py) whose input and output are these models, validated before
and after each call. Words for people come from core/halfday/messages.py at the edge.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, model_validator

from core.models.common import REGION_NAME_PATTERN, Lang, clean_text, within
from core.models.halfday.facts import (
    CrowdTolerance,
    DroppedPlan,
    OnDegraded,
    PlanIntro,
    RelaxCode,
    StepReason,
)
from core.models.halfday.goal import (
    MAX_GOAL_CHARS,
    Constraints,
    DecomposedGoal,
    Party,
    RequestWindow,
    TimeWindow,
    Wish,
)
from core.models.halfday.weather import WeatherOrigin, WeatherReading
from core.models.region import RegionPlace
from core.models.rules import Rule

DIMENSIONS: tuple[str, ...] = ("T", "D", "P", "C", "S")
#: the product document's default weights (half_day_planner.md, table 2)
DEFAULT_WEIGHTS: dict[str, float] = {"T": 0.25, "D": 0.20, "P": 0.30, "C": 0.15, "S": 0.10}
GoalText = Annotated[
    str,
    StringConstraints(max_length=MAX_GOAL_CHARS),
    BeforeValidator(clean_text),
    BeforeValidator(within(MAX_GOAL_CHARS)),
]
USER_ID_PATTERN = r"^[A-Za-z0-9_.@-]{1,120}$"


class ScoreWeights(BaseModel):
    """Weights of the five dimensions; any non-negative numbers, normalised to sum 1 when used."""

    model_config = ConfigDict(extra="forbid")

    T: float = Field(default=DEFAULT_WEIGHTS["T"], ge=0, le=100, description="time fit: opening hours and queues")
    D: float = Field(default=DEFAULT_WEIGHTS["D"], ge=0, le=100, description="route: travel time between stops")
    P: float = Field(default=DEFAULT_WEIGHTS["P"], ge=0, le=100, description="people: ages, diet, preferences")
    C: float = Field(default=DEFAULT_WEIGHTS["C"], ge=0, le=100, description="cost against the budget")
    S: float = Field(default=DEFAULT_WEIGHTS["S"], ge=0, le=100, description="experience: rating, scarcity, season")

    @model_validator(mode="after")
    def _some_weight(self) -> ScoreWeights:
        if sum(self.as_dict().values()) <= 0:
            raise ValueError("at least one weight is above zero")
        return self

    def as_dict(self) -> dict[str, float]:
        return {d: float(getattr(self, d)) for d in DIMENSIONS}

    def normalised(self) -> dict[str, float]:
        raw = self.as_dict()
        total = sum(raw.values())
        return {d: v / total for d, v in raw.items()}


class HalfDayRequest(BaseModel):
    """What a caller sends: a goal sentence, optionally where they start and when 'now' is."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    goal: GoalText = Field(min_length=1, description="the goal sentence, Chinese or English")
    lang: Lang | None = Field(default=None, description="the caller's language (None: guessed from the goal)")
    user_id: str = Field(default="anonymous", pattern=USER_ID_PATTERN)
    region: str | None = Field(default=None, pattern=REGION_NAME_PATTERN)
    origin: str | None = Field(default=None, max_length=300, description="where the half day starts (a place name)")
    now: datetime | None = Field(default=None, description="the moment to plan from (default: the clock)")
    window: RequestWindow | None = Field(
        default=None,
        description="when, given beside the goal (a quick answer to 'when?'): used instead of a time in the goal's "
        "words; a named choice is resolved against now",
    )
    weights: ScoreWeights = Field(default_factory=ScoreWeights)
    max_plans: int = Field(default=3, ge=2, le=3)
    on_degraded: OnDegraded = Field(
        default="ask",
        description="part of the plan would rest on local data (a map service down): ask (the stream pauses at the "
        "warning for POST /halfday/plan/{trace_id}/resume, then halfday_degraded_default), continue, or stop",
    )


# ---- stage 2: memory ------------------------------------------------------------------------------------------
class GoalInput(BaseModel):
    """Stage 1's input: the goal sentence, the moment planned from, the caller's language, a window given beside."""

    text: str = Field(min_length=1, max_length=MAX_GOAL_CHARS)
    now: datetime
    lang: Lang | None = None
    window: RequestWindow | None = Field(default=None, description="given beside the goal: read instead of its time")


class FamilyProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    adults: int | None = Field(default=None, ge=1, le=30)
    children_birth_years: list[int] = Field(default_factory=list, description="kept as birth years, so ages grow")
    seniors: int | None = Field(default=None, ge=0, le=30)
    diet: list[str] = Field(default_factory=list)
    mobility: list[str] = Field(default_factory=list)


class MemoryEvent(BaseModel):
    """One thing the user did that taught the planner something."""

    kind: Literal["confirmed_plan", "liked", "disliked"]
    place_ids: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    at: AwareDatetime  # a moment with its offset: the store keeps instants (core/stores/db.py UtcDateTime)


class Memory(BaseModel):
    """What the planner remembers of a user: learned tag preferences in [-1, 1] and a family profile."""

    user_id: str
    preferences: dict[str, float] = Field(default_factory=dict, description="pack tag or category → affinity")
    family: FamilyProfile = Field(default_factory=FamilyProfile)
    visited: list[str] = Field(default_factory=list, description="place ids of confirmed plans, newest first")
    disliked: list[str] = Field(default_factory=list, description="place ids the user said they did not like")
    events: int = Field(default=0, ge=0, description="how many events taught it")
    rules: list[Rule] = Field(default_factory=list, description="standing rules the user stated (core/memory)")
    source: str = "memory_store"


class MemoryQuery(BaseModel):
    user_id: str = Field(pattern=USER_ID_PATTERN)


# ---- stage 3: profile -----------------------------------------------------------------------------------------


class ProfileInput(BaseModel):
    goal: DecomposedGoal
    memory: Memory
    today: date
    weather: WeatherReading | None = Field(default=None, description="stage 3's weather reading (None: none taken)")


class Profile(BaseModel):
    """One profile of preferences, taboos and crowd tolerance, with where each came from."""

    party: Party
    party_source: Literal["goal", "memory", "default"]
    child_ages: list[int] = Field(default_factory=list, description="ages known, from the goal or the family profile")
    preferences: dict[str, float] = Field(default_factory=dict, description="preference code or pack tag → weight")
    avoid: list[str] = Field(default_factory=list)
    constraints: Constraints
    taboos: list[str] = Field(default_factory=list, description="codes: diet needs, min ages, avoided kinds")
    crowd_tolerance: CrowdTolerance
    crowd_reasons: list[str] = Field(default_factory=list)
    indoor_only: bool = False
    walk_limit_min: int = Field(ge=0, le=60, description="longest leg walked; longer legs go by car")
    named_places: list[str] = Field(default_factory=list)
    wishes: list[Wish] = Field(default_factory=list, description="the goal's wishes, accounted for in every plan")
    avoid_place_ids: list[str] = Field(default_factory=list, description="disliked in memory")
    weather: WeatherReading | None = Field(default=None, description="the weather reading the profile was built on")
    weather_from: dict[str, WeatherOrigin] = Field(
        default_factory=dict, description="each weather code of the constraints → who said it: the goal or the forecast"
    )
    source: str = Field(default="rules", description="rules, or mock (the tool's mock, core/halfday/toolbox)")


# ---- stage 4: time slots --------------------------------------------------------------------------------------
class SlotsInput(BaseModel):
    profile: Profile
    window: TimeWindow
    now: datetime


class Slot(BaseModel):
    kind: Literal["activity", "meal"]
    start: time
    end: time
    meal: Literal["breakfast", "lunch", "afternoon_tea", "dinner"] | None = None


class TimeSlots(BaseModel):
    date: date
    start: time = Field(description="when the half day really starts (now + getting ready, if today)")
    end: time
    slots: list[Slot]
    travel_factor: float = Field(ge=1, description="robust travel: nominal × factor + buffer")
    travel_buffer_min: int = Field(ge=0)
    source: str = "settings"

    @property
    def minutes(self) -> int:
        return (self.end.hour * 60 + self.end.minute) - (self.start.hour * 60 + self.start.minute)


# ---- stage 5: candidates --------------------------------------------------------------------------------------


class SearchFilters(BaseModel):
    region: str
    profile: Profile
    slots: TimeSlots
    relaxed: list[RelaxCode] = Field(default_factory=list)
    max_candidates: int = Field(default=40, ge=4, le=120)


class QueueFact(BaseModel):
    minutes: int = Field(ge=0)
    day_type: str
    source: str


class Candidate(BaseModel):
    """A place from the pack's places table that may go into a plan, with every fact a score uses."""

    place_id: str
    name_zh: str
    name_en: str = ""
    district: str = ""
    lon: float
    lat: float
    category: str
    tags: list[str] = Field(default_factory=list)
    cuisine: list[str] = Field(default_factory=list)
    role: Literal["activity", "meal"]
    open_intervals: list[tuple[int, int]] = Field(description="minutes from midnight open on the date, in the window")
    # Addition: the day's opening as the data gives it (not cut to the window): what "closes at" and "open until"
    # say (a venue open until 21:00 does not close at the window's end); empty: as ``open_intervals``
    day_open_intervals: list[tuple[int, int]] = Field(default_factory=list)
    opening_source: str
    visit_minutes: int = Field(ge=5)
    visit_source: str
    price_per_person: float | None
    price_source: str
    rating: float | None
    queue: QueueFact | None = Field(default=None, description="typical wait at the window's busiest open hour")
    queue_by_hour: dict[int, int] = Field(
        default_factory=dict, description="typical wait (minutes) by local hour within the window, from the pack"
    )
    opening_assumed: bool = Field(default=False, description="no opening hours known: daytime hours were assumed")
    booking_slots: list[int] = Field(
        default_factory=list, description="minutes from midnight a booking can start (the venue's slot grid)"
    )
    needs_reservation: bool = False
    bookable: bool = False
    lead_time_hours: int | None = None
    min_age: int | None = None
    match: dict[str, float] = Field(default_factory=dict, description="preference → how well it matches, 0..1")
    suitability: float = Field(ge=0, le=1, description="ages, diet and mobility, 0..1")
    reasons: list[str] = Field(default_factory=list, description="codes: why it is a candidate")
    named_as: str = Field(default="", description="the goal's words that named it (its name or an alias), if any")

    @classmethod
    def of_place(cls, place: RegionPlace, **found: Any) -> Candidate:
        """A candidate with the pack's own facts of ``place`` (names, point, kind, price, rating, age) and what the
        search found of it (``found``: its role, opening, visit, match, reasons...)."""
        return cls(
            place_id=place.id,
            name_zh=place.name_zh,
            name_en=place.name_en,
            district=place.district,
            lon=place.lon,
            lat=place.lat,
            category=place.category,
            tags=list(place.tags),
            cuisine=list(place.cuisine),
            price_per_person=place.price_per_person,
            price_source="pack" if place.price_per_person is not None else "unknown",
            rating=place.rating,
            min_age=place.min_age,
            **found,
        )


class NamedPlaceIssue(BaseModel):
    """A place the goal named that cannot be in a plan, and why (a code)."""

    name: str
    reason: str = Field(description="not_in_pack, or the filter that left it out (closed_in_window, too_young…)")
    place_id: str | None = None


#: whether a wish can be met from the data: a candidate serves it; a place in the data does, but none passed the
#: search (closed in the window, filtered); no place in the data does
#: "over_budget": only places of the data priced over the budget per person meet it
WishSupply = Literal["found", "in_data", "over_budget", "none"]


class Candidates(BaseModel):
    region: str
    date: date
    items: list[Candidate]
    excluded: dict[str, int] = Field(default_factory=dict, description="reason code → places left out for it")
    named_issues: list[NamedPlaceIssue] = Field(default_factory=list)
    relaxed: list[RelaxCode] = Field(default_factory=list)
    wish_supply: dict[str, WishSupply] = Field(
        default_factory=dict, description="wish key → found among the candidates, in the data only, or nowhere"
    )
    wish_prices: dict[str, float] = Field(
        default_factory=dict,
        description="wish key → the lowest price per person of the data's places that meet it, when every one of "
        "them is over the budget (wish_supply over_budget)",
    )
    source: str = "places_table"


# ---- stage 6: plans -------------------------------------------------------------------------------------------
class TravelLeg(BaseModel):
    minutes: int = Field(ge=0, description="robust minutes planned")
    nominal_minutes: float = Field(ge=0)
    distance_m: float = Field(ge=0)
    mode: str
    source: str


class PlanStep(BaseModel):
    start: time
    end: time
    place_id: str
    name_zh: str
    name_en: str = ""
    lon: float
    lat: float
    kind: Literal["activity", "meal"]
    category: str
    why: list[str] = Field(default_factory=list, description="codes: preference matched, open until, rating…")
    travel: TravelLeg | None = Field(default=None, description="from the previous step (or the origin)")
    queue_minutes: int | None = None
    queue_day_type: str | None = Field(default=None, description="weekday, weekend or public_holiday")
    queue_source: str | None = None
    price_per_person: float | None = None
    price_source: str = "unknown"
    needs_reservation: bool = False
    bookable: bool = False
    opening_source: str = ""
    reason: StepReason | None = Field(default=None, description="why this place, as a code and facts")


WishStatus = Literal["met", "partly", "not_met", "unread"]
#: why a wish is not (fully) met: no place in the data serves it; one does, but none is open in the window or passes
#: the filters; one was found but the plan does not visit it; the plan has no meal for a meal wish; not understood;
#: a diet that only forbids (不吃辣, I'm vegan) kept by a plan with no meal to break it
WishReason = Literal[
    "served",
    "side_offer",
    "none_in_data",
    "none_available",
    "over_budget",
    "not_in_plan",
    "no_meal",
    "some_steps",
    "not_understood",
    "kept",
]


class WishOutcome(BaseModel):
    """How one plan answers one wish: met, met in part, not met, or not understood (unread); the places that meet
    it, and why not when it is not met (codes and facts; core/words/halfday.py says them)."""

    model_config = ConfigDict(extra="forbid")

    wish: Wish
    status: WishStatus
    reason: WishReason
    place_ids: list[str] = Field(default_factory=list)
    #: over_budget: the lowest price per person of the places that serve it (``cheapest``) and the budget asked
    facts: dict[str, float] = Field(default_factory=dict)

    @property
    def weight(self) -> float:
        """What it counts for in P: met 1, in part ½, not met or not understood 0."""
        return {"met": 1.0, "partly": 0.5}.get(self.status, 0.0)


class Risk(BaseModel):
    code: str
    place_id: str | None = None
    facts: dict[str, Any] = Field(default_factory=dict)
    severity: Literal["info", "warning"] = "warning"


class ScoreBreakdown(BaseModel):
    """Each dimension's value in [0, 1] and the facts it was computed from."""

    T: float = Field(ge=0, le=1)
    D: float = Field(ge=0, le=1)
    P: float = Field(ge=0, le=1)
    C: float = Field(ge=0, le=1)
    S: float = Field(ge=0, le=1)
    facts: dict[str, Any] = Field(default_factory=dict)

    def total(self, weights: ScoreWeights) -> float:
        w = weights.normalised()
        return round(sum(w[d] * float(getattr(self, d)) for d in DIMENSIONS), 4)


class Plan(BaseModel):
    plan_id: str
    theme: list[str] = Field(description="codes of what the plan is about (categories, preferences)")
    steps: list[PlanStep]
    risks: list[Risk] = Field(default_factory=list)
    feasibility: float = Field(ge=0, le=1)
    feasibility_facts: dict[str, float] = Field(default_factory=dict)
    score: ScoreBreakdown | None = None
    total: float | None = None
    solver: Literal["greedy", "cp_sat"]
    cost_per_person: float | None = None
    cost_known: bool = True
    travel_minutes: int = 0
    queue_minutes: int = 0
    intro: PlanIntro | None = Field(default=None, description="what the plan is, as a code and facts")
    wishes: list[WishOutcome] = Field(default_factory=list, description="every wish of the goal and how it is met")


def rank_by_weights(plans: list[Plan], weights: ScoreWeights) -> list[Plan]:
    """The plans with totals for these weights, best first (ties: the more feasible, then the earlier id): the
    pipeline's ranking, and a page's sliders re-ranking without re-planning."""
    out = [p.model_copy(update={"total": p.score.total(weights) if p.score else 0.0}) for p in plans]
    return sorted(out, key=lambda p: (-(p.total or 0.0), -p.feasibility, p.plan_id))


class OriginPoint(BaseModel):
    """Where the half day starts, as the geocoder resolved it."""

    name: str
    lon: float = Field(ge=-180, le=180)
    lat: float = Field(ge=-90, le=90)
    source: str


class OriginQuery(BaseModel):
    text: str = Field(min_length=1, max_length=300)


class OriginAnswer(BaseModel):
    origin: OriginPoint | None


class ComposeInput(BaseModel):
    origin: OriginPoint | None = None
    profile: Profile
    slots: TimeSlots
    candidates: Candidates
    now: datetime = Field(description="the moment planned from: booking lead times are counted from it")
    max_plans: int = Field(default=3, ge=2, le=3)


class PlanSet(BaseModel):
    plans: list[Plan]
    travel_source: str
    notes: list[str] = Field(default_factory=list, description="codes")
    dropped: list[DroppedPlan] = Field(
        default_factory=list, description="plans composed on the estimates that their measured legs broke"
    )
    legs_measured: int | None = Field(
        default=None, ge=0, description="the plans' legs a map service measured (None: not screened on estimates)"
    )


class ScoreInput(BaseModel):
    plans: PlanSet
    candidates: Candidates
    profile: Profile
    slots: TimeSlots
    weights: ScoreWeights


# ---- stage 7: reservations ------------------------------------------------------------------------------------
class ReserveInput(BaseModel):
    user_id: str = Field(pattern=USER_ID_PATTERN)
    region: str
    place_id: str
    date: date
    time: time
    party_size: int = Field(ge=1, le=20)
    contact: str = ""
