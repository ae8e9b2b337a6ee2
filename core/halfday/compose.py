"""Stage 6, ``rank_places_for_plan``: 2–3 plans that really differ, from the candidates and the travel table.

Greedy first (half_day_planner.md §2.3): from the start, repeatedly take the candidate worth most for its travel,
wait and queue that still fits its opening hours, the meal window and the end of the half day. Plans after the
first penalise the places already used and must share at most half of their places with an earlier plan. When a
greedy plan misses what the goal requires (a named place, the meal, the budget) or is not diverse enough, CP-SAT
(core/halfday/cpsat.py) solves the same problem exactly within a time limit.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from datetime import datetime, time

from core.halfday.generators import returned
from core.halfday.score import assess, cost_per_person
from core.halfday.search import utility
from core.halfday.travel import TravelTable
from core.halfday.travel_budget import travel_caps
from core.models.halfday.plans import Candidate, Plan, PlanStep, Profile, Risk, TimeSlots

REUSE_PENALTY = 2.5
COST_PER_HOUR = 0.8  # utility lost per hour of travel, waiting or queueing
MEAL_MIN = 45
MEAL_MAX = 90
MAX_OVERLAP = 0.5  # a plan shares at most half of its places with an earlier one


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _clock(minutes: int) -> time:
    return time(min(23, minutes // 60), minutes % 60 if minutes < 24 * 60 else 59)


def meal_windows(slots: TimeSlots) -> list[tuple[int, int]]:
    """Every meal slot of the half day (lunch, dinner), in order: each gets one meal."""
    return [(_m(s.start), _m(s.end)) for s in slots.slots if s.kind == "meal"]


def duration(c: Candidate) -> int:
    return max(MEAL_MIN, min(MEAL_MAX, c.visit_minutes)) if c.role == "meal" else c.visit_minutes


def queue_at(c: Candidate, minute: int) -> int:
    """The typical wait when arriving at ``minute`` (the pack's figure for that hour), 0 when the pack has none."""
    if not c.queue_by_hour:
        return 0
    hour = minute // 60
    return c.queue_by_hour.get(hour, c.queue_by_hour[min(c.queue_by_hour, key=lambda h: abs(h - hour))])


def _next_slot(c: Candidate, minute: int) -> int | None:
    """A bookable place starts on its booking grid: the first slot at or after ``minute``."""
    return next((v for v in c.booking_slots if v >= minute), None) if c.booking_slots else minute


def place_step(
    c: Candidate, arrive: int, *, end: int, meals: list[tuple[int, int]] | None = None
) -> tuple[int, int, int] | None:
    """(begin, queue, finish) of visiting ``c`` when arriving at minute ``arrive``, or None when it cannot fit: inside
    one opening interval, on the venue's booking slots when it takes bookings, a meal starting inside one of the
    meal windows, done by ``end``."""
    dur = duration(c)
    for a, b in c.open_intervals:
        earliest = max(arrive, a)
        if c.role == "meal" and meals:
            window = next((w for w in meals if earliest <= w[1] - MEAL_MIN), None)
            if window is None:
                return None
            earliest = max(earliest, window[0])
        # on its booking grid when it takes bookings; a place that needs none is also walked into (早茶 at 9:00 where
        # tables are booked from 11:00): the step is then not bookable (``booked_time``)
        starts = [_next_slot(c, earliest)] + ([earliest] if c.booking_slots and not c.needs_reservation else [])
        for begin in starts:
            if begin is None:
                continue
            if c.role == "meal" and meals and not any(w[0] <= begin <= w[1] - MEAL_MIN for w in meals):
                continue
            queue = queue_at(c, begin)
            finish = begin + queue + dur
            if c.role == "meal" and finish > min(b, end):  # the end of the half day (or the kitchen) leaves less time:
                finish = max(
                    begin + queue + MEAL_MIN, min(b, end)
                )  # a meal is kept short rather than lost (≥ MEAL_MIN)
            if finish <= min(b, end):
                return begin, queue, finish
    return None


def booked_time(c: Candidate, begin: int) -> bool:
    """The step can be booked at ``begin``: the place takes bookings and ``begin`` is one of its slots."""
    return c.bookable and (not c.booking_slots or begin in c.booking_slots)


def build_steps(
    order: list[int], cands: list[Candidate], table: TravelTable, slots: TimeSlots, origin: int | None
) -> list[PlanStep] | None:
    """The timed steps of visiting ``order``; None when the order does not fit."""
    t, pos, end, meals = _m(slots.start), origin, _m(slots.end), meal_windows(slots)
    steps: list[PlanStep] = []
    for i in order:
        c = cands[i]
        leg = table.leg(pos, i) if pos is not None else None
        fit = place_step(c, t + (leg.minutes if leg else 0), end=end, meals=meals)
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
                queue_day_type=c.queue.day_type if c.queue and queue else None,
                queue_source=c.queue.source if c.queue and queue else None,
                price_per_person=c.price_per_person,
                price_source=c.price_source,
                needs_reservation=c.needs_reservation,
                bookable=booked_time(c, begin),
                opening_source=c.opening_source,
            )
        )
        t, pos = finish, i
    return steps


