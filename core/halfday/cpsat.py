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
from core.halfday.travel_budget import TravelCaps, travel_caps
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


#: a node of the model: (candidate, meal window index or None)
_Node = tuple[int, int | None]


def _nodes(cands: list[Candidate], profile: Profile, meals_at: list[tuple[int, int]]) -> tuple[list[int], list[_Node]]:
    """The places the model may choose (the named ones, then the best restaurants, then the activities, at most
    MAX_NODES) and its nodes: a restaurant once per meal window it could serve."""
    ranked = sorted(range(len(cands)), key=lambda i: -utility(cands[i], profile))
    named = [i for i in ranked if "named_in_goal" in cands[i].reasons]
    restaurants = [i for i in ranked if cands[i].role == "meal" and i not in named][: 4 * max(1, len(meals_at))]
    acts = [i for i in ranked if cands[i].role == "activity" and i not in named]
    places = list(dict.fromkeys(named + restaurants + acts))[:MAX_NODES]
    nodes: list[_Node] = []
    for i in places:
        if cands[i].role == "meal" and meals_at:
            nodes += [(i, k) for k in range(len(meals_at))]
        elif cands[i].role == "activity" or not meals_at:
            nodes.append((i, None))
    return places, nodes


def _start_vars(
    model: cp_model.CpModel,
    cands: list[Candidate],
    nodes: list[_Node],
    x: list[cp_model.IntVar],
    busy: list[int],
    meals_at: list[tuple[int, int]],
    start: int,
    end: int,
) -> list[cp_model.IntVar]:
    """Each node's start: inside one of its opening intervals (less its queue and visit) and its meal window, on its
    booking slots when it takes bookings; a node with no such start is not chosen."""
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
    return s


def _circuit(
    model: cp_model.CpModel,
    nodes: list[_Node],
    x: list[cp_model.IntVar],
    s: list[cp_model.IntVar],
    busy: list[int],
    table: TravelTable,
    origin: int | None,
    start: int,
    end: int,
    caps: TravelCaps,
) -> list[tuple[int, cp_model.IntVar]]:
    """The circuit through the depot and the chosen nodes (an unchosen node loops on itself), each arc timed by the
    robust travel; returns the travel terms (minutes, arc literal) for the objective."""
    n = len(nodes)
    depot = n
    arcs = []
    travel_terms = []
    between: list[tuple[int, cp_model.IntVar]] = []
    for a in range(n + 1):
        for b in range(n + 1):
            if a == b:
                if a < n:
                    arcs.append((a, a, x[a].Not()))
                continue
            if a < n and b < n and nodes[a][0] == nodes[b][0]:
                continue  # one place, two meal windows: never both
            if a < n and b < n and table.leg(nodes[a][0], nodes[b][0]).minutes > caps.leg_min:
                continue  # a leg past the half day's travel budget is no arc (travel_budget.py)
            lit = model.new_bool_var(f"a{a}_{b}")
            arcs.append((a, b, lit))
            if a < n and b < n:
                leg = table.leg(nodes[a][0], nodes[b][0]).minutes
                model.add(s[b] >= s[a] + busy[a] + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
                between.append((leg, lit))
            elif a == depot and b < n:
                leg = table.leg(origin, nodes[b][0]).minutes if origin is not None else 0
                model.add(s[b] >= start + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
            elif b == depot and a < n:
                model.add(s[a] + busy[a] <= end).only_enforce_if(lit)
    model.add_circuit(arcs)
    model.add(sum(leg * lit for leg, lit in between) <= caps.total_min)
    return travel_terms


def _choice_rules(
    model: cp_model.CpModel,
    cands: list[Candidate],
    places: list[int],
    nodes: list[_Node],
    x: list[cp_model.IntVar],
    meals_at: list[tuple[int, int]],
    previous: list[list[str]],
    budget: float | None,
) -> None:
    """Exactly one meal per meal window; a place at most once; every named place; one of a chain's branches; the
    budget per person; at most half of the places of each earlier plan; at least one place."""
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
    meals_at = meal_windows(slots)
    places, nodes = _nodes(cands, profile, meals_at)
    start, end = _m(slots.start), _m(slots.end)
    model = cp_model.CpModel()
    n = len(nodes)
    x = [model.new_bool_var(f"x{k}") for k in range(n)]
    busy = [_worst_queue(cands[i]) + duration(cands[i]) for i, _ in nodes]
    s = _start_vars(model, cands, nodes, x, busy, meals_at, start, end)
    travel_terms = _circuit(model, nodes, x, s, busy, table, origin, start, end, travel_caps(profile, slots))
    _choice_rules(model, cands, places, nodes, x, meals_at, previous, budget)
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
