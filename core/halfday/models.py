"""Contracts of the half-day planner's stages 2–7, its events and its result (codes and facts only).

Every stage is a registered tool (core/halfday/tools.py) whose input and output are these models, validated before
and after each call. Words for people come from core/halfday/messages.py at the edge.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, TypeAdapter, model_validator

from core.halfday.facts import (
    ChoiceAsk,
    ChosenObservation,
    CrowdTolerance,
    EmptyFacts,
    OnDegraded,
    PlanIntro,
    RelaxCode,
    RelaxedFacts,
    StepReason,
    ToolFacts,
    WarningFacts,
    _Data,
)
from core.halfday.goal_models import (
    MAX_GOAL_CHARS,
    Constraints,
    DecomposedGoal,
    Language,
    MissingCode,
    Party,
    RequestWindow,
    TimeWindow,
)
from core.memory.rules import Rule
from core.models.common import REGION_NAME_PATTERN, clean_text, within

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
    lang: Language | None = Field(default=None, description="the caller's language (None: guessed from the goal)")
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
    lang: Language | None = None
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
    at: datetime


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
    avoid_place_ids: list[str] = Field(default_factory=list, description="disliked in memory")
    source: str = Field(default="rules", description="rules, or mock (core/halfday/mocks.py)")


# ---- stage 4: time slots --------------------------------------------------------------------------------------
class SlotsInput(BaseModel):
    profile: Profile
    window: TimeWindow
    now: datetime


class Slot(BaseModel):
    kind: Literal["activity", "meal"]
    start: time
    end: time
    meal: Literal["lunch", "afternoon_tea", "dinner"] | None = None


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
    open_intervals: list[tuple[int, int]] = Field(description="minutes from midnight open on the date")
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


class NamedPlaceIssue(BaseModel):
    """A place the goal named that cannot be in a plan, and why (a code)."""

    name: str
    reason: str = Field(description="not_in_pack, or the filter that left it out (closed_in_window, too_young…)")
    place_id: str | None = None


class Candidates(BaseModel):
    region: str
    date: date
    items: list[Candidate]
    excluded: dict[str, int] = Field(default_factory=dict, description="reason code → places left out for it")
    named_issues: list[NamedPlaceIssue] = Field(default_factory=list)
    relaxed: list[RelaxCode] = Field(default_factory=list)
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


# ---- events and result ----------------------------------------------------------------------------------------
EventType = Literal["status", "intent", "skill_call", "observation", "done"]
StageCode = Literal[
    "started",
    "decompose_goal",
    "get_memory",
    "analyze_user_profile",
    "plan_time_slots",
    "search_places",
    "rank_places_for_plan",
    "present_and_reserve",
]


# ---- the events' data ---------------------------------------------------------------------------------------
class StatusData(_Data):
    stage: int = Field(ge=0, le=7)
    name: StageCode
    relaxed: list[RelaxCode] = Field(default_factory=list, description="soft filters relaxed so far (stage 5)")


class Clarification(_Data):
    missing: list[MissingCode]


class IntentData(_Data):
    goal: DecomposedGoal
    clarification: Clarification | None = None


class SkillCallData(_Data):
    tool: str
    stage: int = Field(ge=1, le=7)
    mocked: bool = False


class ResultObservation(_Data):
    """A tool answered: how long it took, after how many attempts, and its result as facts."""

    type: Literal["result"] = "result"
    tool: str
    duration_ms: float = Field(ge=0)
    attempts: int = Field(ge=1)
    facts: ToolFacts


class WarningObservation(_Data):
    """Part of the plan rests on less than asked (a start not found, a named place left out, local travel times)."""

    type: Literal["warning"] = "warning"
    code: str
    facts: WarningFacts = Field(default_factory=WarningFacts)
    choice: ChoiceAsk | None = Field(default=None, description="level 2: the person is asked whether to go on")


class EmptyObservation(_Data):
    """A search found no place that passes the filters."""

    type: Literal["empty"] = "empty"
    tool: str
    facts: EmptyFacts = Field(default_factory=EmptyFacts)


class RelaxedObservation(_Data):
    """A soft filter is relaxed and the search runs again."""

    type: Literal["relaxed"] = "relaxed"
    code: RelaxCode
    facts: RelaxedFacts = Field(default_factory=RelaxedFacts)


class ReservableObservation(_Data):
    """A plan's steps that can be booked (stage 7)."""

    type: Literal["reservable"] = "reservable"
    plan_id: str
    place_ids: list[str]


