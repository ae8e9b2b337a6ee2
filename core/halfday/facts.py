"""The facts the half-day planner's events carry (codes and numbers, no words): a tool's result as the stage log
shows it, and what a warning, an empty search or a relaxed filter is about. Re-exported by core.halfday.models."""

from __future__ import annotations

from datetime import date, time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.halfday.goal_models import MissingCode

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


class OtherFacts(_Data):
    """A tool the stream does not describe (a registered extra)."""

    kind: Literal["other"] = "other"


ToolFacts = Annotated[
    GoalFacts | MemoryFacts | ProfileFacts | SlotsFacts | OriginFacts | CandidateFacts | PlanSetFacts | OtherFacts,
    Field(discriminator="kind"),
]


class WarningFacts(_Data):
    origin: str | None = Field(default=None, description="ORIGIN_UNRESOLVED: the start place as given")
    name: str | None = Field(default=None, description="NAMED_PLACE_*: the place as the goal named it")
    reason: str | None = Field(default=None, description="NAMED_PLACE_*: not_in_pack or the filter's code")
    place_id: str | None = None
    legs: int | None = Field(default=None, ge=0, description="TRAVEL_*: the legs of the plans")
    estimated_legs: int | None = Field(default=None, ge=0, description="TRAVEL_*: of those, the estimated ones")
    services: list[str] | None = Field(
        default=None, description="the provider services answered by the local estimate (geocode, matrix)"
    )


class EmptyFacts(_Data):
    excluded: dict[str, int] = Field(default_factory=dict, description="reason code → places left out for it")


class RelaxedFacts(_Data):
    best_feasibility: float | None = Field(default=None, ge=0, le=1, description="the best plan before relaxing")
