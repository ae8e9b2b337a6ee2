"""Day layout: a fixed order of stops -> the exact earliest-start schedule with the best lunch position.

Earliest starts are optimal for feasibility along a fixed order; lunch is tried in every gap (before or
after the gap's travel) and, for a long visit, on site. OR-Tools and this layout read the same integer
robust matrix, so a solver-feasible order is always laid out feasibly (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from core.config import Settings
from core.itinerary.problem import day_windows, hosts_lunch, lunch_bounds
from core.models.itinerary import EntryKind
from core.models.itinerary_problem import ItineraryProblem, MinuteInterval, ProblemDay, ProblemStop

#: A visit split by a lunch on site runs at least this long before the lunch (when the lunch window allows).
LUNCH_ON_SITE_MIN_PART = 60

#: Where a gap's lunch goes: before the gap's travel, after it, or on site inside the visit that ends the gap.
LunchSlot = Literal["before", "after", "inside"]


@dataclass
class _Step:
    kind: EntryKind
    key: str | None
    loc: int
    arrival: int
    start: int
    end: int
    departure: int
    from_pt: int | None = None
    to_pt: int | None = None
    latest_start: int | None = None  # the window bound (visit: its opening window; lunch: window)
    part: int = 0  # visit split by a lunch on site: 1 = before lunch, 2 = after (0 = whole visit)


@dataclass
class DaySchedule:
    """A laid-out day in integer minutes (internal; turned into a DayTimeline for the result)."""

    day_index: int
    order: list[str]
    steps: list[_Step] = field(default_factory=list)
    wait_total: int = 0
    finish: int = 0
    end_min: int = 0
    lunch_bounds: tuple[int, int] | None = None


def layout_day(
    problem: ItineraryProblem,
    day_index: int,
    order: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None = None,
    start_min: int | None = None,
) -> DaySchedule | None:
    """The best feasible schedule of ``order`` on the day (None if there is none).

    Earliest starts are optimal for feasibility along a fixed order; lunch is tried in every gap,
    before or after the gap's travel, and the option with least waiting (then earliest finish) wins.
    """
    day = problem.days[day_index]
    ds = day.start_min if start_min is None else start_min
    de = day.end_min if end_min is None else end_min
    stops = [problem.stop(k) for k in order]
    windows = [day_windows(problem, s, day, end_min, start_min) for s in stops]
    if any(not w for w in windows) or sum(s.meal == "lunch" for s in stops) > 1:
        return None  # a visit that has no window, or a second lunch
    lunch = None if hosts_lunch(stops) else lunch_bounds(day, ds, de, problem)  # a lunch meal is the day's lunch
    options: list[tuple[int | None, LunchSlot]] = [(None, "before")]
    if lunch is not None:
        # Lunch only delays what follows, so the lunch-free ready time before each gap is a lower bound:
        # a gap whose ready time is past the latest lunch start (or unreachable) cannot host lunch.
        # A long visit may also host it on site ("inside": the visit is split around the lunch).
        ready = _ready_times(problem, day, ds, stops, windows)
        if not _lunch_free_bound_ok(problem, day, de, stops, ready):
            return None  # not even feasible without lunch: no lunch position can help (insertion probes)
        options = [(g, mode) for g, t in enumerate(ready) if t <= lunch[1] for mode in ("before", "after")]
        options += [
            (g, "inside") for g, t in enumerate(ready[: len(stops)]) if t <= lunch[1] and stops[g].lunch_on_site
        ]
    best: DaySchedule | None = None
    for gap, mode in options:
        sched = _forward(problem, day, ds, de, stops, windows, lunch, gap, mode, settings.explicit_wait_min)
        if sched is None:
            continue
        # Idle time at the start place counts like waiting: a day that "starts" with a hotel lunch at 11:30
        # is no better than one with a wait later on.
        if best is None or _idle_cost(sched, ds) < _idle_cost(best, ds):
            best = sched
    if best is not None:
        best.order = list(order)
        best.end_min = de
        best.lunch_bounds = lunch
        _backward_slack(best, de)
    return best


def _idle_cost(sched: DaySchedule, day_start: int) -> tuple[int, int]:
    idle_start = (sched.steps[0].arrival - day_start) if sched.steps else 0
    return (sched.wait_total + idle_start, sched.finish)


def _lunch_inside(
    stop: ProblemStop, day: ProblemDay, start: int, day_end: int, lunch: tuple[int, int], dur: int
) -> tuple[int, int] | None:
    """Lunch on site during a long visit that starts at ``start``: (lunch start, closing bound) or None.

    Lunch begins inside the visit (not at its very start or end: those are the plain before/after options),
    after at least LUNCH_ON_SITE_MIN_PART minutes of visiting when the window allows; the visit then ends
    ``dur`` minutes later, which must still be inside the same opening interval and the day.
    Only the earliest start is tried: starting later just to wrap the visit around lunchtime is never needed,
    since lunch right after the visit (the "before" option of the next gap) then ends no later.
    """
    lo, hi = lunch
    first = min(LUNCH_ON_SITE_MIN_PART, stop.visit_min // 2)
    x = min(hi, max(lo, start + first))
    if not (start < x < start + stop.visit_min):
        return None
    closing = min((iv.end for iv in stop.open_by_day[day.index] if iv.start <= start < iv.end), default=None)
    if closing is None:
        return None
    closing = min(closing, day_end)
    return (x, closing) if start + stop.visit_min + dur <= closing else None


def _ready_times(
    problem: ItineraryProblem,
    day: ProblemDay,
    ds: int,
    stops: Sequence[ProblemStop],
    windows: Sequence[Sequence[MinuteInterval]],
) -> list[int]:
    """Earliest time the day is free before each gap (before its travel), with no lunch at all."""
    R = problem.matrix.robust()
    loc, t = problem.point_index(day.start_key), ds
    ready = [t]
    for g, stop in enumerate(stops):
        t += R[loc][stop.point_index]
        win = next((w for w in windows[g] if w.end >= t), None)
        if win is None:
            break
        t = max(t, win.start) + stop.visit_min
        loc = stop.point_index
        ready.append(t)
    return ready


def _lunch_free_bound_ok(
    problem: ItineraryProblem, day: ProblemDay, de: int, stops: Sequence[ProblemStop], ready: Sequence[int]
) -> bool:
    """The necessary condition of any lunch option: every visit reached within its windows and the day's end
    reached by ``de`` with no lunch at all (``ready`` from :func:`_ready_times`; a lunch only delays)."""
    if len(ready) < len(stops) + 1:
        return False
    last = stops[-1].point_index if stops else problem.point_index(day.start_key)
    return ready[-1] + problem.matrix.robust()[last][problem.point_index(day.end_key)] <= de


@dataclass
class _Walk:
    """The steps of one pass along a fixed order, earliest starts: a wait over ``wait_threshold`` is its own step
    (a shorter one stays inside the next step), a lunch of ``dur`` minutes in its window, the visits."""

    wait_threshold: int
    lunch: tuple[int, int] | None
    dur: int
    steps: list[_Step] = field(default_factory=list)

    def arrive_for(self, start: int, t: int, loc: int) -> int:
        # Waits over the threshold are their own entry; shorter ones stay inside the next entry.
        if self.steps and start - t > self.wait_threshold:
            self.steps.append(_Step("wait", None, loc, t, t, start, start))
            return start
        return t if self.steps else start  # nothing done yet: the day simply begins later

    def do_lunch(self, t: int, loc: int) -> int | None:
        """Lunch at ``loc`` from ``t`` or the window's opening: the time it ends, None when the window is past."""
        assert self.lunch is not None, "a lunch gap is only tried when the day has a lunch"
        lo, hi = self.lunch
        s = max(t, lo)
        if s > hi:
            return None
        arrival = self.arrive_for(s, t, loc)
        self.steps.append(_Step("lunch", None, loc, arrival, s, s + self.dur, s + self.dur, latest_start=hi))
        return s + self.dur

    def visit(self, stop: ProblemStop, loc: int, t: int, win: MinuteInterval, split: tuple[int, int] | None) -> int:
        """The visit of ``stop`` in ``win`` from ``t``, split around a lunch on site at ``split`` (lunch start,
        closing bound) when given: the time it ends."""
        s = max(t, win.start)
        arrival = self.arrive_for(s, t, loc)
        end = s + stop.visit_min
        if split is None:
            self.steps.append(_Step("visit", stop.key, loc, arrival, s, end, end, latest_start=win.end))
            return end
        x, closing = split
        dur = self.dur
        assert self.lunch is not None, "a visit is only split around a lunch when the day has one"
        self.steps.append(_Step("visit", stop.key, loc, arrival, s, x, x, latest_start=win.end, part=1))
        self.steps.append(_Step("lunch", None, loc, x, x, x + dur, x + dur, latest_start=self.lunch[1]))
        rest = end + dur - (x + dur)
        self.steps.append(
            _Step("visit", stop.key, loc, x + dur, x + dur, end + dur, end + dur, latest_start=closing - rest, part=2)
        )
        return end + dur


