"""A trip request from a message: the places it names, suggestions that fit the stated preferences,
the start date, and the TripRequest the itinerary pipeline takes."""

from __future__ import annotations

import re
from collections.abc import Collection
from collections.abc import Set as AbstractSet
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from core.agent import when
from core.agent.features import normalize_message
from core.agent.interest_words import INTEREST_NAMES, KIDS_SAID
from core.agent.router import RouterDecision
from core.agent.state import AgentContext
from core.agent.trip_wishes import named_meals, pace_wish, read_trip_wishes
from core.config import Settings
from core.itinerary.problem import meal_can_begin
from core.models.agent import (
    ASSUMED_START,
    AgentState,
    DayBoundary,
    TripState,
)
from core.models.common import as_priority
from core.models.itinerary import LunchPolicy, Pacing
from core.models.region import RegionPack
from core.models.rules import Rule
from core.packs.queues import queue_estimate
from core.phrases.dates import day_range, first_day
from core.phrases.day_window import find_day_window, hhmm
from core.phrases.trip import find_day_assignments, find_day_count, find_start

if TYPE_CHECKING:
    from core.models.region import RegionPlace

SIGHTSEEING = ("landmark", "museum", "park", "temple", "shopping", "theatre", "family", "market")


PREFERENCE_TAGS = [
    (re.compile(r"冷门|小众|人少|安静|hidden gem|off the beaten|quiet", re.I), ("quiet", "local_favourite")),
    (KIDS_SAID, ("kid_friendly",)),
    (re.compile(r"科学|科技|\bscience\b", re.I), ("science",)),
    (re.compile(r"大自然|自然|\bnature\b|\boutdoors?\b", re.I), ("nature",)),
    (re.compile(r"雨天|下雨|室内|rain|indoor", re.I), ("rainy_day_ok", "indoor")),
    (re.compile(r"夜景|晚上|night", re.I), ("night_view",)),
    (re.compile(r"免费|省钱|便宜|free|cheap|budget", re.I), ("free", "budget")),
    (re.compile(r"历史|古迹|history|historic", re.I), ("historic",)),
    (re.compile(r"艺术|美术|art", re.I), ("art",)),
    (re.compile(r"博物馆|museum", re.I), ("museum",)),
]


def interest_fit(place: RegionPlace, text: str) -> int:
    """How many of the interests ``text`` says no tag covers the place's names and aliases speak to."""
    names = " ".join([place.name_zh, place.name_en, *place.aliases])
    return sum(1 for said, named in INTEREST_NAMES if said.search(text) and named.search(names))


PLACES_PER_DAY = 3

#: the day's window when the message states none (minutes after midnight): 10:00-20:00
DEFAULT_DAY_START = 10 * 60
DEFAULT_DAY_END = 20 * 60


#: Unrequested suggestions stay below this visit length: an all-day venue (a theme park, 600 min) does not fit
#: beside the day's other suggestions and would only be dropped; it is planned when the user names it.
SUGGEST_MAX_VISIT_MIN = 240


def mentioned_places(text: str, pack: RegionPack) -> list[str]:
    """Place ids whose name or alias (>= 2 characters; >= 4 for Latin; not the city's own name) appears in the
    message."""
    from core.geo.kind_words import CJK_KINDS, KINDS
    from core.geo.text import GENERIC_WORDS, canonical, normalize

    t = normalize(text)
    # the words people vary in a name said another way (赫尔辛基火车站 for 赫尔辛基中央车站, Helsinki train station
    # for Helsinki Central Railway Station: core.geo.text.canonical), read as the resolver reads them
    tc = canonical(text)
    # the city's own name names the city, not a place in it (Helsinki's main station is "Helsinki" in the data); a
    # word of kind alone ("station", "asema", "博物馆": an alias in the map data) names no one place
    city = {normalize(n) for n in pack.city_names()}
    generic = city | GENERIC_WORDS | KINDS.keys() | CJK_KINDS.keys()
    found: list[tuple[int, str]] = []
    keys: dict[str, list[tuple[RegionPlace, bool]]] = {}  # the form a place was named by -> the places (exactly?)
    for p in pack.places:
        if p.category in ("address", "district"):  # not places to visit
            continue
        names = [p.name_zh, p.name_en, *p.aliases]
        best, said, exact = 0, "", False
        for n in names:
            k = normalize(n)
            if len(k) < 2 or (k.isascii() and len(k) < 4) or k in generic:
                continue
            if k in t and len(k) > best:
                best, said, exact = len(k), canonical(n), True
            elif len(kc := canonical(n)) >= 2 and kc != k and kc not in generic and kc in tc and len(kc) > best:
                best, said, exact = len(kc), kc, False
        if best:
            found.append((best, p.id))
            keys.setdefault(said, []).append((p, exact))
    # one spot mapped twice (a station's node and its building) and named by one form is one place: the better known
    same = {q.id for group in keys.values() for q in _same_spot_lesser(group)}
    found = [(n, pid) for n, pid in found if pid not in same]
    # Keep the longest matches; drop a shorter name contained in a longer found one ("豫园" in "豫园商城").
    found.sort(key=lambda x: -x[0])
    out: list[str] = []
    for _, pid in found:
        out.append(pid)
    return out


