"""What a reservation request says (docs/ARCHITECTURE.md, "Agent"): the venue among the pack's bookable items (by
name or alias, else the kind of venue asked for), the date in the region's timezone, the time and the party size.

Pure functions over one message and the region pack. Nothing is guessed: a slot the message does not state is
``None`` (the agent asks for it), a bare "7点" that could be morning or evening stays two readings until a venue's
hours leave one, and a date that does not exist is an InputError naming it. 中午 said alone is noon, as "noon" is
(五天后中午: that day at 12:00); the confirmation says the time before anything is booked.
"""

from __future__ import annotations

import datetime as dt
import re
from datetime import date, time

from pydantic import BaseModel, Field

from core.agent.features import normalize_message
from core.agent.when import checked_day
from core.errors import InputError
from core.geo.text import normalize
from core.models.region import RegionPack
from core.models.reservations import BookableItem
from core.packs.derived import PerPack
from core.phrases.clock import find_times_of_day
from core.phrases.dates import first_day
from core.phrases.party import find_party
from core.reservations.catalog import catalogue


class Venue(BaseModel):
    id: str
    name: str
    category: str
    bookable: bool


class BookingSlots(BaseModel):
    """The slots of one booking (or cancellation) request; None = not stated."""

    venues: list[Venue] = Field(default_factory=list, description="bookable venues named, best match first")
    unbookable: list[Venue] = Field(default_factory=list, description="places named that take no reservations")
    category: str | None = Field(default=None, description="the kind of venue asked for (restaurant, theatre, …)")
    date: dt.date | None = None
    time: dt.time | None = None
    hours: list[int] = Field(default_factory=list, description="a bare hour's readings (7点: 7 and 19)")
    minute: int = 0
    party: int | None = None
    city: str | None = Field(default=None, description="the region's city, or another city the message names")

    def missing(self) -> list[str]:
        out = [] if self.venues else ["item"]
        if self.date is None:
            out.append("date")
        if self.time is None:
            out.append("time")
        if self.party is None:
            out.append("party_size")
        return out


# --- the venue -------------------------------------------------------------------------------------
CATEGORY_WORDS = [
    (
        "restaurant",
        re.compile(
            r"餐厅|餐馆|饭馆|饭店|酒楼|吃饭|晚饭|晚餐|午饭|午餐|订位|订座|位子|座位|桌|restaurant|table|dinner|lunch|brunch",
            re.I,
        ),
    ),
    (
        "theatre",
        re.compile(r"剧院|剧场|演出|话剧|音乐会|音乐厅|戏院|马戏|theat(re|er)|concert|\bshow\b|performance", re.I),
    ),
    ("museum", re.compile(r"博物馆|美术馆|纪念馆|展览|museum|gallery|exhibition", re.I)),
    ("hotel", re.compile(r"酒店|宾馆|住宿|房间|hotel|\broom\b", re.I)),
    ("family", re.compile(r"乐园|游乐园|动物园|海洋公园|theme park|\bzoo\b", re.I)),
]


def _name_keys(pack: RegionPack, place_id: str) -> list[str]:
    p = pack.place_by_id(place_id)
    if p is None:
        return []
    keys = []
    for n in (p.name_zh, p.name_en, *p.aliases):
        k = normalize(n)
        if len(k) >= 2 and not (k.isascii() and len(k) < 4):
            keys.append(k)
    return keys


def _spans(text: str, key: str) -> list[tuple[int, int]]:
    """Where ``key`` occurs in the normalized text; a name that starts or ends with a digit must not run into
    other digits ("1221" is not inside the date 20261221)."""
    out, start = [], 0
    while (i := text.find(key, start)) >= 0:
        j = i + len(key)
        clash = (key[0].isdigit() and i > 0 and text[i - 1].isdigit()) or (
            key[-1].isdigit() and j < len(text) and text[j].isdigit()
        )
        if not clash:
            out.append((i, j))
        start = i + 1
    return out


