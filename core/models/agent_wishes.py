"""Every wish of a trip request accounted for (issue 31): the wishes the agent read from the message and how the
planned trip answers each one, as codes and place ids (core/words/agent_wishes.py says them in the reply's
language). A wish the agent could not map is kept as ``unread``, in the person's words, and is never met.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

#: (``place_not_found``: a place the message names that the region's data does not have, in the person's words)
TripWishKind = Literal["interest", "cuisine", "drink", "diet", "kids", "pace", "place", "place_not_found", "unread"]
TripWishStatus = Literal["met", "partly", "not_met", "unread"]
#: served: planned places meet it; some_stops: only some of the stops do; paced: the days are planned at that pace;
#: kept: no planned meal breaks the limit; dropped: the places that would meet it were dropped (``drop_reason``);
#: not_in_plan: places in the data would, none is planned; none_in_data: no place in the region's data does;
#: no_meal: the plan has no meal stop to keep the diet at; not_at_meal: the places that serve the food are planned,
#: but none at a meal time; not_understood: the words map to nothing the agent plans; not_found: a place named that
#: the region's data does not have (its ``place_ids``: places that really resemble it, offered, never planned)
TripWishReason = Literal[
    "served", "some_stops", "paced", "kept", "dropped", "not_in_plan", "none_in_data", "no_meal", "not_at_meal",
    "not_understood", "not_found",
]  # fmt: skip


class TripWish(BaseModel):
    """One wish: its kind, its code (an interest, cuisine, drink, diet or pace code; a place id), its words."""

    kind: TripWishKind
    code: str = Field(default="", max_length=60)
    phrase: str = Field(default="", max_length=80, description="the words of the message it was read from")


class TripWishOutcome(BaseModel):
    """How the planned trip answers one wish."""

    wish: TripWish
    status: TripWishStatus
    reason: TripWishReason
    place_ids: list[str] = Field(default_factory=list, description="the planned (or, when dropped, the dropped) places")
    drop_reason: str | None = Field(default=None, description="the itinerary's reason code of the drop")
    meal: Literal["lunch", "dinner"] | None = Field(
        default=None, description="a food wish met: the meal the first of its places is planned as"
    )
