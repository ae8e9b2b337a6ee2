"""Edits that shape the plan on screen (issue 32, X8): a stop put at a position of its day (or of another day), a
place added to a chosen day (at a position, or where it costs least).

They work on the current plan's day orders, laid out again rather than solved again: every earlier edit, lock and
removal stays as it is, the other days do not change, and an edit takes one matrix and a few layouts. An edit the day
cannot hold is refused with the constraint it breaks (``ShapeRefusal``), found by relaxing one constraint at a time:
the lunch window, then the opening hours and locked times along the order, then the day's end."""

from __future__ import annotations

from collections.abc import Sequence

from core.config import Settings
from core.errors import InputError
from core.geo.composite import MapServices
from core.itinerary.assembly import DecisionLog, assemble_result
from core.itinerary.drop_reasons import (
    day_bounds_facts,
    day_bounds_verdict,
    lunch_taken_by,
    lunch_taken_facts,
    meal_facts,
    meal_verdict,
    without_lunch,
)
from core.itinerary.edits import apply_user_edits
from core.itinerary.layout import best_insertion, layout_day
from core.itinerary.problem import day_windows, prepare_problem, start_windows
from core.models.common import PRIORITY_RANK
from core.models.itinerary import AddEdit, RemoveEdit, ReorderEdit, TripRequest, UserEdit
from core.models.itinerary_edit import ShapeConflict, ShapeRefusal
from core.models.itinerary_problem import DayPlan, ItineraryProblem, ProblemStop
from core.models.itinerary_result import ItineraryResult

_DAY_MIN = 24 * 60


def is_shaping(edit: UserEdit) -> bool:
    """An edit made on the plan's orders (not by solving again): a reorder, or an add to a chosen day."""
    return isinstance(edit, ReorderEdit) or (isinstance(edit, AddEdit) and edit.day_index is not None)


def _hhmm(minute: int) -> str:
    minute %= _DAY_MIN
    return f"{minute // 60:02d}:{minute % 60:02d}"


def plan_orders(result: ItineraryResult) -> dict[int, list[str]]:
    """Each day's visits in order (a visit split by a lunch on site counted once)."""
    return {day.day_index: order for day, order in zip(result.days, result.day_orders(), strict=True)}


def shape_plan(
    previous: ItineraryResult,
    edits: Sequence[UserEdit],
    *,
    provider: MapServices,
    settings: Settings,
) -> tuple[ItineraryResult, ShapeRefusal | None]:
    """The plan ``previous`` with the last of ``edits`` (all applied to ``previous.request``) made on its orders.

    Returns the new plan and None, or, when the day cannot hold the edit, ``previous`` and the refusal."""
    last = edits[-1]
    if not is_shaping(last):
        raise InputError("this edit is made by planning again, not on the plan's order", field="edits")
    if isinstance(last, ReorderEdit) and last.day_index is None:  # its own day: named, so it stays there
        here = next((d for d, order in plan_orders(previous).items() if last.key in order), None)
        last = last.model_copy(update={"day_index": here})
        edits = [*edits[:-1], last]
    problem, orders, _ = _edited_problem(previous, edits, provider=provider, settings=settings)
    if isinstance(last, ReorderEdit):
        day, order, refusal = _reordered(problem, orders, last, settings=settings)
    else:
        assert isinstance(last, AddEdit)
        day, order, refusal = _added(problem, orders, last, settings=settings)
    if refusal is not None:
        return previous, refusal
    orders[day] = order
    log = DecisionLog()
    log.add("itinerary.shape_plan", "EDITED_IN_PLACE", edit=last.model_dump(mode="json"), day_index=day, order=order)
    return _edited_in_place(previous, problem, orders, log=log, provider=provider, settings=settings), None


