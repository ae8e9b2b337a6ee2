"""Stage 5, ``search_places``: candidates only from the pack's places table, each with its opening hours on the real
date, price, queue estimate at the hour it would be visited, age suitability and dietary tags.

Filters are hard (a child below a venue's minimum age, a diet a restaurant cannot serve, a place closed all
window) or soft (crowds, preferences, budget, indoor-only on a rainy day, the walking limit); the soft ones can be
relaxed, by name, when the plans found are not feasible enough (``SearchFilters.relaxed``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Literal
from zoneinfo import ZoneInfo

from core.config import Settings
from core.halfday.wishes import DIET_EXCLUDES, DIET_SERVES, diet_ok, drink_only, eats, serves, supply
from core.itinerary.opening import opening_windows
from core.models.halfday.plans import Candidate, Candidates, NamedPlaceIssue, Profile, QueueFact, SearchFilters
from core.models.region import RegionPack, RegionPlace
from core.packs.queues import queue_estimate
from core.reservations.catalog import item_for

#: categories a half day never visits as a destination
NOT_DESTINATIONS = {"address", "hotel", "station", "stop", "airport", "district"}
MEAL_CATEGORIES = {"restaurant"}
#: a preference code → (categories, tags) of places that satisfy it
PREFERENCE_MATCH: dict[str, tuple[set[str], set[str]]] = {
    "museum": ({"museum"}, set()),
    "art": (set(), {"art"}),
    "history": (set(), {"historic"}),
    "park": ({"park"}, set()),
    "nature": ({"park"}, {"nature"}),
    "landmark": ({"landmark"}, set()),
    "temple": ({"temple"}, set()),
    "shopping": ({"shopping"}, {"shopping"}),
    "market": ({"market"}, set()),
    "theatre": ({"theatre"}, set()),
    "cafe": ({"cafe"}, set()),
    "science": (set(), {"science"}),
    "night_view": (set(), {"night_view"}),
    "photo": (set(), {"photo_spot"}),
    "quiet": (set(), {"quiet"}),
    "kid_activity": ({"family"}, {"kid_friendly"}),
    "indoor": (set(), {"indoor", "rainy_day_ok"}),
    "outdoor": (set(), {"outdoor"}),
    "walk": ({"park"}, {"outdoor"}),
    "relax": ({"cafe", "park"}, {"quiet"}),
}
#: a diet only ranks meals (light: light options first); the others rule a meal out (core/halfday/wishes.py)
RANKED_DIETS = {"light"}
#: how much a place that offers a wish on the side (a shopping street's snacks) matches it
SIDE_OFFER_MATCH = 0.5
LOW_CROWD_MAX_QUEUE_MIN = 30
BUDGET_RELAX_FACTOR = 1.3
#: a place without opening hours is planned only in these hours (minutes), as an assumption the plan states
DAYTIME_ASSUMED = (10 * 60, 17 * 60)
PER_PREFERENCE = 6  # candidates kept for each asked preference, whatever else scores higher


def preference_match(place: RegionPlace | Candidate, code: str) -> float:
    if code.startswith("tag:"):
        tag = code[4:]
        return 1.0 if tag in place.tags or tag == place.category else 0.0
    kind, _, what = code.partition(":")
    if kind == "diet":  # a meal asked for with its diet (吃素食): a place to eat that keeps it
        return 1.0 if serves(place, "food", "") == "served" and diet_ok(place, what) else 0.0
    if kind in ("cuisine", "drink") or code == "food":  # a meal is a place where one eats what was asked
        how = serves(place, kind if what else "food", what)
        return 1.0 if how == "served" else (SIDE_OFFER_MATCH if how == "side_offer" else 0.0)
    if code == "local_food":  # a local favourite where one has a meal: not a café, a park or a shop locals like
        return 1.0 if serves(place, "food", "") == "served" and "local_favourite" in place.tags else 0.0
    cats, tags = PREFERENCE_MATCH.get(code, (set(), set()))
    return 1.0 if place.category in cats or (tags & set(place.tags)) else 0.0


def _suitability(place: RegionPlace, profile: Profile) -> tuple[float, list[str]]:
    score, why = 1.0, []
    if profile.party.children:
        if "kid_friendly" in place.tags or place.category == "family":
            why.append("kid_friendly")
        else:
            score -= 0.3
    if profile.party.seniors and "accessible" not in place.tags and "quiet" not in place.tags:
        score -= 0.1
    if {"wheelchair", "stroller"} & set(profile.constraints.mobility):
        if "accessible" in place.tags:
            why.append("accessible")
        else:
            score -= 0.3  # access not known: a risk, not a reason to leave it out
    if "light" in profile.constraints.diet and place.category in MEAL_CATEGORIES:
        if "light_options" in place.tags:
            why.append("light_options")
        else:
            score -= 0.3
    return max(0.0, score), why


def _hard_exclusion(place: RegionPlace, profile: Profile, role: str) -> str | None:
    if profile.party.children:
        youngest = min(profile.child_ages) if profile.child_ages else 0
        if place.min_age is not None and not place.suits_age(youngest):
            return "too_young"
        if "alcohol" in place.tags and role == "activity":
            return "alcohol_venue_with_children"
    if role == "meal" or eats(place):  # a meal had as a stop of its own keeps the diet too
        marks = set(place.tags) | {f"cuisine:{c}" for c in place.cuisine}
        for diet in profile.constraints.diet:
            serving = DIET_SERVES.get(diet)
            if serving is not None and diet not in RANKED_DIETS and not (serving & marks):
                return f"diet_{diet}"
            if DIET_EXCLUDES.get(diet) in place.tags:
                return f"diet_{diet}"
    if place.id in profile.avoid_place_ids:
        return "disliked_before"
    for code in profile.avoid:
        if preference_match(place, code):
            return f"avoided_{code}"
    return None


def _queues(
    pack: RegionPack, place: RegionPlace, day: date, hours: range, zone: ZoneInfo
) -> tuple[dict[int, int], QueueFact | None]:
    """Typical waits by local hour across the window, and the busiest hour's estimate (with its day type and source)."""
    by_hour: dict[int, int] = {}
    worst: QueueFact | None = None
    for hour in hours:
        est = queue_estimate(pack, place.id, datetime.combine(day, time(hour, 0), tzinfo=zone))
        if est is None:
            return {}, None
        by_hour[hour] = est.minutes
        if worst is None or est.minutes > worst.minutes:
            worst = QueueFact(minutes=est.minutes, day_type=est.day_type, source=est.source)
    return by_hour, worst


