"""Stage 6 screened on estimates (core/halfday/measured.py says why and how): compose on the pack's estimate, measure
the plans' legs, check the plans on them, repair once when one broke. One entry, ``compose_screened``, for the
``rank_places_for_plan`` tool when its map service is paid by the destination (``MapServices.pays_per_destination``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.halfday.breaker import Breaker
from core.halfday.compose import MAX_OVERLAP, assessed_plan, build_steps, compose_plans, legs_source, overlap
from core.halfday.cpsat import exact_order
from core.halfday.measured import LegMeasure, Pair, dropped_plan, plan_legs
from core.halfday.plan_set import plan_points
from core.halfday.travel import TravelTable
from core.halfday.travel_budget import travel_caps
from core.models.halfday.facts import DroppedPlan, DropReason
from core.models.halfday.plans import Candidate, ComposeInput, Plan, PlanSet, Profile, TimeSlots

__all__ = ["compose_screened"]

#: after plans were dropped, compose again on the measured legs this many times (each may ask the new plans' legs)
REPAIRS = 1
FEWER_THAN_TWO = "fewer_than_two_distinct_plans"
#: a plan that held: the candidates it visits, in order, and the solver that composed it
Kept = tuple[list[int], str]
#: some legs of the plans kept their estimate: the plan's asks (``halfday_measure_pacing_s``) ran out first
LEGS_LEFT_ESTIMATED = "LEGS_LEFT_ESTIMATED"


@dataclass(frozen=True)
class _Check:
    """What a plan is checked against: its candidates, the start, the window and the party's travel budget."""

    cands: list[Candidate]
    slots: TimeSlots
    profile: Profile
    origin: int | None
    estimate: TravelTable


def compose_screened(
    inp: ComposeInput,
    *,
    provider: MapServices,
    breaker: Breaker,
    timezone: str,
    solver: str,
    budget: float | None,
    max_asks: int | None,
) -> PlanSet:
    """The plans for ``inp``: composed on the estimate, shown on measured legs (see measured.py); ``max_asks``: the
    most destinations asked (None: every one the plans need)."""
    cands = inp.candidates.items
    points, origin = plan_points(inp)
    local = OfflineProvider(provider.region)
    estimate = TravelTable(
        walk=local.matrix(points, mode="walking"),
        drive=local.matrix(points, mode="driving"),
        walk_limit_min=inp.profile.walk_limit_min,
        factor=inp.slots.travel_factor,
        buffer_min=inp.slots.travel_buffer_min,
        router_name=local.name,
    )
    measure = LegMeasure(points=points, estimate=estimate, provider=provider, breaker=breaker, max_asks=max_asks)
    check = _Check(cands=cands, slots=inp.slots, profile=inp.profile, origin=origin, estimate=estimate)
    index = {c.place_id: k for k, c in enumerate(cands)}
    table, dropped = estimate, list[DroppedPlan]()
    kept: list[Kept] = []
    earlier: list[Kept] = []  # plans that held in an earlier round, to fill up when a repair holds fewer
    notes: list[str] = []
    for attempt in range(1 + REPAIRS):
        plans, notes = compose_plans(
            cands, table, inp.slots, inp.profile, origin=origin, max_plans=inp.max_plans, now=inp.now,
            timezone=timezone, solver=solver, exact=exact_order, budget=budget,
        )  # fmt: skip
        orders = [[index[s.place_id] for s in p.steps] for p in plans]
        measure.measure(plan_legs(orders, origin))
        table = measure.table()
        kept, broke = [], []
        for plan, order in zip(plans, orders, strict=True):
            found = _broken(order, table, check)
            if found is None:
                kept.append((order, plan.solver))
            else:
                broke.append(found)
        seen = {tuple(d.place_ids) for d in dropped}
        dropped += [d for d in broke if tuple(d.place_ids) not in seen]
        if not broke or attempt == REPAIRS:
            break
        earlier += kept
    # what held earlier was checked on fewer measured legs: every plan shown is checked on the last table
    kept = [k for k in _filled(kept, earlier, cands, inp.max_plans) if _broken(k[0], table, check) is None]
    shown = _shown(kept, table, check, now=inp.now, timezone=timezone)
    if len(shown) < 2 and FEWER_THAN_TWO not in notes:
        notes = [*notes, FEWER_THAN_TWO]
    # counted plan by plan, as the plans show them (a leg two plans share counts in each)
    legs = sum(len(plan_legs([order], origin)) for order, _ in kept)
    measured = sum(measure.measured(plan_legs([order], origin)) for order, _ in kept)
    left = [LEGS_LEFT_ESTIMATED] if measure.left_estimated and measured < legs else []
    return PlanSet(
        plans=shown,
        travel_source=legs_source([s for p in shown for s in p.steps], table.source),
        notes=table.warnings + left + notes,
        dropped=dropped,
        legs_measured=measured,
    )


