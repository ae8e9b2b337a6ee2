"""The facts the half-day planner's events carry (codes and numbers, no words): a tool's result as the stage log
shows it, and what a warning, an empty search or a relaxed filter is about. Re-exported by core.models.halfday.plans."""

from __future__ import annotations

import datetime as dt
from datetime import date, time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.models.halfday.goal import MissingCode, WeatherCode
from core.models.halfday.weather import WeatherStatus

CrowdTolerance = Literal["low", "medium", "high"]
RelaxCode = Literal["crowd", "preferences", "budget", "indoor"]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- a tool's result, as facts (what the stage log says; the tool log keeps the summaries) -------------------
class GoalFacts(_Data):
    kind: Literal["goal"] = "goal"
    parser: Literal["rules", "llm", "mock"]
    missing: list[MissingCode] = Field(default_factory=list)


class MemoryFacts(_Data):
    kind: Literal["memory"] = "memory"
    events: int = Field(ge=0, description="how many events taught the memory")
    preferences: int = Field(ge=0, description="how many tag preferences it holds")
    visited: int = Field(ge=0)
    source: str


class ProfileFacts(_Data):
    kind: Literal["profile"] = "profile"
    crowd_tolerance: CrowdTolerance
    walk_limit_min: int = Field(ge=0)
    party_source: Literal["goal", "memory", "default"]
    indoor_only: bool = False


class SlotsFacts(_Data):
    kind: Literal["slots"] = "slots"
    date: date
    start: time
    end: time
    slots: int = Field(ge=0)


class OriginFacts(_Data):
    kind: Literal["origin"] = "origin"
    found: bool
    source: str | None = None


class CandidateFacts(_Data):
    kind: Literal["candidates"] = "candidates"
    candidates: int = Field(ge=0)
    place_ids: list[str] = Field(default_factory=list)
    excluded: dict[str, int] = Field(default_factory=dict, description="reason code → places left out for it")
    relaxed: list[RelaxCode] = Field(default_factory=list)


class PlanSetFacts(_Data):
    kind: Literal["plans"] = "plans"
    plans: int = Field(ge=0)
    plan_ids: list[str] = Field(default_factory=list)
    travel_source: str
    notes: list[str] = Field(default_factory=list, description="codes")
    legs: int | None = Field(default=None, ge=0, description="the legs of the plans (None: not counted)")
    legs_measured: int | None = Field(
        default=None, ge=0, description="of those, the ones a map service measured (the others are estimates)"
    )
    dropped: int = Field(default=0, ge=0, description="plans composed on estimates that their measured legs broke")


DropReason = Literal["window", "leg_over_budget", "travel_over_budget"]


class DroppedPlan(_Data):
    """A plan composed on the pack's estimates that its measured legs broke (issue 33), and the leg that did: its
    ends (no ``from_place_id``: the start), its estimated and measured robust minutes, and what it broke: ``window``
    (a stop no longer fits its hours, its meal slot or the end of the half day), ``leg_over_budget`` (a leg between
    stops longer than the half day allows), ``travel_over_budget`` (all travel more than it allows)."""

    reason: DropReason
    place_ids: list[str] = Field(description="the dropped plan's stops, in order")
    names_zh: list[str] = Field(description="their names, as place_ids")
    names_en: list[str] = Field(description="their English names, as place_ids ('' where the pack has none)")
    from_place_id: str | None = Field(default=None, description="where the leg starts (None: at the start)")
    to_place_id: str
    mode: str
    source: str = Field(description="who measured the leg (amap, ...)")
    estimated_minutes: int = Field(ge=0)
    measured_minutes: int = Field(ge=0)
    cap_minutes: int | None = Field(default=None, ge=0, description="the budget it passed (the *_over_budget ones)")

    @model_validator(mode="after")
    def _one_name_a_stop(self) -> DroppedPlan:
        if not len(self.place_ids) == len(self.names_zh) == len(self.names_en):
            raise ValueError("a dropped plan has one name (zh and en) per stop")
        ends = [self.to_place_id] + ([self.from_place_id] if self.from_place_id is not None else [])
        if any(pid not in self.place_ids for pid in ends):
            raise ValueError("the leg that broke a plan runs between its stops (or from the start)")
        return self


class WeatherFacts(_Data):
    """Stage 3's weather reading: its status, the codes the forecast implies, how the service failed."""

    kind: Literal["weather"] = "weather"
    status: WeatherStatus
    codes: list[WeatherCode] = Field(default_factory=list)
    cause: str | None = None


class OtherFacts(_Data):
    """A tool the stream does not describe (a registered extra)."""

    kind: Literal["other"] = "other"


ToolFacts = Annotated[
    GoalFacts
    | MemoryFacts
    | WeatherFacts
    | ProfileFacts
    | SlotsFacts
    | OriginFacts
    | CandidateFacts
    | PlanSetFacts
    | OtherFacts,
    Field(discriminator="kind"),
]


