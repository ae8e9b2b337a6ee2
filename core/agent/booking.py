"""What a reservation request says (docs/ARCHITECTURE.md, "Agent"): the venue among the pack's bookable items (by
name or alias, else the kind of venue asked for), the date in the region's timezone, the time and the party size.

Pure functions over one message and the region pack. Nothing is guessed: a slot the message does not state is
``None`` (the agent asks for it), a bare "7点" that could be morning or evening stays two readings until a venue's
hours leave one, and a date that does not exist is an InputError naming it.
"""

from __future__ import annotations

import datetime as dt
import re
from datetime import date, time

from pydantic import BaseModel, Field

from core.agent.features import cn_number, normalize_message
from core.agent.when import checked_day
from core.errors import InputError
from core.geo.text import normalize
from core.packs.loader import RegionPack
from core.phrases.dates import first_day
from core.reservations.catalog import BookableItem, catalogue


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


def named_venues(text: str, pack: RegionPack) -> tuple[list[Venue], list[Venue]]:
    """(bookable venues, places that take no reservations) named in the message, longest name first; a name inside
    a longer one found ("兰心" in "兰心餐厅") does not count."""
    t = normalize(text)
    items = {i.id: i for i in catalogue(pack)}
    hits: list[tuple[int, int, str]] = []
    for p in pack.places:
        if p.category == "address":
            continue
        best = max((s for k in _name_keys(pack, p.id) for s in _spans(t, k)), key=lambda s: s[1] - s[0], default=None)
        if best is not None:
            hits.append((best[0], best[1], p.id))
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
_CN = r"[0-9]{1,2}|[零一二两三四五六七八九十]{1,3}"
_PM_ZH = ("下午", "傍晚", "晚上", "今晚", "明晚", "晚", "夜里", "夜")
_ZH_TIME = re.compile(
    rf"(?P<p>早上|上午|中午|下午|傍晚|晚上|今晚|明晚|夜里|早|晚)?\s*(?P<h>{_CN})\s*(点|时)"
    rf"(?P<m>半|一刻|三刻|(?:{_CN}|[二三四五]十[一二三四五六七八九]?)分?)?"
)
_EN_TIME = re.compile(r"\b(?P<h>\d{1,2})(:(?P<m>\d{2}))?\s*(?P<p>a\.?m\.?|p\.?m\.?)(?![a-z])", re.I)
_HHMM = re.compile(r"(?<![\d:])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])")
_EVENING = re.compile(r"今晚|明晚|晚上|傍晚|晚饭|晚餐|\btonight\b|\bevening\b|\bdinner\b", re.I)


def booking_time(text: str) -> tuple[time | None, list[int], int]:
    """(the time, or None; the readings of a bare hour when it could be morning or evening; its minute)."""
    t = normalize_message(text)
    h: int | None  # an hour read from the text (None: a Chinese numeral that is not one)
    mi: int | None
    if re.search(r"\bnoon\b|\bmidday\b", t, re.I):
        return time(12, 0), [], 0
    if m := _EN_TIME.search(t):
        h, mi = int(m.group("h")), int(m.group("m") or 0)
        if not (1 <= h <= 12 and mi < 60):
            raise InputError(f"{m.group(0)} is not a time", field="time")
        pm = m.group("p").lower().startswith("p")
        return time(h % 12 + (12 if pm else 0), mi), [], mi
    if m := _HHMM.search(t):
        return _clock(int(m.group("h")), int(m.group("m")), bool(_EVENING.search(t)), m.group(0))
    if m := _ZH_TIME.search(t):
        period = m.group("p") or ""
        if m.group("h") == "一" and period not in ("中午", "下午"):  # "便宜一点", "晚一点": a little, not 1 o'clock
            return None, [], 0
        h = cn_number(m.group("h"))
        mins = m.group("m") or ""
        mi = {"半": 30, "一刻": 15, "三刻": 45}.get(mins)
        if mi is None:
            mi = (cn_number(mins.rstrip("分")) or 0) if mins else 0
        if h is None:
            return None, [], 0
        if period in _PM_ZH or (not period and _EVENING.search(t)):
            h = h + 12 if h < 12 else h
        elif period == "中午":
            h = h + 12 if h < 6 else h
        elif period in ("早上", "上午", "早"):
            pass
        else:
            return _clock(h, mi, False, m.group(0))
        return _checked(h, mi, m.group(0)), [], mi
    if m := re.search(r"\bat (?P<h>\d{1,2})(?!\d|:|\s*(people|persons|guests|pax|of)\b)\b", t, re.I):
        return _clock(int(m.group("h")), 0, bool(_EVENING.search(t)), m.group(0))
    return None, [], 0


def _checked(h: int, mi: int, said: str) -> time:
    if not (0 <= h <= 23 and 0 <= mi <= 59):
        raise InputError(f"{said} is not a time", field="time")
    return time(h, mi)


def _clock(h: int, mi: int, evening: bool, said: str) -> tuple[time | None, list[int], int]:
    """A time without am/pm: 13-23 and 0 are plain; 12 is noon; 1-11 is the evening one when the message says
    evening, else two readings."""
    if evening and 1 <= h <= 11:
        return _checked(h + 12, mi, said), [], mi
    if h == 0 or h >= 12:
        return _checked(h, mi, said), [], mi
    _checked(h, mi, said)
    return None, [h, h + 12], mi


def pick_reading(hours: list[int], minute: int, item: BookableItem) -> time | None:
    """The one reading of a bare hour that the venue takes (7点 at a restaurant open 11:00-20:30 is 19:00), or
    None when none or both fit."""
    slots = item.slots()
    fits = [time(h, minute) for h in hours if time(h, minute) in slots]
    return fits[0] if len(fits) == 1 else None


# --- the party -------------------------------------------------------------------------------------
_EN_NUM = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
_EN_N = r"\d{1,2}|" + "|".join(_EN_NUM)


def _en_number(s: str) -> int:
    return int(s) if s.isdigit() else _EN_NUM[s.lower()]


def booking_party(text: str) -> int | None:
    t = normalize_message(text)
    if m := re.search(r"一家([0-9]|[二两三四五六七八九十])口", t):
        return cn_number(m.group(1))
    if m := re.search(r"(?<![0-9:])([0-9]{1,2}|[一二两三四五六七八九十]{1,3})\s*(个人|人|位|名|张(?!桌)|口)", t):
        return cn_number(m.group(1))
    if re.search(
        r"我们?俩|咱们?俩|两口子|情侣|夫妻|\bcouple\b|\bthe two of us\b|\bmy (wife|husband|partner) and i\b", t, re.I
    ):
        return 2
    if re.search(r"一个人|就我一个|我自己|\bjust me\b|\bonly me\b|\bmyself\b|\bsolo\b", t, re.I):
        return 1
    if m := re.search(rf"\b({_EN_N})\s+(people|persons|guests|adults|pax|tickets?|seats?|of us)\b", t, re.I):
        return _en_number(m.group(1))
    if m := re.search(rf"\bparty of ({_EN_N})\b", t, re.I):
        return _en_number(m.group(1))
    if m := re.search(
        rf"\bfor ({_EN_N})\b(?![-:/.]\d)(?!\s*(am|pm|a\.m|p\.m|o'?clock|nights?|days?|hours?|minutes?)\b)", t, re.I
    ):
        return _en_number(m.group(1))
    return None


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
        date=booking_date(text, today=today),
        time=at,
        hours=hours,
        minute=minute,
        party=booking_party(text),
    )