def _filled(kept: list[Kept], earlier: list[Kept], cands: list[Candidate], max_plans: int) -> list[Kept]:
    """The last round's plans, then earlier ones up to ``max_plans`` that are not too like any of them."""
    out = list(kept)
    for order, solver in earlier:
        ids = [cands[k].place_id for k in order]
        alike = any(overlap(ids, [cands[k].place_id for k in o]) > MAX_OVERLAP for o, _ in out)
        if len(out) < max_plans and not alike:
            out.append((order, solver))
    return out


def _shown(kept: list[Kept], table: TravelTable, check: _Check, *, now: datetime, timezone: str) -> list[Plan]:
    """The plans that held, timed and assessed on the measured table, numbered in their order."""
    by_id = {c.place_id: c for c in check.cands}
    out: list[Plan] = []
    for order, solver in kept:
        steps = build_steps(order, check.cands, table, check.slots, check.origin)
        assert steps is not None  # _broken said it fits
        plan_id = f"p{len(out) + 1}"
        out.append(
            assessed_plan(
                plan_id,
                steps,
                solver,
                check.cands,
                table,
                check.slots,
                check.profile,
                by_id=by_id,
                now=now,
                timezone=timezone,
            )  # fmt: skip
        )
    return out


def _broken(order: list[int], table: TravelTable, check: _Check) -> DroppedPlan | None:
    """Why the plan visiting ``order`` no longer holds on ``table`` (None: it holds): a stop that no longer fits
    (blamed on the leg up to it that grew most), a leg between stops past the budget, all travel past it."""
    legs = plan_legs([order], check.origin)
    if not legs:
        return None  # one stop and no start: no leg to break it
    caps = travel_caps(check.profile, check.slots)
    if build_steps(order, check.cands, table, check.slots, check.origin) is None:
        stop = next(k for k in range(1, len(order) + 1) if build_steps(order[:k], *_fit(table, check)) is None)
        upto = [leg for leg in legs if leg[1] in order[:stop]]
        return _drop("window", order, _grew_most(upto or legs, table, check), table, check)
    between = [leg for leg in legs if leg[0] != check.origin]
    over = [leg for leg in between if table.leg(*leg).minutes > caps.leg_min]
    if over:
        longest = max(over, key=lambda leg: table.leg(*leg).minutes)
        return _drop("leg_over_budget", order, longest, table, check, cap=caps.leg_min)
    if between and sum(table.leg(*leg).minutes for leg in between) > caps.total_min:
        return _drop("travel_over_budget", order, _grew_most(between, table, check), table, check, cap=caps.total_min)
    return None


def _fit(table: TravelTable, check: _Check) -> tuple[list[Candidate], TravelTable, TimeSlots, int | None]:
    return check.cands, table, check.slots, check.origin


def _grew_most(legs: Sequence[Pair], table: TravelTable, check: _Check) -> Pair:
    """The leg whose measured minutes passed its estimate most (among the measured ones, when there are any)."""
    measured = [leg for leg in legs if table.leg(*leg).source != check.estimate.leg(*leg).source]
    return max(measured or legs, key=lambda leg: table.leg(*leg).minutes - check.estimate.leg(*leg).minutes)


def _drop(
    reason: DropReason, order: list[int], leg: Pair, table: TravelTable, check: _Check, *, cap: int | None = None
) -> DroppedPlan:
    measured = table.leg(*leg)
    return dropped_plan(
        reason,
        order,
        leg,
        cands=check.cands,
        origin=check.origin,
        estimated_minutes=check.estimate.leg(*leg).minutes,
        measured_minutes=measured.minutes,
        mode=measured.mode,
        source=measured.source,
        cap_minutes=cap,
    )
