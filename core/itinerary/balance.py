"""Even days: measure how full each day is, move stops from a busy day to a light one when that keeps every
place and costs little travel, and say why the days stay uneven when they must (docs/ARCHITECTURE.md).

A trip is balanced when the days' visit counts differ by at most ``MAX_VISIT_SPREAD`` (one rule for the itinerary
page and the agent); between splits as even by count, the one with closer busy minutes (visits + robust travel) is
better. Moves never drop a place: a stop moves only when
both days stay feasible (layout_day), and a move may add at most ``MAX_EXTRA_TRAVEL_MIN`` robust travel minutes.
The reasons are codes with facts (BalanceReasonCode); the faces choose the words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from core.config import Settings
from core.itinerary.layout import DaySchedule, best_insertion, layout_day
from core.itinerary.routing import optimize_day_vrptw
from core.models.itinerary_problem import DayPlan, ItineraryProblem
from core.models.itinerary_result import BalanceReason, DayBalance, DayLoad

#: Visit counts that differ by at most this many are even: 4 beside 2 reads as one thin day, for the itinerary page
#: and the agent alike (one rule; balancing still never drops a place, so the days stay as the places allow).
MAX_VISIT_SPREAD = 1
#: A balancing move may add at most this many robust travel minutes (more: the days are far apart).
MAX_EXTRA_TRAVEL_MIN = 40


def _travel(sched: DaySchedule | None) -> int:
    return sum(s.end - s.start for s in sched.steps if s.kind == "travel") if sched else 0


def _busy(problem: ItineraryProblem, order: Sequence[str], sched: DaySchedule | None) -> int:
    return sum(problem.stop(k).visit_min for k in order) + _travel(sched)


def free_minutes(problem: ItineraryProblem, day_index: int) -> int:
    day = problem.days[day_index]
    return day.end_min - day.start_min - day.lunch_min


def _spreads(visits: Sequence[int], busy: Sequence[int]) -> tuple[int, int]:
    return (max(visits) - min(visits), max(busy) - min(busy)) if visits else (0, 0)


def _is_even(visit_spread: int, max_visit_spread: int = MAX_VISIT_SPREAD) -> bool:
    # Busy minutes no longer make uneven counts even: two long museums beside four short stops read as a thin
    # day too; when no move fits, the reason says so (LIGHT_DAY_FULL, SHORTER_DAY, ...).
    return visit_spread <= max_visit_spread


def _score(
    visits: Sequence[int], busy: Sequence[int], max_visit_spread: int = MAX_VISIT_SPREAD
) -> tuple[int, int, int]:
    """Lower is more even: (uneven?, visits beyond the allowed spread, busy spread)."""
    vs, bs = _spreads(visits, busy)
    return (0 if _is_even(vs, max_visit_spread) else 1, max(0, vs - max_visit_spread), bs)


class _Days:
    """The plans' orders with their schedules, updated move by move."""

    def __init__(self, problem: ItineraryProblem, plans: Sequence[DayPlan], settings: Settings) -> None:
        self.problem, self.settings = problem, settings
        self.order = {p.day_index: list(p.order) for p in plans}
        self.sched = {d: layout_day(problem, d, o, settings=settings) for d, o in self.order.items()}

    def indices(self) -> list[int]:
        return sorted(self.order)

    def visits(self) -> list[int]:
        return [len(self.order[d]) for d in self.indices()]

    def busy(self) -> list[int]:
        return [_busy(self.problem, self.order[d], self.sched[d]) for d in self.indices()]


def plans_are_even(plans: Sequence[DayPlan]) -> bool:
    """The one rule for even days (the page's pipeline and the agent): visit counts within MAX_VISIT_SPREAD. A single
    day is even."""
    visits = [len(p.order) for p in plans]
    return len(visits) < 2 or _is_even(max(visits) - min(visits))


def _movable(problem: ItineraryProblem, key: str) -> bool:
    stop = problem.stop(key)
    return stop.fixed_day is None and stop.fixed_start_min is None