class WarningFacts(_Data):
    origin: str | None = Field(default=None, description="ORIGIN_UNRESOLVED: the start place as given")
    name: str | None = Field(default=None, description="NAMED_PLACE_*: the place as the goal named it")
    reason: str | None = Field(default=None, description="NAMED_PLACE_*: not_in_pack or the filter's code")
    place_id: str | None = None
    region: str | None = Field(default=None, description="REGION_SWITCHED: the region planned in (name: the place)")
    legs: int | None = Field(default=None, ge=0, description="TRAVEL_*: the legs of the plans")
    estimated_legs: int | None = Field(default=None, ge=0, description="TRAVEL_*: of those, the estimated ones")
    services: list[str] | None = Field(
        default=None, description="the provider services answered by the local estimate (geocode, matrix)"
    )
    causes: list[str] | None = Field(
        default=None,
        description="how the map service failed, as core.geo.retry_policy.cause_code names it (timeout, unavailable, "
        "malformed, rate_limited, quota, key_refused, circuit_open, failed)",
    )
    dropped: DroppedPlan | None = Field(default=None, description="PLAN_DROPPED_ON_MEASURED_LEGS: the plan and why")


class EmptyFacts(_Data):
    excluded: dict[str, int] = Field(default_factory=dict, description="reason code → places left out for it")


class RelaxedFacts(_Data):
    best_feasibility: float | None = Field(default=None, ge=0, le=1, description="the best plan before relaxing")


# ---- what a plan says of itself (seed 004 §2.3): codes and facts, worded at the edge -------------------------
class IntroFacts(_Data):
    """What a plan's intro is built from: its window, who goes, the weather asked for, its stops and themes."""

    date: dt.date
    start: dt.time
    end: dt.time
    adults: int = Field(ge=0)
    children: int = Field(ge=0)
    children_ages: list[int] = Field(default_factory=list)
    weather: list[str] = Field(default_factory=list, description="weather codes the goal named (rain…)")
    forecast_weather: list[str] = Field(
        default_factory=list, description="weather codes the forecast added (the goal named none of its own)"
    )
    indoor_only: bool = False
    outdoor_stops: list[str] = Field(
        default_factory=list, description="place ids of the plan's stops with no shelter (what the intro claims)"
    )
    stops: int = Field(ge=0)
    travel_minutes: int = Field(ge=0)
    themes: list[str] = Field(default_factory=list, description="the plan's theme codes (wishes met, category:…)")


class PlanIntro(_Data):
    """``wishes``: the plan meets wishes the goal named; ``kinds``: it is about kinds of places; ``plain``: neither."""

    code: Literal["wishes", "kinds", "plain"]
    facts: IntroFacts


class StepReasonFacts(_Data):
    """Why this place, as facts: the wishes it matches, what suits the party, the leg to it, how long it is open
    after the step, its typical wait and its rating (each with the source the step carries)."""

    matched: list[str] = Field(default_factory=list, description="preference codes the place matches")
    on_the_side: list[str] = Field(
        default_factory=list, description="preference codes the place only offers on the side (a street's cafés)"
    )
    meal: Literal["breakfast", "lunch", "afternoon_tea", "dinner"] | None = Field(
        default=None, description="the meal a meal step is had as (the meal slot it is in)"
    )
    suits: list[str] = Field(default_factory=list, description="kid_friendly, accessible, light_options")
    named_in_goal: bool = False
    category: str
    distance_m: float | None = Field(default=None, ge=0, description="the leg to it (travel source on the step)")
    travel_minutes: int | None = Field(default=None, ge=0)
    open_until: dt.time | None = Field(default=None, description="when the opening interval of the step ends")
    queue_minutes: int | None = Field(default=None, ge=0, description="typical wait (queue source on the step)")
    rating: float | None = None


class StepReason(_Data):
    """``matches``: it meets a wish; ``suits``: it suits the party; ``named``: the goal named it; ``meal``: the
    meal slot; ``fits``: it fits the window and the route."""

    code: Literal["matches", "suits", "named", "meal", "fits"]
    facts: StepReasonFacts


# ---- level 2: the person's choice on local data (half_day_planner.md §4.1) -----------------------------------
DegradedChoice = Literal["continue", "stop"]
DEGRADED_CHOICES: tuple[DegradedChoice, ...] = ("continue", "stop")
#: what a request says to do when part of the plan would rest on local data: ask the person (the stream waits for
#: the answer, core.app.halfday.answer_degraded), or go on, or stop, without asking
OnDegraded = Literal["ask", "continue", "stop"]


class ChoiceAsk(_Data):
    """The question a level-2 warning carries: go on with local (cached or estimated) data, or stop."""

    options: list[DegradedChoice] = Field(default_factory=lambda: list(DEGRADED_CHOICES))
    default: DegradedChoice = Field(description="what happens without an answer (halfday_degraded_default)")
    wait_s: float = Field(ge=0, description="how long the stream waits for the answer (0: nobody can answer)")


class ChosenObservation(_Data):
    """What was decided on a level-2 warning, and by whom: the person, the request, or the default."""

    type: Literal["choice"] = "choice"
    choice: DegradedChoice
    by: Literal["person", "request", "default"]