def remove_in_place(
    previous: ItineraryResult,
    edits: Sequence[UserEdit],
    *,
    provider: MapServices,
    settings: Settings,
) -> ItineraryResult | None:
    """The plan ``previous`` with the last of ``edits``, a removal of a stop it visits, made on its orders (issue 32:
    a removal only needs the day it touches): that day laid out again without the stop, then the room it frees offered
    to the places the plan dropped (must before should before nice, each where it costs least); the other days do
    not change. None when the day cannot be laid out again so (then the trip is planned again)."""
    last = edits[-1]
    if not isinstance(last, RemoveEdit):
        raise InputError("only a removal is made in place", field="edits")
    day = next((d for d, order in plan_orders(previous).items() if last.key in order), None)
    if day is None:
        return None
    problem, orders, removed_all = _edited_problem(previous, edits, provider=provider, settings=settings)
    if layout_day(problem, day, orders[day], settings=settings) is None:
        return None
    known = {s.key for s in problem.stops}
    waiting = [d.key for d in previous.dropped_items if d.key in known and d.key not in removed_all]
    for key in sorted(waiting, key=lambda k: PRIORITY_RANK[problem.stop(k).priority]):
        if problem.stop(key).fixed_day not in (None, day):
            continue
        sched = best_insertion(problem, day, orders[day], key, settings=settings)
        if sched is not None:
            orders[day] = list(sched.order)
    log = DecisionLog()
    log.add("itinerary.remove_in_place", "EDITED_IN_PLACE", edit=last.model_dump(mode="json"), day_index=day)
    return _edited_in_place(previous, problem, orders, log=log, provider=provider, settings=settings)


def _edited_problem(
    previous: ItineraryResult, edits: Sequence[UserEdit], *, provider: MapServices, settings: Settings
) -> tuple[ItineraryProblem, dict[int, list[str]], list[str]]:
    """The problem of ``previous.request`` with ``edits`` applied, the plan's day orders kept where their places are
    still in it (every day of the problem has one), and the keys the user removed (before and now, not added back)."""
    request, removed = apply_user_edits(previous.request, edits)
    readded = {e.place.key for e in edits if isinstance(e, AddEdit)}
    prior = [d.key for d in previous.dropped_items if d.reason_code == "REMOVED_BY_USER"]
    removed_all = [k for k in dict.fromkeys([*prior, *removed]) if k not in readded]
    problem = prepare_problem(request, provider=provider, settings=settings, removed_keys=removed_all)
    known = {s.key for s in problem.stops}
    orders = {d: [k for k in order if k in known] for d, order in plan_orders(previous).items()}
    for d in range(len(problem.days)):
        orders.setdefault(d, [])
    return problem, orders, removed_all


def _edited_in_place(
    previous: ItineraryResult,
    problem: ItineraryProblem,
    orders: dict[int, list[str]],
    *,
    log: DecisionLog,
    provider: MapServices,
    settings: Settings,
) -> ItineraryResult:
    """The plan laid out on ``orders`` as they are (no solver), keeping ``previous``'s variants."""
    plans = [DayPlan(day_index=d, order=orders[d], solver_status="EDITED_IN_PLACE") for d in sorted(orders)]
    return assemble_result(
        problem, plans, provider=provider, settings=settings, log=log, variants=previous.variants,
        variant=previous.variant,
    )  # fmt: skip


