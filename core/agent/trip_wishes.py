"""Every wish of a trip request accounted for (issue 31): the message read into wishes (interests, cuisines, drinks,
diets, children, the pace, the places named, and what follows a verb of wanting that nothing maps: not understood),
and, once planned, each wish as the trip answers it (core/models/agent_wishes.py). The cuisine, drink and diet words,
what a meal keeps of a diet and the unread-wish reader are the half-day planner's, shared through core/phrases.
Codes and place ids only; core/words/agent_wishes.py says them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from datetime import timedelta
from typing import Any

from core.agent.interest_words import INTEREST_NAMES, KIDS_SAID
from core.agent.unknown_places import resembling, unknown_places
from core.models.agent import AgentState
from core.models.agent_wishes import TripWish, TripWishKind, TripWishOutcome, TripWishReason, TripWishStatus
from core.models.common import Lang
from core.models.itinerary import Meal
from core.models.itinerary_result import DroppedItem, ItineraryResult
from core.models.region import RegionPack, RegionPlace
from core.phrases import wish_lexicon as wx
from core.phrases.clock import find_clocks
from core.phrases.meal_time import meal_named, meal_said
from core.phrases.unread_wishes import unread
from core.words.agent_wishes import wish_lines

Span = tuple[int, int]


def _rx(words: str) -> re.Pattern[str]:
    """Chinese as written, English between non-letters (park is not parking)."""
    return re.compile(rf"(?<![a-z])(?:{words})(?![a-z])")


#: interest code → (the words that say it, the tags and categories of a place that meets it)
INTERESTS: dict[str, tuple[str, frozenset[str]]] = {
    "museum": (r"博物馆|展览|museums?|exhibitions?", frozenset({"museum"})),
    "history": (r"历史|古迹|古建筑?|history|historic(?:al)?", frozenset({"historic"})),
    "art": (r"艺术|美术|画廊|art|galler(?:y|ies)", frozenset({"art"})),
    "nature": (r"大自然|自然风光|公园|绿地|nature|outdoors?|parks?|greenery", frozenset({"nature", "park"})),
    "science": (r"科学|科技|science", frozenset({"science"})),
    "night_view": (r"夜景|night views?|city lights|skyline at night", frozenset({"night_view"})),
    "temple": (r"寺庙|寺院|古寺|烧香|temples?|monaster(?:y|ies)", frozenset({"temple"})),
    "shopping": (r"购物|逛街|买买买|shopping", frozenset({"shopping"})),
    "quiet": (r"冷门|小众|人少|安静|hidden gems?|off the beaten|quiet", frozenset({"quiet", "local_favourite"})),
    "photo": (r"拍照|出片|photos?|instagram", frozenset({"photo_spot"})),
}
_INTEREST_RX = {code: _rx(words) for code, (words, _) in INTERESTS.items()}
_ANIMALS_SAID, _ANIMALS_NAMED = INTEREST_NAMES[0]
_KIDS_RX = KIDS_SAID
_CUISINE_RX = {code: _rx(words) for code, words in wx.CUISINES.items()}
_DRINK_RX = {code: _rx(words) for code, words in wx.DRINKS.items()}
_DIET_RX = {code: _rx(words) for code, words in wx.DIETS.items()}
#: pace code → its words ("not too tiring" is a relaxed pace)
PACES: dict[str, str] = {
    "relaxed": r"别太累|不要太累|不太累|不想太累|别太赶|不要太赶|轻松|悠闲|慢慢|慢节奏|relax(?:ed|ing)?|not too tiring|"
    r"take it easy|nothing too (?:tiring|exhausting)|easy pace|slow pace|leisurely|not (?:too )?rushed|don't rush",
    "tight": r"紧凑|特种兵|能多去就多去|tight|packed|as much as possible",
}
_PACE_RX = {code: _rx(words) for code, words in PACES.items()}
_NEGATED = re.compile(r"(?:不|别|没)[想要用吃喝去看]{0,2}$|(?<![a-z])(?:no|not|don't|without)\s+(?:[a-z]+\s+)?$")
#: words of a trip request that say no wish (the day count, the trip itself): never an unread wish
_TRIP_WORDS = _rx(
    r"[\d一二两三四五六七八九十半]+\s*(?:天|日|晚|夜|个?小时|days?|nights?|hours?)|行程|旅行|旅游|攻略|trip|itinerary|"
    r"holiday|vacation|plan|规划|安排"
)
#: a meal to have (a limit such as no_spicy is kept by any plan whose meals do not break it)
MEAL_DIETS = frozenset(wx.DIET_SERVES)


def _low(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip().lower()


def _first_free(rx: re.Pattern[str], low: str, taken: list[Span]) -> re.Match[str] | None:
    for m in rx.finditer(low):
        if not any(a < m.end() and m.start() < b for a, b in taken) and not _NEGATED.search(low[: m.start()][-8:]):
            return m
    return None


def read_trip_wishes(text: str, pack: RegionPack, place_ids: Collection[str]) -> list[TripWish]:
    """The message's wishes in the order said; ``place_ids`` are the places it names that the trip plans."""
    low = _low(text)
    found: list[tuple[int, TripWish]] = []
    taken: list[Span] = [m.span() for m in _TRIP_WORDS.finditer(low)] + [c.span for c in find_clocks(low)]
    for city in {pack.city, *pack.city_aliases, *pack.display_name.values(), pack.name}:
        if city:
            taken += [m.span() for m in _rx(re.escape(city.lower())).finditer(low)]  # SH is not the sh of shopping
    named: list[Span] = [m.span() for m in _TRIP_WORDS.finditer(low)]
    for pid in place_ids:
        place = pack.place_by_id(pid)
        names = [n.lower() for n in (place.name_zh, place.name_en, *place.aliases) if n] if place else []
        spans = [m.span() for n in names for m in re.finditer(re.escape(n), low)]
        found.append((min((a for a, _ in spans), default=len(low)), TripWish(kind="place", code=pid[:60],
                                                                             phrase=(place.name_zh if place else pid)[:80])))  # fmt: skip
        taken += spans
        named += spans
    # a place named that the data does not have (赫尔辛基西站): said as not found, never read as an interest (博物馆)
    written = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip()
    for span, words in unknown_places(written, pack, place_ids, named):
        found.append((span[0], TripWish(kind="place_not_found", phrase=words[:80])))
        taken.append(span)
    diet_spans = [m.span() for rx in _DIET_RX.values() for m in rx.finditer(low)]
    for code, rx in _DIET_RX.items():
        m = rx.search(low)
        if m:
            found.append((m.start(), TripWish(kind="diet", code=code, phrase=m.group(0).strip()[:80])))
    taken += diet_spans  # 不喝酒 is a diet, not a wish for a drink
    tables: list[tuple[TripWishKind, dict[str, re.Pattern[str]]]] = [
        ("pace", _PACE_RX), ("cuisine", _CUISINE_RX), ("drink", _DRINK_RX), ("interest", _INTEREST_RX),
        ("interest", {"animals": _ANIMALS_SAID}), ("kids", {"child_suitable": _KIDS_RX}),
    ]  # fmt: skip
    for kind, table in tables:
        for code, rx in table.items():
            m = _first_free(rx, low, taken)
            taken += [s.span() for s in rx.finditer(low)]  # said negated (不想吃火锅): no wish, nor an unread one
            if m is None:
                continue
            found.append((m.start(), TripWish(kind=kind, code=code, phrase=m.group(0).strip()[:80])))
    said = unread(low, taken)
    said = [(at, words) for at, words in said if not any(words != other and words in other for _, other in said)]
    found += [(at, TripWish(kind="unread", phrase=words[:80])) for at, words in said]  # 滑翔伞 inside 体验滑翔伞: one
    return [w for _, w in sorted(found, key=lambda f: f[0])]


