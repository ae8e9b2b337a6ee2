"""Suggestions that fit: when the agent's own suggestions (never a place the person named) are dropped as not
fitting the days, other candidates of the same search take their places, each checked to fit a day first.

The rule: every dropped suggestion is replaced by one candidate that fits, lightest day first, so a suggested
two-day plan keeps PLACES_PER_DAY suggestions a day when the pack has fitting places (and at least two, where the
person named none). The check is exact for the plan as it stands: the candidate is inserted where it fits best
into a day's laid-out order (core.itinerary.layout.best_insertion, robust travel, opening hours, lunch); the
re-plan that follows may still drop one, which then keeps its reason like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.config import Settings
from core.geo.composite import MapServices
from core.itinerary.layout import best_insertion
from core.itinerary.problem import prepare_problem
from core.models.itinerary import TripPlace, TripRequest
from core.models.itinerary_problem import DayPlan

#: Candidates the probe takes at most: each is a point of its travel matrix (calls on a live provider).
MAX_CANDIDATES = 12


@dataclass(frozen=True)
class Swap:
    """The suggestions left out (did not fit) and the candidates put in their place, by day (0-based)."""

    dropped: list[str]
    added: dict[str, int]


def fitting_replacements(
    request: TripRequest,
    plans: Sequence[DayPlan],
    *,
    dropped: Sequence[str],
    candidates: Sequence[str],
    provider: MapServices,
    settings: Settings,
) -> Swap:
    """One fitting candidate per dropped suggestion, in the candidates' order (the search's ranking).

    ``request`` is the planned trip; ``plans`` its days; ``candidates`` the search's other places (pack ids, best
    first). The day with the fewest visits is filled first; a candidate that fits no day is skipped.
    """
    pool = [c for c in dict.fromkeys(candidates) if c not in {p.place_id for p in request.places}]
    if not dropped or not pool:
        return Swap(dropped=[], added={})
    probe = request.model_copy(
        update={
            "places": [
                *request.places,
                *(TripPlace(key=c, place_id=c, priority="nice") for c in pool[:MAX_CANDIDATES]),
            ]
        }
    )
    problem = prepare_problem(probe, provider=provider, settings=settings)
    known = {s.key for s in problem.stops}
    orders = {p.day_index: list(p.order) for p in plans}
    added: dict[str, int] = {}
    for _ in dropped:
        placed = False
        for day in sorted(orders, key=lambda d: (len(orders[d]), d)):
            for key in pool:
                if key in added or key not in known:
                    continue
                sched = best_insertion(problem, day, orders[day], key, settings=settings)
                if sched is not None:
                    orders[day] = list(sched.order)
                    added[key] = day
                    placed = True
                    break
            if placed:
                break
        if not placed:
            break
    return Swap(dropped=list(dropped)[: len(added)], added=added)