def _same_spot_lesser(group: list[tuple[RegionPlace, bool]]) -> list[RegionPlace]:
    """The places of ``group`` (named by one form; each with whether its own name was said exactly) that lie at the
    spot of another: the one named exactly is kept, else the better known."""
    from core.geo.coords import SAME_SPOT_M, haversine_m

    ranked = [p for p, _ in sorted(group, key=lambda pe: (not pe[1], -pe[0].importance))]
    kept: list[RegionPlace] = []
    lesser: list[RegionPlace] = []
    for p in ranked:
        near = any(haversine_m(p.lon, p.lat, q.lon, q.lat) <= SAME_SPOT_M for q in kept)
        (lesser if near else kept).append(p)
    return lesser


class TripSlots(BaseModel):
    """What a trip request says (issue 22 §1): its day count, the places named for each day (1-based), where the
    days start (a place id, "hotel" for "the hotel", None when unsaid) and the places named in all."""

    days: int | None = None
    day_places: dict[int, list[str]] = Field(default_factory=dict)
    start: str | None = None
    places: list[str] = Field(default_factory=list)


def read_trip(text: str, pack: RegionPack) -> TripSlots:
    """The trip slots of a message, read by core.phrases.trip against the pack's place names."""
    t = normalize_message(text)
    count = find_day_count(t)
    days = count.days if count else None
    start_phrase = find_start(t)
    start: str | None = None
    if start_phrase is not None:
        start = "hotel" if start_phrase.hotel else next(iter(_named(start_phrase.name, pack)), None)
    day_places: dict[int, list[str]] = {}
    for a in find_day_assignments(t):
        day = a.day if not a.last else days
        if day is None or day < 1:
            continue
        ids = [p for p in _named(t[a.start : a.end], pack) if p != start]
        if ids:
            day_places.setdefault(day, []).extend(i for i in ids if i not in day_places.get(day, []))
    places = [p for p in mentioned_places(t, pack) if p != start]
    return TripSlots(days=days, day_places=day_places, start=start, places=places)


def _named(text: str, pack: RegionPack) -> list[str]:
    """The places named in ``text``, a name inside a longer one found not counted (豫园 in 豫园商城), in the order said."""
    from core.agent.booking import named_venues
    from core.geo.text import normalize

    bookable, other = named_venues(text, pack)
    t = normalize(text)

    def at(pid: str) -> int:
        p = pack.place_by_id(pid)
        names = (p.name_zh, p.name_en, *p.aliases) if p is not None else ()
        spots = [t.find(normalize(n)) for n in names if n]
        return min((i for i in spots if i >= 0), default=len(t))

    return sorted((v.id for v in (*bookable, *other) if v.category not in ("address", "district")), key=at)


def pinned_days(slots: TripSlots) -> dict[str, int]:
    """Place id -> the 0-based day the person put it on (the first day named when named for two)."""
    out: dict[str, int] = {}
    for day, ids in sorted(slots.day_places.items()):
        for pid in ids:
            out.setdefault(pid, day - 1)
    return out


def suggestion_room(slots: TripSlots, *, days: int, have: int) -> int:
    """How many suggestions to add: none for a day the person filled; PLACES_PER_DAY for each day left open, less
    the named places not put on a day."""
    free = [d for d in range(days) if d + 1 not in slots.day_places]
    loose = max(0, have - len(pinned_days(slots)))
    return max(0, PLACES_PER_DAY * len(free) - loose)


def _preferred_tags(text: str) -> tuple[list[str], list[str]]:
    tags: list[str] = []
    cats: list[str] = []
    for rx, values in PREFERENCE_TAGS:
        if rx.search(text):
            for v in values:
                (cats if v == "museum" else tags).append(v)
    return tags, cats