def _meal_index(minute: int, meals: list[tuple[int, int]]) -> int | None:
    return next((k for k, (a, b) in enumerate(meals) if a <= minute <= b - MEAL_MIN), None)


def greedy_order(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    penalty: dict[str, float],
    budget: float | None,
    first: int | None = None,
) -> list[int]:
    t, pos, end, meals = _m(slots.start), origin, _m(slots.end), meal_windows(slots)
    eaten: set[int] = set()
    spent = 0.0
    caps, travelled = travel_caps(profile, slots), 0
    order: list[int] = []
    value = {i: utility(c, profile) - penalty.get(c.place_id, 0.0) for i, c in enumerate(cands)}
    while True:
        pending = [k for k in range(len(meals)) if k not in eaten and meals[k][1] - MEAL_MIN >= t]
        best: tuple[float, int, int, int] | None = None
        named_so_far = {name_key(cands[j]) for j in order}
        for i, c in enumerate(cands):
            if i in order or (c.role == "meal" and not pending) or name_key(c) in named_so_far:
                continue  # a chain's other branch is the same place to a person (two Espresso Houses)
            if first is not None and not order and i != first:
                continue
            if budget is not None and c.price_per_person is not None and spent + c.price_per_person > budget:
                continue
            leg = table.leg(pos, i).minutes if pos is not None else 0
            if order and (leg > caps.leg_min or travelled + leg > caps.total_min):
                continue  # past the half day's travel budget (travel_budget.py)
            fit = place_step(c, t + leg, end=end, meals=[meals[k] for k in pending] if c.role == "meal" else meals)
            if fit is None:
                continue
            begin, queue, finish = fit
            if (
                c.role == "activity"
                and pending
                and not _leaves_a_meal(i, finish, cands, order, table, end, meals, pending)
            ):
                continue  # it would push the next meal out of its window
            score = value[i] - COST_PER_HOUR * (leg + (begin - t - leg) + queue) / 60
            if c.role == "meal" and pending and t >= meals[pending[0]][0] - 30:
                score += 2.0  # mealtime
            if best is None or score > best[0]:
                best = (score, i, begin, finish)
        if best is None:
            if pending and (first is None or order):  # the next meal cannot be reached in its window from here:
                # plan on without it (the plan says so); a forced opening that blocks everything just fails
                eaten.add(pending[0])
                continue
            return order
        _, i, begin, finish = best
        if cands[i].role == "meal":
            k = _meal_index(begin, meals)
            eaten.add(k if k is not None else pending[0])
        if order and pos is not None:
            travelled += table.leg(pos, i).minutes
        order.append(i)
        t, pos = finish, i
        spent += cands[i].price_per_person or 0.0


