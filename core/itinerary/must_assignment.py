"""The last resort for must-visits the heuristics dropped: an exact search over which day each must goes on.

Clustering, the per-day solves and the cross-day repair move stops one at a time (a stop, and what it displaces).
A must can still be dropped when keeping it takes a chain of moves: a long must fits one day only if a must there
goes to the other day, which in turn fits only if a third must comes back. For a trip with few musts this module
tries every assignment of musts to the days they may go on (fewest changes to the plan first), each day checked
exactly (every order of its musts laid out); the first assignment where every day holds its musts is laid out again with
the optional stops kept where they still fit. The search has fixed caps (deterministic: a count of assignments and
of orders laid out, never the clock), so a large trip keeps the heuristics' answer. A must closed on every day of
the trip stays dropped and is left out of the search; the others are still searched.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from core.config import Settings
from core.itinerary.layout import best_insertion, layout_day
from core.itinerary.problem import effective_penalty, is_hard
from core.itinerary.routing import optimize_day_vrptw
from core.models.itinerary_problem import DayPlan, ItineraryProblem

#: Trips with more musts than this keep the heuristics' answer.
MAX_MUSTS = 8
#: At most this many assignments of musts to days are tried.
MAX_ASSIGNMENTS = 4096
#: A day holding more musts than this is not checked (exact enumeration of its orders stays cheap).
MAX_MUSTS_PER_DAY = 6
#: At most this many orders are laid out (``layout_day``) over the whole search; when reached the search stops and
#: the plans are kept as the heuristics left them (no assignment found so far).
MAX_LAYOUT_CALLS = 20_000


class _OutOfLayouts(Exception):
    """The search laid out MAX_LAYOUT_CALLS orders."""


class _DayOrders:
    """Each day checked exactly for a set of musts: the first feasible order of the set, remembered per (day, set),
    with the sets already found infeasible and the count of orders laid out over the whole search."""

    def __init__(self, problem: ItineraryProblem, days: Sequence[int], *, settings: Settings) -> None:
        self.problem = problem
        self.settings = settings
        self.memo: dict[tuple[int, frozenset[str]], list[str] | None] = {}
        self.infeasible: dict[int, list[frozenset[str]]] = {d: [] for d in days}
        self.layouts = 0

    def _enumerate(self, d: int, keys: frozenset[str]) -> list[str] | None:
        """The first feasible order of ``keys`` on day ``d`` (permutations of the sorted keys), or None."""
        for perm in itertools.permutations(sorted(keys)):
            if self.layouts >= MAX_LAYOUT_CALLS:
                raise _OutOfLayouts
            self.layouts += 1
            if layout_day(self.problem, d, perm, settings=self.settings):
                return list(perm)
        return None

    def order(self, d: int, keys: frozenset[str]) -> list[str] | None:
        """A feasible order of ``keys`` on day ``d`` by enumeration, or None. A day too short for the visits
        alone, or holding a set already found infeasible, is not enumerated (taking a stop away does not make a
        day infeasible when travel times keep the triangle inequality: one may wait for an opening); nor is a
        day holding more than MAX_MUSTS_PER_DAY musts (it counts as infeasible here)."""
        if (d, keys) in self.memo:
            return self.memo[(d, keys)]
        day = self.problem.days[d]
        order: list[str] | None = None
        if not keys:
            order = []
        elif (
            len(keys) <= MAX_MUSTS_PER_DAY
            and sum(self.problem.stop(k).visit_min for k in keys) <= day.end_min - day.start_min - day.lunch_min
            and not any(bad <= keys for bad in self.infeasible[d])
        ):
            order = self._enumerate(d, keys)
        if order is None:
            self.infeasible[d].append(keys)
        self.memo[(d, keys)] = order
        return order


def _search_assignment(
    problem: ItineraryProblem,
    days: Sequence[int],
    musts: Sequence[str],
    allowed: Sequence[Sequence[int]],
    day_of: dict[str, int],
    *,
    settings: Settings,
) -> dict[int, list[str]] | None:
    """The first assignment of ``musts`` to their ``allowed`` days (fewest changes to ``day_of`` first, then the
    assignment itself) where every day holds its musts: each day's must order; None when there is none within the
    caps."""

    def changes(assignment: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        return sum(day_of.get(k) != d for k, d in zip(musts, assignment, strict=True)), assignment

    checker = _DayOrders(problem, days, settings=settings)
    try:
        for assignment in sorted(itertools.product(*allowed), key=changes):
            orders: dict[int, list[str]] = {}
            for d in days:
                order = checker.order(d, frozenset(k for k, e in zip(musts, assignment, strict=True) if e == d))
                if order is None:
                    break
                orders[d] = order
            else:
                return orders
    except _OutOfLayouts:
        return None
    return None


def _solve_days_with_musts(
    problem: ItineraryProblem,
    by_day: dict[int, DayPlan],
    found: dict[int, list[str]],
    must_set: set[str],
    *,
    settings: Settings,
) -> list[str]:
    """Each day solved again holding its ``found`` musts and its optional stops (the exact must order when the
    solve loses a must); returns the optional stops left out, day by day."""
    left: list[str] = []
    for d, plan in by_day.items():
        kept = [k for k in plan.order if k not in must_set]
        keys = [*found[d], *kept]
        solved = optimize_day_vrptw(problem, day_index=d, keys=keys, settings=settings, force_keys=found[d])
        if set(found[d]) <= set(solved.order):
            plan.order = list(solved.order)
            left.extend(k for k in solved.dropped if k not in must_set)
        else:  # the exact order, the day's optional stops inserted where they fit
            plan.order = list(found[d])
            left.extend(kept)
        plan.dropped = []
        plan.solver_status = f"{plan.solver_status}+MUSTS_REASSIGNED"
    return left


def _reinsert_optional(
    problem: ItineraryProblem,
    by_day: dict[int, DayPlan],
    left: Sequence[str],
    home: dict[str, int],
    *,
    settings: Settings,
) -> None:
    """The optional stops ``left`` out, most valuable first, inserted on their own day where they fit, else on the
    first other day where they fit, else dropped on their own day (the first day for a stop with none)."""
    for k in sorted(dict.fromkeys(left), key=lambda k: (-effective_penalty(problem.stop(k), settings), k)):
        days = sorted(by_day, key=lambda d: (d != home.get(k), d))
        for d in days:
            if not problem.stop(k).windows_by_day[d]:
                continue
            sched = best_insertion(problem, d, by_day[d].order, k, settings=settings)
            if sched is not None:
                by_day[d].order = list(sched.order)
                break
        else:
            by_day[home.get(k, days[0])].dropped.append(k)


def reassign_musts(
    problem: ItineraryProblem, plans: Sequence[DayPlan], *, settings: Settings
) -> tuple[list[DayPlan], list[dict[str, Any]]]:
    """Plans keeping every must when some assignment of musts to days allows it and the heuristics' plans dropped
    one; otherwise the plans unchanged. Optional stops stay on their day where they still fit, else go to another
    day where they fit (most valuable first), else are dropped. Returns the plans and the musts moved (key,
    from_day (None: was dropped), to_day)."""
    plans = [p.model_copy(deep=True) for p in plans]
    by_day = {p.day_index: p for p in plans}
    hard = [s.key for s in problem.stops if is_hard(s)]
    allowed_of = {k: [d for d in sorted(by_day) if problem.stop(k).windows_by_day[d]] for k in hard}
    # A must closed on every day stays dropped; it takes no part in the search.
    closed = [k for k in hard if not allowed_of[k]]
    musts = [k for k in hard if allowed_of[k]]
    dropped_musts = [k for p in plans for k in p.dropped if k in musts]
    if not dropped_musts or len(musts) > MAX_MUSTS:
        return plans, []
    day_of = {k: p.day_index for p in plans for k in p.order}
    allowed = [allowed_of[k] for k in musts]
    if math.prod(len(a) for a in allowed) > MAX_ASSIGNMENTS:
        return plans, []
    found = _search_assignment(problem, list(by_day), musts, allowed, day_of, settings=settings)
    if found is None:
        return plans, []

    must_set = set(hard)
    optional = [k for p in plans for k in [*p.order, *p.dropped] if k not in must_set]
    home = {k: p.day_index for p in plans for k in [*p.order, *p.dropped]}
    left = _solve_days_with_musts(problem, by_day, found, must_set, settings=settings)
    left.extend(k for k in optional if k not in left and all(k not in p.order for p in plans))
    _reinsert_optional(problem, by_day, left, home, settings=settings)
    for k in closed:
        if k in home:
            by_day[home[k]].dropped.append(k)
    moves = [
        {"key": k, "from_day": day_of.get(k), "to_day": d}
        for d, order in found.items()
        for k in order
        if day_of.get(k) != d
    ]
    return plans, moves