def lay_out_link(
    base: TripRequest,
    edits: Sequence[UserEdit],
    orders: Sequence[Sequence[str]],
    *,
    provider: MapServices,
    settings: Settings,
) -> ItineraryResult | None:
    """The plan a link describes, laid out from its absolute facts: ``base`` with ``edits`` applied (locks, moves,
    removals, additions, the day a stop was placed on) and each day's visits in ``orders``, not solved again, so
    the days and positions are those its author saw wherever it is opened. None when the orders do not fit the
    trip (a day more or less, a place it lacks or has removed, a place twice) or a day cannot hold its order (the
    data changed since): the link is then planned again from its edits."""
    wanted = [list(order) for order in orders]
    days_of = {k: d for d, order in enumerate(wanted) for k in order}
    placed = [  # a stop put in place on its own day: that day, as the plan it was made on had it
        e.model_copy(update={"day_index": days_of.get(e.key)})
        if isinstance(e, ReorderEdit) and e.day_index is None
        else e
        for e in edits
    ]
    request, removed = apply_user_edits(base, placed)
    readded = {e.place.key for e in placed if isinstance(e, AddEdit)}
    removed = [k for k in dict.fromkeys(removed) if k not in readded]
    if len(wanted) != len(request.days) or len(days_of) != sum(len(o) for o in wanted):
        return None
    problem = prepare_problem(request, provider=provider, settings=settings, removed_keys=removed)
    if not set(days_of) <= {s.key for s in problem.stops}:
        return None
    if any(order and layout_day(problem, d, order, settings=settings) is None for d, order in enumerate(wanted)):
        return None
    plans = [DayPlan(day_index=d, order=order, solver_status="EDITED_IN_PLACE") for d, order in enumerate(wanted)]
    log = DecisionLog()
    log.add("itinerary.lay_out_link", "EDITED_IN_PLACE", orders=wanted)
    return assemble_result(problem, plans, provider=provider, settings=settings, log=log)


def _reordered(
    problem: ItineraryProblem, orders: dict[int, list[str]], edit: ReorderEdit, *, settings: Settings
) -> tuple[int, list[str], ShapeRefusal | None]:
    here = next((d for d, order in orders.items() if edit.key in order), None)
    if here is None:
        raise InputError(f"'{edit.key}' is not on the plan: add it to a day instead", field="edit_stop")
    day = here if edit.day_index is None else edit.day_index
    if day >= len(problem.days):
        raise InputError(f"day_index {day} is beyond the trip's {len(problem.days)} day(s)", field="edit_day")
    if day != here:
        orders[here] = [k for k in orders[here] if k != edit.key]
        if layout_day(problem, here, orders[here], settings=settings) is None:  # a day laid out before: defensive
            return here, orders[here], conflict(problem, here, orders[here], edit.key, settings=settings)
    rest = [k for k in orders[day] if k != edit.key]
    position = min(edit.position, len(rest))
    order = [*rest[:position], edit.key, *rest[position:]]
    if layout_day(problem, day, order, settings=settings) is None:
        return day, order, conflict(problem, day, order, edit.key, settings=settings)
    return day, order, None


def _added(
    problem: ItineraryProblem, orders: dict[int, list[str]], edit: AddEdit, *, settings: Settings
) -> tuple[int, list[str], ShapeRefusal | None]:
    key = edit.place.key or ""  # set by the place's validator
    day = edit.day_index if edit.day_index is not None else 0
    if any(key in order for order in orders.values()):
        raise InputError(f"'{key}' is already on the plan: move it instead", field="edit_place")
    rest = orders[day]
    if edit.position is not None:
        position = min(edit.position, len(rest))
        order = [*rest[:position], key, *rest[position:]]
        if layout_day(problem, day, order, settings=settings) is None:
            return day, order, conflict(problem, day, order, key, settings=settings)
        return day, order, None
    sched = best_insertion(problem, day, rest, key, settings=settings)
    if sched is None:
        if layout_day(problem, day, [key], settings=settings) is None:  # not even alone: that constraint
            return day, [key], conflict(problem, day, [key], key, settings=settings)
        if (taken := lunch_taken_by(problem, problem.stop(key), rest)) is not None:
            refusal = ShapeRefusal(code="LUNCH_TAKEN", key=key, day_index=day, facts=lunch_taken_facts(problem, taken))
            return day, [*rest, key], refusal
        facts = {"planned_on_day": len(rest), "visit_min": problem.stop(key).visit_min}
        return day, [*rest, key], ShapeRefusal(code="DAY_TOO_FULL", key=key, day_index=day, facts=facts)
    return day, list(sched.order), None


