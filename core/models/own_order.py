"""The person's own stop order beside the best order (issue 32, X8 "keep my order"): how a request names it and
how a result compares it with the best order of the chosen strategy (docs/ARCHITECTURE.md, "Route planner").

Plain contracts with no import of core/models/route.py (which imports these): the candidate itself is a
``CandidateRoute`` with ``chosen_by="person"`` on ``RoutePlanResult.own_route``; the comparison is
``RoutePlanResult.own_difference``. Every figure is the planner's own figure for a leg (the same matrix, or the
same re-measured leg, as the best order's), never an estimate made here.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from core.errors import InputError


def own_order_problem(order: Sequence[int], stops: int) -> str | None:
    """Why ``order`` is not an order of the ``stops`` stops (a stop index out of range, twice, or left out), in
    English for the error's message (the faces word the field); None when it is one."""
    outside = [i for i in order if not 0 <= i < stops]
    if outside:
        return f"own_order names stop index {outside[0]}, but the stops are numbered 0 to {stops - 1}"
    twice = sorted({i for i in order if list(order).count(i) > 1})
    if twice:
        return f"own_order names stop index {twice[0]} more than once"
    missing = sorted(set(range(stops)) - set(order))
    if missing:
        return f"own_order leaves out stop index {missing[0]}: an own order visits every stop once"
    return None


def check_own_order(order: Sequence[int] | None, stops: int) -> None:
    """Refuse an own order that is not an order of the request's stops (``InputError`` on ``own_order``)."""
    if order is None:
        return
    problem = own_order_problem(order, stops)
    if problem:
        raise InputError(problem, field="own_order")


class OwnLegDifference(BaseModel):
    """Leg ``position`` of the person's order beside leg ``position`` of the best order (both join their order's
    points ``position`` and ``position + 1``): each leg's points (ids, ``core.models.route.point_id``), figures and
    source, and the difference own − best. ``shared``: the best order travels the person's leg too (same
    direction)."""

    model_config = ConfigDict(frozen=True)

    position: int = Field(ge=0)
    own_from: str
    own_to: str
    own_distance_m: int
    own_duration_s: int
    own_source: str
    own_straight_line_estimate: bool
    best_from: str
    best_to: str
    best_distance_m: int
    best_duration_s: int
    best_source: str
    best_straight_line_estimate: bool
    delta_distance_m: int
    delta_duration_s: int
    shared: bool


class OwnOrderDifference(BaseModel):
    """The person's order against the best order of ``strategy``: totals (own − best, metres and seconds; the
    sums of the legs' differences) and leg by leg. ``same_as_best``: the two orders visit the same places in the
    same order. ``measured_alike``: both orders' legs were measured the same way (all from the matrix, or all on
    directions); when not, the figures are still each leg's own, and a face says so."""

    model_config = ConfigDict(frozen=True)

    strategy: str
    own_order: list[int] = Field(description="The person's order: indices into resolved_stops")
    best_order: list[int] = Field(description="The best order: indices into resolved_stops")
    own_distance_m: int
    own_duration_s: int
    best_distance_m: int
    best_duration_s: int
    delta_distance_m: int
    delta_duration_s: int
    same_as_best: bool
    measured_alike: bool
    straight_line_estimate: bool = Field(description="Some leg of either order is a straight-line estimate")
    legs: list[OwnLegDifference]
