"""The multi-day itinerary optimiser (tech spec §3-§5, §10; issue "Multi-day itinerary optimiser").

Pipeline (each step typed, each an Action Registry entry):

    prepare_problem              resolve points, opening hours → windows, robust matrix, days
    cluster_days_balanced        balanced split into days (closed days, capacity, geography)
    optimize_day_vrptw           one day as a VRPTW (OR-Tools routing): windows, service, lunch break,
                                 optional stops as disjunctions, must-visits hard
    repair_cross_day             move dropped stops to days with room
    optimize_all_days_vrptw      the alternative: all days at once, one vehicle per day
    policy.validate_feasibility  reasons + smallest fix for every dropped stop
    policy.score_robustness      slack relative to robust travel

``plan_itinerary`` runs both variants (per-day after clustering, and multi-vehicle), keeps the
better one (fewest dropped musts, then least dropped penalty, then least travel + wait), lays out
the timeline and has the independent critic check it.

Time is an integer number of minutes from local midnight of the trip's first day. OR-Tools and
the timeline builder read the same integer robust matrix, so a solver-feasible order is always
laid out feasibly. Searches are deterministic: greedy descent stops at a local optimum; the time
limit is only a cap.
"""

from __future__ import annotations

import itertools
import math
import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.config import Settings, get_settings
from core.errors import InputError
from core.models.itinerary import (
    DayAssignment,
    DayClusters,
    DayPlan,
    DayTimeline,
    DayTotals,
    DecisionLogEntry,
    ItineraryPoint,
    ItineraryProblem,
    ItineraryResult,
    ItineraryTotals,
    MinuteInterval,
    PlaceRef,
    ProblemDay,
    ProblemStop,
    TimelineEntry,
    TripPlace,
    TripRequest,
    UserEdit,
    VariantMeasure,
)
from core.itinerary.opening import opening_windows
from core.itinerary.travel import apply_robustness_policy, build_time_matrix, robustness_policy_for

ProgressCallback = Callable[[str, float], None]

DAY_MIN = 24 * 60
PRIORITY_RANK = {"must": 0, "should": 1, "nice": 2}
# A must that cannot be kept hard is re-solved as optional with this multiple of the 'should' penalty,
# so the solver still keeps every must it can (and we report the rest as infeasible).
_MUST_RELAXED_MULTIPLIER = 50
_BRUTE_FORCE_MAX = 6


# ==============================================================================================
# Problem preparation
# ==============================================================================================
def _anchor_key(ref: PlaceRef) -> str:
    return "anchor:" + (ref.place_id or f"{ref.lon:.6f},{ref.lat:.6f}")


def _pack_of(provider, request: TripRequest, settings: Settings):
    pack = getattr(provider, "region", None)
    if request.region and (pack is None or getattr(pack, "name", None) != request.region):
        from core.packs.loader import load_region

        pack = load_region(request.region, settings.data_dir)
    return pack


def _resolve_ref(ref: PlaceRef | TripPlace, pack, *, field: str):
    """(name, lon, lat, source, pack place or None) of a reference or resolved point."""
    if ref.lon is not None and ref.lat is not None:
        pack_place = pack.place_by_id(ref.place_id) if (pack is not None and ref.place_id) else None
        name = ref.name or (pack_place.name_zh if pack_place else None) or ref.place_id
        name = name or f"{ref.lon:.5f},{ref.lat:.5f}"
        return name, float(ref.lon), float(ref.lat), "user_input", pack_place
    if pack is None:
        raise InputError(f"'{ref.place_id}' is a region-pack reference, but no region pack is loaded", field=field)
    pack_place = pack.place_by_id(ref.place_id)
    if pack_place is None:
        raise InputError(f"unknown place_id '{ref.place_id}' in region '{pack.name}'", field=field)
    return ref.name or pack_place.name_zh, pack_place.lon, pack_place.lat, f"offline:{pack.name}", pack_place


#: A visit split by a lunch on site runs at least this long before the lunch (when the lunch window allows).
LUNCH_ON_SITE_MIN_PART = 60


def _clock_min(t) -> int:
    return t.hour * 60 + t.minute


def start_windows(
    open_intervals: Sequence[MinuteInterval], visit_min: int, day_start: int, day_end: int, fixed_start: int | None
) -> list[MinuteInterval]:
    """Allowed visit START minutes: inside an opening interval and the day, ending by closing/day end."""
    out: list[MinuteInterval] = []
    for iv in open_intervals:
        lo = max(iv.start, day_start)
        hi = min(iv.end, day_end) - visit_min
        if fixed_start is not None:
            lo, hi = max(lo, fixed_start), min(hi, fixed_start)
        if lo <= hi:
            out.append(MinuteInterval(start=lo, end=hi))
    return out


