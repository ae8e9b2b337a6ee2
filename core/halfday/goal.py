"""Stage 1 of the half-day planner: ``decompose_goal`` reads a goal sentence (Chinese, English or both) into a
``DecomposedGoal`` by rules: deterministic, no network, no place data (docs/ARCHITECTURE.md, "Half-day planner").

The text is NFKC-normalised (full-width digits and punctuation become ASCII) and lower-cased, then read for:

- the window: a date (core.phrases.dates: 今天/明天/后天, 周六/这周六/下周日, 12月5日, 12.5, Dec 5, this/next Saturday, 周末), hours
  (2点到6点, 14:00-18:00, 下午两点半, 2pm-6pm, from 1 to 5pm), a part of the day with its default hours (上午 09–12,
  中午 11–14, 下午 13–18, 傍晚 16–19, 晚上 18–22), a duration (三个小时, 3 hours; 半天 only with a part or a start).
  A start without an end lasts 4 hours; a window already over is ``time_window_past``; one under way starts now,
  rounded up to the next quarter hour (``start_moved_to_now``), and ``time_window_past`` when nothing of today is
  left; an end before its start is ``time_window_invalid``; a half day is on one date, so an end past midnight
  (晚上10点到12点, now + 2 hours at 23:10) is 23:59 (``end_clamped_to_midnight``);
- the party (adults, children and their ages, seniors), constraints (budget, diet, mobility, weather, transport, the
  longest leg), preferences and what to avoid (codes of core/models/halfday/goal.py), and places named literally.

Bare hours read the way people plan half days: 1–6 o'clock with no marker are afternoon hours (2点 is 14:00). Ranges
are read by the rule the agent's day window shares (core.phrases.clock_range): an end without its own marker takes the
other's half of the day when that keeps the start first (下午3点到1点 is invalid; 晚上10点到12点 ends at midnight; from 1
to 5pm is 13–17; 10am to 4 is 10–16), unmarked ones by day (9 to 5 is 9–17), or in the part of the day said elsewhere
(今晚 8点到11点 is 20–23); 中午 or noon at one end is 12:00 (中午到傍晚六点 is 12–18). A number after an
hour that counts something (下午2点 3小时, 2点 3个人) is no minute. "next Saturday" means 下周六, the Saturday of next
week; a bare weekday is the next one (today when today is that day); 这周末 / this weekend is today on a Sunday. A
month and day without a year is the occurrence nearest today.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time

from core.errors import InputError
from core.halfday import goal_lexicon as lx
from core.halfday.goal_text import _mask, _num, _parts, _rx
from core.halfday.goal_who import _constraints, _named_places, _party, _preferences
from core.halfday.goal_wishes import read_wishes
from core.i18n import guess_lang
from core.models.common import Lang
from core.models.halfday.goal import MAX_GOAL_CHARS, DecomposedGoal, TimeWindow
from core.phrases.clock import ClockPhrase, Period, find_clocks
from core.phrases.clock_range import find_ranges
from core.phrases.dates import find_days

HALF_DAY_MIN = 240
DAY_MIN = 24 * 60


def check_length(text: str) -> None:
    """A goal longer than stage 1 reads is an ``InputError`` with code ``GOAL_TOO_LONG`` on field ``goal``."""
    if len(text) > MAX_GOAL_CHARS:
        raise InputError(
            f"The goal is {len(text)} characters long; at most {MAX_GOAL_CHARS} are read.",
            field="goal",
            code="GOAL_TOO_LONG",
        )


def decompose_goal(text: str, *, now: datetime, lang: Lang | None = None) -> DecomposedGoal:
    """The goal as codes and facts; ``now`` (the region's local time) anchors relative dates and past windows;
    ``lang`` is the goal's language when the caller says it (else guessed: core.i18n.guess_lang).

    Any string up to 1,000 characters gives a valid goal (what could not be read is listed in ``missing``);
    a longer one is an ``InputError`` with code ``GOAL_TOO_LONG`` on field ``goal``."""
    check_length(text)
    plain = unicodedata.normalize("NFKC", text)
    low = plain.lower()
    constraints, leg_spans = _constraints(low)
    window, phrase, assumed, missing = _window(_mask(low, leg_spans), now)
    party, party_assumed = _party(low)
    preferences, avoid = _preferences(low)
    named = _named_places(plain)
    wishes = read_wishes(
        low,
        preferences=preferences,
        diets=constraints.diet,
        party=party,
        named_places=named,
        read_spans=leg_spans + _other_spans(low, now),
    )
    return DecomposedGoal(
        text=text,
        language=lang or guess_lang(plain),
        window=TimeWindow(date=window[0], start=window[1], end=window[2], phrase=phrase[:200]) if window else None,
        party=party,
        constraints=constraints,
        preferences=preferences,
        avoid=avoid,
        named_places=named,
        wishes=wishes,
        assumed=assumed + party_assumed,
        missing=missing,
    )


# ---- helpers ------------------------------------------------------------------------------------------------------
def _other_spans(low: str, now: datetime) -> list[tuple[int, int]]:
    """The words the window's and the budget's readers take (dates, durations, amounts): no wish is read in them."""
    spans = [p.span for p in find_days(low, today=now.date())]
    spans += [m.span() for pattern, _, _ in lx.DURATIONS for m in _rx(pattern).finditer(low)]
    spans += [m.span() for pattern in lx.BUDGET_PATTERNS for m in _rx(pattern).finditer(low)]
    return spans + [m.span() for m in _rx(f"{lx.NOW_WORDS}|{lx.HALF_DAY}").finditer(low)]


def _ceil_quarter(now: datetime) -> int:
    seconds = now.hour * 3600 + now.minute * 60 + now.second + (1 if now.microsecond else 0)
    return -(-seconds // 900) * 15


# ---- the window ---------------------------------------------------------------------------------------------------
@dataclass
class _Read:
    """What the window's words say, before it is checked against now."""

    day: date | None = None
    day_assumed: str | None = None
    start: int | None = None  # minutes after midnight
    end: int | None = None
    invalid: bool = False
    phrases: list[tuple[int, int]] = field(default_factory=list)  # spans of the words read


def _window(low: str, now: datetime) -> tuple[tuple[date, time, time] | None, str, list[str], list[str]]:
    read, text = _Read(), low
    parts = [(m.start(), m.end(), p) for p, m in _parts(low)]  # before the dates are blanked: 今晚, tonight
    low = _dates(low, now, read)
    ctx = lx.PART_KIND[parts[0][2]] if parts else None
    _clocks(low, ctx, read)
    duration, half_day = _duration(low)
    said_now = re.search(lx.NOW_WORDS, low)
    read.phrases += [(a, b) for a, b, _ in parts]
    assumed: list[str] = []
    today = now.date()
    start, end, from_part, from_now = read.start, read.end, False, False
    if start is None and said_now:
        start, read.day, from_now = _ceil_quarter(now), read.day or today, True
        read.phrases.append(said_now.span())
    if start is None and parts:
        start, from_part = min(_m(lx.PART_HOURS[p][0]) for _, _, p in parts), True
        assumed.append("part_of_day_default_hours")
    if start is not None and end is None:
        if duration is None and half_day and not from_part:
            duration = HALF_DAY_MIN
        if duration is not None:
            end = start + duration
            assumed.append("end_from_duration")
        elif from_part:
            end = max(_m(lx.PART_HOURS[p][1]) for _, _, p in parts)
        else:
            end = start + HALF_DAY_MIN
            assumed.append("end_default_half_day")
    phrase = _phrase(text, read.phrases)
    if from_now and start is not None and start >= DAY_MIN:  # 现在 at 23:50: nothing of today is left
        return None, phrase, [], ["time_window_past"]
    if read.invalid or (start is not None and end is not None and (end <= start or start >= DAY_MIN - 1)):
        return None, phrase, [], ["time_window_invalid"]
    if start is None or end is None:
        return None, phrase, [], ["time_window_past" if read.day and read.day < today else "time_window"]
    if end > DAY_MIN - 1:  # a half day is on one date: it ends at 23:59
        end = DAY_MIN - 1
        assumed.append("end_clamped_to_midnight")
    day = read.day or today
    if read.day is None:
        assumed.insert(0, "date_today")
    elif read.day_assumed:
        assumed.insert(0, read.day_assumed)
    settled = settle_start(day, start, end, now=now)
    if settled is None:
        return None, phrase, [], ["time_window_past"]
    if settled != start and not said_now:
        assumed.append("start_moved_to_now")
    return (day, _t(settled), _t(end)), phrase, assumed, []


def settle_start(day: date, start: int, end: int, *, now: datetime) -> int | None:
    """A window's start (minutes after midnight) against now: None when it is over (or has under a quarter hour
    left); now rounded up to the next quarter hour when it has begun; else the start as said."""
    today, moved = now.date(), _ceil_quarter(now)
    if day < today or (day == today and moved >= end):
        return None
    return max(start, moved) if day == today else start


def _phrase(text: str, spans: list[tuple[int, int]]) -> str:
    """The words read, in their order, overlapping spans merged (下午 inside 下午2点到6点 once)."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return " ".join(text[a:b].strip() for a, b in merged)


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _t(minutes: int) -> time:
    return time(minutes // 60, minutes % 60)


# dates --------------------------------------------------------------------------------------------------------------
def _dates(low: str, now: datetime, read: _Read) -> str:
    """Reads the first date named (core.phrases.dates) into ``read``; returns the text with every date phrase blanked
    (for the clocks)."""
    days = find_days(low, today=now.date())
    for p in days:
        if read.day is None and not read.invalid:
            read.phrases.append(p.span)
            if p.day is None:
                read.invalid = True
            else:
                read.day, read.day_assumed = p.day, "date_next_weekday" if p.assumed else None
    return _mask(low, [p.span for p in days])


# clocks -------------------------------------------------------------------------------------------------------------
_END_BEFORE = re.compile(lx.CLOCK_END_BEFORE)
#: the goal's part-of-day kinds as the shared reader's periods
_PERIOD_OF_KIND: dict[str, Period] = {"am": "am", "pm": "pm", "noon": "noon", "night": "night"}
_END_AFTER, _START_WORDS = re.compile(lx.CLOCK_END_AFTER), re.compile(lx.CLOCK_START_BEFORE)


@dataclass
class _Clock:
    hour: int
    minute: int
    kind: str | None  # am, pm, noon, h24 or None (a bare hour)
    valid: bool


def _minutes(c: _Clock, kind: str | None) -> int:
    h = c.hour
    if kind == "night" and h in (0, 12):
        h = 24  # 晚上12点 is midnight
    elif kind in ("pm", "night") and h < 12 or kind == "noon" and 1 <= h <= 5:
        h += 12
    elif kind is None and 1 <= h <= 6:
        h += 12  # a bare 2点 in a half-day goal is 14:00
    return h * 60 + c.minute


def _clocks(low: str, ctx: str | None, read: _Read) -> None:
    spans: list[tuple[int, int]] = []
    # ranges of time: the reader the agent's day window shares (core.phrases.clock_range), bare hours in the part
    # of the day said elsewhere
    for rng in find_ranges(low, context=_PERIOD_OF_KIND.get(ctx or "")):
        spans.append(rng.span)
        read.phrases.append(rng.span)
        a, b = rng.start, rng.end
        if not (a.valid and b.valid) or a.hour is None or b.hour is None:
            read.invalid = True  # 25点, or no reading puts the end after the start (下午3点到1点)
            continue
        if read.start is None:
            read.start, read.end = a.hour * 60 + a.minute, b.hour * 60 + b.minute
    masked = _mask(low, spans)
    # single times of day: the reader every face shares (core.phrases.clock: minutes, 两个人 never minutes)
    for phrase in find_clocks(masked):
        c, said = _shared_clock(phrase), _NOON_WORDS.fullmatch(phrase.text.strip())
        before = masked[max(0, phrase.start - 12) : phrase.start]
        if said and not (_START_WORDS.search(before) or _END_BEFORE.search(before)):
            continue  # "at noon" is the part of the day, "from noon" a clock; "until midnight" an end
        read.phrases.append(phrase.span)
        if not c.valid:
            read.invalid = True
            continue
        minutes = _minutes(c, c.kind or ctx)
        if _END_BEFORE.search(before) or _END_AFTER.match(masked, phrase.end):
            read.end = minutes if read.end is None else read.end
        elif read.start is None:
            read.start = minutes


_NOON_WORDS = re.compile(r"(?:noon|midday|midnight|午夜)", re.I)
#: the shared reader's part of the day → the marker kinds _minutes reads
_PERIOD_KIND = {"am": "am", "pm": "pm", "noon": "noon", "night": "night"}


def _shared_clock(phrase: ClockPhrase) -> _Clock:
    """A time the shared reader found, as this reader's clock: its settled hour (24-hour: ``h24``), or a bare
    hour with the part of the day said before it (or none: the goal's context decides)."""
    text = phrase.text.strip().lower()
    if text in ("midnight", "午夜"):
        return _Clock(24, 0, "h24", phrase.valid)
    explicit = phrase.period is not None or ":" in text or re.search(r"[ap]\.?m\.?|o'?clock", text)
    if phrase.hour is not None and (explicit or phrase.hour == 0 or phrase.hour >= 13):
        return _Clock(phrase.hour, phrase.minute, "h24", phrase.valid)
    if phrase.hour is not None:  # a bare 12点: the goal's part of the day decides (晚上 → midnight)
        return _Clock(phrase.hour, phrase.minute, None, phrase.valid)
    hour = phrase.readings[0] if phrase.readings else 0
    kind = _PERIOD_KIND.get(phrase.period) if phrase.period else None
    return _Clock(hour, phrase.minute, kind, phrase.valid)


_DURATIONS = [(_rx(p), scale, fixed) for p, scale, fixed in lx.DURATIONS]


def _duration(low: str) -> tuple[int | None, bool]:
    """Minutes said (三个小时, 2.5 hours, 90分钟) and whether a half day (半天) was said."""
    half_day = bool(_rx(lx.HALF_DAY).search(low))
    for rx, scale, fixed in _DURATIONS:
        m = rx.search(low)
        if not m:
            continue
        n = fixed if fixed is not None else _num(m.group(1))
        if n is None:
            continue
        minutes = round((n + (0.5 if m.group(2) else 0)) * scale)
        if 15 <= minutes <= DAY_MIN:
            return minutes, half_day
    return None, half_day


# ---- constraints --------------------------------------------------------------------------------------------------
