"""The exact composer for tight half days: OR-Tools CP-SAT chooses and orders places in one model.

Nodes are the candidates (a restaurant once per meal window it could serve) plus a depot (the origin, or
"anywhere" when the goal gave none). A circuit through the depot and the chosen nodes (an unchosen node loops on
itself) orders the visit; each chosen node starts inside one of its opening intervals (less its queue and visit), on
the venue's booking slots when it takes bookings, after its predecessor's end plus the robust travel between them,
and ends before the half day does. Exactly one meal per meal window, starting in it; a place at most once; every
named place; the budget per person; at most half of the places of each earlier plan. Queues count at the window's
busiest hour here (the schedule then uses the hour of arrival). The objective is the candidates' utility (×100) less
travel minutes, as in the greedy composer.
"""

from __future__ import annotations

from datetime import time

from ortools.sat.python import cp_model

from core.halfday.compose import COST_PER_HOUR, MEAL_MIN, duration, meal_windows, name_key
from core.halfday.search import utility
from core.halfday.travel import TravelTable
from core.models.halfday.plans import Candidate, Profile, TimeSlots

MAX_NODES = 24
#: CP-SAT's own work measure (deterministic time), not the clock: the same goal gives the same plans however loaded
#: the machine is (0.4 s of wall clock was 0.16-0.21 of it on a quiet machine, and found nothing at load 12)
WORK_LIMIT = 0.2
TIME_LIMIT_S = 3.0  # a wall-clock cap only, for a machine so slow that the work limit is far off


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _worst_queue(c: Candidate) -> int:
    return max(c.queue_by_hour.values()) if c.queue_by_hour else 0


def exact_order(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    previous: list[list[str]],
    budget: float | None,
    time_limit_s: float = TIME_LIMIT_S,
) -> list[int] | None:
    """Indices into ``cands`` in visiting order, or None when the model has no solution in time."""
    ranked = sorted(range(len(cands)), key=lambda i: -utility(cands[i], profile))
    named = [i for i in ranked if "named_in_goal" in cands[i].reasons]
    meals_at = meal_windows(slots)
    restaurants = [i for i in ranked if cands[i].role == "meal" and i not in named][: 4 * max(1, len(meals_at))]
    acts = [i for i in ranked if cands[i].role == "activity" and i not in named]
    places = list(dict.fromkeys(named + restaurants + acts))[:MAX_NODES]
    # a node is (candidate, meal window index or None)
    nodes: list[tuple[int, int | None]] = []
    for i in places:
        if cands[i].role == "meal" and meals_at:
            nodes += [(i, k) for k in range(len(meals_at))]
        elif cands[i].role == "activity" or not meals_at:
            nodes.append((i, None))
    start, end = _m(slots.start), _m(slots.end)
    model = cp_model.CpModel()
    n = len(nodes)
    depot = n
    x = [model.new_bool_var(f"x{k}") for k in range(n)]
    busy = [_worst_queue(cands[i]) + duration(cands[i]) for i, _ in nodes]
    s = []
    for k, (i, meal) in enumerate(nodes):
        c = cands[i]
        spans = []
        for a, b in c.open_intervals:
            lo, hi = max(a, start), min(b, end) - busy[k]
            if meal is not None:
                lo, hi = max(lo, meals_at[meal][0]), min(hi, meals_at[meal][1] - MEAL_MIN)
            if lo <= hi:
                spans.append((lo, hi))
        if c.booking_slots:
            values = [v for v in c.booking_slots if any(lo <= v <= hi for lo, hi in spans)]
            domain = cp_model.Domain.from_values(values) if values else None
        else:
            domain = cp_model.Domain.from_intervals([list(sp) for sp in spans]) if spans else None
        if domain is None:
            model.add(x[k] == 0)
            domain = cp_model.Domain(start, start)
        s.append(model.new_int_var_from_domain(domain, f"s{k}"))
    arcs = []
    travel_terms = []
    for a in range(n + 1):
        for b in range(n + 1):
            if a == b:
                if a < n:
                    arcs.append((a, a, x[a].Not()))
                continue
            if a < n and b < n and nodes[a][0] == nodes[b][0]:
                continue  # one place, two meal windows: never both
            lit = model.new_bool_var(f"a{a}_{b}")
            arcs.append((a, b, lit))
            if a < n and b < n:
                leg = table.leg(nodes[a][0], nodes[b][0]).minutes
                model.add(s[b] >= s[a] + busy[a] + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
            elif a == depot and b < n:
                leg = table.leg(origin, nodes[b][0]).minutes if origin is not None else 0
                model.add(s[b] >= start + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
            elif b == depot and a < n:
                model.add(s[a] + busy[a] <= end).only_enforce_if(lit)
    model.add_circuit(arcs)
    for k_meal in range(len(meals_at)):
        model.add(sum(x[k] for k, (_, m) in enumerate(nodes) if m == k_meal) == 1)
    for i in places:
        copies = [k for k, (j, _) in enumerate(nodes) if j == i]
        model.add(sum(x[k] for k in copies) <= 1)
        if "named_in_goal" in cands[i].reasons:
            model.add(sum(x[k] for k in copies) == 1)
    by_name: dict[str, list[int]] = {}
    for k, (i, _) in enumerate(nodes):
        by_name.setdefault(name_key(cands[i]), []).append(k)
    for same in by_name.values():
        if len(same) > 1:  # a chain's branches (or one place's meal windows): at most one in a plan
            model.add(sum(x[k] for k in same) <= 1)
    if budget is not None:
        model.add(
            sum(int(round(cands[i].price_per_person or 0)) * x[k] for k, (i, _) in enumerate(nodes)) <= int(budget)
        )
    for prev in previous:
        members = [k for k, (i, _) in enumerate(nodes) if cands[i].place_id in prev]
        if members:
            model.add(sum(x[k] for k in members) <= len(prev) // 2)
    model.add(sum(x) >= 1)
    gain = sum(int(round(100 * utility(cands[i], profile))) * x[k] for k, (i, _) in enumerate(nodes))
    loss = sum(int(round(100 * COST_PER_HOUR * leg / 60)) * lit for leg, lit in travel_terms)
    model.maximize(gain - loss)
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = WORK_LIMIT
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = 1  # deterministic: the same goal gives the same plans
    solver.parameters.random_seed = 7
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    chosen = sorted((k for k in range(n) if solver.value(x[k])), key=lambda k: solver.value(s[k]))
    return [nodes[k][0] for k in chosen]
