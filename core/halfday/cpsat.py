"""The exact composer for tight half days: OR-Tools CP-SAT chooses and orders places in one model.

Nodes are the candidates plus a depot (the origin, or "anywhere" when the goal gave none). A circuit through the
depot and the chosen nodes (an unchosen node loops on itself) orders the visit; each chosen node starts inside
one of its opening intervals (less its queue and visit), after its predecessor's end plus the robust travel between
them, and ends before the half day does. Exactly one meal when the window has a mealtime, starting in that meal's
window; every named place; the budget per person; at most half of the places of each earlier plan. The objective is
the candidates' utility (×100) less travel minutes, as in the greedy composer.
"""

from __future__ import annotations

from datetime import time

from ortools.sat.python import cp_model

from core.halfday.compose import COST_PER_HOUR, MEAL_MIN, duration, meal_window
from core.halfday.models import Candidate, Profile, TimeSlots
from core.halfday.score import budget_of
from core.halfday.search import utility
from core.halfday.travel import TravelTable

MAX_NODES = 24
TIME_LIMIT_S = 0.6


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def exact_order(
    cands: list[Candidate],
    table: TravelTable,
    slots: TimeSlots,
    profile: Profile,
    *,
    origin: int | None,
    previous: list[list[str]],
    time_limit_s: float = TIME_LIMIT_S,
) -> list[int] | None:
    """Indices into ``cands`` in visiting order, or None when the model has no solution in time."""
    ranked = sorted(range(len(cands)), key=lambda i: -utility(cands[i], profile))
    named = [i for i in ranked if "named_in_goal" in cands[i].reasons]
    meals = [i for i in ranked if cands[i].role == "meal"][:6]
    acts = [i for i in ranked if cands[i].role == "activity" and i not in named]
    nodes = list(dict.fromkeys(named + meals + acts))[:MAX_NODES]
    start, end, meal = _m(slots.start), _m(slots.end), meal_window(slots)
    model = cp_model.CpModel()
    n = len(nodes)
    depot = n
    x = [model.new_bool_var(f"x{k}") for k in range(n)]
    s = []
    for k, i in enumerate(nodes):
        c = cands[i]
        q = c.queue.minutes if c.queue else 0
        dur = q + duration(c)
        spans = []
        for a, b in c.open_intervals:
            lo, hi = max(a, start), min(b, end) - dur
            if c.role == "meal" and meal is not None:
                lo, hi = max(lo, meal[0]), min(hi, meal[1] - MEAL_MIN)
            if lo <= hi:
                spans.append([lo, hi])
        if not spans:
            model.add(x[k] == 0)
            spans = [[start, start]]
        s.append(model.new_int_var_from_domain(cp_model.Domain.from_intervals(spans), f"s{k}"))
    arcs = []
    travel_terms = []
    for a in range(n + 1):
        for b in range(n + 1):
            if a == b:
                if a < n:
                    arcs.append((a, a, x[a].Not()))
                continue
            lit = model.new_bool_var(f"a{a}_{b}")
            arcs.append((a, b, lit))
            if a < n and b < n:
                ia, ib = nodes[a], nodes[b]
                leg = table.leg(ia, ib).minutes
                ca = cands[ia]
                dur_a = (ca.queue.minutes if ca.queue else 0) + duration(ca)
                model.add(s[b] >= s[a] + dur_a + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
            elif a == depot and b < n:
                leg = table.leg(origin, nodes[b]).minutes if origin is not None else 0
                model.add(s[b] >= start + leg).only_enforce_if(lit)
                travel_terms.append((leg, lit))
            elif b == depot and a < n:
                ca = cands[nodes[a]]
                dur_a = (ca.queue.minutes if ca.queue else 0) + duration(ca)
                model.add(s[a] + dur_a <= end).only_enforce_if(lit)
    model.add_circuit(arcs)
    meal_nodes = [k for k, i in enumerate(nodes) if cands[i].role == "meal"]
    if meal is not None and meal_nodes:
        model.add(sum(x[k] for k in meal_nodes) == 1)
    else:
        model.add(sum(x[k] for k in meal_nodes) <= 1)
    for k, i in enumerate(nodes):
        if "named_in_goal" in cands[i].reasons:
            model.add(x[k] == 1)
    budget = budget_of(profile)
    if budget is not None:
        model.add(sum(int(round(cands[i].price_per_person or 0)) * x[k] for k, i in enumerate(nodes)) <= int(budget))
    for prev in previous:
        members = [k for k, i in enumerate(nodes) if cands[i].place_id in prev]
        if members:
            model.add(sum(x[k] for k in members) <= len(prev) // 2)
    model.add(sum(x) >= 1)
    gain = sum(int(round(100 * utility(cands[i], profile))) * x[k] for k, i in enumerate(nodes))
    loss = sum(int(round(100 * COST_PER_HOUR * leg / 60)) * lit for leg, lit in travel_terms)
    model.maximize(gain - loss)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = 1  # deterministic: the same goal gives the same plans
    solver.parameters.random_seed = 7
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    chosen = [k for k in range(n) if solver.value(x[k])]
    chosen.sort(key=lambda k: solver.value(s[k]))
    return [nodes[k] for k in chosen]