def suggestable(place: RegionPlace, *, exclude: AbstractSet[str | None], rules: Collection[Rule] = ()) -> bool:
    """A place the agent may suggest: a sight not already in the trip, not an all-day venue (SUGGEST_MAX_VISIT_MIN),
    and open to the youngest child the person's rules name."""
    youngest = min((r.facts.get("youngest_age", 0) for r in rules if r.code == "kids_under_6"), default=None)
    return (
        place.category in SIGHTSEEING
        and place.id not in exclude
        and (place.visit_minutes or 0) <= SUGGEST_MAX_VISIT_MIN
        and (youngest is None or place.min_age is None or place.suits_age(youngest))
    )


def suggest_places(
    pack: RegionPack,
    *,
    text: str,
    count: int,
    exclude: AbstractSet[str | None],
    rules: Collection[Rule] = (),
    when: datetime,
) -> list[str]:
    """Knowledge-base suggestions for an open request: sightseeing places matching the stated
    preferences (tags/categories), best rated first, none longer than SUGGEST_MAX_VISIT_MIN (all-day
    venues only when named). Facts only; the choice is explained by tags.

    ``rules``, the person's standing rules (core/memory), rank before the rating: ``no_queues`` puts the places
    with the shortest typical wait at ``when`` first (the pack's queue table; a place it does not cover counts as
    no wait), ``wheelchair``/``stroller`` the ``accessible`` ones, ``kids_under_6`` the ``kid_friendly`` ones
    and leaves out places whose minimum age is above the youngest child's."""
    tags, cats = _preferred_tags(text)
    codes = {r.code for r in rules}
    pool = [p for p in pack.places if suggestable(p, exclude=exclude, rules=rules)]
    if cats:
        pool = [p for p in pool if p.category in cats] or pool
    at = when

    def wait(p: RegionPlace) -> int:
        if "no_queues" not in codes:
            return 0
        est = queue_estimate(pack, p.id, at)
        return est.minutes if est is not None else 0

    def key(p: RegionPlace) -> tuple[int, int, int, float, str]:
        match = sum(1 for t in tags if t in p.tags) + 2 * interest_fit(p, text)  # an interest named outranks a tag
        needs = int(bool({"wheelchair", "stroller"} & codes) and "accessible" not in p.tags) + int(
            "kids_under_6" in codes and "kid_friendly" not in p.tags
        )
        return (-match, needs, wait(p), -(p.rating or 0), p.id)

    pool.sort(key=key)
    return [p.id for p in pool[:count]]


def matches_preferences(pack: RegionPack, place_id: str, text: str) -> bool:
    """The place has a tag or category the message asks for (亲子 / with kids: kid_friendly); any place when the
    message asks for none. The same search's other candidates are those that match."""
    tags, cats = _preferred_tags(text)
    place = pack.place_by_id(place_id)
    if place is None:
        return False
    if interest_fit(place, text):
        return True
    if not tags and not cats and not any(said.search(text) for said, _ in INTEREST_NAMES):
        return True
    return bool(set(tags) & set(place.tags)) or place.category in cats


def _start_date(ctx: AgentContext, text: str) -> date:
    now = ctx.now
    if first_day(normalize_message(text), today=now.date()) is not None:  # else the trip starts tomorrow
        return when.resolve_day(text, now=now)
    return now.date() + timedelta(days=1)


def _trip_start(state: AgentState, said: TripSlots, pack: RegionPack) -> dict[str, Any]:
    """Where the days start: the place the message starts from, else the first hotel mentioned, else the city
    centre (assumed, and the console says so)."""
    hotel: dict[str, Any] | None = None
    start_place = pack.place_by_id(said.start) if said.start not in (None, "hotel") else None
    if start_place is not None:  # 从人民广场出发, starting from People's Square
        hotel = {"place_id": start_place.id, "name": start_place.name_zh}
    for pid in state.memory.user_profile.get("mentioned", []):
        p = pack.place_by_id(pid)
        if hotel is None and p is not None and p.category == "hotel":
            hotel = {"place_id": p.id, "name": p.name_zh}
    if hotel is None:  # the console says the start is assumed
        hotel = {"name": ASSUMED_START, "lon": pack.center[0], "lat": pack.center[1]}
    return hotel