def prepare_problem(
    request: TripRequest, *, provider, settings: Settings | None = None, removed_keys: Sequence[str] = ()
) -> ItineraryProblem:
    """Resolve the request onto one integer time scale with a robust travel matrix."""
    settings = settings or get_settings()
    pack = _pack_of(provider, request, settings)
    timezone = request.timezone or (pack.timezone if pack is not None else "UTC")
    country = getattr(pack, "country", None) or None
    policy = robustness_policy_for(request.mode, request.pacing, settings=settings)
    notes: list[str] = []

    points: list[ItineraryPoint] = []
    index_of: dict[str, int] = {}

    def add_point(key: str, name: str, lon: float, lat: float, role: str, source: str) -> int:
        if key not in index_of:
            index_of[key] = len(points)
            points.append(ItineraryPoint(key=key, name=name, lon=lon, lat=lat, role=role, source=source))
        return index_of[key]

    day_anchor_keys: list[tuple[str, str]] = []
    for i in range(len(request.days)):
        keys = []
        for which, ref in (("start_place", request.day_start_place(i)), ("end_place", request.day_end_place(i))):
            name, lon, lat, source, _ = _resolve_ref(ref, pack, field=f"days.{i}.{which}")
            key = _anchor_key(ref)
            add_point(key, name, lon, lat, "anchor", source)
            keys.append(key)
        day_anchor_keys.append((keys[0], keys[1]))

    dates = [d.date for d in request.days]
    first = dates[0]
    days: list[ProblemDay] = []
    lunch = request.lunch
    for i, d in enumerate(request.days):
        offset = (d.date - first).days * DAY_MIN
        start, end = offset + _clock_min(d.start_time), offset + _clock_min(d.end_time)
        les = lls = None
        if lunch.enabled:
            earliest = max(start, offset + _clock_min(lunch.window_start))
            latest = min(end, offset + _clock_min(lunch.window_end)) - lunch.duration_min
            if earliest <= latest:  # otherwise the day does not span lunchtime: no lunch that day
                les, lls = earliest, latest
        days.append(
            ProblemDay(
                index=i, date=d.date, offset_min=offset, start_min=start, end_min=end,
                start_key=day_anchor_keys[i][0], end_key=day_anchor_keys[i][1],
                lunch_earliest_start=les, lunch_latest_start=lls,
                lunch_min=lunch.duration_min if les is not None else 0,
            )
        )

    stops: list[ProblemStop] = []
    removed = set(removed_keys)
    for i, place in enumerate(request.places):
        if place.key in removed:
            continue
        name, lon, lat, source, pack_place = _resolve_ref(place, pack, field=f"places.{i}")
        idx = add_point(place.key or name, name, lon, lat, "stop", source)
        expr = place.opening_hours
        if expr is None and pack_place is not None:
            expr = pack_place.opening_hours
        ow = opening_windows(expr, dates, timezone=timezone, country=country)
        if ow.source == "opening_hours_unparsed":
            notes.append(f"opening hours of '{place.key}' do not parse ({ow.error}); treated as always open")
        base_visit = place.visit_minutes or (pack_place.visit_minutes if pack_place else None)
        base_visit = base_visit or settings.default_visit_minutes
        visit = max(1, int(math.ceil(base_visit * policy.visit_factor - 1e-9)))
        if place.fixed_start is not None:
            visit = base_visit  # a booked slot has its own length; pacing does not stretch it
        open_by_day = [
            [MinuteInterval(start=days[d].offset_min + iv.start, end=days[d].offset_min + iv.end)
             for iv in ow.by_date[day]]
            for d, day in enumerate(dates)
        ]
        windows = []
        for d, day in enumerate(days):
            if place.fixed_day is not None and place.fixed_day != d:
                windows.append([])
                continue
            fixed = day.offset_min + _clock_min(place.fixed_start) if place.fixed_start is not None else None
            windows.append(start_windows(open_by_day[d], visit, day.start_min, day.end_min, fixed))
        if place.priority == "must":
            penalty = 0
        elif place.priority == "should":
            penalty = settings.itinerary_penalty_should
        else:
            penalty = settings.itinerary_penalty_nice
        stops.append(
            ProblemStop(
                key=place.key or name, name=name, point_index=idx, visit_min=visit, priority=place.priority,
                penalty=penalty, opening_hours=expr, opening_source=ow.source, open_by_day=open_by_day,
                windows_by_day=windows, fixed_day=place.fixed_day,
                fixed_start_min=_clock_min(place.fixed_start) if place.fixed_start is not None else None,
                lunch_on_site=request.lunch.on_site and bool(settings.itinerary_lunch_on_site_min_visit_min)
                and place.fixed_start is None
                and visit >= settings.itinerary_lunch_on_site_min_visit_min,
            )
        )

    matrix = build_time_matrix(points, provider=provider, mode=request.mode)
    matrix = apply_robustness_policy(matrix, policy=policy)
    return ItineraryProblem(
        request=request, timezone=timezone, points=points, matrix=matrix, policy=policy, days=days, stops=stops,
        removed_keys=sorted(removed), notes=notes,
    )


def _is_hard(stop: ProblemStop) -> bool:
    # Locked stops are hard nodes: the user said "I go there then".
    return stop.priority == "must" or stop.fixed_day is not None or stop.fixed_start_min is not None


def _effective_penalty(stop: ProblemStop, settings: Settings) -> int:
    return settings.itinerary_penalty_should * _MUST_RELAXED_MULTIPLIER if _is_hard(stop) else stop.penalty


def _day_windows(problem: ItineraryProblem, stop: ProblemStop, day: ProblemDay, end_min: int | None = None,
                 start_min: int | None = None) -> list[MinuteInterval]:
    if end_min is None and start_min is None:
        return stop.windows_by_day[day.index]
    if stop.fixed_day is not None and stop.fixed_day != day.index:
        return []
    fixed = day.offset_min + stop.fixed_start_min if stop.fixed_start_min is not None else None
    return start_windows(stop.open_by_day[day.index], stop.visit_min,
                         day.start_min if start_min is None else start_min,
                         day.end_min if end_min is None else end_min, fixed)


def _lunch_bounds(day: ProblemDay, start_min: int, end_min: int, problem: ItineraryProblem) -> tuple[int, int] | None:
    lunch = problem.request.lunch
    if not lunch.enabled:
        return None
    earliest = max(start_min, day.offset_min + _clock_min(lunch.window_start))
    latest = min(end_min, day.offset_min + _clock_min(lunch.window_end)) - lunch.duration_min
    return (earliest, latest) if earliest <= latest else None


# ==============================================================================================
# Timeline layout: a fixed order → exact earliest-start schedule with the best lunch position
# ==============================================================================================
@dataclass
class _Step:
    kind: str
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
    settings: Settings | None = None,
    end_min: int | None = None,
    start_min: int | None = None,
) -> DaySchedule | None:
    """The best feasible schedule of ``order`` on the day (None if there is none).

    Earliest starts are optimal for feasibility along a fixed order; lunch is tried in every gap,
    before or after the gap's travel, and the option with least waiting (then earliest finish) wins.
    """
    settings = settings or get_settings()
    day = problem.days[day_index]
    ds = day.start_min if start_min is None else start_min
    de = day.end_min if end_min is None else end_min
    stops = [problem.stop(k) for k in order]
    windows = [_day_windows(problem, s, day, end_min, start_min) for s in stops]
    if any(not w for w in windows):
        return None
    lunch = _lunch_bounds(day, ds, de, problem)
    options: list[tuple[int | None, str]] = [(None, "before")]
    if lunch is not None:
        # Lunch only delays what follows, so the lunch-free ready time before each gap is a lower bound:
        # a gap whose ready time is past the latest lunch start (or unreachable) cannot host lunch.
        # A long visit may also host it on site ("inside": the visit is split around the lunch).
        ready = _ready_times(problem, day, ds, stops, windows)
        options = [(g, mode) for g, t in enumerate(ready) if t <= lunch[1] for mode in ("before", "after")]
        options += [(g, "inside") for g, t in enumerate(ready[: len(stops)]) if t <= lunch[1]
                    and stops[g].lunch_on_site]
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


def _lunch_inside(stop: ProblemStop, day: ProblemDay, start: int, day_end: int, lunch: tuple[int, int],
                  dur: int) -> tuple[int, int] | None:
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


def _ready_times(problem, day, ds, stops, windows) -> list[int]:
    """Earliest time the day is free before each gap (before its travel), with no lunch at all."""
    R = problem.matrix.robust_min
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


