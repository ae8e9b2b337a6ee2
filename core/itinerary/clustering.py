"""Days from stops: balanced clustering before the per-day solve, and cross-day repair after it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.config import Settings
from core.itinerary.layout import best_insertion, layout_day
from core.itinerary.must_assignment import reassign_musts
from core.itinerary.problem import effective_penalty, is_hard
from core.itinerary.routing import optimize_day_vrptw, plan_penalty
from core.models.common import PRIORITY_RANK
from core.models.itinerary_problem import DayAssignment, DayClusters, DayPlan, ItineraryProblem, ProblemStop


def _reachable_days(problem: ItineraryProblem, stop: ProblemStop) -> list[int]:
    """The days ``stop`` can be reached in one of its windows from the day's start and left in time for its end."""
    R = problem.matrix.robust()
    out = []
    for d, day in enumerate(problem.days):
        s_pt, e_pt = problem.point_index(day.start_key), problem.point_index(day.end_key)
        for w in stop.windows_by_day[d]:
            arrive = max(day.start_min + R[s_pt][stop.point_index], w.start)
            if arrive <= w.end and arrive + stop.visit_min + R[stop.point_index][e_pt] <= day.end_min:
                out.append(d)
                break
    return out


class _DayLoads:
    """The days being filled: each day's stops and load (visit plus a fair share of travel) against its capacity,
    and what putting a stop on a day costs (distance to the day's stops, fill, overfill, the preferred day)."""

    def __init__(
        self, problem: ItineraryProblem, capacity: list[int], load_of: dict[str, int], preferred_days: dict[str, int]
    ) -> None:
        self.problem = problem
        self.R = problem.matrix.robust()
        self.capacity = capacity
        self.load_of = load_of
        self.preferred_days = preferred_days
        self.members: list[list[ProblemStop]] = [[] for _ in problem.days]
        self.load = [0] * len(problem.days)

    def add(self, stop: ProblemStop, d: int) -> None:
        self.members[d].append(stop)
        self.load[d] += self.load_of[stop.key]

    def remove(self, stop: ProblemStop, d: int) -> None:
        self.members[d].remove(stop)
        self.load[d] -= self.load_of[stop.key]

    def affinity(self, stop: ProblemStop, d: int) -> float:
        R, members = self.R, self.members
        if members[d]:
            return sum(R[stop.point_index][m.point_index] for m in members[d]) / len(members[d])
        day = self.problem.days[d]
        return float(R[self.problem.point_index(day.start_key)][stop.point_index])

    def cost(self, stop: ProblemStop, d: int) -> float:
        load, capacity = self.load, self.capacity
        over = max(0, load[d] + self.load_of[stop.key] - capacity[d])
        fill = load[d] / max(1, capacity[d])
        bonus = -30.0 if self.preferred_days.get(stop.key) == d else 0.0
        return self.affinity(stop, d) + 60.0 * fill + 10.0 * over + bonus


def _seeds(problem: ItineraryProblem, order: list[ProblemStop], feasible: dict[str, list[int]]) -> list[ProblemStop]:
    """One stop per day to start it, mutually far apart (the first the farthest from the hotel), among the stops
    that may go on any day; none when there are too few of them or one day."""
    R = problem.matrix.robust()
    n_days = len(problem.days)
    flexible = [s for s in order if len(feasible[s.key]) == n_days and s.fixed_day is None]
    seeds: list[ProblemStop] = []
    if n_days > 1 and len(flexible) >= n_days:
        hotel = problem.point_index(problem.days[0].start_key)
        seeds.append(max(flexible, key=lambda s: (R[hotel][s.point_index], s.key)))
        while len(seeds) < n_days:
            seeds.append(
                max(
                    (s for s in flexible if s not in seeds),
                    key=lambda s: (min(R[q.point_index][s.point_index] for q in seeds), s.key),
                )
            )
    return seeds


def _improve(days: _DayLoads, feasible: dict[str, list[int]]) -> None:
    """A few passes moving a stop (not fixed, with more than one possible day) to the day where it costs clearly
    less; stops when a pass moves nothing."""
    for _ in range(4):  # improvement passes
        moved = False
        for d in range(len(days.members)):
            for stop in list(days.members[d]):
                if stop.fixed_day is not None or len(feasible[stop.key]) == 1:
                    continue
                days.remove(stop, d)
                here = days.cost(stop, d)
                best = min(feasible[stop.key], key=lambda e: (days.cost(stop, e), e))
                target = best if days.cost(stop, best) + 1e-9 < here - 5 else d
                days.add(stop, target)
                moved |= target != d
        if not moved:
            break


