"""The half-day planner's events and its result: what a plan streams (status, intent, skill call, observation, done)
and returns, as typed models with codes and facts only (words come from core/halfday/messages.py at the edge)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from core.models.common import Lang
from core.models.halfday.facts import (
    ChoiceAsk,
    ChosenObservation,
    DroppedPlan,
    EmptyFacts,
    RelaxCode,
    RelaxedFacts,
    ToolFacts,
    WarningFacts,
    _Data,
)
from core.models.halfday.goal import (
    DecomposedGoal,
    MissingCode,
)
from core.models.halfday.plans import OriginPoint, Plan, Profile, ScoreWeights, TimeSlots

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


class PlanObservation(_Data):
    """A plan made while the next ones are composed (stage 6), scored and explained as the ``done`` carries it, for a
    face to show at once (issue 32: the first card). The ``done`` is the set: its ranking, and a later round's plans
    in place of this round's (``round``: the soft filters relaxed before it) when the search is relaxed."""

    type: Literal["plan"] = "plan"
    plan: Plan
    round: int = Field(ge=0)
    asked: int = Field(ge=1, description="how many plans the request asks for")


Observation = Annotated[
    ResultObservation
    | WarningObservation
    | EmptyObservation
    | RelaxedObservation
    | ReservableObservation
    | PlanObservation
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
    dropped_plans: list[DroppedPlan] = Field(
        default_factory=list, description="plans composed on estimates that their measured legs broke, and why"
    )
    tool_log: list[dict[str, Any]] = Field(default_factory=list)


class StepWords(_Data):
    place_id: str
    reason: str
    straight_line_estimate: bool = Field(
        default=False, description="the leg to it is a straight-line estimate (its minutes and km say so in reason)"
    )


class PlanWords(_Data):
    plan_id: str
    intro: str
    steps: list[StepWords]
    wishes: list[str] = Field(default_factory=list, description="each wish of the goal as this plan answers it")


class ResultWords(_Data):
    """A result's intro and step reasons in one language, added at the edge (API, CLI) from the catalogs."""

    lang: Lang
    plans: list[PlanWords]
    dropped: list[str] = Field(
        default_factory=list, description="each plan the measured legs broke, in words (HalfDayResult.dropped_plans)"
    )
    weather: str | None = Field(
        default=None, description="the forecast the plans used, or why the weather was not checked (profile.weather)"
    )


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
    named: str | None = Field(default=None, description="REGION_NOT_COVERED: the place as the goal named it")
    regions: list[str] | None = Field(default=None, description="REGION_NOT_COVERED: the regions installed")
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