def _forward(problem, day, ds, de, stops, windows, lunch, gap, mode, wait_threshold) -> DaySchedule | None:
    R = problem.matrix.robust_min
    dur = problem.request.lunch.duration_min
    start_pt = problem.point_index(day.start_key)
    end_pt = problem.point_index(day.end_key)
    steps: list[_Step] = []
    t, loc = ds, start_pt

    def arrive_for(start: int, t: int, loc: int) -> int:
        # Waits over the threshold are their own entry; shorter ones stay inside the next entry.
        if steps and start - t > wait_threshold:
            steps.append(_Step("wait", None, loc, t, t, start, start))
            return start
        return t if steps else start  # nothing done yet: the day simply begins later

    def do_lunch(t: int, loc: int) -> int | None:
        lo, hi = lunch
        s = max(t, lo)
        if s > hi:
            return None
        arrival = arrive_for(s, t, loc)
        steps.append(_Step("lunch", None, loc, arrival, s, s + dur, s + dur, latest_start=hi))
        return s + dur

    n = len(stops)
    for g in range(n + 1):
        target = stops[g].point_index if g < n else end_pt
        if gap == g and mode == "before":
            t = do_lunch(t, loc)
            if t is None:
                return None
        tt = R[loc][target]
        if target != loc or tt > 0:
            steps.append(_Step("travel", None, target, t, t, t + tt, t + tt, from_pt=loc, to_pt=target))
            t += tt
        loc = target
        if gap == g and mode == "after":
            t = do_lunch(t, loc)
            if t is None:
                return None
        if g < n:
            win = next((w for w in windows[g] if w.end >= t), None)
            split = None
            if gap == g and mode == "inside":
                # the first window whose earliest start lets the visit host the lunch and still end in time
                win = None
                for w in (w for w in windows[g] if w.end >= t):
                    split = _lunch_inside(stops[g], day, max(t, w.start), de, lunch, dur)
                    if split is not None:
                        win = w
                        break
            if win is None:
                return None
            s = max(t, win.start)
            arrival = arrive_for(s, t, loc)
            end = s + stops[g].visit_min
            if split is not None:
                x, closing = split
                steps.append(_Step("visit", stops[g].key, loc, arrival, s, x, x, latest_start=win.end, part=1))
                steps.append(_Step("lunch", None, loc, x, x, x + dur, x + dur, latest_start=lunch[1]))
                rest = end + dur - (x + dur)
                steps.append(_Step("visit", stops[g].key, loc, x + dur, x + dur, end + dur, end + dur,
                                   latest_start=closing - rest, part=2))
                end += dur
            else:
                steps.append(_Step("visit", stops[g].key, loc, arrival, s, end, end, latest_start=win.end))
            t = end
    if t > de:
        return None
    # Leave the start place later instead of waiting at the first stop.
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


def order_is_feasible(problem, day_index, order, *, settings=None, end_min=None, start_min=None) -> bool:
    return layout_day(problem, day_index, order, settings=settings, end_min=end_min, start_min=start_min) is not None


