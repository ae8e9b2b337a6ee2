"""What a face shows beside a route result (docs/ARCHITECTURE.md, "Route planner"): a candidate order against the
best order, leg by leg (``OrderComparison``), the names one reader gives the result's places (``PlaceNames``) and a
ready-made demo request (``Scenario``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from core.models.route import RoutePlanRequest


class LegDiff(BaseModel):
    """One leg of the candidate: its position in the candidate's order (0 = from its first place to its second),
    the two place keys, and how it compares with the best order."""

    model_config = ConfigDict(frozen=True)

    index: int
    from_key: str
    to_key: str
    status: str  # "changed" (not in the best order) | "shared" (same direction) | "reversed" (other direction)


class OrderComparison(BaseModel):
    """A candidate order against the best order, leg by leg."""

    model_config = ConfigDict(frozen=True)

    legs: tuple[LegDiff, ...]

    @property
    def changed(self) -> tuple[int, ...]:
        """Positions of the candidate's legs the best order does not have."""
        return tuple(leg.index for leg in self.legs if leg.status == "changed")

    @property
    def shared(self) -> tuple[int, ...]:
        """Positions of the candidate's legs the best order has too (in either direction)."""
        return tuple(leg.index for leg in self.legs if leg.status != "changed")

    @property
    def same_as_best(self) -> bool:
        return not self.changed


class Scenario(BaseModel):
    id: str
    title: dict[str, str]
    description: str = Field(default="", description="what the demo shows, in English")
    description_zh: str = Field(default="", description="the same in Chinese (older scenario files have none)")
    region: str = "shanghai"
    request: RoutePlanRequest
    tags: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class PlaceNames:
    """How one reader names the places of one result in one language: by point id, the place along the route
    (``route``; the live start included) and the place found for an input (``found``); by region code, the
    region (``regions``). An id without a name is shown as the id."""

    route: Mapping[str, str] = field(default_factory=dict)
    found: Mapping[str, str] = field(default_factory=dict)
    regions: Mapping[str, str] = field(default_factory=dict)
    #: place id → its name in the reader's language, for places named inside a notice (a place's parts)
    places: Mapping[str, str] = field(default_factory=dict)
