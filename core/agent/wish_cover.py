"""Suggestions that try to meet the trip's wishes (issue 31), not only account for them: every interest the message
asks for gets a place the data has before more of the same, and a cuisine, drink or meal diet the data serves gets a
stop that serves it, one a day at most, near that day's other places. The serving rules are the half-day planner's
(core/halfday/wishes.py): a meal is had at a restaurant or a food market, a café serves only its own fare (coffee,
tea, desserts, bakes), a department store is no restaurant. Place ids only; what is met is said by the accounting
(core/agent/trip_wishes.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from collections.abc import Set as AbstractSet

from core.agent.trip_request import PLACES_PER_DAY, suggestable
from core.agent.trip_wishes import MEAL_DIETS, eats, meets, read_trip_wishes, wx_drink
from core.models.agent import AgentState
from core.models.agent_wishes import TripWish
from core.models.region import RegionPack, RegionPlace
from core.models.rules import Rule
from core.phrases.meal_time import MealSaid, meal_said

#: the fare a café serves as what it is (core/halfday/wishes.py CAFE_FARE)
CAFE_FARE = frozenset({"coffee", "tea", "dessert", "bakery"})
#: where a drink is had as what the place is (a bar is a restaurant whose cuisine is bar)
DRINK_PLACES = frozenset({"restaurant", "cafe"})


def is_food_wish(wish: TripWish) -> bool:
    """A wish a stop to eat or drink meets: a cuisine, a drink, a diet to eat (vegetarian; not a limit: no_spicy)."""
    return wish.kind in ("cuisine", "drink") or (wish.kind == "diet" and wish.code in MEAL_DIETS)


def serves(place: RegionPlace, wish: TripWish) -> bool:
    """The place serves the food wish as what it is: a meal of the cuisine or the diet, the drink at a café or bar."""
    if wish.kind == "cuisine":
        return wish.code in place.cuisine and (eats(place) or (place.category == "cafe" and wish.code in CAFE_FARE))
    if wish.kind == "drink":
        marks, tags = wx_drink(wish.code)
        return place.category in DRINK_PLACES and bool(marks & set(place.cuisine) or tags & set(place.tags))
    return wish.kind == "diet" and meets(place, wish)


def _distance(place: RegionPlace, at: tuple[float, float]) -> float:
    dx = (place.lon - at[0]) * math.cos(math.radians(at[1]))
    return math.hypot(dx, place.lat - at[1])


def _centre(pack: RegionPack, ids: list[str]) -> tuple[float, float]:
    places = [p for p in (pack.place_by_id(i) for i in ids) if p is not None]
    if not places:
        return pack.center[0], pack.center[1]
    return sum(p.lon for p in places) / len(places), sum(p.lat for p in places) / len(places)


def meal_stops(
    pack: RegionPack,
    wishes: list[TripWish],
    *,
    days: int,
    day_places: list[list[str]],
    exclude: AbstractSet[str | None],
    have: Collection[str] = (),
    text: str = "",
) -> dict[str, MealSaid | None]:
    """One stop for each food wish the data serves and no place of the trip (``have``) serves yet, in the order
    said, each with the meal it is (the wish's own words in ``text``: core/phrases/meal_time.py; None for a drink or
    a café's fare), one a day at most of each meal: a place serving more of the wishes first (a vegetarian dim sum
    house for both), then the nearest to that day's places (``day_places``, the city centre for a day without any),
    then the best rated. A wish a stop already chosen serves takes no other; a wish nothing in the data serves takes
    none."""
    food = [w for w in wishes if is_food_wish(w)]
    stops: dict[str, MealSaid | None] = {}
    for wish in food:
        chosen = [p for p in (pack.place_by_id(s) for s in [*have, *stops]) if p is not None]
        if any(serves(p, wish) for p in chosen):
            continue
        pool = [p for p in pack.places if p.id not in exclude and p.id not in stops and serves(p, wish)]
        said = meal_said(text, wish.phrase) if wish.kind != "drink" else None
        day = sum(1 for m in stops.values() if m == said)
        if not pool or day >= days:
            continue
        at = _centre(pack, day_places[day] if day < len(day_places) else [])
        pool.sort(key=lambda p: (-sum(serves(p, w) for w in food), _distance(p, at), -(p.rating or 0), p.id))
        stops[pool[0].id] = said if eats(pool[0]) else None  # a café's coffee is no meal
    return stops


def cover_interests(
    pack: RegionPack,
    wishes: list[TripWish],
    ranked: list[str],
    *,
    want: int,
    have: Collection[str] = (),
    can_suggest: Callable[[RegionPlace], bool],
) -> list[str]:
    """The first ``want`` suggestions with a place for every interest asked that the data has and no place of the
    trip (``have``) meets yet (the first of ``ranked`` that meets it, else the best rated that ``can_suggest``
    allows), then the rest of ``ranked`` in its order."""
    interests = [w for w in wishes if w.kind == "interest"]
    picked: list[str] = []
    for wish in interests:
        if len(picked) >= want:
            break
        if any((p := pack.place_by_id(i)) is not None and meets(p, wish) for i in [*have, *picked]):
            continue
        own = next((i for i in ranked if (p := pack.place_by_id(i)) is not None and meets(p, wish)), None)
        if own is None:
            pool = sorted(
                (p for p in pack.places if p.id not in picked and can_suggest(p) and meets(p, wish)),
                key=lambda p: (-(p.rating or 0), p.id),
            )
            own = pool[0].id if pool else None
        if own is not None and own not in picked:
            picked.append(own)
    return [*picked, *(i for i in ranked if i not in picked)][: max(want, 0)] if want else []


def day_chunks(ids: Collection[str], days: int, per_day: int) -> list[list[str]]:
    """The places in the order planned, ``per_day`` a day: the day each is likely to fall on."""
    items = list(ids)
    return [items[d * per_day : (d + 1) * per_day] for d in range(days)]


def wished_suggestions(
    pack: RegionPack,
    state: AgentState,
    mentioned: list[str],
    *,
    ranked: list[str],
    want: int,
    days: int,
    rules: Collection[Rule] = (),
) -> list[str]:
    """The agent's suggestions for the trip (issue 31): ``want`` of ``ranked`` with every interest the message asks
    covered first, then a stop for each cuisine, drink or diet the data serves (meal_stops), kept apart in the
    profile's ``meal_stops`` (and the meal each is, ``meal_times``). The places already in the trip (the draft's,
    those named) are not suggested again."""
    have = list(dict.fromkeys(p for p in [*(n.get("place_id") for n in state.draft.nodes), *mentioned] if p))
    wishes = read_trip_wishes(state.user_input, pack, mentioned)
    taken = set(have)
    suggested = cover_interests(
        pack, wishes, ranked, want=want, have=have, can_suggest=lambda p: suggestable(p, exclude=taken, rules=rules)
    )
    day_places = day_chunks([*have, *suggested], days, PLACES_PER_DAY)
    meals = meal_stops(
        pack, wishes, days=days, day_places=day_places, exclude=taken | set(suggested), have=have, text=state.user_input
    )
    state.memory.user_profile["meal_stops"] = list(meals)
    # the meal each stop is (trip_request gives it to the planner, which visits it then)
    state.memory.user_profile["meal_times"] = {pid: meal for pid, meal in meals.items() if meal}
    return [*suggested, *meals]