def pace_wish(wishes: list[TripWish]) -> str | None:
    """The pace the message asks for (relaxed, tight), if any."""
    return next((w.code for w in wishes if w.kind == "pace"), None)


def eats(place: RegionPlace) -> bool:
    """A meal is had there: a restaurant that is not a bar alone, or a market with food."""
    bar = bool(place.cuisine) and set(place.cuisine) <= {"bar"}
    return (place.category == "restaurant" and not bar) or (place.category == "market" and "food" in place.tags)


def named_meals(places: list[dict[str, Any]], wishes: list[TripWish], pack: RegionPack, text: str) -> None:
    """Give each place of the trip the message names that is a place to eat its meal: the one its own words say
    (中午去素心斋: lunch), else, when it serves a food the message asks for, the meal that wish is said for (lunch
    unless evening or dinner words). A place the message does not name, or names with no food, stays a visit."""
    low = text.lower()
    food = [w for w in wishes if w.kind in ("cuisine", "diet") and (w.kind == "cuisine" or w.code in MEAL_DIETS)]
    for item in places:
        place = pack.place_by_id(str(item.get("place_id") or ""))
        if place is None or item.get("meal") or not eats(place):
            continue
        phrase = next((n for n in (place.name_zh, place.name_en, *place.aliases) if n and n.lower() in low), None)
        if phrase is None:
            continue
        meal = meal_named(text, phrase)
        serving = next((w for w in food if meets(place, w)), None)
        if meal is None and serving is not None:
            meal = meal_said(text, serving.phrase)
        if meal is not None:
            item["meal"] = meal