def effective_budget(profile: Profile, relaxed: Collection[str]) -> float | None:
    """The budget per person the search and the composers hold to: the asked one, or more once relaxed."""
    c = profile.constraints
    budget = c.budget_per_person
    if budget is None and c.budget_total is not None:
        budget = c.budget_total / max(1, profile.party.size)
    if budget is not None and "budget" in relaxed:
        budget *= BUDGET_RELAX_FACTOR
    return budget


@dataclass(frozen=True)
class _Window:
    """What the search holds every place to: the half day's minutes and local hours, whether it has a meal, the
    preferences asked, the budget per person, the filters relaxed and the pack's time zone."""

    start_min: int
    end_min: int
    hours: range
    has_meal: bool
    wanted: list[str]
    budget: float | None
    relaxed: set[str]
    zone: ZoneInfo

    @classmethod
    def of(cls, filters: SearchFilters, pack: RegionPack) -> _Window:
        profile, slots = filters.profile, filters.slots
        relaxed: set[str] = set(filters.relaxed)
        start_min = slots.start.hour * 60 + slots.start.minute
        end_min = slots.end.hour * 60 + slots.end.minute
        return cls(
            start_min=start_min,
            end_min=end_min,
            hours=range(start_min // 60, min(23, (end_min - 1) // 60) + 1),
            has_meal=any(s.kind == "meal" for s in slots.slots),
            wanted=[p for p in profile.preferences if not p.startswith("tag:") and profile.preferences[p] > 0],
            budget=effective_budget(profile, relaxed),
            relaxed=relaxed,
            zone=ZoneInfo(pack.timezone),
        )


@dataclass(frozen=True)
class _Opening:
    """A place's hours on the day: its open spans (daytime assumed when unknown), those inside the window long
    enough for a visit, and the visit's length."""

    spans: list[tuple[int, int]]
    assumed: bool
    source: str
    in_window: list[tuple[int, int]]
    visit: int
    visit_source: str


def _opening(place: RegionPlace, day: date, win: _Window, *, pack: RegionPack, settings: Settings) -> _Opening:
    windows = opening_windows(place.opening_hours, [day], timezone=pack.timezone, country=pack.country)
    assumed = windows.source != "opening_hours"
    spans = (
        [(DAYTIME_ASSUMED[0], DAYTIME_ASSUMED[1])]  # unknown hours: daytime only, and said so
        if assumed
        else [(i.start, i.end) for i in windows.by_date.get(day, [])]
    )
    visit = place.visit_minutes or settings.default_visit_minutes
    visit_source = "pack" if place.visit_minutes else "default_visit_minutes"
    open_in_window = [(max(a, win.start_min), min(b, win.end_min)) for a, b in spans]
    open_in_window = [(a, b) for a, b in open_in_window if b - a >= min(visit, 45)]
    return _Opening(
        spans=spans,
        assumed=assumed,
        source="assumed_daytime" if assumed else windows.source,
        in_window=open_in_window,
        visit=visit,
        visit_source=visit_source,
    )


def _candidate(
    place: RegionPlace,
    role: Literal["activity", "meal"],
    opening: _Opening,
    queue: QueueFact | None,
    by_hour: dict[int, int],
    match: dict[str, float],
    named: str,
    win: _Window,
    *,
    profile: Profile,
    pack: RegionPack,
) -> Candidate:
    """The candidate a place that passed every filter makes: its facts, booking slots and why it is offered."""
    suit, why = _suitability(place, profile)
    item = item_for(pack, place.id)
    booking = [t.hour * 60 + t.minute for t in item.slots()] if item is not None else []
    reasons = [f"matches_{p}" for p in win.wanted if match.get(p)] + why + (["named_in_goal"] if named else [])
    return Candidate.of_place(
        place,
        role=role,
        open_intervals=opening.in_window,
        day_open_intervals=list(opening.spans),
        opening_source=opening.source,
        opening_assumed=opening.assumed,
        visit_minutes=opening.visit,
        visit_source=opening.visit_source,
        queue=queue,
        queue_by_hour=by_hour,
        needs_reservation=place.needs_reservation,
        bookable=item is not None,
        booking_slots=booking,
        lead_time_hours=item.terms.lead_time_hours if item is not None else None,
        match=match,
        suitability=round(suit, 3),
        reasons=reasons,
        named_as=named,
    )


def search_places(filters: SearchFilters, *, pack: RegionPack, settings: Settings) -> Candidates:
    profile, slots = filters.profile, filters.slots
    win = _Window.of(filters, pack)
    relaxed, wanted = win.relaxed, win.wanted
    excluded: Counter[str] = Counter()
    named_out: dict[str, tuple[str, str]] = {}  # place id → (name as written, reason)
    matched_names: set[str] = set()
    items: list[Candidate] = []
    for place in pack.places:
        if place.category in NOT_DESTINATIONS:
            continue
        named = _named(place, profile.named_places)
        if named:
            matched_names.add(named)
        meal = place.category in MEAL_CATEGORIES and not drink_only(place)  # a bar is an outing, not a meal
        if meal and not win.has_meal and not _asks_to_eat(wanted) and not named:
            continue
        # without a mealtime in the window, a meal asked for is a stop of its own
        role: Literal["activity", "meal"] = "meal" if meal and win.has_meal else "activity"
        reason = _hard_exclusion(place, profile, role) or _filtered(place, profile, relaxed, win.budget)
        opening = _opening(place, slots.date, win, pack=pack, settings=settings)
        if reason is None and not opening.in_window:
            reason = "closed_in_window"
        by_hour, queue = _queues(pack, place, slots.date, win.hours, win.zone) if reason is None else ({}, None)
        if (
            reason is None
            and queue is not None
            and profile.crowd_tolerance == "low"
            and min(by_hour.values()) > LOW_CROWD_MAX_QUEUE_MIN
            and "crowd" not in relaxed
        ):
            reason = "queue_too_long"
        match = {p: preference_match(place, p) for p in profile.preferences}
        if reason is None and role == "activity" and wanted and not any(match.get(p) for p in wanted) and not named:
            if "preferences" not in relaxed:
                reason = "no_preference_match"
        if reason is not None:
            excluded[reason] += 1
            if named:
                named_out[place.id] = (named, reason)
            continue
        items.append(_candidate(place, role, opening, queue, by_hour, match, named, win, profile=profile, pack=pack))
    items = _meals_of_asked_cuisines(items, wanted, excluded)
    items.sort(key=lambda c: -_utility(c, profile))
    kept = _keep(items, wanted, filters.max_candidates)
    places = [(p, _named(p, profile.named_places)) for p in pack.places if p.category not in NOT_DESTINATIONS]
    issues = [NamedPlaceIssue(name=name, reason=why, place_id=pid) for pid, (name, why) in named_out.items()]
    # the region's own city (赫尔辛基 in a Helsinki plan) is where the plans are, not a place missing from the pack
    city = {n.casefold() for n in pack.city_names()}
    issues += [
        NamedPlaceIssue(name=n, reason="not_in_pack")
        for n in profile.named_places
        if n not in matched_names and n.casefold() not in city
    ]
    prices: dict[str, float] = {}
    wish_supply = supply(
        profile.wishes, places, [(c, c.named_as) for c in kept], preference_match, budget=win.budget, prices=prices
    )
    return Candidates(
        region=pack.name,
        date=slots.date,
        items=kept,
        excluded=dict(excluded),
        named_issues=issues,
        relaxed=sorted(relaxed),
        wish_supply=wish_supply,
        wish_prices=prices,
    )


def _asks_to_eat(wanted: list[str]) -> bool:
    return any(w in ("food", "local_food") or w.startswith(("cuisine:", "diet:")) for w in wanted)


def _meals_of_asked_cuisines(items: list[Candidate], wanted: list[str], excluded: Counter[str]) -> list[Candidate]:
    """When a cuisine is asked and some meal serves it, the meals are those that do: a plan does not substitute
    another cuisine. When none does, the meals stay and each plan says the cuisine is not met."""
    asked = [w for w in wanted if w.startswith("cuisine:")]
    fitting = [c for c in items if eats(c) and any(c.match.get(w, 0.0) >= 1.0 for w in asked)]
    if not fitting:
        return items
    other = [c for c in items if eats(c) and c not in fitting]
    excluded["cuisine_not_asked"] += len(other)
    return [c for c in items if c not in other]


def outdoors_only(tags: Collection[str]) -> bool:
    """A place with no shelter: tagged outdoor, and neither indoor nor fine in the rain."""
    sheltered = {"indoor", "rainy_day_ok"} & set(tags)
    return not sheltered and "outdoor" in tags


def _filtered(place: RegionPlace, profile: Profile, relaxed: Collection[str], budget: float | None) -> str | None:
    """The soft filters (relaxable by name)."""
    if profile.indoor_only and "indoor" not in relaxed and outdoors_only(place.tags):
        return "outdoor_in_rain"
    if budget is not None and place.price_per_person is not None and place.price_per_person > budget:
        return "over_budget"
    return None


def _keep(items: list[Candidate], wanted: list[str], limit: int) -> list[Candidate]:
    """The best candidates within ``limit``, but never without the best few for each asked preference, the meals
    a mealtime needs and every named place (a preference must not vanish because another fills the list)."""
    kept: dict[str, Candidate] = {}
    for c in items:
        if "named_in_goal" in c.reasons:
            kept[c.place_id] = c
    for pref in wanted:
        for c in [c for c in items if c.match.get(pref)][:PER_PREFERENCE]:
            kept.setdefault(c.place_id, c)
    for c in [c for c in items if c.role == "meal"][: limit // 3]:
        kept.setdefault(c.place_id, c)
    for c in items:
        if len(kept) >= limit:
            break
        kept.setdefault(c.place_id, c)
    return sorted(kept.values(), key=lambda c: items.index(c))


def _named(place: RegionPlace, names: list[str]) -> str:
    """The name in the goal that names ``place`` (its name or an alias), or ""."""
    if not names:
        return ""
    own = {place.name_zh.lower(), place.name_en.lower(), *(a.lower() for a in place.aliases)}
    own.discard("")
    return next((n for n in names if n.strip() and n.strip().lower() in own), "")


def _utility(c: Candidate, profile: Profile) -> float:
    """How much a candidate is worth to this profile, before travel: preferences, suitability, rating, queue."""
    pref = sum(w * c.match.get(p, 0.0) for p, w in profile.preferences.items())
    rating = ((c.rating or 3.5) - 3.0) / 2.0
    queue = (min(c.queue_by_hour.values()) if c.queue_by_hour else 0) / 60.0
    named = 3.0 if "named_in_goal" in c.reasons else 0.0
    unknown_hours = 0.3 if c.opening_assumed else 0.0  # known hours first
    return pref + 0.6 * c.suitability + 0.4 * rating - 0.3 * queue + named - unknown_hours


utility = _utility