def _visit_window(
    stop: ProblemStop,
    day: ProblemDay,
    de: int,
    windows: Sequence[MinuteInterval],
    t: int,
    lunch_inside: tuple[int, int] | None,
    dur: int,
) -> tuple[MinuteInterval | None, tuple[int, int] | None]:
    """The window the visit reached at ``t`` takes (None: none left) and, with ``lunch_inside`` (the lunch window,
    for a lunch on site), where the lunch splits it: the first window whose earliest start lets the visit host the
    lunch and still end in time."""
    if lunch_inside is None:
        return next((w for w in windows if w.end >= t), None), None
    for w in (w for w in windows if w.end >= t):
        split = _lunch_inside(stop, day, max(t, w.start), de, lunch_inside, dur)
        if split is not None:
            return w, split
    return None, None


def _leave_start_later(steps: list[_Step]) -> None:
    """Leave the start place later instead of waiting at the first stop."""
    if len(steps) >= 2 and steps[0].kind == "travel":
        nxt = steps[1]
        shift = (nxt.end - nxt.start) if nxt.kind == "wait" else (nxt.start - nxt.arrival)
        if shift > 0:
            travel = steps[0]
            travel.arrival += shift
            travel.start += shift
            travel.end += shift
            travel.departure += shift
            if nxt.kind == "wait":
                steps.pop(1)
                steps[1].arrival = travel.end
            else:
                nxt.arrival = travel.end