Observation = Annotated[
    ResultObservation
    | WarningObservation
    | EmptyObservation
    | RelaxedObservation
    | ReservableObservation
    | ChosenObservation,
    Field(discriminator="type"),
]


class HalfDayResult(BaseModel):
    trace_id: str
    region: str
    goal: DecomposedGoal
    profile: Profile
    slots: TimeSlots
    plans: list[Plan]
    weights: ScoreWeights
    relaxed: list[RelaxCode] = Field(default_factory=list)
    origin: OriginPoint | None = None
    warnings: list[str] = Field(default_factory=list, description="codes")
    travel_source: str
    tool_log: list[dict[str, Any]] = Field(default_factory=list)


class StepWords(_Data):
    place_id: str
    reason: str


class PlanWords(_Data):
    plan_id: str
    intro: str
    steps: list[StepWords]


class ResultWords(_Data):
    """A result's intro and step reasons in one language, added at the edge (API, CLI) from the catalogs."""

    lang: Language
    plans: list[PlanWords]


class DonePlans(_Data):
    type: Literal["plans"] = "plans"
    result: HalfDayResult
    words: ResultWords | None = Field(default=None, description="the plans in words; set by the face that answers")


class DoneClarify(_Data):
    """The goal cannot be planned without an answer (when?)."""

    type: Literal["clarify"] = "clarify"
    goal: DecomposedGoal
    missing: list[MissingCode]


class ErrorFacts(_Data):
    code: str
    trace_id: str
    tool: str | None = Field(default=None, description="the last tool called")
    field: str | None = Field(default=None, description="the request's field at fault, when one is")
    excluded: dict[str, int] = Field(default_factory=dict, description="NO_FEASIBLE_PLAN: why places were left out")
    fallback: Literal["conversation"] | None = Field(
        default=None, description="level 3: planning gave up; the face offers a conversation with the agent instead"
    )
    contact: str | None = Field(default=None, description="level 3: the support contact (halfday_support_contact)")
    retry_after_s: float | None = Field(
        default=None,
        description="an outage (the database, a map service): seconds after which asking again may help (the "
        "breaker's cool-down, as the API's Retry-After); None: asking again would not help",
    )


class DoneError(_Data):
    type: Literal["error"] = "error"
    error: ErrorFacts


Done = Annotated[DonePlans | DoneClarify | DoneError, Field(discriminator="type")]


# ---- the events ---------------------------------------------------------------------------------------------
class EventBase(BaseModel):
    """What every server-sent event carries: its type, the request's trace id, its order and when it happened."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    seq: int = Field(ge=0)
    at: datetime


class StatusEvent(EventBase):
    """A stage starts."""

    type: Literal["status"] = "status"
    data: StatusData


class IntentEvent(EventBase):
    """What stage 1 understood, or the question to ask first."""

    type: Literal["intent"] = "intent"
    data: IntentData


class SkillCallEvent(EventBase):
    """A tool is about to run."""

    type: Literal["skill_call"] = "skill_call"
    data: SkillCallData


class ObservationEvent(EventBase):
    """What a tool found, or what the planner noticed (a warning, an empty search, a relaxed filter, bookings)."""

    type: Literal["observation"] = "observation"
    data: Observation


class DoneEvent(EventBase):
    """The last event: plans, a clarification, or an error with the trace id."""

    type: Literal["done"] = "done"
    data: Done


#: one server-sent event (``type`` tells which); codes and facts only
HalfDayEvent = Annotated[
    StatusEvent | IntentEvent | SkillCallEvent | ObservationEvent | DoneEvent, Field(discriminator="type")
]
#: reads one event back from its JSON (an SSE message's data, a line of ``halfday --events``)
HALF_DAY_EVENT: TypeAdapter[HalfDayEvent] = TypeAdapter(HalfDayEvent)