def _leaves_a_meal(
    i: int,
    finish: int,
    cands: list[Candidate],
    order: list[int],
    table: TravelTable,
    end: int,
    meals: list[tuple[int, int]],
    pending: list[int],
) -> bool:
    """After visiting ``cands[i]`` until ``finish``, the next meal can still be had: its window is not over, and
    some eatery not yet in the plan can be reached and fit in it (the way there, its booking times, the day's end)."""
    window = meals[pending[0]]
    if finish > window[1] - MEAL_MIN:
        return False
    eateries = [j for j, m in enumerate(cands) if m.role == "meal" and j not in order and j != i]
    return not eateries or any(
        place_step(cands[j], finish + table.leg(i, j).minutes, end=end, meals=[window]) is not None for j in eateries
    )


def name_key(c: Candidate) -> str:
    """What a person calls the place: branches of a chain share it, and a plan holds one of them."""
    return (c.name_zh or c.name_en).strip().casefold()


def overlap(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    return len(set(a) & set(b)) / min(len(a), len(b))


def shortfalls(steps: list[PlanStep], cands: list[Candidate], slots: TimeSlots, budget: float | None) -> list[str]:
    """What a plan misses that the goal requires (codes)."""
    ids = {s.place_id for s in steps}
    out = []
    named = [c.place_id for c in cands if "named_in_goal" in c.reasons]
    if any(n not in ids for n in named):
        out.append("named_place_missing")
    if sum(s.kind == "meal" for s in steps) < len(meal_windows(slots)):
        out.append("meal_missing")
    cost, _ = cost_per_person(steps)
    if budget is not None and cost is not None and cost > budget:
        out.append("over_budget")
    if len(steps) < 2:
        out.append("too_few_steps")
    return out


def _greedy_attempt(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    budget: float | None,
    plans: list[Plan],
    by_id: dict[str, Candidate],
    used: dict[str, float],
    tried_first: set[int],
) -> tuple[list[PlanStep], list[str], bool]:
    """The greedy composer's next plan: its steps, what it misses of the goal, whether it is too like an earlier
    plan. The first plan opens freely; a later one opens with a place no plan used, of a kind no plan opened with,
    trying a few such openings (remembered in ``tried_first``) before the exact solver is asked."""
    previous = [[s.place_id for s in p.steps] for p in plans]
    steps: list[PlanStep] = []
    missing: list[str] = ["not_tried"]
    too_alike = False
    for first in _openings(cands, plans, by_id, profile, used, tried_first) if plans else [None]:
        if first is not None:
            tried_first.add(first)
        order = greedy_order(cands, table, slots, profile, origin=origin, penalty=used, budget=budget, first=first)
        steps = build_steps(order, cands, table, slots, origin) or []
        too_alike = any(overlap([s.place_id for s in steps], prev) > MAX_OVERLAP for prev in previous)
        missing = shortfalls(steps, cands, slots, budget)
        if steps and not missing and not too_alike:
            break
    return steps, missing, too_alike


def legs_source(steps: list[PlanStep], default: str) -> str:
    """Where a plan's legs come from: their one source, ``mixed`` when they differ, ``default`` (the table's) when
    the plan has none. A plan whose own legs are all measured is not an estimate because other pairs of its table
    are."""
    sources = {s.travel.source for s in steps if s.travel is not None and s.travel.mode != "none"}
    if not sources:
        return default
    return sources.pop() if len(sources) == 1 else "mixed"


def assessed_plan(
    plan_id: str,
    steps: list[PlanStep],
    kind: str,
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    by_id: dict[str, Candidate],
    now: datetime,
    timezone: str,
) -> Plan:
    """The plan of ``steps``: its feasibility and risks (a place the goal named and the plan could not fit halves
    it), cost, travel and queues."""
    feasibility, factors, risks = assess(
        steps,
        by_id,
        profile=profile,
        slots=slots,
        now=now,
        timezone=timezone,
        travel_source=legs_source(steps, table.source),
    )
    for pid in [c.place_id for c in cands if "named_in_goal" in c.reasons]:
        if pid not in {s.place_id for s in steps}:  # the goal named it, this plan could not fit it
            risks.append(Risk(code="NAMED_PLACE_MISSING", place_id=pid))
            factors[f"named_missing:{pid}"] = 0.5
            feasibility = round(feasibility * 0.5, 4)
    cost, known = cost_per_person(steps)
    return Plan(
        plan_id=plan_id,
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
    budget: float | None,
) -> tuple[list[Plan], list[str]]:
    """Up to ``max_plans`` plans, each scheduled, assessed and distinct; notes are codes. ``budget`` is the budget
    per person the search held to (the asked one, or more once relaxed)."""
    return returned(
        iter_plans(
            cands, table, slots, profile, origin=origin, max_plans=max_plans, now=now, timezone=timezone,
            solver=solver, exact=exact, budget=budget,
        )
    )  # fmt: skip


def iter_plans(
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
    budget: float | None,
) -> Generator[Plan, None, tuple[list[Plan], list[str]]]:
    """``compose_plans`` one plan at a time: each plan is yielded the moment it is made (a face shows it while the
    next is composed: issue 32, the half-day's first card), and the plans and notes are returned at the end."""
    plans: list[Plan] = []
    notes: list[str] = []
    by_id = {c.place_id: c for c in cands}
    used: dict[str, float] = {}
    tried_first: set[int] = set()
    for _attempt in range(max_plans + 2):  # a few spare attempts for plans that come out too alike
        if len(plans) >= max_plans:
            break
        previous = [[s.place_id for s in p.steps] for p in plans]
        steps: list[PlanStep] = []
        missing: list[str] = ["not_tried"]
        too_alike = False
        if solver != "cp_sat":
            steps, missing, too_alike = _greedy_attempt(
                cands,
                table,
                slots,
                profile,
                origin=origin,
                budget=budget,
                plans=plans,
                by_id=by_id,
                used=used,
                tried_first=tried_first,
            )
        kind = "greedy"
        if solver != "greedy" and (missing or too_alike):
            exact_order = exact(cands, table, slots, profile, origin=origin, previous=previous, budget=budget)
            exact_steps = build_steps(exact_order, cands, table, slots, origin) if exact_order else None
            if exact_steps:
                steps, kind = exact_steps, "cp_sat"
                notes.append(f"cp_sat_used:{','.join(missing + (['too_alike'] if too_alike else [])) or 'asked'}")
                too_alike = any(overlap([s.place_id for s in steps], prev) > MAX_OVERLAP for prev in previous)
        if not steps or too_alike:
            continue
        plans.append(
            assessed_plan(
                f"p{len(plans) + 1}", steps, kind, cands, table, slots, profile, by_id=by_id, now=now, timezone=timezone
            )
        )
        yield plans[-1]
        for s in steps:
            used[s.place_id] = used.get(s.place_id, 0.0) + REUSE_PENALTY
    if len(plans) < 2:
        notes.append("fewer_than_two_distinct_plans")
    return plans, notes


OPENINGS_TRIED = 4


def _openings(
    cands: list[Candidate],
    plans: list[Plan],
    by_id: dict[str, Candidate],
    profile: Profile,
    used: dict[str, float],
    tried: set[int],
) -> list[int]:
    """Places to open the next plan with: not used by any plan, best first, new kinds of place before the rest."""
    opened = {by_id[p.steps[0].place_id].category for p in plans if p.steps}
    fresh = [
        i
        for i, c in sorted(enumerate(cands), key=lambda ic: -utility(ic[1], profile))
        if c.role == "activity" and c.place_id not in used and i not in tried
    ]
    new_kinds = [i for i in fresh if cands[i].category not in opened]
    return (new_kinds + [i for i in fresh if i not in new_kinds])[:OPENINGS_TRIED]


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