def _forward(
    problem: ItineraryProblem,
    day: ProblemDay,
    ds: int,
    de: int,
    stops: Sequence[ProblemStop],
    windows: Sequence[Sequence[MinuteInterval]],
    lunch: tuple[int, int] | None,
    gap: int | None,
    mode: LunchSlot,
    wait_threshold: int,
) -> DaySchedule | None:
    R = problem.matrix.robust()
    walk = _Walk(wait_threshold, lunch, problem.request.lunch.duration_min)
    end_pt = problem.point_index(day.end_key)
    t: int | None  # None only when a lunch does not fit (the day then fails at once)
    t, loc = ds, problem.point_index(day.start_key)
    n = len(stops)
    for g in range(n + 1):
        target = stops[g].point_index if g < n else end_pt
        if gap == g and mode == "before":
            t = walk.do_lunch(t, loc)
            if t is None:
                return None
        tt = R[loc][target]
        if target != loc or tt > 0:
            walk.steps.append(_Step("travel", None, target, t, t, t + tt, t + tt, from_pt=loc, to_pt=target))
            t += tt
        loc = target
        if gap == g and mode == "after":
            t = walk.do_lunch(t, loc)
            if t is None:
                return None
        if g < n:
            lunch_inside = None
            if gap == g and mode == "inside":
                assert lunch is not None, "a lunch gap is only tried when the day has a lunch"
                lunch_inside = lunch
            win, split = _visit_window(stops[g], day, de, windows[g], t, lunch_inside, walk.dur)
            if win is None:
                return None
            t = walk.visit(stops[g], loc, t, win, split)
    if t > de:
        return None
    steps = walk.steps
    _leave_start_later(steps)
    wait_total = sum((s.end - s.start) if s.kind == "wait" else (s.start - s.arrival) for s in steps)
    return DaySchedule(day_index=day.index, order=[s.key for s in stops], steps=steps, wait_total=wait_total, finish=t)


def _backward_slack(sched: DaySchedule, day_end: int) -> None:
    """latest_start per step (None-free); slack = latest start - planned start."""
    next_latest = day_end
    for step in reversed(sched.steps):
        length = step.end - step.start
        if step.kind == "wait":
            latest = next_latest  # a wait only shrinks
        else:
            latest = next_latest - length
            if step.latest_start is not None:
                latest = min(latest, step.latest_start)
        step.latest_start = latest
        next_latest = latest


def order_is_feasible(
    problem: ItineraryProblem,
    day_index: int,
    order: Sequence[str],
    *,
    settings: Settings,
    end_min: int | None = None,
    start_min: int | None = None,
) -> bool:
    return layout_day(problem, day_index, order, settings=settings, end_min=end_min, start_min=start_min) is not None


def best_insertion(
    problem: ItineraryProblem,
    day_index: int,
    order: Sequence[str],
    key: str,
    *,
    settings: Settings,
    end_min: int | None = None,
    start_min: int | None = None,
) -> DaySchedule | None:
    """Cheapest feasible insertion of ``key`` into ``order`` (least wait, then earliest finish)."""
    best = None
    for pos in range(len(order) + 1):
        cand = [*order[:pos], key, *order[pos:]]
        sched = layout_day(problem, day_index, cand, settings=settings, end_min=end_min, start_min=start_min)
        if sched is not None and (best is None or (sched.finish, sched.wait_total) < (best.finish, best.wait_total)):
            best = sched
    return best