def _venue_keys(pack: RegionPack) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Every place but the addresses, with its names as match keys."""
    return tuple((p.id, tuple(_name_keys(pack, p.id))) for p in pack.places if p.category != "address")


#: what ``named_venues`` reads of a pack on every message, built once per pack (issue 33: ~1,000 names normalized
#: per message before)
_VENUE_KEYS = PerPack(_venue_keys)
_BOOKABLE_IDS = PerPack(lambda pack: frozenset(item.id for item in catalogue(pack)))


def named_venues(text: str, pack: RegionPack) -> tuple[list[Venue], list[Venue]]:
    """(bookable venues, places that take no reservations) named in the message, longest name first; a name inside
    a longer one found ("兰心" in "兰心餐厅") does not count."""
    t = normalize(text)
    items = _BOOKABLE_IDS(pack)
    hits: list[tuple[int, int, str]] = []
    for place_id, keys in _VENUE_KEYS(pack):
        spans = [s for k in keys if k in t for s in _spans(t, k)]
        best = max(spans, key=lambda s: s[1] - s[0], default=None)
        if best is not None:
            hits.append((best[0], best[1], place_id))
    hits.sort(key=lambda h: -(h[1] - h[0]))
    kept: list[tuple[int, int, str]] = []
    for a, b, pid in hits:
        if not any(a >= ka and b <= kb for ka, kb, _ in kept):
            kept.append((a, b, pid))
    bookable: list[Venue] = []
    other: list[Venue] = []
    for _, _, pid in kept:
        place = pack.place_by_id(pid)
        assert place is not None
        venue = Venue(id=pid, name=place.name_zh, category=place.category, bookable=pid in items)
        (bookable if venue.bookable else other).append(venue)
    return bookable, other


def asked_category(text: str) -> str | None:
    for name, rx in CATEGORY_WORDS:
        if rx.search(text):
            return name
    return None


# --- the date --------------------------------------------------------------------------------------
def booking_date(text: str, *, today: date) -> date | None:
    """The first day a message names (core.phrases.dates; None when it names none). Relative days count from
    ``today`` (the region's); a date that does not exist, or is too far ahead, is an InputError on ``date``."""
    phrase = first_day(normalize_message(text), today=today)
    return None if phrase is None else checked_day(phrase, today=today, field="date")


# --- the time --------------------------------------------------------------------------------------
_EVENING = re.compile(r"今晚|明晚|晚上|傍晚|晚饭|晚餐|\btonight\b|\bevening\b|\bdinner\b", re.I)


def booking_time(text: str) -> tuple[time | None, list[int], int]:
    """(the time, or None; the readings of a bare hour when it could be morning or evening; its minute), read by
    core.phrases.clock (中午 said alone is noon: 五天后中午 is that day at 12:00); a bare hour is the evening one when
    the message says evening or dinner."""
    t = normalize_message(text)
    clocks = find_times_of_day(t)
    clock = clocks[0] if clocks else None
    if clock is None:
        return None, [], 0
    if not clock.valid:
        raise InputError(
            f"{clock.text} is not a time", field="time", details={"reason": "NOT_A_TIME", "text": clock.text}
        )
    hour = clock.settle(evening=bool(_EVENING.search(t)))
    if hour is not None:
        return time(hour, clock.minute), [], clock.minute
    return None, list(clock.readings), clock.minute


def pick_reading(hours: list[int], minute: int, item: BookableItem) -> time | None:
    """The one reading of a bare hour that the venue takes (7点 at a restaurant open 11:00-20:30 is 19:00), or
    None when none or both fit."""
    slots = item.slots()
    fits = [time(h, minute) for h in hours if time(h, minute) in slots]
    return fits[0] if len(fits) == 1 else None


# --- the party -------------------------------------------------------------------------------------
def booking_party(text: str) -> int | None:
    party = find_party(normalize_message(text))
    return None if party is None else party.size


def booking_slots(text: str, *, pack: RegionPack, today: date) -> BookingSlots:
    venues, unbookable = named_venues(text, pack)
    rest = normalize_message(text)
    for v in (*venues, *unbookable):  # "和平饭店" names a hotel, not a restaurant
        place = pack.place_by_id(v.id)
        for n in (place.name_zh, place.name_en, *place.aliases) if place else ():
            if n:
                rest = re.sub(re.escape(n), " ", rest, flags=re.I)
    at, hours, minute = booking_time(text)
    return BookingSlots(
        venues=venues,
        unbookable=unbookable,
        category=venues[0].category if venues else asked_category(rest),
        date=booking_date(rest, today=today),  # a venue's name is no date (the 1/2 of 8 1/2 Otto e Mezzo)
        time=at,
        hours=hours,
        minute=minute,
        party=booking_party(text),
        city=booking_city(text, pack=pack),
    )


def booking_city(text: str, *, pack: RegionPack) -> str:
    """The city of the booking: the region's (the context has it, nobody is asked), unless the message names a
    city of another known region (then that one's name, and the agent can say it only books here)."""
    low = normalize_message(text).lower()
    own = {n.lower() for n in pack.city_names()}
    if any(n in low for n in own if len(n) >= 2):
        return pack.name
    for name, city in OTHER_CITIES.items():
        if name.lower() in low and name.lower() not in own:
            return city
    return pack.name


#: cities a message may name instead of the region's, by how they are written (their region or city code)
OTHER_CITIES = {
    "上海": "shanghai", "Shanghai": "shanghai", "赫尔辛基": "helsinki", "Helsinki": "helsinki", "北京": "beijing",
    "Beijing": "beijing", "杭州": "hangzhou", "Hangzhou": "hangzhou", "东京": "tokyo", "Tokyo": "tokyo",
}  # fmt: skip
