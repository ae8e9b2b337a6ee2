"""Plans that explain themselves (seed 004 §2.3, issue 22 §4): each plan's intro and each step's reason as a code
and the facts behind it, so that the API, the CLI and the page word the same plan the same way from the catalogs.

The facts come from what the plan was made of: the time slots (the window), the profile (who goes, indoor only), the
goal's weather codes (and the forecast's), the plan's themes and travel, and each step's candidate (the wishes it matched, what suits the
party, the opening interval the step falls in, its rating). Nothing is estimated here.
"""

from __future__ import annotations

from datetime import time

from core.halfday.search import outdoors_only
from core.models.halfday.facts import IntroFacts, PlanIntro, StepReason, StepReasonFacts
from core.models.halfday.goal import DecomposedGoal
from core.models.halfday.plans import Candidate, Candidates, Plan, PlanStep, Profile, TimeSlots

#: a preference is met by the place itself at this match value (search.preference_match: 1 served, 0.5 offered on
#: the side by a landmark or a street with cafés, 0 not at all)
MATCHED = 1.0
ON_THE_SIDE = 0.5
SUITS = ("kid_friendly", "accessible", "light_options")


def explain_plans(
    plans: list[Plan], *, goal: DecomposedGoal, profile: Profile, slots: TimeSlots, candidates: Candidates
) -> list[Plan]:
    """The plans with their intro and their steps' reasons filled in."""
    by_id = {c.place_id: c for c in candidates.items}
    out = []
    for plan in plans:
        steps = [
            step.model_copy(update={"reason": step_reason(step, by_id.get(step.place_id), slots=slots)})
            for step in plan.steps
        ]
        outdoors = [s.place_id for s in plan.steps if (c := by_id.get(s.place_id)) and outdoors_only(c.tags)]
        intro = plan_intro(plan, goal, profile, slots, outdoor_stops=outdoors)
        out.append(plan.model_copy(update={"steps": steps, "intro": intro}))
    return out


def plan_intro(
    plan: Plan, goal: DecomposedGoal, profile: Profile, slots: TimeSlots, *, outdoor_stops: list[str]
) -> PlanIntro:
    wishes = [c for c in plan.theme if not c.startswith("category:")]
    code = "wishes" if wishes else ("kinds" if plan.theme else "plain")
    party = profile.party
    facts = IntroFacts(
        date=slots.date,
        start=slots.start,
        end=slots.end,
        adults=party.adults,
        children=party.children,
        children_ages=list(profile.child_ages),
        weather=list(goal.constraints.weather),
        forecast_weather=[code for code, origin in profile.weather_from.items() if origin == "forecast"],
        indoor_only=profile.indoor_only,
        outdoor_stops=outdoor_stops,
        stops=len(plan.steps),
        travel_minutes=plan.travel_minutes,
        themes=list(plan.theme),
    )
    return PlanIntro(code=code, facts=facts)


def _meal_of(step: PlanStep, slots: TimeSlots | None) -> str | None:
    """The meal a meal step is had as (breakfast, lunch, dinner): the meal slot it starts in, else the nearest."""
    meals = [s for s in (slots.slots if slots else []) if s.kind == "meal" and s.meal]
    if step.kind != "meal" or not meals:
        return None
    at = step.start.hour * 60 + step.start.minute

    def gap(s: object) -> int:
        a, b = (getattr(s, k).hour * 60 + getattr(s, k).minute for k in ("start", "end"))
        return 0 if a <= at < b else min(abs(at - a), abs(at - b))

    return min(meals, key=gap).meal


def step_reason(step: PlanStep, candidate: Candidate | None, *, slots: TimeSlots | None = None) -> StepReason:
    match = candidate.match if candidate else {}
    matched = [p for p, v in match.items() if v >= MATCHED]
    side = [p for p, v in match.items() if ON_THE_SIDE <= v < MATCHED]  # a café street's coffee: not the place's own
    reasons = set(candidate.reasons if candidate else step.why)
    suits = [s for s in SUITS if s in reasons]
    named = "named_in_goal" in reasons
    facts = StepReasonFacts(
        matched=matched,
        on_the_side=side,
        meal=_meal_of(step, slots),
        suits=suits,
        named_in_goal=named,
        category=step.category,
        distance_m=step.travel.distance_m if step.travel else None,
        travel_minutes=step.travel.minutes if step.travel else None,
        open_until=_open_until(step, candidate),
        queue_minutes=step.queue_minutes,
        rating=candidate.rating if candidate else None,
    )
    if named:
        code = "named"
    elif matched or side:
        code = "matches"
    elif suits:
        code = "suits"
    elif step.kind == "meal":
        code = "meal"
    else:
        code = "fits"
    return StepReason(code=code, facts=facts)


def _open_until(step: PlanStep, candidate: Candidate | None) -> time | None:
    """The end of the opening interval the step starts in (None: no known hours, or assumed ones)."""
    if candidate is None or candidate.opening_assumed:
        return None
    at = step.start.hour * 60 + step.start.minute
    for start, end in candidate.day_open_intervals or candidate.open_intervals:  # the venue's hours, not the window
        if start <= at < end:
            end = min(end, 24 * 60 - 1)
            return time(end // 60, end % 60)
    return None