def conflict(
    problem: ItineraryProblem, d: int, order: Sequence[str], edited: str, *, settings: Settings
) -> ShapeRefusal:
    """The constraint ``order`` breaks on day ``d``: each constraint relaxed in turn, the first that lets the order
    lay out is the one it breaks."""
    day = problem.days[d]
    stop = problem.stop(edited)
    if not stop.open_by_day[d]:
        return ShapeRefusal(code="CLOSED_ON_DAY", key=edited, day_index=d)
    if not stop.windows_by_day[d] and meal_verdict(problem, stop, d):
        at_meal = {**day_bounds_facts(problem, stop, d), **meal_facts(problem, stop, settings)}
        return ShapeRefusal(code="MEAL_TIME", key=edited, day_index=d, facts=at_meal)
    if not stop.windows_by_day[d]:
        verdict = day_bounds_verdict(problem, stop, d)
        code: ShapeConflict = (
            "PAST_DAY_END" if verdict == "PAST_DAY_END"
            else "BEFORE_DAY_START" if verdict == "BEFORE_DAY_START"
            else "OUTSIDE_OPENING_HOURS"
        )  # fmt: skip
        return ShapeRefusal(code=code, key=edited, day_index=d, facts=day_bounds_facts(problem, stop, d))
    if (taken := lunch_taken_by(problem, stop, order)) is not None:  # a day has one lunch
        return ShapeRefusal(code="LUNCH_TAKEN", key=edited, day_index=d, facts=lunch_taken_facts(problem, taken))
    if problem.request.lunch.enabled and layout_day(without_lunch(problem), d, order, settings=settings):
        lunch = problem.request.lunch
        facts = {
            "lunch_min": lunch.duration_min,
            "window_start": f"{lunch.window_start:%H:%M}",
            "window_end": f"{lunch.window_end:%H:%M}",
        }
        return ShapeRefusal(code="LUNCH_WINDOW", key=edited, day_index=d, facts=facts)
    # With no lunch and no day's end, the first stop reached after its hours (or its locked time) is the one
    late_end = day.offset_min + _DAY_MIN
    robust = problem.matrix.robust()
    loc, now = problem.point_index(day.start_key), day.start_min
    for key in order:
        s = problem.stop(key)
        now += robust[loc][s.point_index]
        window = next((w for w in day_windows(problem, s, day, end_min=late_end) if w.end >= now), None)
        if window is None:
            facts = {**day_bounds_facts(problem, s, d), "arrival": _hhmm(now - day.offset_min)}
            missed: ShapeConflict = "LOCKED_TIME" if s.fixed_start_min is not None else "OUTSIDE_OPENING_HOURS"
            if missed != "LOCKED_TIME" and s.meal_starts is not None and _open_after(s, d, now, late_end):
                missed, facts = "MEAL_TIME", {**facts, **meal_facts(problem, s, settings)}  # open, past the meal
            return ShapeRefusal(code=missed, key=key, day_index=d, facts=facts)
        now = max(now, window.start) + s.visit_min
        loc = s.point_index
    if layout_day(problem, d, order, settings=settings, end_min=late_end) is not None:
        end = now + robust[loc][problem.point_index(day.end_key)]
        facts = {**day_bounds_facts(problem, stop, d), "finish": _hhmm(end - day.offset_min)}
        return ShapeRefusal(code="PAST_DAY_END", key=edited, day_index=d, facts=facts)
    return ShapeRefusal(code="DAY_TOO_FULL", key=edited, day_index=d, facts={"planned_on_day": len(order) - 1})


def _open_after(stop: ProblemStop, d: int, now: int, late_end: int) -> bool:
    """The stop could still be visited from ``now`` on day ``d`` if it were no meal (its hours alone)."""
    return any(w.end >= now for w in start_windows(stop.open_by_day[d], stop.visit_min, now, late_end, None))
