"""Why each dropped stop is not on the plan, and the smallest verified change that would make it fit
(Action Registry: ``policy.validate_feasibility``).

OR-Tools says which stops it dropped, never why. ``validate_feasibility`` tests every dropped
stop against every trip day on its own, with that day's must-visits, and with the day's plan,
then searches the smallest change that would make it fit (later day end, earlier start, or
dropping one stop that is not more important). Every claimed fix was laid out and is feasible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, Field

from core.config import Settings
from core.itinerary.layout import best_insertion, layout_day
from core.itinerary.problem import is_hard, meal_starts_on, meal_window, start_windows
from core.itinerary.routing import exact_feasible_order
from core.models.common import PRIORITY_RANK
from core.models.itinerary import explain_reason
from core.models.itinerary_problem import DayPlan, ItineraryProblem, ProblemStop
from core.models.itinerary_result import DroppedItem, SmallestFix

# How bad a per-day verdict is; the item's reason is its best day's verdict.
_REASON_RANK = {
    "LOCKED_TO_OTHER_DAY": -1,
    "CLOSED_ON_DAY": 0,
    "OUTSIDE_OPENING_HOURS": 1,
    "UNREACHABLE_IN_WINDOW": 2,
    "BEFORE_DAY_START": 2,
    "PAST_DAY_END": 2,
    "LUNCH_CONFLICT": 2.5,
    "MEAL_TIME_CLOSED": 1,
    "DAY_TOO_FULL": 3,
    "LUNCH_TAKEN": 3.5,  # fits the day beside its must-visits; the day's one lunch is another meal
    "LOW_PRIORITY_TRADEOFF": 4,
}
# Cost of a fix, to pick the smallest: minutes of day change, or the dropped stop's minutes weighted by priority.
_DROP_WEIGHT = {"nice": 1.0, "should": 3.0, "must": 10.0}
_EXTEND_END_MIN = (15, 30, 45, 60, 90, 120, 180)
_START_EARLIER_MIN = (15, 30, 60, 90, 120, 180, 240)
_MAX_CHECKS_PER_STOP = 24
_START_EARLIER_WEIGHT = 1.5  # an earlier start is a slightly bigger ask than staying out later
_EARLIEST_DAY_START = 6 * 60


class _FixCandidate(TypedDict):
    """A change to try (``_try_fix``): the day, and its minutes or the stop to drop."""

    kind: Literal["extend_day_end", "start_day_earlier", "shorten_visit", "drop_stop"]
    day: int
    minutes: NotRequired[int]
    drop: NotRequired[str]


class FeasibilityReport(BaseModel):
    dropped_items: list[DroppedItem]
    infeasible_hard: list[str] = Field(default_factory=list, description="Must/locked stops that could not be kept")
    checks: int = Field(default=0, description="Layouts evaluated while searching fixes")


def _hhmm(minute_of_day: int) -> str:
    minute_of_day = max(0, minute_of_day)
    return f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"


def _day_label(problem: ItineraryProblem, d: int) -> str:
    day = problem.days[d]
    return f"day {d + 1} ({day.date.strftime('%a')} {day.date.isoformat()})"


def _verdict_for_day(
    problem: ItineraryProblem, stop: ProblemStop, d: int, plans_by_day: Mapping[int, DayPlan], settings: Settings
) -> str:

    if stop.fixed_day is not None and stop.fixed_day != d:
        return "LOCKED_TO_OTHER_DAY"
    if not stop.open_by_day[d]:
        return "CLOSED_ON_DAY"
    if not stop.windows_by_day[d]:
        return day_bounds_verdict(problem, stop, d) or meal_verdict(problem, stop, d) or "OUTSIDE_OPENING_HOURS"
    if layout_day(problem, d, [stop.key], settings=settings) is None:
        # Alone it does not fit. Travel and opening hours, or the lunch break? Say which, truthfully.
        if (
            problem.days[d].lunch_earliest_start is not None
            and layout_day(without_lunch(problem), d, [stop.key], settings=settings) is not None
        ):
            return "LUNCH_CONFLICT"
        if stop.fixed_start_min is not None and layout_day(
            problem, d, [stop.key], settings=settings, end_min=problem.days[d].offset_min + _DAY_MIN
        ):
            return "PAST_DAY_END"  # the locked visit and the way back fit, only after the day's end
        return "UNREACHABLE_IN_WINDOW"
    plan = plans_by_day.get(d)
    if lunch_taken_by(problem, stop, plan.order if plan else []) is not None:
        return "LUNCH_TAKEN"  # a day has one lunch: the layout refuses a second lunch meal, whatever else fits
    musts = [k for k in (plan.order if plan else []) if is_hard(problem.stop(k)) and k != stop.key]
    if musts:
        fits = best_insertion(problem, d, musts, stop.key, settings=settings) is not None
        if not fits:
            fits = exact_feasible_order(problem, d, [*musts, stop.key], settings=settings) is not None
        if not fits:
            return "DAY_TOO_FULL"
    return "LOW_PRIORITY_TRADEOFF"


_DAY_MIN = 24 * 60
_DAY_BOUNDS = ("PAST_DAY_END", "BEFORE_DAY_START")
#: verdicts of a stop that does not fit the day even alone: dropping another stop cannot help
_ALONE_DOES_NOT_FIT = frozenset(
    {"OUTSIDE_OPENING_HOURS", "UNREACHABLE_IN_WINDOW", "LUNCH_CONFLICT", "MEAL_TIME_CLOSED", *_DAY_BOUNDS}
)


def lunch_taken_by(problem: ItineraryProblem, stop: ProblemStop, order: Sequence[str]) -> str | None:
    """The lunch meal of a day's ``order`` other than ``stop``, when ``stop`` is a lunch meal too (None otherwise)."""
    if stop.meal != "lunch":
        return None
    return next((k for k in order if k != stop.key and problem.stop(k).meal == "lunch"), None)