def cluster_days_balanced(
    problem: ItineraryProblem, *, settings: Settings, preferred_days: dict[str, int] | None = None
) -> DayClusters:
    """Split stops into days: closed days and locks respected, load balanced against capacity,
    each stop placed near the day's other stops (robust minutes).

    Greedy in order of constraint tightness (fewest possible days, then priority, then longest
    visit), then a few improvement passes that move a stop when it lowers the day's mean travel
    without overfilling. ``preferred_days`` (from a previous plan) keeps re-plans stable.
    """
    R = problem.matrix.robust()
    util = settings.pacing_day_utilisation.get(problem.request.pacing, 0.85)
    capacity = [int((d.end_min - d.start_min - d.lunch_min) * util) for d in problem.days]
    n_days = len(problem.days)
    feasible = {s.key: _reachable_days(problem, s) for s in problem.stops}
    unassignable = [s.key for s in problem.stops if not feasible[s.key]]

    def travel_load(stop: ProblemStop) -> int:
        # Robust minutes to its nearest other stop: a fair share of the day's travel.
        others = [R[stop.point_index][o.point_index] for o in problem.stops if o.key != stop.key]
        return min(others) if others else 0

    load_of = {s.key: s.visit_min + travel_load(s) for s in problem.stops}
    days = _DayLoads(problem, capacity, load_of, preferred_days or {})
    order = sorted(
        (s for s in problem.stops if feasible[s.key]),
        key=lambda s: (len(feasible[s.key]), PRIORITY_RANK[s.priority], -s.visit_min, s.key),
    )
    # Seed empty days with mutually far stops so days become geographic clusters.
    seeds = _seeds(problem, order, feasible)
    for d, seed in enumerate(seeds):
        days.add(seed, d)
    for stop in order:
        if stop in seeds:
            continue
        days.add(stop, min(feasible[stop.key], key=lambda d: (days.cost(stop, d), d)))
    _improve(days, feasible)

    return DayClusters(
        days=[
            DayAssignment(
                day_index=d, keys=[s.key for s in days.members[d]], load_min=days.load[d], capacity_min=capacity[d]
            )
            for d in range(n_days)
        ],
        unassignable=unassignable,
    )


def repair_cross_day(
    problem: ItineraryProblem, plans: Sequence[DayPlan], *, settings: Settings
) -> tuple[list[DayPlan], list[dict[str, Any]]]:
    """Put dropped stops back where there is room, most valuable first.

    For each dropped stop and each day it can go on (other days first, then its own): insert it
    into the day's order if that fits; otherwise re-solve the day with the stop forced in, which
    may displace cheaper stops (the trade greedy local search misses: one 'should' for several
    'nice'). A displaced stop that fits another day as it stands goes there (so a must may make room
    for another must that only fits this day); one that fits no other day is kept on this day and the
    day solved again, so that another stop gives way instead (force_in). A change is kept only if the
    penalty left dropped is below the stop's own, so the total dropped penalty strictly falls and the
    loop ends. A must still dropped then gets an exact search over which day each must goes on
    (must_assignment.reassign_musts, small trips). Returns new plans and the moves made.
    """
    repair = _CrossDayRepair(problem, plans, settings)
    moves = repair.run()
    # A must still dropped may need a chain of moves the loop above does not make: an exact search over days.
    plans, reassigned = reassign_musts(problem, repair.plans, settings=settings)
    moves.extend({**m, "displaced": []} for m in reassigned)
    return plans, moves


Rehomed = dict[str, tuple[int, list[str]]]  # displaced key -> (the day it went to, what it displaced there)


