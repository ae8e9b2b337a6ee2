"""Stage 6's composing (``rank_places_for_plan``), one path for the planner's tool and its mock: the candidates'
points (the start, when there is one, last), their travel table, and the plans composed on it. The tool and the mock
differ only in where the legs come from, the solver and the budget held to."""

from __future__ import annotations

from collections.abc import Callable, Generator

from core.geo.base import LonLat
from core.halfday.compose import iter_plans
from core.halfday.cpsat import exact_order
from core.halfday.generators import returned
from core.halfday.travel import TravelTable
from core.models.halfday.plans import ComposeInput, Plan

__all__ = ["TravelFor", "compose_plan_set", "iter_plan_set", "plan_points"]

#: the travel table between the points (the candidates in order, then the start)
TravelFor = Callable[[list[LonLat]], TravelTable]


def plan_points(inp: ComposeInput) -> tuple[list[LonLat], int | None]:
    """The points legs run between: the candidates in order, then the start when there is one (its index)."""
    points = [LonLat(c.lon, c.lat) for c in inp.candidates.items]
    if inp.origin is None:
        return points, None
    points.append(LonLat(inp.origin.lon, inp.origin.lat))
    return points, len(points) - 1


def compose_plan_set(
    inp: ComposeInput, *, travel: TravelFor, timezone: str, solver: str, budget: float | None
) -> tuple[list[Plan], list[str], TravelTable]:
    """The plans for ``inp`` on the legs ``travel`` gives, the composer's notes (codes), and the table itself (its
    source and warnings say where the legs came from)."""
    return returned(iter_plan_set(inp, travel=travel, timezone=timezone, solver=solver, budget=budget))


def iter_plan_set(
    inp: ComposeInput, *, travel: TravelFor, timezone: str, solver: str, budget: float | None
) -> Generator[Plan, None, tuple[list[Plan], list[str], TravelTable]]:
    """``compose_plan_set`` yielding each plan as soon as it is made (compose.iter_plans)."""
    cands = inp.candidates.items
    points, origin = plan_points(inp)
    table = travel(points)
    plans, notes = yield from iter_plans(
        cands,
        table,
        inp.slots,
        inp.profile,
        origin=origin,
        max_plans=inp.max_plans,
        now=inp.now,
        timezone=timezone,
        solver=solver,
        exact=exact_order,
        budget=budget,
    )
    return plans, notes, table