def lunch_taken_facts(problem: ItineraryProblem, lunch_key: str) -> dict[str, str]:
    """The lunch meal a day already has: its key and name."""
    return {"lunch_key": lunch_key, "lunch_place": problem.stop(lunch_key).name}


def day_bounds_verdict(problem: ItineraryProblem, stop: ProblemStop, d: int) -> str | None:
    """A stop locked to a start time with no start window: the day's own bounds, not the opening hours, when the
    visit would fit the place's hours from that time (None: the opening hours are the reason)."""
    if stop.fixed_start_min is None:
        return None
    day = problem.days[d]
    fixed = day.offset_min + stop.fixed_start_min
    if fixed < day.start_min and start_windows(stop.open_by_day[d], stop.visit_min, day.offset_min, day.end_min, fixed):
        return "BEFORE_DAY_START"
    if start_windows(stop.open_by_day[d], stop.visit_min, day.start_min, day.offset_min + _DAY_MIN, fixed):
        return "PAST_DAY_END"
    return None


def meal_verdict(problem: ItineraryProblem, stop: ProblemStop, d: int) -> str | None:
    """A meal stop with no start window: its meal's time, when the visit would fit the place's hours and the day at
    another time (None: the opening hours are the reason)."""
    if stop.meal_starts is None:
        return None
    day = problem.days[d]
    fixed = day.offset_min + stop.fixed_start_min if stop.fixed_start_min is not None else None
    # open long enough inside the day at some other time: the meal's time (or a day that ends before it) is why
    fits_otherwise = start_windows(stop.open_by_day[d], stop.visit_min, day.start_min, day.end_min, fixed)
    return "MEAL_TIME_CLOSED" if fits_otherwise else None


