"""The five dimensions of half_day_planner.md table 2, each in [0, 1] with the facts it came from, a plan's
feasibility in [0, 1], and its risks (codes with facts; the edge words them).

T time fit      0.6 × share of visit minutes inside known opening hours (unknown hours count half)
                + 0.4 × (1 − queue minutes ÷ (30 % of the window))
D route         1 − travel minutes ÷ (50 % of the window)
P people        mean suitability of the steps (ages, diet, access) × (0.2 + 0.8 × the share of the goal's wishes
                the plan meets: met 1, in part ½, not met or not understood 0; all, when none were said).
                A plan that ignores every wish scores 0.2 × suitability: an unread wish is never counted as met
C cost          with a budget: 1 when the cost per person is within it, falling linearly to 0 at twice it;
                without one: 1 − 0.5 × cost ÷ the reference cost (OMNI_HALFDAY_REFERENCE_COST); unknown prices × 0.8
S experience    mean of 0.7 × rating ((r − 3) ÷ 2; unknown 0.5) + 0.15 × scarcity (needs booking, premium, local
                favourite) + 0.15 × season (outdoor in spring or autumn, a night view after 17:00)
Values are clamped to [0, 1]. The weights are the user's (normalised); the total is their weighted sum.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.halfday.search import effective_budget
from core.halfday.travel_budget import travel_caps
from core.halfday.wishes import account
from core.models.halfday.plans import (
    Candidate,
    Plan,
    PlanSet,
    PlanStep,
    Profile,
    Risk,
    ScoreBreakdown,
    ScoreInput,
    TimeSlots,
    WishOutcome,
    WishSupply,
    rank_by_weights,
)

LONG_QUEUE_MIN = 30
CLOSES_SOON_MIN = 30
LONG_LEG_MIN = 30
FEASIBILITY_FLOOR = 0.6  # below it the planner searches again with relaxed filters (§2.3)


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _clamp(v: float) -> float:
    return round(max(0.0, min(1.0, v)), 4)


def cost_per_person(steps: list[PlanStep]) -> tuple[float | None, bool]:
    known = [s.price_per_person for s in steps if s.price_per_person is not None]
    all_known = len(known) == len(steps)
    return (round(sum(known), 2) if known else (0.0 if all_known else None)), all_known


def _hours_risks(s: PlanStep, c: Candidate, risks: list[Risk], factors: dict[str, float]) -> None:
    """Opening hours not known, or the venue closing soon after the step ends."""
    if c.opening_source != "opening_hours":
        factors[f"hours_unknown:{c.place_id}"] = 0.9
        risks.append(Risk(code="OPENING_HOURS_UNKNOWN", place_id=c.place_id, severity="info"))
        return
    # the venue's own closing time that day, not the end of the person's window
    closes = next((b for a, b in c.day_open_intervals or c.open_intervals if a <= _m(s.start) < b), None)
    if closes is not None and closes - _m(s.end) < CLOSES_SOON_MIN:
        risks.append(
            Risk(code="CLOSES_SOON", place_id=c.place_id, facts={"closes": f"{closes // 60:02d}:{closes % 60:02d}"})
        )
        factors[f"closes_soon:{c.place_id}"] = 0.95


def _booking_risks(
    s: PlanStep,
    c: Candidate,
    *,
    slots: TimeSlots,
    now: datetime,
    zone: ZoneInfo,
    risks: list[Risk],
    factors: dict[str, float],
) -> None:
    """A place that needs booking (too late for its lead time, or to book ahead), or a bookable meal."""
    if not (c.needs_reservation or (c.bookable and c.role == "meal")):
        return
    lead = c.lead_time_hours or 0
    slot_at = datetime.combine(slots.date, s.start, tzinfo=zone)
    hours_left = (slot_at - now.astimezone(zone)) / timedelta(hours=1)
    if c.needs_reservation and hours_left < lead:
        risks.append(Risk(code="BOOKING_TOO_LATE", place_id=c.place_id, facts={"lead_time_hours": lead}))
        factors[f"booking_too_late:{c.place_id}"] = 0.5
    elif c.needs_reservation:
        risks.append(Risk(code="NEEDS_BOOKING_AHEAD", place_id=c.place_id, facts={"lead_time_hours": lead}))
        factors[f"booking:{c.place_id}"] = 0.95
    else:
        risks.append(
            Risk(code="BOOKING_RECOMMENDED", place_id=c.place_id, facts={"lead_time_hours": lead}, severity="info")
        )


def _step_risks(
    s: PlanStep,
    c: Candidate,
    *,
    profile: Profile,
    slots: TimeSlots,
    now: datetime,
    zone: ZoneInfo,
    risks: list[Risk],
    factors: dict[str, float],
) -> None:
    """One step's risks, in order: hours, queue, booking, price, a long leg, the weather, access."""
    _hours_risks(s, c, risks, factors)
    if c.queue is not None and c.queue.minutes >= LONG_QUEUE_MIN:
        risks.append(
            Risk(
                code="QUEUE",
                place_id=c.place_id,
                facts={"minutes": c.queue.minutes, "day_type": c.queue.day_type, "source": c.queue.source},
            )
        )
        factors[f"queue:{c.place_id}"] = 0.9
    _booking_risks(s, c, slots=slots, now=now, zone=zone, risks=risks, factors=factors)
    if c.price_per_person is None:
        risks.append(Risk(code="PRICE_UNKNOWN", place_id=c.place_id, severity="info"))
    if s.travel is not None and s.travel.minutes >= LONG_LEG_MIN:
        risks.append(
            Risk(code="LONG_LEG", place_id=c.place_id, facts={"minutes": s.travel.minutes, "mode": s.travel.mode})
        )
    weather = set(profile.constraints.weather)
    if "outdoor" in c.tags and weather & {"hot", "cold", "rain"}:
        risks.append(Risk(code="OUTDOOR_WEATHER", place_id=c.place_id, facts={"weather": sorted(weather)}))
        factors[f"weather:{c.place_id}"] = 0.85
    if {"wheelchair", "stroller"} & set(profile.constraints.mobility) and "accessible" not in c.tags:
        risks.append(Risk(code="ACCESS_UNKNOWN", place_id=c.place_id, severity="info"))