def _trip_places(
    state: AgentState, pack: RegionPack, text: str, days: int, pins: dict[str, int], hotel: dict[str, Any]
) -> list[dict[str, Any]]:
    """The trip's places, each once: the draft's (on their day when it is a trip day), then the places mentioned
    (a must-visit when the message says so or puts it on a day), then the agent's suggestions (nice to have)."""
    places: list[dict[str, Any]] = []
    seen: set[str] = set()
    for node in state.draft.nodes:
        if node.get("place_id") and node["place_id"] not in seen:
            seen.add(node["place_id"])
            places.append(
                {
                    "key": node["place_id"],
                    "place_id": node["place_id"],
                    "name": node["name"],
                    "priority": as_priority(node.get("priority") or "should"),
                    "fixed_day": (node["day"] - 1) if node.get("day") and node["day"] <= days else None,
                    **({"meal": node["meal"]} if node.get("meal") else {}),  # a saved plan's meal stays its meal
                }
            )
    must_words = re.compile(r"必去|一定要|must", re.I)
    for pid in state.memory.user_profile.get("mentioned", []):
        p = pack.place_by_id(pid)
        if p is None or pid in seen or p.category == "hotel" or pid == hotel.get("place_id"):
            continue
        seen.add(pid)
        places.append(
            {
                "key": pid,
                "place_id": pid,
                "name": p.name_zh,
                # a place put on a day by the person is a must-visit there (第一天外滩和豫园)
                "priority": "must" if must_words.search(text) or pid in pins else "should",
                "fixed_day": pins.get(pid),
            }
        )
    # suggestions stay unpinned (a pinned stop is a hard one: dropping it would fail the plan); their number is the
    # room of the days the person left open (suggestion_room), so a day they filled is not filled up for them
    for pid in state.memory.user_profile.get("suggested", []):
        if pid not in seen:
            seen.add(pid)
            suggested = pack.place_by_id(pid)
            assert suggested is not None, "suggest_places only gives the pack's own ids"
            meal = pid in state.memory.user_profile.get("meal_stops", [])  # a stop for a food wish said: should
            places.append(
                {"key": pid, "place_id": pid, "name": suggested.name_zh, "priority": "should" if meal else "nice"}
                # visited as that meal (lunch: the day's lunch) when the wish is one to eat there
                | ({"meal": when} if (when := state.memory.user_profile.get("meal_times", {}).get(pid)) else {})
            )
    return places