def best_insertion(
    problem: ItineraryProblem,
    day_index: int,
    order: Sequence[str],
    key: str,
    *,
    settings: Settings | None = None,
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


def exact_feasible_order(
    problem: ItineraryProblem,
    day_index: int,
    keys: Sequence[str],
    *,
    settings: Settings | None = None,
    end_min: int | None = None,
    start_min: int | None = None,
) -> list[str] | None:
    """A feasible order of all ``keys`` on the day, or None. Exact by enumeration for up to
    ``_BRUTE_FORCE_MAX`` stops, else OR-Tools with every stop hard (then confirmed by layout)."""
    settings = settings or get_settings()
    keys = list(keys)
    if len(keys) <= _BRUTE_FORCE_MAX:
        for perm in itertools.permutations(keys):
            if layout_day(problem, day_index, perm, settings=settings, end_min=end_min, start_min=start_min):
                return list(perm)
        return None
    overrides = dict(
        end_override={day_index: end_min} if end_min is not None else None,
        start_override={day_index: start_min} if start_min is not None else None,
    )
    routes, dropped, _, _ = _solve_routing(problem, [day_index], keys, settings=settings, all_hard=True, **overrides)
    if routes is None:
        # With every stop mandatory the first-solution heuristic can fail on a feasible instance
        # (tight windows + the lunch break). Every stop optional at a high price always has a first
        # solution; if the search then keeps all of them, that order is a witness.
        routes, dropped, _, _ = _solve_routing(problem, [day_index], keys, settings=settings, relax_hard=True,
                                               **overrides)
    if routes is None or dropped:
        return None
    order = routes[day_index]
    ok = order_is_feasible(problem, day_index, order, settings=settings, end_min=end_min, start_min=start_min)
    return order if ok else None


# ==============================================================================================
# OR-Tools routing model (one vehicle per day)
# ==============================================================================================
def _solve_routing(
    problem: ItineraryProblem,
    day_indices: Sequence[int],
    keys: Sequence[str],
    *,
    settings: Settings,
    **options: Any,
) -> tuple[dict[int, list[str]] | None, list[str], int | None, str]:
    """:func:`_solve_routing_model`, checked against the layout when lunch may be taken on site.

    The model only bounds when a visit starts, so it may put the lunch inside a long visit that then ends
    after closing; the layout rejects that order. Then the day(s) are solved again with lunch kept between
    visits, and that answer is used if the layout accepts all of its days.
    """
    result = _solve_routing_model(problem, day_indices, keys, settings=settings, **options)
    routes = result[0]
    if routes is None or not any(problem.stop(k).lunch_on_site for r in routes.values() for k in r):
        return result
    ends, starts = options.get("end_override") or {}, options.get("start_override") or {}

    def layout_ok(rs: dict[int, list[str]]) -> bool:
        return all(order_is_feasible(problem, d, order, settings=settings, end_min=ends.get(d), start_min=starts.get(d))
                   for d, order in rs.items())

    if layout_ok(routes):
        return result
    strict = _solve_routing_model(problem, day_indices, keys, settings=settings, lunch_on_site=False, **options)
    return strict if strict[0] is not None and layout_ok(strict[0]) else result


def _solve_routing_model(
    problem: ItineraryProblem,
    day_indices: Sequence[int],
    keys: Sequence[str],
    *,
    settings: Settings,
    all_hard: bool = False,
    relax_hard: bool = False,
    end_override: dict[int, int] | None = None,
    start_override: dict[int, int] | None = None,
    force_keys: Sequence[str] = (),
    lunch_on_site: bool = True,
) -> tuple[dict[int, list[str]] | None, list[str], int | None, str]:
    """Solve a VRPTW over ``keys`` with one vehicle per day in ``day_indices``.

    Returns (routes by day or None when no solution, dropped keys, objective, status name).
    Stops with no window on any of the days are returned as dropped without entering the model.
    """
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2
    from ortools.util import optional_boolean_pb2

    R = problem.matrix.robust_min
    end_override = end_override or {}
    start_override = start_override or {}
    days = [problem.days[d] for d in day_indices]
    bounds = [(start_override.get(d.index, d.start_min), end_override.get(d.index, d.end_min)) for d in days]

    node_pt: list[int] = []
    node_service: list[int] = []
    starts, ends = [], []
    for day in days:
        starts.append(len(node_pt))
        node_pt.append(problem.point_index(day.start_key))
        node_service.append(0)
        ends.append(len(node_pt))
        node_pt.append(problem.point_index(day.end_key))
        node_service.append(0)

    stop_nodes: list[tuple[int, ProblemStop, list[tuple[int, list[MinuteInterval]]]]] = []
    pre_dropped: list[str] = []
    for key in keys:
        stop = problem.stop(key)
        allowed = []
        for v, day in enumerate(days):
            lo, hi = bounds[v]
            wins = _day_windows(problem, stop, day, hi if hi != day.end_min else None,
                                lo if lo != day.start_min else None)
            if wins:
                allowed.append((v, wins))
        if not allowed:
            pre_dropped.append(key)
            continue
        stop_nodes.append((len(node_pt), stop, allowed))
        node_pt.append(stop.point_index)
        node_service.append(stop.visit_min)

    n_vehicles = len(days)
    manager = pywrapcp.RoutingIndexManager(len(node_pt), n_vehicles, starts, ends)
    routing = pywrapcp.RoutingModel(manager)

    # Node-indexed matrices stay in C++ (no Python callback per arc): service at the from-node + robust travel.
    travel_nodes = [[R[a][b] for b in node_pt] for a in node_pt]
    transit_nodes = [[node_service[i] + row[j] for j in range(len(row))] for i, row in enumerate(travel_nodes)]
    transit_cb = routing.RegisterTransitMatrix(transit_nodes)
    travel_cb = routing.RegisterTransitMatrix(travel_nodes)
    routing.SetArcCostEvaluatorOfAllVehicles(travel_cb)
    horizon = max(hi for _, hi in bounds) + 1
    routing.AddDimension(transit_cb, horizon, horizon, False, "Time")
    time_dim = routing.GetDimensionOrDie("Time")
    for v, (lo, hi) in enumerate(bounds):
        time_dim.CumulVar(routing.Start(v)).SetRange(lo, hi)
        time_dim.CumulVar(routing.End(v)).SetRange(lo, hi)
        time_dim.SetSpanCostCoefficientForVehicle(1, v)  # travel + waiting both cost
        routing.AddVariableMinimizedByFinalizer(time_dim.CumulVar(routing.Start(v)))
        routing.AddVariableMinimizedByFinalizer(time_dim.CumulVar(routing.End(v)))

    for node, stop, allowed in stop_nodes:
        index = manager.NodeToIndex(node)
        intervals = sorted((w.start, w.end) for _, wins in allowed for w in wins)
        merged: list[list[int]] = []
        for s, e in intervals:
            if merged and s <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        cumul = time_dim.CumulVar(index)
        cumul.SetRange(merged[0][0], merged[-1][1])
        for (_, e1), (s2, _) in zip(merged, merged[1:]):
            cumul.RemoveInterval(e1 + 1, s2 - 1)  # gaps: closed hours, nights, other days
        if len(allowed) < n_vehicles:
            # -1 keeps "unperformed" possible for optional stops
            # (the Python binding of SetAllowedVehiclesForIndex rejects lists in 9.15).
            routing.VehicleVar(index).SetValues([-1, *(v for v, _ in allowed)])
        if all_hard or stop.key in force_keys or (_is_hard(stop) and not relax_hard):
            continue
        routing.AddDisjunction([index], _effective_penalty(stop, settings))

    solver = routing.solver()
    # The lunch break may not overlap a visit, except a long one that can host lunch on site (then the
    # break lengthens that visit's transit, as the split visit does in the layout).
    on_site = {node for node, stop, _ in stop_nodes if stop.lunch_on_site and lunch_on_site}
    node_visit_transits = [0 if manager.IndexToNode(i) in on_site else node_service[manager.IndexToNode(i)]
                           for i in range(routing.Size())]
    dur = problem.request.lunch.duration_min
    for v, day in enumerate(days):
        lb = _lunch_bounds(day, bounds[v][0], bounds[v][1], problem)
        if lb is None:
            continue
        lunch = solver.FixedDurationIntervalVar(lb[0], lb[1], dur, False, f"lunch_day{day.index}")
        time_dim.SetBreakIntervalsOfVehicle([lunch], v, node_visit_transits)

    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PARALLEL_CHEAPEST_INSERTION
    meta = routing_enums_pb2.LocalSearchMetaheuristic
    params.local_search_metaheuristic = (
        meta.GUIDED_LOCAL_SEARCH if settings.itinerary_metaheuristic == "guided_local_search" else meta.GREEDY_DESCENT
    )
    # The insertion-based path LNS operators dominate run time on these small instances and did not
    # improve any measured plan (docs/BENCHMARKS_ITINERARY.md); greedy descent then converges well
    # inside the cap, so the time limit is a safety net, not what ends the search (determinism).
    ops = params.local_search_operators
    for name in ("use_global_cheapest_insertion_path_lns", "use_local_cheapest_insertion_path_lns",
                 "use_relocate_path_global_cheapest_insertion_insert_unperformed",
                 "use_global_cheapest_insertion_visit_types_lns", "use_local_cheapest_insertion_visit_types_lns"):
        setattr(ops, name, optional_boolean_pb2.BOOL_FALSE)
    params.time_limit.FromMilliseconds(int(settings.itinerary_solver_time_limit_s * 1000))
    solution = routing.SolveWithParameters(params)
    status = _status_name(routing.status())
    if solution is None:
        return None, list(keys), None, status
    routes: dict[int, list[str]] = {}
    visited: set[str] = set()
    key_of_node = {node: stop.key for node, stop, _ in stop_nodes}
    for v, day in enumerate(days):
        idx = solution.Value(routing.NextVar(routing.Start(v)))
        order = []
        while not routing.IsEnd(idx):
            k = key_of_node[manager.IndexToNode(idx)]
            order.append(k)
            visited.add(k)
            idx = solution.Value(routing.NextVar(idx))
        routes[day.index] = order
    dropped = [k for k in keys if k not in visited]
    return routes, dropped, int(solution.ObjectiveValue()), status


def _status_name(code: int) -> str:
    names = {0: "ROUTING_NOT_SOLVED", 1: "ROUTING_SUCCESS", 2: "ROUTING_PARTIAL_SUCCESS_LOCAL_OPTIMUM_NOT_REACHED",
             3: "ROUTING_FAIL", 4: "ROUTING_FAIL_TIMEOUT", 5: "ROUTING_INVALID", 6: "ROUTING_INFEASIBLE",
             7: "ROUTING_OPTIMAL"}
    return names.get(int(code), str(code))


# ==============================================================================================
# Action-registry steps
# ==============================================================================================
def cluster_days_balanced(
    problem: ItineraryProblem, *, settings: Settings | None = None, preferred_days: dict[str, int] | None = None
) -> DayClusters:
    """Split stops into days: closed days and locks respected, load balanced against capacity,
    each stop placed near the day's other stops (robust minutes).

    Greedy in order of constraint tightness (fewest possible days, then priority, then longest
    visit), then a few improvement passes that move a stop when it lowers the day's mean travel
    without overfilling. ``preferred_days`` (from a previous plan) keeps re-plans stable.
    """
    settings = settings or get_settings()
    R = problem.matrix.robust_min
    util = settings.pacing_day_utilisation.get(problem.request.pacing, 0.85)
    preferred_days = preferred_days or {}
    capacity = [int((d.end_min - d.start_min - d.lunch_min) * util) for d in problem.days]
    n_days = len(problem.days)

    def reachable_days(stop: ProblemStop) -> list[int]:
        out = []
        for d, day in enumerate(problem.days):
            s_pt, e_pt = problem.point_index(day.start_key), problem.point_index(day.end_key)
            for w in stop.windows_by_day[d]:
                arrive = max(day.start_min + R[s_pt][stop.point_index], w.start)
                if arrive <= w.end and arrive + stop.visit_min + R[stop.point_index][e_pt] <= day.end_min:
                    out.append(d)
                    break
        return out

    feasible = {s.key: reachable_days(s) for s in problem.stops}
    unassignable = [s.key for s in problem.stops if not feasible[s.key]]

    def travel_load(stop: ProblemStop) -> int:
        # Robust minutes to its nearest other stop: a fair share of the day's travel.
        others = [R[stop.point_index][o.point_index] for o in problem.stops if o.key != stop.key]
        return min(others) if others else 0

    load_of = {s.key: s.visit_min + travel_load(s) for s in problem.stops}
    members: list[list[ProblemStop]] = [[] for _ in range(n_days)]
    load = [0] * n_days

    def affinity(stop: ProblemStop, d: int) -> float:
        if members[d]:
            return sum(R[stop.point_index][m.point_index] for m in members[d]) / len(members[d])
        day = problem.days[d]
        return float(R[problem.point_index(day.start_key)][stop.point_index])

    def cost(stop: ProblemStop, d: int) -> float:
        over = max(0, load[d] + load_of[stop.key] - capacity[d])
        fill = load[d] / max(1, capacity[d])
        bonus = -30.0 if preferred_days.get(stop.key) == d else 0.0
        return affinity(stop, d) + 60.0 * fill + 10.0 * over + bonus

    order = sorted(
        (s for s in problem.stops if feasible[s.key]),
        key=lambda s: (len(feasible[s.key]), PRIORITY_RANK[s.priority], -s.visit_min, s.key),
    )
    # Seed empty days with mutually far stops so days become geographic clusters.
    flexible = [s for s in order if len(feasible[s.key]) == n_days and s.fixed_day is None]
    seeds: list[ProblemStop] = []
    if n_days > 1 and len(flexible) >= n_days:
        hotel = problem.point_index(problem.days[0].start_key)
        seeds.append(max(flexible, key=lambda s: (R[hotel][s.point_index], s.key)))
        while len(seeds) < n_days:
            seeds.append(max((s for s in flexible if s not in seeds),
                             key=lambda s: (min(R[q.point_index][s.point_index] for q in seeds), s.key)))
    for d, seed in enumerate(seeds):
        members[d].append(seed)
        load[d] += load_of[seed.key]
    for stop in order:
        if stop in seeds:
            continue
        d = min(feasible[stop.key], key=lambda d: (cost(stop, d), d))
        members[d].append(stop)
        load[d] += load_of[stop.key]

    for _ in range(4):  # improvement passes
        moved = False
        for d in range(n_days):
            for stop in list(members[d]):
                if stop.fixed_day is not None or len(feasible[stop.key]) == 1:
                    continue
                members[d].remove(stop)
                load[d] -= load_of[stop.key]
                here = cost(stop, d)
                best = min(feasible[stop.key], key=lambda e: (cost(stop, e), e))
                target = best if cost(stop, best) + 1e-9 < here - 5 else d
                members[target].append(stop)
                load[target] += load_of[stop.key]
                moved |= target != d
        if not moved:
            break

    return DayClusters(
        days=[
            DayAssignment(day_index=d, keys=[s.key for s in members[d]], load_min=load[d], capacity_min=capacity[d])
            for d in range(n_days)
        ],
        unassignable=unassignable,
    )


def optimize_day_vrptw(
    problem: ItineraryProblem,
    *,
    day_index: int,
    keys: Sequence[str],
    settings: Settings | None = None,
    end_min: int | None = None,
    force_keys: Sequence[str] = (),
) -> DayPlan:
    """One day as a VRPTW: must-visits hard, the rest optional with priority penalties.

    If the must-visits cannot all be kept, it re-solves with them as (very) expensive optional
    stops, so the plan keeps every must it can; the caller reports the rest as infeasible.
    """
    settings = settings or get_settings()
    keys = list(dict.fromkeys(keys))
    if not keys:
        sched = layout_day(problem, day_index, [], settings=settings, end_min=end_min)
        return DayPlan(day_index=day_index, order=[], dropped=[], objective=0,
                       solver_status="EMPTY" if sched else "EMPTY_DAY_INFEASIBLE")
    eo = {day_index: end_min} if end_min is not None else None
    routes, dropped, objective, status = _solve_routing(problem, [day_index], keys, settings=settings, end_override=eo,
                                                        force_keys=force_keys)
    if routes is None and force_keys:
        return DayPlan(day_index=day_index, order=[], dropped=keys, objective=None,
                       solver_status=f"FORCED_INFEASIBLE:{status}")
    if routes is None:
        routes, dropped, objective, status = _solve_routing(
            problem, [day_index], keys, settings=settings, relax_hard=True, end_override=eo
        )
        status = f"MUSTS_RELAXED:{status}"
    order = routes[day_index] if routes else []
    order, extra = _make_layout_feasible(problem, day_index, order, settings=settings, end_min=end_min)
    return DayPlan(day_index=day_index, order=order, dropped=[*dropped, *extra], objective=objective,
                   solver_status=status)


def _make_layout_feasible(problem, day_index, order, *, settings, end_min=None) -> tuple[list[str], list[str]]:
    """Guard: if the layout disagrees with the solver, drop the cheapest stops until it fits."""
    order = list(order)
    removed: list[str] = []
    while order and not order_is_feasible(problem, day_index, order, settings=settings, end_min=end_min):
        victim = max(order, key=lambda k: (-_effective_penalty(problem.stop(k), settings), k))
        order.remove(victim)
        removed.append(victim)
    return order, removed


def _plan_penalty(problem: ItineraryProblem, dropped: Sequence[str], settings: Settings) -> int:
    return sum(_effective_penalty(problem.stop(k), settings) for k in dropped)


def repair_cross_day(
    problem: ItineraryProblem, plans: Sequence[DayPlan], *, settings: Settings | None = None
) -> tuple[list[DayPlan], list[dict[str, Any]]]:
    """Put dropped stops back where there is room, most valuable first.

    For each dropped stop and each day it can go on (other days first, then its own): insert it
    into the day's order if that fits; otherwise re-solve the day with the stop forced in, which
    may displace cheaper stops (the trade greedy local search misses: one 'should' for several
    'nice'). A change is kept only if the displaced penalty is below the stop's own, so the
    total dropped penalty strictly falls and the loop ends. Returns new plans and the moves made.
    """
    settings = settings or get_settings()
    plans = [p.model_copy(deep=True) for p in plans]
    by_day = {p.day_index: p for p in plans}
    pool = sorted({k for p in plans for k in p.dropped},
                  key=lambda k: (-_effective_penalty(problem.stop(k), settings), k))
    moves: list[dict[str, Any]] = []
    home = {k: p.day_index for p in plans for k in p.dropped}
    tried: set[tuple[str, int, tuple[str, ...]]] = set()

    def room(d: int) -> int:
        sched = layout_day(problem, d, by_day[d].order, settings=settings)
        return (problem.days[d].end_min - sched.finish) if sched else 0

    while pool:
        key = pool.pop(0)
        stop = problem.stop(key)
        worth = _effective_penalty(stop, settings)
        candidates = [d for d in range(len(problem.days)) if stop.windows_by_day[d] and d in by_day]
        candidates.sort(key=lambda d: (d == home.get(key), -room(d), d))
        for d in candidates:
            plan = by_day[d]
            sig = (key, d, tuple(plan.order))
            if sig in tried:
                continue
            tried.add(sig)
            ins = best_insertion(problem, d, plan.order, key, settings=settings)
            if ins is not None:
                new_order, new_dropped = ins.order, []
            else:
                cheaper = [k for k in plan.order if _effective_penalty(problem.stop(k), settings) < worth]
                if not cheaper:
                    continue  # forcing it in could only displace stops worth as much or more
                trial = optimize_day_vrptw(problem, day_index=d, keys=[*plan.order, key], settings=settings,
                                           force_keys=[key])
                if key not in trial.order:
                    continue
                new_order, new_dropped = trial.order, [k for k in trial.dropped if k != key]
                if _plan_penalty(problem, new_dropped, settings) >= worth:
                    continue
            src = home.get(key)
            for p in plans:
                if key in p.dropped:
                    p.dropped.remove(key)
            plan.order = list(new_order)
            plan.dropped = [*plan.dropped, *new_dropped]
            for k in new_dropped:
                home[k] = d
                pool.append(k)
            pool.sort(key=lambda k: (-_effective_penalty(problem.stop(k), settings), k))
            moves.append({"key": key, "from_day": src, "to_day": d, "displaced": list(new_dropped)})
            break
    return plans, moves


def optimize_all_days_vrptw(problem: ItineraryProblem, *, settings: Settings | None = None) -> list[DayPlan]:
    """The multi-vehicle variant: every day a vehicle on one absolute timeline (closed days are
    simply gaps in a stop's allowed start times)."""
    settings = settings or get_settings()
    day_indices = [d.index for d in problem.days]
    keys = [s.key for s in problem.stops]
    routes, dropped, objective, status = _solve_routing(problem, day_indices, keys, settings=settings)
    if routes is None:
        routes, dropped, objective, status = _solve_routing(problem, day_indices, keys, settings=settings,
                                                            relax_hard=True)
        status = f"MUSTS_RELAXED:{status}"
    plans = []
    for d in day_indices:
        order, extra = _make_layout_feasible(problem, d, routes.get(d, []) if routes else [], settings=settings)
        plans.append(DayPlan(day_index=d, order=order, dropped=extra, objective=objective, solver_status=status))
    # Attribute solver drops to a day (first day it could go on) so repair/reasons have a home.
    for k in dropped:
        stop = problem.stop(k)
        d = next((i for i in day_indices if stop.windows_by_day[i]), 0)
        plans[d].dropped.append(k)
    return plans


# ==============================================================================================
# Result assembly
# ==============================================================================================
def _dt(problem: ItineraryProblem, minute: int) -> datetime:
    first = problem.days[0].date
    zone = ZoneInfo(problem.timezone)
    naive = datetime(first.year, first.month, first.day) + timedelta(minutes=minute)
    return naive.replace(tzinfo=zone)


def build_day_timeline(problem: ItineraryProblem, sched: DaySchedule | None, day: ProblemDay) -> DayTimeline:
    entries: list[TimelineEntry] = []
    M = problem.matrix
    pts = problem.points
    stops = {s.key: s for s in problem.stops}
    steps = sched.steps if sched else []
    for step in steps:
        common = dict(
            arrival=_dt(problem, step.arrival), start=_dt(problem, step.start), end=_dt(problem, step.end),
            departure=_dt(problem, step.departure), slack_min=int((step.latest_start or step.start) - step.start),
            lon=pts[step.loc].lon, lat=pts[step.loc].lat,
        )
        if step.kind == "travel":
            a, b = step.from_pt, step.to_pt
            nominal_s = M.nominal_s[a][b]
            entries.append(TimelineEntry(
                kind="travel", name=f"{pts[a].name} → {pts[b].name}", from_key=pts[a].key, to_key=pts[b].key,
                nominal_s=round(nominal_s, 1), nominal_min=round(nominal_s / 60.0, 1), robust_min=M.robust_min[a][b],
                distance_m=round(M.distances_m[a][b], 1), source=M.source, **common,
            ))
        elif step.kind == "visit":
            stop = stops[step.key]
            windows = [(_dt(problem, iv.start), _dt(problem, iv.end)) for iv in stop.open_by_day[day.index]]
            entries.append(TimelineEntry(
                kind="visit", key=stop.key, name=stop.name, priority=stop.priority, source=stop.opening_source,
                opening_windows=windows, locked=stop.fixed_day is not None or stop.fixed_start_min is not None,
                part=step.part or None, **common,
            ))
        elif step.kind == "lunch":
            on_site = bool(entries) and entries[-1].kind == "visit" and entries[-1].part == 1
            name = f"Lunch at {pts[step.loc].name} (on site)" if on_site else f"Lunch near {pts[step.loc].name}"
            entries.append(TimelineEntry(kind="lunch", key=None, name=name, source="lunch_policy", **common))
        else:
            entries.append(TimelineEntry(kind="wait", key=None, name=f"Wait at {pts[step.loc].name}", **common))
    totals = _day_totals(entries)
    return DayTimeline(
        day_index=day.index, date=day.date, day_start=_dt(problem, day.start_min), day_end=_dt(problem, day.end_min),
        start_key=day.start_key, end_key=day.end_key, lunch_required=day.lunch_earliest_start is not None,
        entries=entries, totals=totals,
    )


def _day_totals(entries: Sequence[TimelineEntry]) -> DayTotals:
    def mins(a: datetime, b: datetime) -> int:
        return int((b - a).total_seconds() // 60)

    t = DayTotals()
    for e in entries:
        if e.kind == "visit":
            t.visits += 0 if e.continues_visit else 1
            t.visit_min += mins(e.start, e.end)
        elif e.kind == "travel":
            t.travel_nominal_min += e.nominal_min or 0.0
            t.travel_robust_min += mins(e.start, e.end)
            t.distance_m += e.distance_m or 0.0
        elif e.kind == "lunch":
            t.lunch_min += mins(e.start, e.end)
        else:
            t.wait_min += mins(e.start, e.end)
        if e.kind != "wait":
            t.wait_min += mins(e.arrival, e.start) + mins(e.end, e.departure)
    t.travel_nominal_min = round(t.travel_nominal_min, 1)
    t.distance_m = round(t.distance_m, 1)
    if entries:
        t.span_min = mins(entries[0].start, entries[-1].end)
    return t


def _measure(problem, plans, settings, variant: str, seconds: float) -> VariantMeasure:
    dropped = [k for p in plans for k in p.dropped]
    travel = wait = 0
    for p in plans:
        sched = layout_day(problem, p.day_index, p.order, settings=settings)
        if sched:
            travel += sum(s.end - s.start for s in sched.steps if s.kind == "travel")
            wait += sched.wait_total
    return VariantMeasure(
        variant=variant, seconds=round(seconds, 4),
        must_dropped=sum(1 for k in dropped if _is_hard(problem.stop(k))),
        dropped_penalty=_plan_penalty(problem, dropped, settings),
        visits=sum(len(p.order) for p in plans), travel_robust_min=travel, wait_min=wait,
    )


class _Log:
    def __init__(self) -> None:
        self.entries: list[DecisionLogEntry] = []

    def add(self, action: str, reason_code: str, **facts: Any) -> None:
        self.entries.append(DecisionLogEntry(step=len(self.entries) + 1, action=action, reason_code=reason_code,
                                             facts=facts))


def solve_per_day(problem: ItineraryProblem, *, settings: Settings | None = None, log: _Log | None = None,
                  preferred_days: dict[str, int] | None = None) -> list[DayPlan]:
    """Clustering → one VRPTW per day → cross-day repair."""
    settings = settings or get_settings()
    log = log or _Log()
    clusters = cluster_days_balanced(problem, settings=settings, preferred_days=preferred_days)
    log.add("itinerary.cluster_days_balanced", "DAYS_CLUSTERED",
            days={a.day_index: a.keys for a in clusters.days},
            load_min={a.day_index: a.load_min for a in clusters.days},
            capacity_min={a.day_index: a.capacity_min for a in clusters.days}, unassignable=clusters.unassignable)
    plans = []
    for a in clusters.days:
        plan = optimize_day_vrptw(problem, day_index=a.day_index, keys=a.keys, settings=settings)
        log.add("itinerary.optimize_day_vrptw", "DAY_OPTIMISED", day_index=a.day_index, order=plan.order,
                dropped=plan.dropped, solver_status=plan.solver_status)
        plans.append(plan)
    if clusters.unassignable:
        first = plans[0]
        first.dropped = [*first.dropped, *clusters.unassignable]
    plans, moves = repair_cross_day(problem, plans, settings=settings)
    for m in moves:
        log.add("itinerary.repair_cross_day", "STOP_MOVED", **m)
    return plans


def solve_multi_vehicle(problem: ItineraryProblem, *, settings: Settings | None = None,
                        log: _Log | None = None) -> list[DayPlan]:
    settings = settings or get_settings()
    log = log or _Log()
    plans = optimize_all_days_vrptw(problem, settings=settings)
    log.add("itinerary.optimize_all_days_vrptw", "ALL_DAYS_OPTIMISED",
            days={p.day_index: p.order for p in plans}, dropped=[k for p in plans for k in p.dropped],
            solver_status=plans[0].solver_status if plans else "")
    plans, moves = repair_cross_day(problem, plans, settings=settings)
    for m in moves:
        log.add("itinerary.repair_cross_day", "STOP_MOVED", **m)
    return plans


def plan_itinerary(
    request: TripRequest,
    *,
    provider,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
    removed_keys: Sequence[str] = (),
    preferred_days: dict[str, int] | None = None,
) -> ItineraryResult:
    """The whole slow path: a multi-day plan that can really be carried out, checked by the critic."""
    from core.itinerary import drop_reasons as policy_mod
    from core.itinerary.critic import check_itinerary

    settings = settings or get_settings()
    started = _time.perf_counter()
    report = progress or (lambda stage, fraction: None)
    log = _Log()

    report("prepare", 0.05)
    problem = prepare_problem(request, provider=provider, settings=settings, removed_keys=removed_keys)
    log.add("transport.build_time_matrix", "MATRIX_BUILT", points=len(problem.points), source=problem.matrix.source,
            mode=problem.matrix.mode)
    log.add("transport.apply_robustness_policy", "ROBUST_POLICY_APPLIED", factor=problem.policy.factor,
            buffer_min=problem.policy.buffer_min, visit_factor=problem.policy.visit_factor,
            pacing=problem.policy.pacing, mode=problem.policy.mode, source=problem.policy.source)
    for note in problem.notes:
        log.add("opening.opening_windows", "OPENING_HOURS_UNPARSED", note=note)
    for d in problem.days:
        if d.lunch_earliest_start is None and request.lunch.enabled:
            log.add("itinerary.prepare_problem", "NO_LUNCH_THIS_DAY", day_index=d.index,
                    fact="the day's hours do not span the lunch window")

    variants: dict[str, tuple[list[DayPlan], VariantMeasure]] = {}
    wanted = ["per_day", "multi_vehicle"] if settings.itinerary_variant == "auto" else [settings.itinerary_variant]
    for i, variant in enumerate(wanted):
        report(f"optimise:{variant}", 0.15 + 0.55 * i / len(wanted))
        t0 = _time.perf_counter()
        if variant == "per_day":
            plans = solve_per_day(problem, settings=settings, log=log, preferred_days=preferred_days)
        else:
            plans = solve_multi_vehicle(problem, settings=settings, log=log)
        variants[variant] = (plans, _measure(problem, plans, settings, variant, _time.perf_counter() - t0))

    def rank(item):
        name, (_, m) = item
        return (m.must_dropped, m.dropped_penalty, m.travel_robust_min + m.wait_min, wanted.index(name))

    chosen_name, (plans, _) = min(variants.items(), key=rank)
    for name, (_, m) in variants.items():
        m.chosen = name == chosen_name
    log.add("itinerary.plan_itinerary", "VARIANT_CHOSEN", variant=chosen_name,
            measures={n: m.model_dump(exclude={"variant", "chosen"}) for n, (_, m) in variants.items()},
            rule="fewest must dropped, then least dropped penalty, then least robust travel + wait")

    report("timeline", 0.75)
    days = []
    for p in sorted(plans, key=lambda p: p.day_index):
        sched = layout_day(problem, p.day_index, p.order, settings=settings)
        days.append(build_day_timeline(problem, sched, problem.days[p.day_index]))

    report("explain", 0.85)
    feasibility = policy_mod.validate_feasibility(problem, plans, settings=settings)
    for item in feasibility.dropped_items:
        log.add("policy.validate_feasibility", item.reason_code, key=item.key, priority=item.priority,
                per_day=item.per_day_reasons, fix=item.smallest_fix.description if item.smallest_fix else None)
    robustness = policy_mod.score_robustness(days, tolerance=settings.robustness_tolerance)
    log.add("policy.score_robustness", "ROBUSTNESS_SCORED", score=robustness.score,
            min_slack_min=robustness.min_slack_min, legs=robustness.legs)

    totals = trip_totals(days, request, feasibility.dropped_items)
    infeasible = [d for d in feasibility.dropped_items if d.priority == "must" or request.place(d.key).is_hard]
    infeasible = [d for d in infeasible if d.reason_code != "REMOVED_BY_USER"]
    warnings = [*problem.matrix.notes, *problem.notes]
    result = ItineraryResult(
        status="infeasible" if infeasible else "ready",
        error_code="PLANNER_INFEASIBLE_HARD_NODES" if infeasible else None,
        trip_name=request.trip_name, timezone=problem.timezone, mode=request.mode, pacing=request.pacing,
        policy=problem.policy, lunch=request.lunch, days=days, dropped_items=feasibility.dropped_items,
        totals=totals, robustness=robustness, decision_log=log.entries,
        variants=[m for _, m in variants.values()], variant=chosen_name, matrix_source=problem.matrix.source,
        warnings=warnings, request=request,
    )
    report("critic", 0.95)
    critic = check_itinerary(result, request=request, pack=_pack_of(provider, request, settings), settings=settings,
                             provider=provider)
    log.add("critic.check_itinerary", "CRITIC_PASSED" if critic.passed else "CRITIC_FAILED",
            violations=sorted(critic.codes()))
    if infeasible:
        log.add("itinerary.plan_itinerary", "PLANNER_INFEASIBLE_HARD_NODES", keys=[d.key for d in infeasible])
    result.critic = critic
    if not critic.passed and result.status == "ready":
        result.status = "needs_review"
    result.decision_log = log.entries
    result.seconds = round(_time.perf_counter() - started, 4)
    report("done", 1.0)
    return result


def trip_totals(days: Sequence[DayTimeline], request: TripRequest, dropped) -> ItineraryTotals:
    return ItineraryTotals(
        days=len(days), places_requested=len(request.places), visits=sum(d.totals.visits for d in days),
        dropped=len(dropped), must_dropped=sum(1 for d in dropped if d.priority == "must"),
        visit_min=sum(d.totals.visit_min for d in days),
        travel_nominal_min=round(sum(d.totals.travel_nominal_min for d in days), 1),
        travel_robust_min=sum(d.totals.travel_robust_min for d in days),
        wait_min=sum(d.totals.wait_min for d in days), lunch_min=sum(d.totals.lunch_min for d in days),
        distance_m=round(sum(d.totals.distance_m for d in days), 1),
    )


# ==============================================================================================
# User edits
# ==============================================================================================
def apply_user_edits(request: TripRequest, edits: Sequence[UserEdit]) -> tuple[TripRequest, list[str]]:
    """The request with edits applied (locks become fixed_day/fixed_start) and the removed keys."""
    places = [p.model_copy() for p in request.places]
    removed: list[str] = []

    def find(key: str, i: int) -> TripPlace:
        for p in places:
            if p.key == key:
                return p
        raise InputError(f"edit {i + 1}: no place with key '{key}' in this trip", field=f"edits.{i}.key")

    for i, edit in enumerate(edits):
        if edit.kind == "add":
            if any(p.key == edit.place.key for p in places):
                raise InputError(f"edit {i + 1}: a place with key '{edit.place.key}' already exists",
                                 field=f"edits.{i}.place")
            places.append(edit.place)
            continue
        place = find(edit.key, i)
        day_index = getattr(edit, "day_index", None)
        if day_index is not None and day_index >= len(request.days):
            raise InputError(f"edit {i + 1}: day_index {day_index} is beyond the trip's {len(request.days)} day(s)",
                             field=f"edits.{i}.day_index")
        if edit.kind == "lock":
            if edit.day_index is not None:
                place.fixed_day = edit.day_index
            if edit.start_time is not None:
                place.fixed_start = edit.start_time
        elif edit.kind == "move":
            place.fixed_day = edit.day_index
            place.fixed_start = None
        elif edit.kind == "unlock":
            place.fixed_day = None
            place.fixed_start = None
        elif edit.kind == "remove":
            removed.append(edit.key)
    new_request = TripRequest.model_validate({**request.model_dump(), "places": [p.model_dump() for p in places]})
    return new_request, removed


def reoptimize(
    result_or_request: ItineraryResult | TripRequest,
    edits: Sequence[UserEdit],
    *,
    provider,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
) -> ItineraryResult:
    """Apply user edits (lock to a day/time, move, remove, unlock, add) and re-plan.

    Locks are hard nodes, so they hold. When a previous result is given, unlocked stops prefer
    the day they were on (a stable re-plan) and earlier removals stay removed.
    """
    preferred: dict[str, int] = {}
    prior_removed: list[str] = []
    if isinstance(result_or_request, ItineraryResult):
        request = result_or_request.request
        for day in result_or_request.days:
            for e in day.entries:
                if e.kind == "visit" and e.key:
                    preferred[e.key] = day.day_index
        prior_removed = [d.key for d in result_or_request.dropped_items if d.reason_code == "REMOVED_BY_USER"]
    else:
        request = result_or_request
    new_request, removed = apply_user_edits(request, edits)
    readded = {e.place.key for e in edits if e.kind == "add"}
    removed_all = [k for k in dict.fromkeys([*prior_removed, *removed]) if k not in readded]
    return plan_itinerary(new_request, provider=provider, settings=settings, progress=progress,
                          removed_keys=removed_all, preferred_days=preferred)


def itinerary_from_json(data: dict, *, provider=None, settings: Settings | None = None) -> ItineraryResult:
    """CLI entry: ``python -m core itinerary --request FILE.json`` passes the parsed JSON here.

    Accepts a TripRequest object or ``{"request": {...}, "edits": [...]}``. The provider defaults
    to ``make_provider(region=request.region)``.
    """
    from pydantic import TypeAdapter

    settings = settings or get_settings()
    payload = data.get("request", data) if isinstance(data, dict) else data
    request = TripRequest.model_validate(payload)
    if provider is None:
        from core.geo.registry import make_provider

        provider = make_provider(None, region=request.region, settings=settings)
    edits = TypeAdapter(list[UserEdit]).validate_python(data.get("edits", [])) if isinstance(data, dict) else []
    if edits:
        return reoptimize(request, edits, provider=provider, settings=settings)
    return plan_itinerary(request, provider=provider, settings=settings)