def keeps_diet(place: RegionPlace, code: str) -> bool:
    marks = set(place.tags) | {f"cuisine:{c}" for c in place.cuisine}
    serving = wx.DIET_SERVES.get(code)
    return (serving is None or bool(serving & marks)) and wx.DIET_EXCLUDES.get(code) not in place.tags


def meets(place: RegionPlace, wish: TripWish) -> bool:
    """The place meets the wish on its own (a cuisine it serves, an interest its tags, category or names say)."""
    if wish.kind == "place":
        return place.id == wish.code
    if wish.kind == "cuisine":
        return wish.code in place.cuisine and (eats(place) or place.category == "cafe")
    if wish.kind == "drink":
        marks, tags = wx_drink(wish.code)
        return bool(marks & set(place.cuisine) or tags & set(place.tags))
    if wish.kind == "diet":
        return wish.code in MEAL_DIETS and eats(place) and keeps_diet(place, wish.code)
    if wish.kind == "kids":
        return place.category == "family" or "kid_friendly" in place.tags
    if wish.kind == "interest" and wish.code == "animals":
        return bool(_ANIMALS_NAMED.search(" ".join([place.name_zh, place.name_en, *place.aliases])))
    if wish.kind == "interest":
        kinds = INTERESTS.get(wish.code, ("", frozenset()))[1]
        return bool(kinds & ({place.category} | set(place.tags)))
    return False


def wx_drink(code: str) -> tuple[set[str], set[str]]:
    """The cuisines and tags of a place that serves the drink (a bar: cuisine bar or tag alcohol)."""
    return {"alcohol": ({"bar"}, {"alcohol"}), "coffee": ({"coffee"}, set()), "tea": ({"tea"}, set())}.get(
        code, (set(), set())
    )


def _out(wish: TripWish, status: TripWishStatus, reason: TripWishReason, ids: list[str] | None = None,
         drop: DroppedItem | None = None, meal: Meal | None = None) -> TripWishOutcome:  # fmt: skip
    return TripWishOutcome(wish=wish, status=status, reason=reason, place_ids=ids or [],
                           drop_reason=drop.reason_code if drop else None, meal=meal)  # fmt: skip


