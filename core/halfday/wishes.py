"""Every wish accounted for: which places serve a wish (the search ranks by it) and how each plan answers each wish
of the goal (met, met in part, not met, not understood), with the places and the reason as codes
(core/models/halfday/plans.py ``WishOutcome``; core/words/halfday.py says them in the person's language).

A meal is a place where one eats: a restaurant (not a bar alone) or a market with food; a café serves coffee, tea,
cakes and bread, not a cuisine it does not list. A landmark or a shop with food or bars among its cuisines offers them
on the side: a wish it alone meets is met in part. A diet is met when every meal of the plan can serve it. A diet
said is a meal to have that way (a vegan bite, 吃素食: core/halfday/goal_wishes.py ``_eats``): a plan without such a
meal does not meet it. One that only forbids (不吃辣) or says who someone is (I'm vegetarian) is a limit: a plan with
no meal keeps it (``kept``), a meal that breaks it does not. An unread wish is never met.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from core.models.halfday.goal import Wish
from core.models.halfday.plans import Candidate, PlanStep, WishOutcome, WishReason, WishStatus, WishSupply
from core.phrases import wish_lexicon as wx

Serving = Literal["served", "side_offer"] | None

EATERIES = {"restaurant"}
FOOD_MARKETS = {"market"}
DRINK_ONLY_CUISINES = {"bar"}
CAFE_FARE = {"coffee", "tea", "dessert", "bakery"}
#: what the pack says a place serves, for each drink asked
DRINK_MARKS: dict[str, tuple[set[str], set[str]]] = {
    "alcohol": ({"bar"}, {"alcohol"}),
    "coffee": ({"coffee"}, set()),
    "tea": ({"tea"}, set()),
}
DIET_SERVES, DIET_EXCLUDES = wx.DIET_SERVES, wx.DIET_EXCLUDES  # shared with the agent (core/phrases)


class PlaceLike(Protocol):
    """What a region place and a candidate both say of a place."""

    @property
    def category(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def cuisine(self) -> list[str]: ...


def drink_only(place: PlaceLike) -> bool:
    """A bar: its cuisines are drinks alone (or none, with alcohol): no meal is had there."""
    cuisines = set(place.cuisine)
    return bool(cuisines) and cuisines <= DRINK_ONLY_CUISINES or (not cuisines and "alcohol" in place.tags)


def eats(place: PlaceLike) -> bool:
    """A place where one has a meal: a restaurant that is not a bar alone, or a market with food."""
    if place.category in EATERIES:
        return not drink_only(place)
    return place.category in FOOD_MARKETS and "food" in place.tags


def serves(place: PlaceLike, wish_kind: str, code: str) -> Serving:
    """Whether ``place`` serves a cuisine, a drink or food in general: as what it is, on the side, or not."""
    cuisines, tags = set(place.cuisine), set(place.tags)
    if wish_kind == "cuisine":
        if code not in cuisines:
            return None
        if eats(place) or (place.category == "cafe" and code in CAFE_FARE):
            return "served"
        return "side_offer" if "food" in tags else None
    if wish_kind == "drink":
        marks, drink_tags = DRINK_MARKS.get(code, (set(), set()))
        if not (marks & cuisines or drink_tags & tags):
            return None
        own = place.category in ("restaurant", "cafe")
        return "served" if own else "side_offer"
    if wish_kind == "food":
        if eats(place):
            return "served"
        return "side_offer" if "food" in tags and place.category in ("cafe", "shopping", "landmark") else None
    return None


def diet_ok(place: PlaceLike, code: str) -> bool:
    """A meal there can keep the diet."""
    marks = set(place.tags) | {f"cuisine:{c}" for c in place.cuisine}
    serving = DIET_SERVES.get(code)
    if serving is not None and not (serving & marks):
        return False
    return DIET_EXCLUDES.get(code) not in place.tags


def account(
    wishes: list[Wish],
    steps: list[PlanStep],
    by_id: dict[str, Candidate],
    *,
    supply: dict[str, WishSupply],
    prices: dict[str, float] | None = None,
    budget: float | None = None,
) -> list[WishOutcome]:
    """Each wish as one plan answers it; ``supply`` (the search's ``Candidates.wish_supply``) says, per wish key,
    whether a candidate, or only a place of the data, could have met it; a wish only places over the budget meet is
    not met for the budget, with their lowest price (``prices``) and the ``budget`` asked as its facts."""
    out = [_one(w, steps, by_id, supply=supply) for w in wishes]
    for o in out:
        key = wish_key(o.wish)
        if o.reason == "over_budget" and prices and key in prices and budget is not None:
            o.facts = {"cheapest": prices[key], "budget": budget}
    return out


def wish_key(wish: Wish) -> str:
    return f"{wish.kind}:{wish.code}"


def meets(place: PlaceLike, wish: Wish, match: Callable[[Any, str], float], named_as: str = "") -> Serving:
    """How a place meets one wish: served, on the side, or not (``match`` scores a preference code)."""
    if wish.kind in ("cuisine", "drink", "food"):
        return serves(place, wish.kind, wish.code)
    if wish.kind == "place":
        return "served" if named_as and named_as.casefold() == wish.code.casefold() else None
    if wish.kind == "diet":
        return "served" if wish.eat and eats(place) and diet_ok(place, wish.code) else None
    if wish.kind in ("sight", "activity", "shopping") or wish.code == "kid_activity":
        return "served" if match(place, wish.code) >= 1.0 else None
    return None


def supply(
    wishes: list[Wish],
    data: Sequence[tuple[PlaceLike, str]],
    kept: Sequence[tuple[PlaceLike, str]],
    match: Callable[[Any, str], float],
    *,
    budget: float | None = None,
    prices: dict[str, float] | None = None,
) -> dict[str, WishSupply]:
    """Per wish key: "found" when a kept candidate meets it, "in_data" when only a place of the data does,
    "over_budget" when every place of the data that does is priced over ``budget`` per person (its lowest price
    then goes into ``prices``), else "none". ``data`` and ``kept`` are (place, the goal's name for it) pairs."""
    out: dict[str, WishSupply] = {}
    for w in wishes:
        if w.kind == "unread" or (w.kind == "kids" and w.code != "kid_activity") or (w.kind == "diet" and not w.eat):
            continue
        if any(meets(p, w, match, n) for p, n in kept):
            out[wish_key(w)] = "found"
            continue
        serving = [p for p, n in data if meets(p, w, match, n)]
        priced = [float(pr) for p in serving if (pr := getattr(p, "price_per_person", None)) is not None]
        if serving and budget is not None and len(priced) == len(serving) and min(priced) > budget:
            out[wish_key(w)] = "over_budget"  # 早茶 at ¥120 a head with ¥80 asked: the budget, not the data, says no
            if prices is not None:
                prices[wish_key(w)] = min(priced)
        else:
            out[wish_key(w)] = "in_data" if serving else "none"
    return out


def _outcome(wish: Wish, status: WishStatus, reason: WishReason, ids: list[str] | None = None) -> WishOutcome:
    return WishOutcome(wish=wish, status=status, reason=reason, place_ids=ids or [])


def _match(place: PlaceLike, code: str) -> float:
    """A candidate's own match of a preference (the search filled it)."""
    return place.match.get(code, 0.0) if isinstance(place, Candidate) else 0.0


def _one(
    wish: Wish, steps: list[PlanStep], by_id: dict[str, Candidate], *, supply: dict[str, WishSupply]
) -> WishOutcome:
    cands = [by_id[s.place_id] for s in steps]
    if wish.kind == "unread":
        return _outcome(wish, "unread", "not_understood")
    if wish.kind == "diet":
        return _diet(wish, cands, supply.get(wish_key(wish), "none"))
    if wish.kind == "kids":
        return _kids(wish, cands)
    full: list[str] = []
    side: list[str] = []
    for c in cands:
        how = meets(c, wish, _match, c.named_as)
        if how == "served":
            full.append(c.place_id)
        elif how == "side_offer":
            side.append(c.place_id)
    if full:
        return _outcome(wish, "met", "served", full)
    if side:
        return _outcome(wish, "partly", "side_offer", side)
    return _outcome(wish, "not_met", _NOT_MET[supply.get(wish_key(wish), "none")])


_NOT_MET: dict[WishSupply, WishReason] = {
    "found": "not_in_plan",
    "in_data": "none_available",
    "over_budget": "over_budget",
    "none": "none_in_data",
}


def _diet(wish: Wish, cands: list[Candidate], supplied: WishSupply) -> WishOutcome:
    meals = [c for c in cands if eats(c)]
    if not meals:
        if wish.eat:
            return _outcome(wish, "not_met", _NOT_MET[supplied] if supplied != "found" else "no_meal")
        return _outcome(wish, "met", "kept")  # a limit no meal can break: kept, not served by any place
    keeping = [c.place_id for c in meals if diet_ok(c, wish.code)]
    if len(keeping) == len(meals):
        return _outcome(wish, "met", "served", keeping)
    return _outcome(wish, "partly" if keeping else "not_met", "some_steps" if keeping else "not_in_plan", keeping)


def _kids(wish: Wish, cands: list[Candidate]) -> WishOutcome:
    """A child's need: every stop suits children (a family place or kid-friendly), or some do."""
    if wish.code == "kid_activity":
        ids = [c.place_id for c in cands if c.match.get("kid_activity", 0.0) >= 1.0]
        return _outcome(wish, "met", "served", ids) if ids else _outcome(wish, "not_met", "not_in_plan")
    # a meal is neutral: the data says nothing of whether a restaurant suits children, so it neither meets the
    # need nor breaks it; the other stops decide
    visits = [c for c in cands if not eats(c)]
    suits = [c.place_id for c in visits if c.category == "family" or "kid_friendly" in c.tags]
    if visits and len(suits) == len(visits):
        return _outcome(wish, "met", "served", suits)
    return _outcome(wish, "partly" if suits else "not_met", "some_steps" if suits else "not_in_plan", suits)