class _CrossDayRepair:
    """The state of one repair: the plans (copies), what is still dropped (most valuable first), each dropped
    stop's own day, and the (stop, day, order) tries already made."""

    def __init__(self, problem: ItineraryProblem, plans: Sequence[DayPlan], settings: Settings) -> None:
        self.problem = problem
        self.settings = settings
        self.plans = [p.model_copy(deep=True) for p in plans]
        self.by_day = {p.day_index: p for p in self.plans}
        self.pool = sorted({k for p in self.plans for k in p.dropped}, key=self._rank)
        self.home = {k: p.day_index for p in self.plans for k in p.dropped}
        self.tried: set[tuple[str, int, tuple[str, ...]]] = set()
        self.moves: list[dict[str, Any]] = []

    def _worth(self, key: str) -> int:
        return effective_penalty(self.problem.stop(key), self.settings)

    def _rank(self, key: str) -> tuple[int, str]:
        return -self._worth(key), key

    def room(self, d: int) -> int:
        sched = layout_day(self.problem, d, self.by_day[d].order, settings=self.settings)
        return (self.problem.days[d].end_min - sched.finish) if sched else 0

    def run(self) -> list[dict[str, Any]]:
        while self.pool:
            self.place(self.pool.pop(0))
        return self.moves

    def place(self, key: str) -> None:
        """``key`` on the first day it fits (other days first, most room first), inserted or forced in."""
        problem, stop = self.problem, self.problem.stop(key)
        candidates = [d for d in range(len(problem.days)) if stop.windows_by_day[d] and d in self.by_day]
        candidates.sort(key=lambda d: (d == self.home.get(key), -self.room(d), d))
        for d in candidates:
            plan = self.by_day[d]
            sig = (key, d, tuple(plan.order))
            if sig in self.tried:
                continue
            self.tried.add(sig)
            ins = best_insertion(problem, d, plan.order, key, settings=self.settings)
            rehomed: Rehomed = {}
            new_dropped: list[str]
            if ins is not None:
                new_order, new_dropped = ins.order, []
            else:
                # Force it in; a stop it displaces may go to another day (rehome): two musts that only fit the
                # same morning, one of which could start another day.
                hard = is_hard(stop)
                if not hard and not any(self._worth(k) < self._worth(key) for k in plan.order):
                    continue  # forcing it in could only displace stops worth as much or more
                forced = self.force_in(key, d, hard)
                if forced is None:
                    continue
                new_order, new_dropped, rehomed = forced
            self._apply(key, d, list(new_order), new_dropped, rehomed)
            return

    def _apply(self, key: str, d: int, new_order: list[str], new_dropped: list[str], rehomed: Rehomed) -> None:
        src = self.home.get(key)
        for p in self.plans:
            if key in p.dropped:
                p.dropped.remove(key)
        plan = self.by_day[d]
        plan.order = new_order
        plan.dropped = [*plan.dropped, *new_dropped]
        for k in new_dropped:
            self.home[k] = d
            self.pool.append(k)
        self.pool.sort(key=self._rank)
        self.moves.append({"key": key, "from_day": src, "to_day": d, "displaced": list(new_dropped)})
        self.moves.extend({"key": k, "from_day": d, "to_day": e, "displaced": x} for k, (e, x) in rehomed.items())

    def rehome(self, k: str, d: int) -> tuple[int, list[str], list[str]] | None:
        """Another day for ``k`` (displaced from day ``d``): one where it fits as the day stands, else one
        where forcing it in displaces only stops worth less than it. (day, new order, displaced) or None."""
        problem, by_day = self.problem, self.by_day
        others = sorted(
            (e for e in by_day if e != d and problem.stop(k).windows_by_day[e]), key=lambda e: (-self.room(e), e)
        )
        for e in others:
            sched = best_insertion(problem, e, by_day[e].order, k, settings=self.settings)
            if sched is not None:
                return e, list(sched.order), []
        worth_k = self._worth(k)
        for e in others:
            trial = optimize_day_vrptw(
                problem, day_index=e, keys=[*by_day[e].order, k], settings=self.settings, force_keys=[k]
            )
            displaced = [x for x in trial.dropped if x != k]
            if k in trial.order and plan_penalty(problem, displaced, self.settings) < worth_k:
                return e, list(trial.order), displaced
        return None

    def force_in(self, key: str, d: int, hard: bool) -> tuple[list[str], list[str], Rehomed] | None:
        """Force ``key`` into day ``d``; the stops it displaces go to other days where they can (rehome).

        The solver chooses what to displace by travel alone, so it may displace a stop that fits no other day
        (a must open only on this day) where displacing another (one that fits another day) would have kept
        both. A displaced stop that found no other day is then kept on this day (pinned, forced like ``key``)
        and the day solved again, until nothing more can be pinned. The attempt leaving the least penalty
        dropped is kept if that is below ``key``'s own; the other days' orders are left as it made them.
        (new order of d, dropped, rehomed) or None.
        """
        by_day = self.by_day
        worth = self._worth(key)
        before = {e: list(p.order) for e, p in by_day.items()}
        best: tuple[int, list[str], list[str], Rehomed, dict[int, list[str]]] | None = None
        pinned: list[str] = []
        while True:
            trial = optimize_day_vrptw(
                self.problem,
                day_index=d,
                keys=[*by_day[d].order, key],
                settings=self.settings,
                force_keys=[key, *pinned],
                displace_musts=hard,
            )
            if key not in trial.order:
                break
            dropped, rehomed, stuck = self._rehome_all([k for k in trial.dropped if k != key], d)
            penalty = plan_penalty(self.problem, dropped, self.settings)
            if penalty < worth and (best is None or penalty < best[0]):
                best = (penalty, list(trial.order), dropped, rehomed, {e: list(p.order) for e, p in by_day.items()})
            for e, order in before.items():
                by_day[e].order = list(order)
            new_pins = [k for k in stuck if k not in pinned]
            if not penalty or not new_pins:
                break
            pinned.extend(new_pins)
        if best is None:
            return None
        _, order, dropped, rehomed, orders = best
        for e, o in orders.items():
            if e != d:
                by_day[e].order = o
        return order, dropped, rehomed

    def _rehome_all(self, displaced: list[str], d: int) -> tuple[list[str], Rehomed, list[str]]:
        """Each stop displaced from day ``d`` to another day where it can go (the other days' orders change):
        (what is dropped in the end, where each rehomed stop went, the stops that found no other day)."""
        dropped: list[str] = []
        rehomed: Rehomed = {}
        stuck: list[str] = []
        for k in displaced:
            target = self.rehome(k, d)
            if target is None:
                dropped.append(k)
                stuck.append(k)
            else:
                e, order, moved_out = target
                rehomed[k] = (e, moved_out)
                self.by_day[e].order = order
                dropped.extend(moved_out)
        return dropped, rehomed, stuck
