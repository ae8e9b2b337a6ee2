"""Stages 3 and 4: one profile from the goal and the memory (``analyze_user_profile``), then the free time slots
with travel buffers (``plan_time_slots``)."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, time, timedelta

from core.config import Settings
from core.itinerary.travel import robustness_policy_for
from core.models.halfday.goal import (
    DIET_CODES,
    MOBILITY_CODES,
    Constraints,
    DecomposedGoal,
    DietCode,
    MobilityCode,
    Party,
)
from core.models.halfday.plans import Profile, ProfileInput, Slot, SlotsInput, TimeSlots
from core.models.halfday.weather import WeatherOrigin, WeatherReading

#: walking legs longer than this (minutes) go by car; less with small children, older people or a wheelchair
WALK_LIMIT_MIN = 20
WALK_LIMIT_CAREFUL_MIN = 12
#: meal windows on the local clock: a meal slot exists when the half day overlaps its window by ≥ 90 minutes
#: (45 when the goal asks to eat)
MEAL_WINDOWS = {"lunch": (time(11, 30), time(14, 0)), "dinner": (time(17, 30), time(20, 30))}
#: a morning meal asked for (早茶, dim sum, a bakery breakfast): had as breakfast when the window reaches into these
#: hours by MEAL_ASKED_MIN_OVERLAP, not pushed to lunch at the end of the morning
BREAKFAST_WINDOW = (time(7, 0), time(10, 30))
MORNING_FARE = ("dim_sum", "bakery", "dumplings", "noodles", "snacks")
#: a breakfast said as such (早饭, 早餐, breakfast): a morning meal whatever is eaten
_BREAKFAST = re.compile(r"早饭|早餐|breakfast", re.I)
MEAL_MIN_OVERLAP = 90  # an afternoon from 13:00 has no lunch in it: people say "afternoon" after eating
MEAL_ASKED_MIN_OVERLAP = 45  # ...unless the goal asks to eat ("吃个午饭"): then a short overlap is enough
ASKED_MEAL_MIN, ASKED_MEAL_MAX = 45, 90  # a meal asked outside the meal times: its slot (compose's MEAL_MIN..MAX)
#: cuisines a café serves between meals: asked alone they need no meal slot
OFF_MEAL_CUISINES = ("dessert", "bakery", "snacks")
#: the memory's rules that are diets or mobility needs of the goal's constraints (the same codes)
RULE_DIETS: tuple[DietCode, ...] = ("no_spicy", "vegetarian", "vegan", "halal", "no_alcohol")
RULE_MOBILITY: tuple[MobilityCode, ...] = ("wheelchair", "stroller")
READY_MIN = 15  # planning for today: the first step starts no sooner than this after now


def _ages_from_memory(birth_years: list[int], today: date) -> list[int]:
    return sorted(max(0, min(17, today.year - y)) for y in birth_years if today.year - y <= 17)


def _wanted(goal: DecomposedGoal) -> dict[str, float]:
    """What the search ranks by: the goal's preferences, and its cuisines, drinks and meals with a diet
    (``cuisine:<c>``, ``drink:<d>``, ``diet:<d>``: search.preference_match)."""
    prefs: dict[str, float] = {p: 1.0 for p in goal.preferences}
    for wish in goal.wishes:
        if wish.kind in ("cuisine", "drink"):
            prefs[f"{wish.kind}:{wish.code}"] = 1.0
        elif wish.kind == "diet" and wish.eat:  # 吃素食: a meal that keeps the diet is wanted, not only allowed
            prefs[f"diet:{wish.code}"] = 1.0
    return prefs


def _with_needs(goal: Constraints, diets: list[str], mobility: list[str], rules: Collection[str]) -> Constraints:
    """The goal's constraints with the family's diets and mobility needs (the memory page offers the goal's codes
    only) and the standing rules the person stated (core/memory, the agent's too)."""
    constraints = goal.model_copy(deep=True)
    for d in [*diets, *(r for r in RULE_DIETS if r in rules)]:
        if d in DIET_CODES and d not in constraints.diet:
            constraints.diet.append(d)
    for m in [*mobility, *(r for r in RULE_MOBILITY if r in rules)]:
        if m in MOBILITY_CODES and m not in constraints.mobility:
            constraints.mobility.append(m)
    return constraints


def _merge_forecast(constraints: Constraints, reading: WeatherReading | None) -> dict[str, WeatherOrigin]:
    """The forecast's codes into ``constraints`` when the goal said nothing of the weather (the person's words are
    never overridden: a goal that names the weather keeps its own); who said each code."""
    said: dict[str, WeatherOrigin] = {code: "goal" for code in constraints.weather}
    if said or reading is None or reading.status != "forecast":
        return said
    for code in reading.codes:
        constraints.weather.append(code)
        said[code] = "forecast"
    return said


def analyze_user_profile(inp: ProfileInput) -> Profile:
    goal, memory = inp.goal, inp.memory
    fam = memory.family
    said_party = "party_default_one_adult" not in goal.assumed
    if said_party:
        party, party_source = goal.party, "goal"
        child_ages = list(goal.party.children_ages)
    elif fam.adults:
        ages = _ages_from_memory(fam.children_birth_years, inp.today)
        party = Party(
            adults=fam.adults, children=len(ages), children_ages=ages, seniors=min(fam.seniors or 0, fam.adults)
        )
        party_source, child_ages = "memory", ages
    else:
        party, party_source, child_ages = goal.party, "default", []

    said = {r.code: r for r in memory.rules}  # standing rules the person stated (core/memory), the agent's too
    constraints = _with_needs(goal.constraints, fam.diet, fam.mobility, said)

    weather_from = _merge_forecast(constraints, inp.weather)
    prefs = _wanted(goal)
    for tag, affinity in memory.preferences.items():
        prefs[f"tag:{tag}"] = round(0.5 * affinity, 3)  # learned tastes count half as much as what was asked today
    if "hot" in constraints.weather or "cold" in constraints.weather:
        prefs.setdefault("indoor", 0.5)

    taboos = [f"diet:{d}" for d in constraints.diet] + [f"avoid:{a}" for a in goal.avoid]
    if party.children:
        taboos.append("no_alcohol_venues")
        if child_ages:
            taboos.append(f"min_age:{min(child_ages)}")

    reasons: list[str] = ["asked_for_quiet"] if "quiet" in goal.preferences else []
    if any(a < 4 for a in child_ages) or "kids_under_6" in said:
        reasons.append("small_children")
    if "no_queues" in said:
        reasons.append("hates_queues")
    if party.seniors:
        reasons.append("seniors")
    if {"stroller", "wheelchair"} & set(constraints.mobility):
        reasons.append("mobility")
    crowd = "low" if reasons else ("medium" if party.children else "high")

    careful = bool(party.seniors or any(a < 7 for a in child_ages) or constraints.mobility or "kids_under_6" in said)
    walk_limit = WALK_LIMIT_CAREFUL_MIN if careful else WALK_LIMIT_MIN
    if constraints.transport == "walking":
        walk_limit = 45
    elif constraints.transport in ("driving", "transit"):
        walk_limit = 5
    if constraints.max_leg_minutes is not None:
        walk_limit = min(walk_limit, constraints.max_leg_minutes)

    return Profile(
        party=party,
        party_source=party_source,
        child_ages=child_ages,
        preferences=prefs,
        avoid=list(goal.avoid),
        constraints=constraints,
        taboos=taboos,
        crowd_tolerance=crowd,
        crowd_reasons=reasons,
        indoor_only="rain" in constraints.weather,
        walk_limit_min=walk_limit,
        named_places=list(goal.named_places),
        wishes=list(goal.wishes),
        avoid_place_ids=list(memory.disliked),
        weather=inp.weather,
        weather_from=weather_from,
    )


def _minutes(t: time) -> int:
    return t.hour * 60 + t.minute


def _clock(minutes: int) -> time:
    minutes = max(0, min(minutes, 24 * 60 - 1))
    return time(minutes // 60, minutes % 60)


def _asks_to_eat(profile: Profile) -> bool:
    """The goal asks for a meal: food said, a cuisine (not a café's fare), or a diet to eat (a vegan bite, 吃素食)."""
    return bool({"food", "local_food"} & set(profile.preferences)) or any(
        (w.kind == "cuisine" and w.code not in OFF_MEAL_CUISINES) or (w.kind == "diet" and w.eat)
        for w in profile.wishes
    )


def _asks_for_morning_fare(profile: Profile) -> bool:
    """The goal asks to eat what is had in the morning (早茶 and dim sum, pastries, dumplings, noodles, snacks)."""
    return any((w.kind == "cuisine" and w.code in MORNING_FARE) or _BREAKFAST.search(w.phrase) for w in profile.wishes)


def _meal_slots(start: int, end: int, *, asked: bool, morning_fare: bool = False) -> list[Slot]:
    """The meal slots of the window: each meal window it overlaps long enough. A goal that asks to eat gets one even
    when its window misses the meal times (a morning, 14:00–17:00): at the end nearer a meal window, as long as a
    meal lasts (a vegan bite after a museum at 14:00 is eaten first; a meal at the end of a morning). A morning meal
    asked for (``morning_fare``) is breakfast when the window reaches into the breakfast hours; the other meals then
    need the overlap of a meal not asked for."""
    meals: list[Slot] = []
    needed = MEAL_ASKED_MIN_OVERLAP if asked else MEAL_MIN_OVERLAP
    if asked and morning_fare:
        lo, hi = max(start, _minutes(BREAKFAST_WINDOW[0])), min(end, _minutes(BREAKFAST_WINDOW[1]))
        if hi - lo >= MEAL_ASKED_MIN_OVERLAP:
            meals.append(
                Slot(kind="meal", start=_clock(lo), end=_clock(min(hi, lo + ASKED_MEAL_MAX)), meal="breakfast")
            )
            needed = MEAL_MIN_OVERLAP
    for meal, (m_start, m_end) in MEAL_WINDOWS.items():
        lo, hi = max(start, _minutes(m_start)), min(end, _minutes(m_end))
        if hi - lo >= needed:
            meals.append(Slot(kind="meal", start=_clock(lo), end=_clock(hi), meal=meal))
    if meals or not asked or end - start < ASKED_MEAL_MIN:
        return meals

    def gap(w: tuple[time, time]) -> int:
        return max(_minutes(w[0]) - end, start - _minutes(w[1]), 0)

    meal, (m_start, _) = min(MEAL_WINDOWS.items(), key=lambda kv: gap(kv[1]))
    length = min(ASKED_MEAL_MAX, end - start)
    lo = end - length if _minutes(m_start) > start else start
    return [Slot(kind="meal", start=_clock(lo), end=_clock(lo + length), meal=meal)]


def plan_time_slots(inp: SlotsInput, *, settings: Settings) -> TimeSlots:
    """The window cut into activity and meal slots; travel is planned robustly (nominal × factor + buffer)."""
    window, now = inp.window, inp.now
    start = _minutes(window.start)
    if window.date == now.date():
        ready = now + timedelta(minutes=READY_MIN)
        start = max(start, -(-(ready.hour * 60 + ready.minute) // 15) * 15)
    end = _minutes(window.end)
    if start >= end:
        start = end - 15  # the caller checked the window is not over; a sliver still gets planned honestly
    meals = _meal_slots(start, end, asked=_asks_to_eat(inp.profile), morning_fare=_asks_for_morning_fare(inp.profile))
    slots: list[Slot] = []
    cursor = start
    for m in meals:
        if _minutes(m.start) > cursor:
            slots.append(Slot(kind="activity", start=_clock(cursor), end=m.start))
        slots.append(m)
        cursor = _minutes(m.end)
    if cursor < end:
        slots.append(Slot(kind="activity", start=_clock(cursor), end=_clock(end)))
    profile = inp.profile
    careful = bool(profile.party.seniors or profile.child_ages or profile.constraints.mobility)
    policy = robustness_policy_for("walking", "relaxed" if careful else "normal", settings=settings)
    return TimeSlots(
        date=window.date,
        start=_clock(start),
        end=_clock(end),
        slots=slots,
        travel_factor=policy.factor,
        travel_buffer_min=policy.buffer_min,
        source="settings",
    )
