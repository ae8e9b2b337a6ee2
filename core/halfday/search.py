"""Stage 5, ``search_places``: candidates only from the pack's places table, each with its opening hours on the real
date, price, queue estimate at the hour it would be visited, age suitability and dietary tags.

Filters are hard (a child below a venue's minimum age, a diet a restaurant cannot serve, a place closed all
window) or soft (crowds, preferences, budget, indoor-only on a rainy day, the walking limit); the soft ones can be
relaxed, by name, when the plans found are not feasible enough (``SearchFilters.relaxed``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, time
from zoneinfo import ZoneInfo

from core.config import Settings
from core.halfday.models import Candidate, Candidates, Profile, QueueFact, SearchFilters
from core.itinerary.opening import opening_windows
from core.packs.loader import RegionPack, RegionPlace
from core.packs.queues import queue_estimate
from core.reservations.catalog import item_for

#: categories a half day never visits as a destination
NOT_DESTINATIONS = {"address", "hotel", "station", "airport"}
MEAL_CATEGORIES = {"restaurant"}
MEAL_PLACES = {"restaurant", "market", "cafe"}
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
    "food": ({"restaurant", "market"}, {"food"}),
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
#: diet code → tags or cuisines of a restaurant that can serve it (none of them: the restaurant is left out)
DIET_SERVES: dict[str, set[str]] = {
    "vegetarian": {"vegetarian_friendly", "vegan_options", "cuisine:vegetarian"},
    "vegan": {"vegan_options", "cuisine:vegetarian"},
    "halal": {"halal"},
}
#: diet code → a tag that rules a restaurant out
DIET_EXCLUDES: dict[str, str] = {"no_spicy": "spicy", "no_alcohol": "alcohol"}
LOW_CROWD_MAX_QUEUE_MIN = 30
BUDGET_RELAX_FACTOR = 1.3


def preference_match(place: RegionPlace | Candidate, code: str) -> float:
    if code.startswith("tag:"):
        tag = code[4:]
        return 1.0 if tag in place.tags or tag == place.category else 0.0
    if code == "local_food":  # a local favourite that is a place to eat, not a park locals like
        eats = place.category in MEAL_PLACES or "food" in place.tags
        return 1.0 if eats and "local_favourite" in place.tags else 0.0
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
    if role == "meal":
        marks = set(place.tags) | {f"cuisine:{c}" for c in place.cuisine}
        for diet in profile.constraints.diet:
            serves = DIET_SERVES.get(diet)
            if serves is not None and not (serves & marks):
                return f"diet_{diet}"
            if DIET_EXCLUDES.get(diet) in place.tags:
                return f"diet_{diet}"
    if place.id in profile.avoid_place_ids:
        return "disliked_before"
    for code in profile.avoid:
        if preference_match(place, code):
            return f"avoided_{code}"
    return None


def _queue(pack: RegionPack, place: RegionPlace, when: datetime) -> QueueFact | None:
    est = queue_estimate(pack, place.id, when)
    if est is None:
        return None
    return QueueFact(minutes=est.minutes, day_type=est.day_type, source=est.source)


def search_places(filters: SearchFilters, *, pack: RegionPack, settings: Settings) -> Candidates:
    profile, slots, relaxed = filters.profile, filters.slots, set(filters.relaxed)
    start_min = slots.start.hour * 60 + slots.start.minute
    end_min = slots.end.hour * 60 + slots.end.minute
    has_meal = any(s.kind == "meal" for s in slots.slots)
    wanted = [p for p in profile.preferences if not p.startswith("tag:") and profile.preferences[p] > 0]
    budget = profile.constraints.budget_per_person
    if budget is None and profile.constraints.budget_total is not None:
        budget = profile.constraints.budget_total / max(1, profile.party.size)
    if budget is not None and "budget" in relaxed:
        budget *= BUDGET_RELAX_FACTOR
    zone = ZoneInfo(pack.timezone)
    excluded: Counter[str] = Counter()
    items: list[Candidate] = []
    for place in pack.places:
        if place.category in NOT_DESTINATIONS:
            continue
        role = "meal" if place.category in MEAL_CATEGORIES else "activity"
        if role == "meal" and not has_meal and "food" not in wanted and "local_food" not in wanted:
            continue
        reason = _hard_exclusion(place, profile, role)
        if reason:
            excluded[reason] += 1
            continue
        windows = opening_windows(place.opening_hours, [slots.date], timezone=pack.timezone, country=pack.country)
        visit = place.visit_minutes or settings.default_visit_minutes
        visit_source = "pack" if place.visit_minutes else "default_visit_minutes"
        open_in_window = [(max(i.start, start_min), min(i.end, end_min)) for i in windows.by_date.get(slots.date, [])]
        open_in_window = [(a, b) for a, b in open_in_window if b - a >= min(visit, 45)]
        if not open_in_window:
            excluded["closed_in_window"] += 1
            continue
        if profile.indoor_only and "indoor" not in relaxed:
            if "outdoor" in place.tags and not ({"indoor", "rainy_day_ok"} & set(place.tags)):
                excluded["outdoor_in_rain"] += 1
                continue
        price = place.price_per_person
        if budget is not None and price is not None and price > budget:
            excluded["over_budget"] += 1
            continue
        first_open = open_in_window[0][0]
        when = datetime.combine(slots.date, time(first_open // 60, first_open % 60), tzinfo=zone)
        queue = _queue(pack, place, when)
        if (
            queue is not None
            and profile.crowd_tolerance == "low"
            and queue.minutes > LOW_CROWD_MAX_QUEUE_MIN
            and "crowd" not in relaxed
        ):
            excluded["queue_too_long"] += 1
            continue
        match = {p: preference_match(place, p) for p in profile.preferences}
        named = _named(place, profile.named_places)
        if role == "activity" and wanted and not any(match.get(p) for p in wanted) and not named:
            if "preferences" not in relaxed:
                excluded["no_preference_match"] += 1
                continue
        suit, why = _suitability(place, profile)
        item = item_for(pack, place.id)
        reasons = [f"matches_{p}" for p in wanted if match.get(p)] + why + (["named_in_goal"] if named else [])
        items.append(
            Candidate(
                place_id=place.id,
                name_zh=place.name_zh,
                name_en=place.name_en,
                district=place.district,
                lon=place.lon,
                lat=place.lat,
                category=place.category,
                tags=list(place.tags),
                cuisine=list(place.cuisine),
                role=role,
                open_intervals=open_in_window,
                opening_source=windows.source,
                visit_minutes=visit,
                visit_source=visit_source,
                price_per_person=price,
                price_source="pack" if price is not None else "unknown",
                rating=place.rating,
                queue=queue,
                needs_reservation=place.needs_reservation,
                bookable=item is not None,
                lead_time_hours=item.terms.lead_time_hours if item is not None else None,
                min_age=place.min_age,
                match=match,
                suitability=round(suit, 3),
                reasons=reasons,
            )
        )
    items.sort(key=lambda c: -_utility(c, profile))
    keep_meals = [c for c in items if c.role == "meal"][: filters.max_candidates // 3]
    keep_acts = [c for c in items if c.role == "activity"][: filters.max_candidates - len(keep_meals)]
    named_ids = {c.place_id for c in items if "named_in_goal" in c.reasons}
    kept = keep_acts + keep_meals
    kept += [c for c in items if c.place_id in named_ids and c not in kept]
    return Candidates(
        region=pack.name,
        date=slots.date,
        items=kept,
        excluded=dict(excluded),
        relaxed=sorted(relaxed),
    )


def _named(place: RegionPlace, names: list[str]) -> bool:
    if not names:
        return False
    own = {place.name_zh.lower(), place.name_en.lower(), *(a.lower() for a in place.aliases)}
    own.discard("")
    return any(n.strip().lower() in own for n in names if n.strip())


def _utility(c: Candidate, profile: Profile) -> float:
    """How much a candidate is worth to this profile, before travel: preferences, suitability, rating, queue."""
    pref = sum(w * c.match.get(p, 0.0) for p, w in profile.preferences.items())
    rating = ((c.rating or 3.5) - 3.0) / 2.0
    queue = (c.queue.minutes if c.queue else 0) / 60.0
    named = 3.0 if "named_in_goal" in c.reasons else 0.0
    return pref + 0.6 * c.suitability + 0.4 * rating - 0.3 * queue + named


utility = _utility