def _try_move(days: _Days, key: str, heavy: int, light: int) -> tuple[DaySchedule, DaySchedule, int] | None:
    """(new heavy schedule, new light schedule, extra travel) of moving ``key``, or None if a day breaks."""
    problem, settings = days.problem, days.settings
    if not problem.stop(key).windows_by_day[light]:
        return None
    rest = [k for k in days.order[heavy] if k != key]
    h_sched = layout_day(problem, heavy, rest, settings=settings)
    if h_sched is None:
        return None
    l_sched = best_insertion(problem, light, days.order[light], key, settings=settings)
    if l_sched is None:
        return None
    before = _travel(days.sched[heavy]) + _travel(days.sched[light])
    return h_sched, l_sched, _travel(h_sched) + _travel(l_sched) - before


def rebalance_days(
    problem: ItineraryProblem,
    plans: Sequence[DayPlan],
    *,
    settings: Settings,
    max_visit_spread: int = MAX_VISIT_SPREAD,
) -> tuple[list[DayPlan], list[dict[str, Any]]]:
    """Move stops from busy days to light ones until the days are even or no move helps.

    ``max_visit_spread``: the visit counts' spread that is even; the page and the agent both keep the default
    (MAX_VISIT_SPREAD), so a plan is evened by one rule wherever it is made.

    A move keeps every place (both days stay feasible), adds at most MAX_EXTRA_TRAVEL_MIN robust travel
    minutes and makes the days strictly more even (``_score``); the cheapest such move is made first. The days
    that changed are re-ordered by the solver with all their stops kept when that travels less. Returns the
    new plans and the moves made (key, from_day, to_day, extra_travel_min).
    """
    if len(plans) < 2:
        return [p.model_copy(deep=True) for p in plans], []
    days = _Days(problem, plans, settings)
    moves: list[dict[str, Any]] = []
    for _ in range(2 * sum(days.visits()) + 1):
        visits, busy = days.visits(), days.busy()
        score = _score(visits, busy, max_visit_spread)
        if score[0] == 0:
            break
        idx = days.indices()
        best: tuple[tuple[int, int, int], int, str, int, int, DaySchedule, DaySchedule] | None = None
        for heavy in idx:
            for light in idx:
                if heavy == light or visits[idx.index(heavy)] <= visits[idx.index(light)]:
                    continue
                for key in days.order[heavy]:
                    if not _movable(problem, key):
                        continue
                    tried = _try_move(days, key, heavy, light)
                    if tried is None or tried[2] > MAX_EXTRA_TRAVEL_MIN:
                        continue
                    h_sched, l_sched, extra = tried
                    v2, b2 = list(visits), list(busy)
                    hi, li = idx.index(heavy), idx.index(light)
                    v2[hi] -= 1
                    v2[li] += 1
                    b2[hi] = _busy(problem, h_sched.order, h_sched)
                    b2[li] = _busy(problem, l_sched.order, l_sched)
                    new = _score(v2, b2, max_visit_spread)
                    if new >= score:
                        continue
                    cand = (new, extra, key, heavy, light, h_sched, l_sched)
                    if best is None or (new, extra, key) < (best[0], best[1], best[2]):
                        best = cand
        if best is None:
            break
        _, extra, key, heavy, light, h_sched, l_sched = best
        days.order[heavy], days.sched[heavy] = list(h_sched.order), h_sched
        days.order[light], days.sched[light] = list(l_sched.order), l_sched
        moves.append({"key": key, "from_day": heavy, "to_day": light, "extra_travel_min": extra})

    out = [p.model_copy(deep=True) for p in plans]
    changed = {m["from_day"] for m in moves} | {m["to_day"] for m in moves}
    for plan in out:
        d = plan.day_index
        if d not in changed:
            continue
        plan.order = days.order[d]
        if len(plan.order) > 1:  # the insertion order, or the solver's when it keeps all and travels less
            solved = optimize_day_vrptw(
                problem,
                day_index=d,
                keys=plan.order,
                settings=settings,
                force_keys=plan.order,
                initial_order=plan.order,
            )
            if sorted(solved.order) == sorted(plan.order):
                sched = layout_day(problem, d, solved.order, settings=settings)
                if sched is not None and _travel(sched) < _travel(days.sched[d]):
                    plan.order = list(solved.order)
        plan.solver_status = f"{plan.solver_status}+BALANCED" if plan.solver_status else "BALANCED"
    return out, moves