OVER_TRAVEL_FACTOR = 0.6


def _travel_risks(
    steps: list[PlanStep], *, profile: Profile, slots: TimeSlots, risks: list[Risk], factors: dict[str, float]
) -> None:
    """A leg or the whole travel past the half day's budget (travel_budget.py), named: the composers refuse such a
    leg between stops, so this is the leg from the origin, or a plan built before the budget held."""
    caps = travel_caps(profile, slots)
    for s in steps:
        if s.travel is not None and s.travel.minutes > caps.leg_min:
            facts = {"minutes": s.travel.minutes, "cap_minutes": caps.leg_min, "distance_m": s.travel.distance_m,
                     "mode": s.travel.mode, "careful": caps.careful}  # fmt: skip
            risks.append(Risk(code="LEG_OVER_TRAVEL_BUDGET", place_id=s.place_id, facts=facts))
            factors[f"travel_over_budget:{s.place_id}"] = OVER_TRAVEL_FACTOR
    total = sum(s.travel.minutes for s in steps if s.travel is not None)
    if total > caps.total_min:
        risks.append(
            Risk(
                code="TRAVEL_OVER_BUDGET",
                facts={"minutes": total, "cap_minutes": caps.total_min, "careful": caps.careful},
            )
        )
        factors["travel_over_budget"] = OVER_TRAVEL_FACTOR


def assess(
    steps: list[PlanStep],
    by_id: dict[str, Candidate],
    *,
    profile: Profile,
    slots: TimeSlots,
    now: datetime,
    timezone: str,
    travel_source: str,
) -> tuple[float, dict[str, float], list[Risk]]:
    """Feasibility in [0, 1], its factors, and the plan's risks."""
    risks: list[Risk] = []
    factors: dict[str, float] = {}
    zone = ZoneInfo(timezone)
    if len(steps) < 2:
        factors["few_steps"] = 0.5
    meals_needed = sum(s.kind == "meal" for s in slots.slots)
    meals_planned = sum(s.kind == "meal" for s in steps)
    if meals_planned < meals_needed:
        factors["no_meal"] = 0.6
        risks.append(Risk(code="NO_MEAL_PLANNED", facts={"needed": meals_needed, "planned": meals_planned}))
    for s in steps:
        _step_risks(
            s, by_id[s.place_id], profile=profile, slots=slots, now=now, zone=zone, risks=risks, factors=factors
        )
    _travel_risks(steps, profile=profile, slots=slots, risks=risks, factors=factors)
    cost, known = cost_per_person(steps)
    budget = effective_budget(profile, ())
    if budget is not None and cost is not None and cost > budget:
        risks.append(Risk(code="OVER_BUDGET", facts={"cost_per_person": cost, "budget_per_person": round(budget, 2)}))
        factors["over_budget"] = 0.7
    if travel_source in ("offline_estimate", "mixed"):
        risks.append(Risk(code="TRAVEL_ESTIMATED", facts={"source": travel_source}, severity="info"))
    feasibility = 1.0
    for v in factors.values():
        feasibility *= v
    return round(feasibility, 4), factors, risks