def _fix_candidates(
    problem: ItineraryProblem,
    stop: ProblemStop,
    per_day: Mapping[int, str],
    plans_by_day: Mapping[int, DayPlan],
    *,
    settings: Settings,
) -> list[tuple[float, _FixCandidate]]:

    out: list[tuple[float, _FixCandidate]] = []
    for d, verdict in per_day.items():
        if verdict in {"LOCKED_TO_OTHER_DAY", "CLOSED_ON_DAY"}:
            continue  # only another day helps, and repair already tried every other day
        day = problem.days[d]
        # Pre-filter with the stop alone (a one-stop layout is nearly free): a change that does not
        # even fit the stop on an empty day cannot fit it into the day's plan.
        for m in _EXTEND_END_MIN:
            end = day.end_min + m
            if end <= day.offset_min + 24 * 60 and layout_day(problem, d, [stop.key], settings=settings, end_min=end):
                out.append((float(m), {"kind": "extend_day_end", "day": d, "minutes": m}))
        for m in _START_EARLIER_MIN:
            start = day.start_min - m
            if start >= day.offset_min + _EARLIEST_DAY_START and layout_day(
                problem, d, [stop.key], settings=settings, start_min=start
            ):
                out.append((m * _START_EARLIER_WEIGHT, {"kind": "start_day_earlier", "day": d, "minutes": m}))
        if verdict == "OUTSIDE_OPENING_HOURS":
            usable = max(
                (min(iv.end, day.end_min) - max(iv.start, day.start_min) for iv in stop.open_by_day[d]), default=0
            )
            shorter = (usable // 5) * 5
            if (
                stop.fixed_start_min is None
                and 0 < shorter < stop.visit_min
                and shorter * 2 >= stop.visit_min
                and layout_day(_with_visit_minutes(problem, stop.key, shorter), d, [stop.key], settings=settings)
            ):
                out.append((float(stop.visit_min - shorter), {"kind": "shorten_visit", "day": d, "minutes": shorter}))
        if verdict in _ALONE_DOES_NOT_FIT:
            continue
        plan = plans_by_day.get(d)
        for other in plan.order if plan else []:
            x = problem.stop(other)
            if PRIORITY_RANK[x.priority] < PRIORITY_RANK[stop.priority]:
                continue  # never suggest giving up something more important
            if is_hard(x) and not is_hard(stop):
                continue
            out.append((x.visit_min * _DROP_WEIGHT[x.priority], {"kind": "drop_stop", "day": d, "drop": other}))
    out.sort(key=lambda c: (c[0], c[1]["day"], c[1]["kind"], c[1].get("drop") or ""))
    return out


def without_lunch(problem: ItineraryProblem) -> ItineraryProblem:
    """A shallow copy of the problem whose request has no lunch break (to tell a lunch clash apart)."""
    request = problem.request.model_copy(update={"lunch": problem.request.lunch.model_copy(update={"enabled": False})})
    return problem.model_copy(update={"request": request})


def _with_visit_minutes(problem: ItineraryProblem, key: str, minutes: int) -> ItineraryProblem:
    """A shallow copy of the problem where one stop's visit lasts ``minutes``."""
    stops = []
    for s in problem.stops:
        if s.key == key:
            windows = [
                []
                if (s.fixed_day is not None and s.fixed_day != d.index)
                else start_windows(
                    s.open_by_day[d.index], minutes, d.start_min, d.end_min, None, meal_starts=meal_starts_on(s, d)
                )
                for d in problem.days
            ]
            s = s.model_copy(update={"visit_min": minutes, "windows_by_day": windows})
        stops.append(s)
    return problem.model_copy(update={"stops": stops})


def _try_fix(
    problem: ItineraryProblem,
    stop: ProblemStop,
    cand: _FixCandidate,
    plans_by_day: Mapping[int, DayPlan],
    settings: Settings,
) -> SmallestFix | None:
    d = cand["day"]
    day = problem.days[d]
    order = list(plans_by_day[d].order) if d in plans_by_day else []
    if cand["kind"] == "extend_day_end":
        new_end = day.end_min + cand["minutes"]
        sched = best_insertion(problem, d, order, stop.key, settings=settings, end_min=new_end)
        if sched is None:
            return None
        return SmallestFix(
            kind="extend_day_end",
            day_index=d,
            minutes=cand["minutes"],
            description=f"fits if day {d + 1} ends at {_hhmm(new_end - day.offset_min)}",
            facts={"new_end": _hhmm(new_end - day.offset_min), "order": sched.order},
        )
    if cand["kind"] == "start_day_earlier":
        new_start = day.start_min - cand["minutes"]
        sched = best_insertion(problem, d, order, stop.key, settings=settings, start_min=new_start)
        if sched is None:
            return None
        return SmallestFix(
            kind="start_day_earlier",
            day_index=d,
            minutes=cand["minutes"],
            description=f"fits if day {d + 1} starts at {_hhmm(new_start - day.offset_min)}",
            facts={"new_start": _hhmm(new_start - day.offset_min), "order": sched.order},
        )
    if cand["kind"] == "shorten_visit":
        shorter = _with_visit_minutes(problem, stop.key, cand["minutes"])
        sched = best_insertion(shorter, d, order, stop.key, settings=settings)
        if sched is None:
            return None
        return SmallestFix(
            kind="shorten_visit",
            day_index=d,
            minutes=cand["minutes"],
            description=f"fits on day {d + 1} if the visit is shortened to {cand['minutes']} min",
            facts={"visit_min": stop.visit_min, "order": sched.order},
        )
    drop = cand["drop"]
    reduced = [k for k in order if k != drop]
    sched = best_insertion(problem, d, reduced, stop.key, settings=settings)
    if sched is None:
        return None
    x = problem.stop(drop)
    return SmallestFix(
        kind="drop_stop",
        day_index=d,
        drop_key=drop,
        description=f"fits on day {d + 1} if {x.name} ({x.priority}) is dropped",
        facts={"drop_priority": x.priority, "order": sched.order},
    )


class _FixSearch:
    """The first candidate fix that lays out, for one dropped stop; ``probes`` counts the layouts tried.

    A later day end keeps every schedule of an earlier one feasible, so on a day, "ends m minutes later" fits for
    every m at or above some least m (a threshold): ``fast`` finds it by bisection (the largest m first: when it
    does not fit, none does) instead of laying out each m. The same holds for an earlier start when no visit of
    the day hosts lunch on site (earliest starts only move earlier; a lunch on site may not). Other candidates are
    laid out one by one, in cost order, as ``thorough`` does; so ``fast`` returns what ``thorough`` returns.
    """

    def __init__(
        self,
        problem: ItineraryProblem,
        stop: ProblemStop,
        plans_by_day: Mapping[int, DayPlan],
        settings: Settings,
        *,
        budget: int | None,
    ) -> None:
        self.problem, self.stop, self.plans_by_day, self.settings = problem, stop, plans_by_day, settings
        self.budget = budget
        self.probes = 0
        self.exhausted = False

    def _probe(self, cand: _FixCandidate) -> SmallestFix | None:
        if self.budget is not None and self.probes >= self.budget:
            self.exhausted = True
            raise _BudgetExhausted
        self.probes += 1
        return _try_fix(self.problem, self.stop, cand, self.plans_by_day, self.settings)

    def thorough(self, candidates: Sequence[_FixCandidate]) -> SmallestFix | None:
        try:
            for cand in candidates:
                fix = self._probe(cand)
                if fix is not None:
                    return fix
        except _BudgetExhausted:
            pass
        return None

    def _monotone(self, cand: _FixCandidate) -> bool:
        if cand["kind"] == "extend_day_end":
            return True
        if cand["kind"] != "start_day_earlier":
            return False
        plan = self.plans_by_day.get(cand["day"])
        keys = [*(plan.order if plan else []), self.stop.key]
        return not any(self.problem.stop(k).lunch_on_site for k in keys)

    def fast(self, candidates: Sequence[_FixCandidate]) -> SmallestFix | None:
        # family (kind, day) -> its candidates in ascending minutes (cost order within a family)
        families: dict[tuple[str, int], list[_FixCandidate]] = {}
        for cand in candidates:
            if self._monotone(cand):
                families.setdefault((cand["kind"], cand["day"]), []).append(cand)
        # family -> (index of its least candidate that fits, that fix), or None when none fits
        thresholds: dict[tuple[str, int], tuple[int, SmallestFix] | None] = {}
        try:
            for cand in candidates:
                family = (cand["kind"], cand["day"])
                if family not in families:
                    fix = self._probe(cand)
                    if fix is not None:
                        return fix
                    continue
                if family not in thresholds:
                    thresholds[family] = self._threshold(families[family])
                found = thresholds[family]
                if found is not None and families[family][found[0]] is cand:
                    return found[1]
        except _BudgetExhausted:
            pass
        return None

    def _threshold(self, members: Sequence[_FixCandidate]) -> tuple[int, SmallestFix] | None:
        top = self._probe(members[-1])
        if top is None:
            return None
        lo, hi, best = 0, len(members) - 1, top
        while lo < hi:
            mid = (lo + hi) // 2
            fix = self._probe(members[mid])
            if fix is None:
                lo = mid + 1
            else:
                hi, best = mid, fix
        return hi, best


class _BudgetExhausted(Exception):
    """The shared layout budget of the fix search ran out (``_FixSearch._probe``)."""


def _removed_items(problem: ItineraryProblem) -> list[DroppedItem]:
    """The places the user removed, each as a dropped item saying so."""
    items: list[DroppedItem] = []
    by_key = {p.key: p for p in problem.request.places}
    for key in problem.removed_keys:
        place = by_key.get(key)
        if place is None:
            continue
        items.append(
            DroppedItem(
                key=key,
                name=place.name or key,
                priority=place.priority,
                reason_code="REMOVED_BY_USER",
                explanation=explain_reason("REMOVED_BY_USER"),
            )
        )
    return items


def _best_verdict(
    problem: ItineraryProblem, stop: ProblemStop, plans_by_day: Mapping[int, DayPlan], settings: Settings
) -> tuple[dict[int, str], int, str]:
    """The stop's verdict on every day, its best day (the least bad verdict, then the earliest day) and the reason
    code that day gives."""
    per_day = {d: _verdict_for_day(problem, stop, d, plans_by_day, settings) for d in range(len(problem.days))}
    best_day = _best_day(per_day)
    code = per_day[best_day]
    if code == "LOCKED_TO_OTHER_DAY":  # defensive: a lock always names a trip day
        code = "CLOSED_ON_DAY"
    return per_day, best_day, code


def _explanation(
    problem: ItineraryProblem, stop: ProblemStop, per_day: Mapping[int, str], code: str, meal: Mapping[str, str]
) -> str:
    """The reason in words, naming the days it holds on (closed or lunch: those days; else the days it was open)."""
    if code in {"CLOSED_ON_DAY", "LUNCH_CONFLICT"}:
        days_text = ", ".join(_day_label(problem, d) for d, v in per_day.items() if v == code)
    else:
        days_text = ", ".join(
            _day_label(problem, d) for d, v in per_day.items() if v not in {"CLOSED_ON_DAY", "LOCKED_TO_OTHER_DAY"}
        )
    lunch = problem.request.lunch
    return explain_reason(
        code,
        days=days_text or "no trip day",
        visit=stop.visit_min,
        lunch=lunch.duration_min,
        window=f"{lunch.window_start:%H:%M}-{lunch.window_end:%H:%M}",
        **day_bounds_facts(problem, stop, _best_day(per_day)),
        **meal,
    )


def meal_facts(problem: ItineraryProblem, stop: ProblemStop, settings: Settings) -> dict[str, str]:
    """A meal stop's meal and its window as HH:MM-HH:MM (nothing for another stop)."""
    if stop.meal is None:
        return {}
    opens, closes = meal_window(stop.meal, problem.request.lunch, settings)
    return {"meal": stop.meal, "meal_window": f"{opens:%H:%M}-{closes:%H:%M}"}


def _best_day(per_day: Mapping[int, str]) -> int:
    return max(per_day, key=lambda d: (_REASON_RANK[per_day[d]], -d)) if per_day else 0


def _interval_hhmm(start: int, end: int) -> str:
    """An opening interval of a day as HH:MM-HH:MM (one open round the clock: 00:00-24:00; past midnight: the
    next day's clock)."""
    if end - start >= _DAY_MIN:
        return "00:00-24:00"
    return f"{_hhmm(start % _DAY_MIN)}-{_hhmm(end % _DAY_MIN if end > _DAY_MIN else end)}"


def day_bounds_facts(problem: ItineraryProblem, stop: ProblemStop, d: int) -> dict[str, str]:
    """The locked start, the day's start and end, and the place's opening intervals that day, as HH:MM."""
    day = problem.days[d]
    facts = {
        "day_start": _hhmm(day.start_min - day.offset_min),
        "day_end": _hhmm(day.end_min - day.offset_min),
        "open_hours": ", ".join(
            _interval_hhmm(iv.start - day.offset_min, iv.end - day.offset_min) for iv in stop.open_by_day[d]
        ),
    }
    if stop.fixed_start_min is not None:
        facts["start"] = _hhmm(stop.fixed_start_min)
    return facts


def _reason_facts(
    problem: ItineraryProblem, stop: ProblemStop, code: str, best_day: int, plans_by_day: Mapping[int, DayPlan]
) -> dict[str, Any]:
    """The stop's own facts behind the reason: its visit and hours, its best day and, when the day is full, what
    fills it."""
    facts: dict[str, Any] = {
        "visit_min": stop.visit_min,
        "opening_hours": stop.opening_hours,
        "opening_source": stop.opening_source,
        "best_day": best_day,
    }
    if stop.fixed_start_min is not None or code in _DAY_BOUNDS:
        facts.update(day_bounds_facts(problem, stop, best_day))  # a refused lock names the hours it met
    if code in {"LOW_PRIORITY_TRADEOFF", "DAY_TOO_FULL"}:
        # what fills its best day, so the reason names this place's own facts (issue 23)
        on_day = plans_by_day[best_day].order if best_day in plans_by_day else []
        facts["planned_on_day"] = len(on_day)
        facts["higher_on_day"] = sum(
            1 for k in on_day if PRIORITY_RANK[problem.stop(k).priority] < PRIORITY_RANK[stop.priority]
        )
    return facts


def validate_feasibility(
    problem: ItineraryProblem, plans: Sequence[DayPlan], *, settings: Settings, thorough: bool = False
) -> FeasibilityReport:
    """A reason code, a plain explanation and the smallest verified fix for every stop not on the plan.

    The fix is the first of a stop's cheapest candidates (``_MAX_CHECKS_PER_STOP``) that lays out. ``thorough``
    lays out every candidate in turn, with no budget (the reference the tests compare with); the default finds
    the same fix with fewer layouts (``_FixSearch.fast``) within ``itinerary_fix_search_max_solves`` layouts."""
    plans_by_day = {p.day_index: p for p in plans}
    planned = {k for p in plans for k in p.order}
    budget = settings.itinerary_fix_search_max_solves
    checks = 0
    items = _removed_items(problem)
    infeasible: list[str] = []

    dropped = [s for s in problem.stops if s.key not in planned]
    dropped.sort(key=lambda s: (PRIORITY_RANK[s.priority], s.key))
    for stop in dropped:
        per_day, best_day, code = _best_verdict(problem, stop, plans_by_day, settings)
        meal = meal_facts(problem, stop, settings)
        plan = plans_by_day.get(best_day)
        taken = lunch_taken_by(problem, stop, plan.order if plan else []) if code == "LUNCH_TAKEN" else None
        if taken is not None:
            meal = {**meal, **lunch_taken_facts(problem, taken)}
        explanation = _explanation(problem, stop, per_day, code, meal)
        facts = {**_reason_facts(problem, stop, code, best_day, plans_by_day), **meal}
        candidates = [c for _, c in _fix_candidates(problem, stop, per_day, plans_by_day, settings=settings)][
            :_MAX_CHECKS_PER_STOP
        ]
        search = _FixSearch(problem, stop, plans_by_day, settings, budget=None if thorough else budget - checks)
        fix = search.thorough(candidates) if thorough else search.fast(candidates)
        checks += search.probes
        if search.exhausted:
            facts["fix_search"] = "budget_exhausted"
        elif fix is None:
            # "none_found": changes were tried and none fits it; "nothing_to_try": no change of the kinds searched applies
            facts["fix_search"] = "none_found" if candidates else "nothing_to_try"
        facts["fixes_tried"] = len(candidates)
        if is_hard(stop):
            infeasible.append(stop.key)
        items.append(
            DroppedItem(
                key=stop.key,
                name=stop.name,
                priority=stop.priority,
                reason_code=code,
                explanation=f"{stop.name}: {explanation}" + (f"; {fix.description}" if fix else ""),
                per_day_reasons=per_day,
                smallest_fix=fix,
                facts=facts,
            )
        )
    return FeasibilityReport(dropped_items=items, infeasible_hard=infeasible, checks=checks)