def planned_meals(result: ItineraryResult) -> dict[str, Meal]:
    """The planned places eaten at as a meal: a meal stop (the meal its visit is, which the plan begins in that
    meal's window), or, on a day without a lunch break of its own, a visit that begins in the lunch window early
    enough to eat the lunch's length there (with a break that day, the lunch is had at the break)."""
    lunch = result.lunch
    meals: dict[str, Meal] = {}
    for day in result.days:
        has_break = any(e.kind == "lunch" for e in day.entries)
        for e in day.entries:
            if e.kind != "visit" or not e.key or e.continues_visit:
                continue
            opens = e.start.replace(hour=lunch.window_start.hour, minute=lunch.window_start.minute)
            closes = e.start.replace(hour=lunch.window_end.hour, minute=lunch.window_end.minute)
            eat = timedelta(minutes=min(lunch.duration_min, e.minutes()))
            if e.meal:
                meals.setdefault(e.key, e.meal)
            elif not has_break and opens <= e.start <= closes - eat:
                meals.setdefault(e.key, "lunch")
    return meals


def account_trip_wishes(
    wishes: list[TripWish], result: ItineraryResult, pack: RegionPack, *, pacing: str
) -> list[TripWishOutcome]:
    """Each wish as the planned trip answers it: met (the planned places that meet it), in part, not met (dropped,
    with the itinerary's reason; none planned; nothing in the region's data) or not understood."""
    planned = list(dict.fromkeys(e.key for d in result.days for e in d.entries if e.kind == "visit" and e.key))
    places = [p for p in (pack.place_by_id(k) for k in planned) if p is not None]
    dropped = {d.key: d for d in result.dropped_items}
    meals = planned_meals(result)
    return [_account(w, places, dropped, pack, pacing=pacing, meals=meals) for w in wishes]


def _account(
    wish: TripWish,
    places: list[RegionPlace],
    dropped: dict[str, DroppedItem],
    pack: RegionPack,
    *,
    pacing: str,
    meals: dict[str, Meal],
) -> TripWishOutcome:
    if wish.kind == "unread":
        return _out(wish, "unread", "not_understood")
    if wish.kind == "place_not_found":
        return _out(wish, "not_met", "not_found", resembling(pack, wish.phrase))
    if wish.kind == "pace":
        return _out(wish, "met", "paced") if pacing == wish.code else _out(wish, "not_met", "not_in_plan")
    if wish.kind == "diet" and wish.code not in MEAL_DIETS:  # a limit: no planned meal may break it
        breaking = [p.id for p in places if eats(p) and not keeps_diet(p, wish.code)]
        return _out(wish, "not_met", "not_in_plan", breaking) if breaking else _out(wish, "met", "kept")
    meeting = [p.id for p in places if meets(p, wish)]
    if wish.kind in ("cuisine", "diet") and meeting:
        # a food to eat is met by a meal: a restaurant planned at a meal time (a café's own fare at any time)
        eaten = [p.id for p in places if p.id in meeting and (p.id in meals or not eats(p))]
        if not eaten:
            return _out(wish, "not_met", "not_at_meal", meeting)
        return _out(wish, "met", "served", eaten, meal=meals.get(eaten[0]))
    if wish.kind == "kids" and meeting:
        return (
            _out(wish, "met", "served", meeting)
            if len(meeting) == len(places)
            else _out(wish, "partly", "some_stops", meeting)
        )
    if meeting:
        return _out(wish, "met", "served", meeting)
    lost = [d for key, d in dropped.items() if (p := pack.place_by_id(key)) is not None and meets(p, wish)]
    if lost:
        return _out(wish, "not_met", "dropped", [d.key for d in lost], lost[0])
    in_data = any(meets(p, wish) for p in pack.places)
    if wish.kind == "diet" and not any(eats(p) for p in places):
        return _out(wish, "not_met", "no_meal" if in_data else "none_in_data")
    return _out(wish, "not_met", "not_in_plan" if in_data else "none_in_data")


def note_wishes(state: AgentState, result: ItineraryResult, pack: RegionPack, lang: Lang) -> list[str]:
    """The trip's wishes accounted for into the result (the API's ``payload.wishes``), and their lines for the
    answer."""
    state.result.wishes = account_trip_wishes(state.trip.wishes, result, pack, pacing=state.trip.pacing)
    return wish_lines(state.result.wishes, result, pack, lang, reasons_above=result.status != "infeasible")