WISH_FLOOR = 0.2  # what P keeps of suitability when the plan meets none of the goal's wishes


def wish_share(outcomes: list[WishOutcome]) -> float:
    """The share of the goal's wishes a plan meets (in part: half); 1 when the goal said none."""
    return sum(o.weight for o in outcomes) / len(outcomes) if outcomes else 1.0


def breakdown(
    plan: Plan,
    by_id: dict[str, Candidate],
    *,
    profile: Profile,
    slots: TimeSlots,
    reference_cost: float,
    wishes: list[WishOutcome] | None = None,
) -> ScoreBreakdown:
    steps = plan.steps
    window = max(1, slots.minutes)
    visit_min = sum(_m(s.end) - _m(s.start) for s in steps) or 1
    inside = 0.0
    for s in steps:
        c = by_id[s.place_id]
        span = _m(s.end) - _m(s.start)
        if c.opening_source != "opening_hours":
            inside += 0.5 * span
        elif any(a <= _m(s.start) and _m(s.end) <= b for a, b in c.open_intervals):
            inside += span
    coverage = inside / visit_min
    queue = sum(s.queue_minutes or 0 for s in steps)
    t = 0.6 * coverage + 0.4 * (1 - min(1.0, queue / (0.3 * window)))
    travel = sum(s.travel.minutes for s in steps if s.travel is not None)
    d = 1 - min(1.0, travel / (0.5 * window))
    suit = sum(by_id[s.place_id].suitability for s in steps) / max(1, len(steps))
    asked = [p for p, w in profile.preferences.items() if w > 0 and not p.startswith("tag:")]
    met = [p for p in asked if any(by_id[s.place_id].match.get(p) for s in steps)]
    outcomes = wishes or []
    share = wish_share(outcomes)
    p = suit * (WISH_FLOOR + (1 - WISH_FLOOR) * share)
    cost, known = cost_per_person(steps)
    budget = effective_budget(profile, ())
    if cost is None:
        c_val = 0.5
    elif budget is not None and budget > 0:
        c_val = 1.0 if cost <= budget else 1 - (cost - budget) / budget
    else:
        c_val = 1 - 0.5 * min(1.0, cost / reference_cost)
    if not known:
        c_val *= 0.8
    s_vals = []
    month = slots.date.month
    for s in steps:
        c = by_id[s.place_id]
        rating = 0.5 if c.rating is None else ((c.rating - 3.0) / 2.0)
        scarce = 1.0 if (c.needs_reservation or {"premium", "local_favourite"} & set(c.tags)) else 0.0
        season = 0.5
        if "outdoor" in c.tags:
            season = 1.0 if month in (3, 4, 5, 9, 10, 11) else 0.3
        if "night_view" in c.tags and _m(s.end) >= 17 * 60:
            season = 1.0
        s_vals.append(0.7 * max(0.0, min(1.0, rating)) + 0.15 * scarce + 0.15 * season)
    s_val = sum(s_vals) / max(1, len(s_vals))
    return ScoreBreakdown(
        T=_clamp(t),
        D=_clamp(d),
        P=_clamp(p),
        C=_clamp(c_val),
        S=_clamp(s_val),
        facts={
            "open_coverage": round(coverage, 3),
            "queue_minutes": queue,
            "window_minutes": window,
            "travel_minutes": travel,
            "mean_suitability": round(suit, 3),
            "preferences_asked": asked,
            "preferences_met": met,
            "wishes_said": len(outcomes),
            "wishes_met": sum(o.status == "met" for o in outcomes),
            "wishes_partly": sum(o.status == "partly" for o in outcomes),
            "wishes_unread": sum(o.status == "unread" for o in outcomes),
            "wish_share": round(share, 3),
            "cost_per_person": cost,
            "all_prices_known": known,
            "budget_per_person": None if budget is None else round(budget, 2),
            "reference_cost": reference_cost,
        },
    )


def score_plans(inp: ScoreInput, *, candidates: dict[str, Candidate], reference_cost: float) -> PlanSet:
    supply: dict[str, WishSupply] = inp.candidates.wish_supply
    scored = []
    for p in inp.plans.plans:
        outcomes = account(
            inp.profile.wishes, p.steps, candidates, supply=supply, prices=inp.candidates.wish_prices,
            budget=effective_budget(inp.profile, ()),
        )  # fmt: skip
        score = breakdown(
            p, candidates, profile=inp.profile, slots=inp.slots, reference_cost=reference_cost, wishes=outcomes
        )
        scored.append(p.model_copy(update={"score": score, "wishes": outcomes}))
    return inp.plans.model_copy(update={"plans": rank_by_weights(scored, inp.weights)})
