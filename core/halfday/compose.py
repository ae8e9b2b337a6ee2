"""Stage 6, ``rank_places_for_plan``: 2–3 plans that really differ, from the candidates and the travel table.

Greedy first (half_day_planner.md §2.3): from the start, repeatedly take the candidate worth most for its travel,
wait and queue that still fits its opening hours, the meal window and the end of the half day. Plans after the
first penalise the places already used and must share at most half of their places with an earlier plan. When a
greedy plan misses what the goal requires (a named place, the meal, the budget) or is not diverse enough, CP-SAT
(core/halfday/cpsat.py) solves the same problem exactly within a time limit.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time

from core.halfday.models import Candidate, Plan, PlanStep, Profile, TimeSlots
from core.halfday.score import assess, budget_of, cost_per_person
from core.halfday.search import utility
from core.halfday.travel import TravelTable

REUSE_PENALTY = 2.5
COST_PER_HOUR = 0.8  # utility lost per hour of travel, waiting or queueing
MEAL_MIN = 45
MEAL_MAX = 90
MAX_OVERLAP = 0.5  # a plan shares at most half of its places with an earlier one


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _clock(minutes: int) -> time:
    return time(min(23, minutes // 60), minutes % 60 if minutes < 24 * 60 else 59)


def meal_window(slots: TimeSlots) -> tuple[int, int] | None:
    meal = next((s for s in slots.slots if s.kind == "meal"), None)
    return (_m(meal.start), _m(meal.end)) if meal else None


def duration(c: Candidate) -> int:
    return max(MEAL_MIN, min(MEAL_MAX, c.visit_minutes)) if c.role == "meal" else c.visit_minutes


def place_step(c: Candidate, arrive: int, *, end: int, meal: tuple[int, int] | None) -> tuple[int, int, int] | None:
    """(begin, queue, finish) of visiting ``c`` when arriving at minute ``arrive``, or None when it cannot fit."""
    queue = c.queue.minutes if c.queue else 0
    dur = duration(c)
    for a, b in c.open_intervals:
        begin = max(arrive, a)
        if c.role == "meal" and meal is not None:
            begin = max(begin, meal[0])
            if begin > meal[1] - MEAL_MIN:
                return None
        finish = begin + queue + dur
        if finish <= min(b, end):
            return begin, queue, finish
    return None


def build_steps(
    order: list[int], cands: list[Candidate], table: TravelTable, slots: TimeSlots, origin: int | None
) -> list[PlanStep] | None:
    """The timed steps of visiting ``order``; None when the order does not fit."""
    t, pos, end, meal = _m(slots.start), origin, _m(slots.end), meal_window(slots)
    steps: list[PlanStep] = []
    for i in order:
        c = cands[i]
        leg = table.leg(pos, i) if pos is not None else None
        fit = place_step(c, t + (leg.minutes if leg else 0), end=end, meal=meal)
        if fit is None:
            return None
        begin, queue, finish = fit
        steps.append(
            PlanStep(
                start=_clock(begin),
                end=_clock(finish),
                place_id=c.place_id,
                name_zh=c.name_zh,
                name_en=c.name_en,
                lon=c.lon,
                lat=c.lat,
                kind=c.role,
                category=c.category,
                why=list(c.reasons),
                travel=leg,
                queue_minutes=queue or None,
                queue_day_type=c.queue.day_type if c.queue else None,
                queue_source=c.queue.source if c.queue else None,
                price_per_person=c.price_per_person,
                price_source=c.price_source,
                needs_reservation=c.needs_reservation,
                bookable=c.bookable,
                opening_source=c.opening_source,
            )
        )
        t, pos = finish, i
    return steps


def greedy_order(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    penalty: dict[str, float],
    first: int | None = None,
) -> list[int]:
    t, pos, end, meal = _m(slots.start), origin, _m(slots.end), meal_window(slots)
    meal_done = meal is None
    budget = budget_of(profile)
    spent = 0.0
    order: list[int] = []
    value = {i: utility(c, profile) - penalty.get(c.place_id, 0.0) for i, c in enumerate(cands)}
    while True:
        best: tuple[float, int, int] | None = None
        for i, c in enumerate(cands):
            if i in order or (c.role == "meal" and meal_done):
                continue
            if first is not None and not order and i != first:
                continue
            if budget is not None and c.price_per_person is not None and spent + c.price_per_person > budget:
                continue
            leg = table.leg(pos, i).minutes if pos is not None else 0
            fit = place_step(c, t + leg, end=end, meal=meal)
            if fit is None:
                continue
            begin, queue, finish = fit
            if c.role == "activity" and not meal_done and meal is not None and finish > meal[1] - MEAL_MIN:
                continue  # it would push the meal out of its window
            score = value[i] - COST_PER_HOUR * (leg + (begin - t - leg) + queue) / 60
            if c.role == "meal" and meal is not None and t >= meal[0] - 30:
                score += 2.0  # mealtime
            if best is None or score > best[0]:
                best = (score, i, finish)
        if best is None:
            return order
        _, i, finish = best
        order.append(i)
        t, pos = finish, i
        spent += cands[i].price_per_person or 0.0
        if cands[i].role == "meal":
            meal_done = True


def overlap(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    return len(set(a) & set(b)) / min(len(a), len(b))


def shortfalls(steps: list[PlanStep], cands: list[Candidate], profile: Profile, slots: TimeSlots) -> list[str]:
    """What a plan misses that the goal requires (codes)."""
    ids = {s.place_id for s in steps}
    out = []
    named = [c.place_id for c in cands if "named_in_goal" in c.reasons]
    if any(n not in ids for n in named):
        out.append("named_place_missing")
    if meal_window(slots) is not None and not any(s.kind == "meal" for s in steps):
        out.append("meal_missing")
    cost, _ = cost_per_person(steps)
    budget = budget_of(profile)
    if budget is not None and cost is not None and cost > budget:
        out.append("over_budget")
    if len(steps) < 2:
        out.append("too_few_steps")
    return out


def compose_plans(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    max_plans: int,
    now: datetime,
    timezone: str,
    solver: str,
    exact: Callable[..., list[int] | None],
) -> tuple[list[Plan], list[str]]:
    """Up to ``max_plans`` plans, each scheduled, assessed and distinct; notes are codes."""
    plans: list[Plan] = []
    notes: list[str] = []
    by_id = {c.place_id: c for c in cands}
    used: dict[str, float] = {}
    tried_first: set[int] = set()
    for _attempt in range(max_plans + 2):  # a few spare attempts for plans that come out too alike
        if len(plans) >= max_plans:
            break
        first = None
        if plans:
            # open the next plan with the best place not used yet whose kind no earlier plan opened with
            opened = {by_id[p.steps[0].place_id].category for p in plans if p.steps}
            fresh = [
                i
                for i, c in sorted(enumerate(cands), key=lambda ic: -utility(ic[1], profile))
                if c.role == "activity" and c.place_id not in used and i not in tried_first
            ]
            first = next((i for i in fresh if cands[i].category not in opened), fresh[0] if fresh else None)
            if first is not None:
                tried_first.add(first)
        order = (
            []
            if solver == "cp_sat"
            else greedy_order(cands, table, slots, profile, origin=origin, penalty=used, first=first)
        )
        steps = build_steps(order, cands, table, slots, origin) or []
        kind = "greedy"
        previous = [[s.place_id for s in p.steps] for p in plans]
        too_alike = any(overlap([s.place_id for s in steps], prev) > MAX_OVERLAP for prev in previous)
        missing = shortfalls(steps, cands, profile, slots)
        if solver != "greedy" and (solver == "cp_sat" or missing or too_alike):
            exact_order = exact(cands, table, slots, profile, origin=origin, previous=previous)
            exact_steps = build_steps(exact_order, cands, table, slots, origin) if exact_order else None
            if exact_steps:
                steps, kind = exact_steps, "cp_sat"
                notes.append(f"cp_sat_used:{','.join(missing + (['too_alike'] if too_alike else [])) or 'asked'}")
                too_alike = any(overlap([s.place_id for s in steps], prev) > MAX_OVERLAP for prev in previous)
        if not steps or too_alike:
            continue
        feasibility, factors, risks = assess(
            steps, by_id, profile=profile, slots=slots, now=now, timezone=timezone, travel_source=table.source
        )
        cost, known = cost_per_person(steps)
        plans.append(
            Plan(
                plan_id=f"p{len(plans) + 1}",
                theme=_theme(steps, cands, profile),
                steps=steps,
                risks=risks,
                feasibility=feasibility,
                feasibility_facts=factors,
                solver=kind,
                cost_per_person=cost,
                cost_known=known,
                travel_minutes=sum(s.travel.minutes for s in steps if s.travel),
                queue_minutes=sum(s.queue_minutes or 0 for s in steps),
            )
        )
        for s in steps:
            used[s.place_id] = used.get(s.place_id, 0.0) + REUSE_PENALTY
    if len(plans) < 2:
        notes.append("fewer_than_two_distinct_plans")
    return plans, notes


def _theme(steps: list[PlanStep], cands: list[Candidate], profile: Profile) -> list[str]:
    """What the plan is about: the asked preferences it meets, then its kinds of places (codes)."""
    by_id = {c.place_id: c for c in cands}
    asked = [p for p, w in profile.preferences.items() if w > 0 and not p.startswith("tag:")]
    met = [p for p in asked if any(by_id[s.place_id].match.get(p) for s in steps)]
    kinds: list[str] = []
    for s in steps:
        if s.category not in kinds:
            kinds.append(s.category)
    return met + [f"category:{k}" for k in kinds]