def _reason(problem: ItineraryProblem, days: _Days, heavy: int, light: int) -> BalanceReason:
    """Why no more of ``heavy``'s stops go to ``light``: the most telling code over its stops."""
    by_code: dict[str, list[str]] = {}
    extra_of: dict[str, int] = {}
    light_day = problem.days[light]
    for key in days.order[heavy]:
        stop = problem.stop(key)
        if not _movable(problem, key):
            code = "LOCKED_TO_DAY"
        elif not stop.windows_by_day[light]:
            code = "ONLY_OPEN_THAT_DAY"
        else:
            tried = _try_move(days, key, heavy, light)
            if tried is None:
                code = (
                    "SHORTER_DAY" if free_minutes(problem, light) < free_minutes(problem, heavy) else "LIGHT_DAY_FULL"
                )
            elif tried[2] > MAX_EXTRA_TRAVEL_MIN:
                extra_of[key] = tried[2]
                heavy_day = problem.days[heavy]
                other_anchor = (light_day.start_key, light_day.end_key) != (heavy_day.start_key, heavy_day.end_key)
                code = "HOTEL_DISTANCE" if other_anchor else "REMOTE_CLUSTER"
            else:
                code = "NO_BETTER_SPLIT"
        by_code.setdefault(code, []).append(key)
    precedence = [
        "LOCKED_TO_DAY",
        "ONLY_OPEN_THAT_DAY",
        "SHORTER_DAY",
        "LIGHT_DAY_FULL",
        "HOTEL_DISTANCE",
        "REMOTE_CLUSTER",
        "NO_BETTER_SPLIT",
    ]
    counts = Counter({c: len(k) for c, k in by_code.items()})
    code = max(counts, key=lambda c: (counts[c], -precedence.index(c))) if counts else "NO_BETTER_SPLIT"
    keys = by_code.get(code, [])
    facts: dict[str, Any] = {
        "heavy_visits": len(days.order[heavy]),
        "light_visits": len(days.order[light]),
        "places": len(keys),
        "codes": {c: len(k) for c, k in sorted(by_code.items())},
    }
    if code in {"SHORTER_DAY", "LIGHT_DAY_FULL"}:
        facts.update(
            light_free_min=free_minutes(problem, light),
            heavy_free_min=free_minutes(problem, heavy),
            light_busy_min=_busy(problem, days.order[light], days.sched[light]),
        )
    if code in {"REMOTE_CLUSTER", "HOTEL_DISTANCE"}:
        facts["extra_travel_min"] = min(extra_of[k] for k in keys)
        facts["max_extra_travel_min"] = MAX_EXTRA_TRAVEL_MIN
    if code == "HOTEL_DISTANCE":
        facts["light_start_key"] = light_day.start_key
        facts["heavy_start_key"] = problem.days[heavy].start_key
    return BalanceReason(code=code, heavy_day=heavy, light_day=light, keys=keys, facts=facts)


def measure_balance(
    problem: ItineraryProblem,
    plans: Sequence[DayPlan],
    *,
    settings: Settings,
    moves: Sequence[dict[str, Any]] = (),
) -> DayBalance:
    """How even the days of ``plans`` are, and (when they are not) why: one reason for the busiest and the
    lightest day by visits."""
    days = _Days(problem, plans, settings)
    idx = days.indices()
    visits, busy = days.visits(), days.busy()
    vs, bs = _spreads(visits, busy)
    balanced = _is_even(vs) or len(idx) < 2
    reasons: list[BalanceReason] = []
    if not balanced:
        heavy = idx[max(range(len(idx)), key=lambda i: (visits[i], -i))]
        light = idx[min(range(len(idx)), key=lambda i: (visits[i], busy[i], i))]
        reasons.append(_reason(problem, days, heavy, light))
    return DayBalance(
        balanced=balanced,
        visit_spread=vs,
        busy_spread_min=bs,
        max_visit_spread=MAX_VISIT_SPREAD,
        days=[
            DayLoad(day_index=d, visits=visits[i], busy_min=busy[i], free_min=free_minutes(problem, d))
            for i, d in enumerate(idx)
        ],
        moves=len(moves),
        extra_travel_min=sum(int(m.get("extra_travel_min", 0)) for m in moves),
        reasons=reasons,
    )
