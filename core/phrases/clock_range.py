"""Ranges of time in Chinese and English text (issue 31): "from 2 to 9pm", "2-9pm", "between 1pm and 8pm", "9 to 5",
"between 1 and 8 in the evening", "from noon to 6", 下午两点到晚上九点, 中午到傍晚六点, 上午9点-下午5点, 10点到16点.

``find_ranges(text)`` lists each range a text names, in order, with its two ends read as one rule for every reader
(the agent's day window, core.phrases.day_window, and the half-day goal, core.halfday.goal):

- an end with a marker (am/pm, a part of the day before it, "in the evening" after it, a 24-hour hour, noon, 中午 or
  midnight) is that time;
- an end without one takes the other end's half of the day when that keeps the start before the end (2-9pm is
  14:00–21:00, 10am to 4 is 10:00–16:00), else the other half when that does (9 to 5pm is 09:00–17:00);
- when neither end has a marker the range is read by day: the start from 6 in the morning (9 to 5 is 09:00–17:00,
  2 to 9 is 14:00–21:00), the end after it;
- a bare 12 ending a range that starts in the evening is midnight (晚上10点到12点: 24:00).

An end that no reading puts after the start is left unsettled (``ClockPhrase.hour`` None with its readings): the
caller says the range cannot be. Two bare numbers are a range only with a word that makes them times (from,
between, 从, to, till, until, a marked end): 3-4 people, 2到5个人, Dec 1 to 5 and days 1 to 3 are none. Give
NFKC-normalised text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.phrases.clock import PERIOD_WORDS, ClockPhrase, Period, en_int, zh_int

#: a start read by day is from this hour (9 to 5 is 09:00, 2 to 9 is 14:00)
EARLIEST_START_HOUR = 6
_PERIOD = "|".join(sorted(PERIOD_WORDS, key=len, reverse=True))
_ZH_H = r"[0-9]{1,2}|[零〇一二两三四五六七八九十]{1,3}"
_EN_WORD_H = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_ZH_MIN = r"半|一刻|三刻|[0-5]?[0-9]|[二三四五]?十[一二三四五六七八九]?|[零〇][一二三四五六七八九]"
_AFTER_WORDS: dict[str, Period] = {
    "in the morning": "am", "this morning": "am", "in the afternoon": "pm", "this afternoon": "pm",
    "in the evening": "night", "this evening": "night", "at night": "night", "tonight": "night",
}  # fmt: skip


def _endpoint(p: str) -> str:
    """One end of a range; group names carry the prefix ``p``."""
    return (
        rf"(?:(?P<{p}per>{_PERIOD})\s*)?"
        rf"(?:(?P<{p}noon>(?<![a-z])(?:noon|midday|midnight)(?![a-z])|正午|午夜|中午)"
        rf"|(?P<{p}h>{_ZH_H}|(?<![a-z])(?:{_EN_WORD_H})(?![a-z]))"
        rf"(?:\s*(?P<{p}zh>点钟|点|时)(?:\s*(?P<{p}zm>{_ZH_MIN})(?![\d个位人名小天岁元块分钟])分?)?"
        rf"|:(?P<{p}mm>\d{{2}})|\.(?P<{p}dm>\d{{2}})(?=\s*[ap]\.?\s?m))?"
        rf"(?:\s*(?P<{p}ap>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z]))?(?:\s*o'?clock)?)"
        rf"(?:\s+(?P<{p}after>{'|'.join(_AFTER_WORDS)}))?"
    )


_RANGE = re.compile(
    rf"(?<![\d.:/$¥￥-])(?P<pre>(?<![a-z])(?:from|between)\s+|从|自)?{_endpoint('a')}\s*"
    rf"(?P<join>[-–—~～]|到|至|(?<![a-z])(?:to|till|til|until|and|through|thru)(?![a-z]))\s*{_endpoint('b')}"
    r"(?![\d:])",
    re.I,
)
#: a range followed by one of these counts something else (3-4 people, 2到5个人, 1 to 2 hours)
_COUNTED_AFTER = re.compile(
    r"^\s*(?:people|persons|pax|guests|adults?|kids?|children|days?|nights?|hours?|hrs?|h(?![a-z])|min|mins|"
    r"minutes|km|miles|stops|places|yuan|rmb|years?|stars?|%|个|位|人|名|天|晚|夜|小时|分钟|钟头|岁|元|块|号|日|月|站|家|"
    # money, people and calendar words: 10 to 20 euros, 2 to 3 person, 8 to 10 of us, 10 to 12 December
    r"euros?|eur|usd|dollars?|bucks|cny|gbp|pounds?|yen|€|\$|¥|欧|美元|英镑|日元|person|ppl|of\s+us|tickets?|"
    r"seats?|rooms?|tables?|weeks?|months?|(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]*|may)(?![a-z])",
    re.I,
)
#: a range after one of these numbers something else: ages 5 to 10, gate 3 to 5, we are 2 to 4, line 2 to 4
_COUNTED_BEFORE = re.compile(
    r"(?:ages?|aged|gates?|lines?|platforms?|floors?|levels?|rooms?|terminals?|numbers?|no\.|#|we\s+are|we're|"
    r"there\s+are|there'll\s+be|party\s+of|group\s+of|between\s+us|of\s+us|sizes?|rows?|seats?)\s*(?:from\s+)?$",
    re.I,
)
#: two bare numbers before a plural noun count it (from 2 to 3 museums); "is", "this", "us" are no plural
_COUNTED_NOUN_AFTER = re.compile(r"^\s+(?!(?:is|was|has|does|this|us|as|its|plus|thus)(?![a-z]))[a-z]+s(?![a-z])", re.I)
#: a range after one of these is days, not hours (Dec 1 to 5, days 1 to 3)
_DAYS_BEFORE = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$|days?\s*$|第\s*$|周\s*$|星期\s*$", re.I
)


@dataclass(frozen=True)
class _End:
    """One end as said: its hour (0–24) and minute, whether a marker settles it, and its part of the day."""

    hour: int
    minute: int
    period: Period | None
    settled: bool  # a 24-hour hour, noon, midnight or a marker
    valid: bool


@dataclass(frozen=True)
class ClockRange:
    """A range a text names: its start and end as clocks (``hour`` None: no reading puts it after the start)."""

    start: ClockPhrase
    end: ClockPhrase
    text: str
    span: tuple[int, int]


def _read_end(g: dict[str, str | None], p: str) -> _End | None:
    if noon := g[f"{p}noon"]:
        word = noon.lower()
        return _End(24 if word in ("midnight", "午夜") else 12, 0, None, True, True)
    raw = g[f"{p}h"] or ""
    hour = zh_int(raw) if g[f"{p}zh"] or not raw.isalpha() else en_int(raw)
    if hour is None or (hour > 24 and not (g[f"{p}zh"] or g[f"{p}mm"])):
        return None  # between 20 and 30 euros: no hours; 25点 is a time that cannot be
    said = g[f"{p}zm"] or g[f"{p}mm"] or g[f"{p}dm"] or ""
    minute = {"半": 30, "一刻": 15, "三刻": 45}.get(said, zh_int(said) if said else 0) or 0
    period: Period | None = None
    if per := g[f"{p}per"]:
        period = PERIOD_WORDS[per]
    if ap := g[f"{p}ap"]:
        period = "am" if ap.lower().startswith("a") else "pm"
    if (after := g[f"{p}after"]) and period is None:
        period = _AFTER_WORDS[after.lower()]
    valid = 0 <= hour <= 24 and 0 <= minute <= 59 and not (ap and not 1 <= hour <= 12)
    settled = period is not None or hour == 0 or hour >= 13
    return _End(hour, minute, period, settled, valid)


def _hour(end: _End, period: Period | None) -> int | None:
    """The 24-hour hour of ``end`` in ``period`` (its own when it has one); None when the pair cannot be."""
    h, per = end.hour, end.period or period
    if per == "am":
        return 0 if h == 12 else h if h <= 12 else None
    if per in ("pm", "night"):
        if h == 12 and per == "night":
            return 24
        return h + 12 if h < 12 else h if h <= 23 else None
    if per == "noon":
        return h + 12 if 1 <= h <= 5 else h
    return h


def _readings(end: _End) -> list[int]:
    if end.settled:
        hour = _hour(end, None)
        return [] if hour is None else [hour]
    return [end.hour, end.hour + 12] if 1 <= end.hour <= 11 else [end.hour]


def _pick(a: _End, b: _End) -> tuple[int | None, int | None]:
    """The start's and end's hours by the rules above; an end None when no reading puts it after the start."""
    starts, ends = _readings(a), _readings(b)
    if not starts or not ends:
        return (starts[0] if starts else None), None
    if a.settled and not b.settled:
        same = _hour(b, a.period) if a.period else None
        if b.hour == 12 and starts[0] >= 18:
            same = 24  # 10pm to 12: midnight
        order = ([same] if same is not None else []) + ends
        return starts[0], next((h for h in order if h * 60 + b.minute > starts[0] * 60 + a.minute), None)
    if b.settled and not a.settled:
        same = _hour(a, b.period) if b.period else (a.hour + 12 if ends[0] >= 12 and a.hour < 12 else a.hour)
        order = ([same] if same is not None else []) + [h for h in starts if h != same]
        start = next((h for h in order if h * 60 + a.minute < ends[0] * 60 + b.minute), starts[-1])
        return start, ends[0]
    if not a.settled:
        start = next((h for h in starts if h >= EARLIEST_START_HOUR), starts[-1])
        return start, next((h for h in ends if h * 60 + b.minute > start * 60 + a.minute), None)
    return starts[0], ends[0]


def _clock(end: _End, hour: int | None, span: tuple[int, int], text: str) -> ClockPhrase:
    if not end.valid:
        return ClockPhrase(hour=None, minute=end.minute, start=span[0], end=span[1], text=text, valid=False)
    if hour is None:
        readings = tuple(_readings(end))
        return ClockPhrase(hour=None, minute=end.minute, start=span[0], end=span[1], text=text, readings=readings)
    return ClockPhrase(hour=hour, minute=end.minute, start=span[0], end=span[1], text=text, period=end.period)


def find_ranges(text: str, *, context: Period | None = None) -> list[ClockRange]:
    """Every range of time ``text`` names, in order (see the module's rules). ``context``: the part of the day said
    elsewhere (今晚, in the evening), which a range with no marker at either end is in (今晚 8点到11点: 20:00–23:00)."""
    out: list[ClockRange] = []
    for m in _RANGE.finditer(text):
        g = m.groupdict()
        a, b = _read_end(g, "a"), _read_end(g, "b")
        if a is None or b is None or _COUNTED_AFTER.match(text[m.end() :]):
            continue
        if context is not None and not (a.settled or b.settled):
            a, b = replace(a, period=context, settled=True), replace(b, period=context, settled=True)
        join, pre = g["join"].lower(), (g["pre"] or "").strip().lower()
        if join == "and" and pre != "between":
            continue
        said = any(g[p + k] for p in "ab" for k in ("per", "noon", "zh", "mm", "ap", "after"))
        # a 24-hour number marks a range joined by words (10到16), not by a dash (12-15 is also a date)
        marked = said or ((a.settled or b.settled) and join not in "-–—~～")
        # a 24-hour number alone is no marker here: between 10 and 20 euros, 10 to 16 museums, Dec 10 to 20
        if not (said or pre) and _DAYS_BEFORE.search(text[: m.start()]):
            continue  # Dec 1 to 5, days 1 to 3
        if not said and _COUNTED_NOUN_AFTER.match(text[m.end() :]):
            continue  # 2 to 3 museums
        if not said and _COUNTED_BEFORE.search(text[: m.start()]):
            continue  # ages 5 to 10, we are 2 to 4
        digits = not (g["ah"] or "").isalpha() and not (g["bh"] or "").isalpha()
        if not (marked or pre or (digits and join in ("to", "till", "til", "until", "through", "thru"))):
            continue  # 12-5, 2到5: no times; ten to eight is 7:50
        start_h, end_h = _pick(a, b) if a.valid and b.valid else (None, None)
        start = _clock(a, start_h, (m.start(), m.start("join")), text[m.start() : m.start("join")].strip())
        end = _clock(b, end_h, (m.end("join"), m.end()), text[m.end("join") : m.end()].strip())
        out.append(ClockRange(start=start, end=end, text=m.group().strip(), span=m.span()))
    return out