def build_trip_request(decision: RouterDecision, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
    pack = ctx.provider.region
    text = state.user_input
    f = decision.features
    said_range = day_range(normalize_message(text), today=ctx.now.date())  # 10-12 Dec: three days
    range_days = (said_range[1] - said_range[0]).days + 1 if said_range else None
    days = f.days or range_days or (state.trip.days if state.draft.nodes else None) or 1
    days = max(1, min(days, 14))
    start = _start_date(ctx, text)
    state.trip.days = days
    state.trip.start_date = start.isoformat()
    said = read_trip(text, pack)
    pins = {pid: day for pid, day in pinned_days(said).items() if day < days}
    hotel = _trip_start(state, said, pack)
    places = _trip_places(state, pack, text, days, pins, hotel)
    named = [p for p in said.places if (place := pack.place_by_id(p)) is not None and place.category != "hotel"]
    state.trip.wishes = read_trip_wishes(text, pack, named)
    named_meals(places, state.trip.wishes, pack, text)  # a restaurant named to eat at is visited as the meal
    # today and its hours are the region's (a planner in Berlin planning Shanghai at 09:00 Shanghai time)
    window = _not_over(state, read_day_window(state, text), start, ctx.now.astimezone(ZoneInfo(pack.timezone)))
    dates = [start + timedelta(days=i) for i in range(days)]
    fit_meals(places, pack, dates, settings=ctx.settings, day_bounds=(_minutes(window.start), _minutes(window.end)))
    pace = pace_wish(state.trip.wishes)
    pacing: Pacing = (
        "relaxed"
        if pace == "relaxed" or re.search(r"慢|relax", text, re.I)
        else ("tight" if pace == "tight" else "normal")
    )
    mode = "walking" if f.walking else "driving"
    state.trip.pacing = pacing
    return {
        "trip_name": "agent plan",
        "region": pack.name,
        "timezone": pack.timezone,
        "hotel": hotel,
        "days": [
            {"date": (start + timedelta(days=i)).isoformat(), "start_time": begins, "end_time": window.end}
            for i, begins in enumerate(day_start_times(state.trip, window, days))
        ],
        "pacing": pacing,
        "mode": mode,
        "places": places,
    }


def _minutes(hh_mm: str) -> int:
    hours, minutes = hh_mm.split(":")
    return int(hours) * 60 + int(minutes)


def fit_meals(
    places: list[dict[str, Any]],
    pack: RegionPack,
    dates: list[date],
    *,
    settings: Settings,
    day_bounds: tuple[int, int],
) -> None:
    """Each meal of the trip's places made one that the place's hours can host on the trip's days (the planner
    drops a meal its hours cannot, and a must-visit one would fail the plan): the meal said when they can, else the
    other meal (the answer names the meal), else a visit (the wish's accounting then says not at a meal time)."""
    lunch = LunchPolicy()  # the agent's trips keep the default lunch
    for item in places:
        place = pack.place_by_id(str(item.get("place_id") or ""))
        meal = item.get("meal")
        if place is None or meal not in ("lunch", "dinner"):
            continue
        for choice in (meal, "dinner" if meal == "lunch" else "lunch"):
            if meal_can_begin(place.opening_hours, choice, dates, lunch=lunch, settings=settings,
                              timezone=pack.timezone, country=pack.country or None, day_bounds=day_bounds):  # fmt: skip
                item["meal"] = choice
                break
        else:
            item.pop("meal")


#: a day said to end at midnight (晚上8点到12点) ends at its last minute
LATEST_DAY_END = 23 * 60 + 59
#: a plan for today begins at the next quarter hour after the request, if this much of the window is left
TODAY_STEP_MIN = 15
TODAY_LEAST_MIN = 60


def read_day_window(state: AgentState, text: str) -> DayBoundary:
    """The day's window the message states (core.phrases.day_window), else the default; kept in ``state.trip``
    with where it came from (the plan says it). Words that cannot make a day (an end before the start, 25点) leave
    the default in place and are kept as ``window_problem``, to be said."""
    said = find_day_window(normalize_message(text))
    trip = state.trip
    trip.window_source, trip.window_said, trip.window_problem = "default", None, None
    window = DayBoundary(start=hhmm(DEFAULT_DAY_START), end=hhmm(DEFAULT_DAY_END))
    if said is not None:
        trip.window_said = said.text
        trip.window_problem = said.problem(default_start=DEFAULT_DAY_START, default_end=DEFAULT_DAY_END)
        if trip.window_problem is None:
            start, end = said.resolved(default_start=DEFAULT_DAY_START, default_end=DEFAULT_DAY_END)
            assert start is not None and end is not None, "a window without a problem has both ends"
            end = min(end, LATEST_DAY_END)  # until midnight: the day's last minute
            window, trip.window_source = DayBoundary(start=hhmm(start), end=hhmm(end)), "message"
    trip.day_boundaries = [window.model_copy() for _ in range(trip.days)]
    return window


def _not_over(state: AgentState, window: DayBoundary, start: date, now: datetime) -> DayBoundary:
    """The window said, unless the trip starts today and it is already over at the request's moment (7点到8点 asked
    at 9:00): then the default holds, kept as ``window_problem`` ``WINDOW_PAST`` to be said and asked again.

    A trip starting today never plans its first day before the request's moment: the day begins at the next quarter
    hour (``first_day_start``, said in the answer); with less than ``TODAY_LEAST_MIN`` of the window left, today is
    over (``DAY_OVER``: the plan shown is for reference, and another day is asked)."""
    trip = state.trip
    trip.first_day_start = None
    if start != now.date():
        return window
    now_min = now.hour * 60 + now.minute
    if trip.window_source == "message" and _minutes(window.end) <= now_min:
        trip.window_source, trip.window_problem = "default", "WINDOW_PAST"
        window = DayBoundary(start=hhmm(DEFAULT_DAY_START), end=hhmm(DEFAULT_DAY_END))
        trip.day_boundaries = [window.model_copy() for _ in range(trip.days)]
    if now_min <= _minutes(window.start):
        return window
    begins = -(-now_min // TODAY_STEP_MIN) * TODAY_STEP_MIN
    if _minutes(window.end) - begins >= TODAY_LEAST_MIN:
        trip.first_day_start = hhmm(begins)
    elif trip.window_problem is None:
        trip.window_problem = "DAY_OVER"
    return window


def day_start_times(trip: TripState, window: DayBoundary, days: int) -> list[str]:
    """Each day's start: the window's, the first day's no earlier than the request's moment (``_not_over``)."""
    return [trip.first_day_start if i == 0 and trip.first_day_start else window.start for i in range(days)]


def day_window_evidence(state: AgentState) -> dict[str, Any]:
    """The window the plan's days ran in and its source, as the plan's evidence (facts, no words)."""
    trip = state.trip
    window = trip.day_boundaries[0]
    return {
        "type": "day_window",
        "start": window.start,
        "end": window.end,
        "source": trip.window_source,
        "said": trip.window_said,
        "problem": trip.window_problem,
        "first_day_start": trip.first_day_start,
    }
