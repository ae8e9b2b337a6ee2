"""The day's window a trip request states, in Chinese and English: when the days start and by when they end.

``find_day_window(text)`` reads the clock times (core.phrases.clock) and the words around each: a start is said by
从/自/from/starting/leave at before it or 出发/开始/出门/onwards after it; an end by 到/至/until/by/before/back by
before it or 前/以前/之前/结束/回/为止 after it. A range of time is the start and the end, read by the rule the
half-day goal shares (core.phrases.clock_range: 从早上8点到下午3点, 9am-6pm, from 2 to 9pm, between 1 and 8 in the
evening, 中午到傍晚六点; an end's am/pm carries to the other when that keeps the start first). A bare hour (7点,
at 7) takes the reading a day can have: a start from 6 in the morning (1点出发 is 13:00, 9点出发 9:00), an end after
the start (到3点 is 15:00 when the day starts at 10:00).

It returns what was said, with the words it read; whether the window can be (its end after its start) is checked by
``DayWindow.problem`` against the start the caller assumes when only the end was said. Give NFKC-normalised text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.phrases.clock import ClockPhrase, find_times_of_day
from core.phrases.clock_range import EARLIEST_START_HOUR, find_ranges

_START_BEFORE = re.compile(
    r"(?:从|自|由|starting(?:\s+at|\s+from)?|start(?:ing)?\s+(?:at|from)|from|leave\s+at|leaving\s+at|set\s+off\s+at|"
    r"begin(?:ning)?\s+at|out\s+at)\s*$",
    re.I,
)
_START_AFTER = re.compile(r"^\s*(?:出发|开始|出门|动身|起步|onwards|start|on\b)", re.I)
_END_BEFORE = re.compile(
    r"(?:到|至|直到|最晚|不晚于|until|till|til|by|before|no later than|back(?:\s+at)?|home(?:\s+at)?|end(?:ing)?\s+(?:at|by)|"
    r"finish(?:ed)?\s+(?:at|by)|done\s+(?:at|by)|return(?:ing)?\s+(?:at|by)|wrap\s+up\s+(?:at|by)|[-–—~～])\s*$",
    re.I,
)
#: what joins a range's two times: 8点到15点, 9am-6pm, from 9 to 5
_RANGE_JOIN = re.compile(r"^\s*(?:到|至|[-–—~～]|to|until|till)\s*$", re.I)
#: the word an English clock phrase opens with (at 8, by 5): it belongs to the words before the time
_LEAD = re.compile(r"^(?:at|around|by)\s+", re.I)
_END_AFTER = re.compile(r"^\s*(?:前|以前|之前|结束|收工|回|返回|为止|截止|左右结束|at the latest)", re.I)
Role = Literal["start", "end"]


@dataclass(frozen=True)
class SaidTime:
    """One end of the window as said: the clock read, its role, and the words it stands in."""

    role: Role
    clock: ClockPhrase

    def minutes(self, *, after: int | None = None) -> int | None:
        """Minutes after midnight; a bare hour takes the reading of its role (a start from EARLIEST_START_HOUR, an end
        after ``after``); None when the words are no time (25点)."""
        c = self.clock
        if not c.valid:
            return None
        if c.hour is not None:
            return c.hour * 60 + c.minute
        readings = [h * 60 + c.minute for h in c.readings]
        if self.role == "start":
            return next((m for m in readings if m >= EARLIEST_START_HOUR * 60), readings[-1])
        floor = after if after is not None else EARLIEST_START_HOUR * 60
        return next((m for m in readings if m > floor), readings[-1])


@dataclass(frozen=True)
class DayWindow:
    """The window a message states: its start, its end (None: not said) and the words read."""

    start: SaidTime | None
    end: SaidTime | None
    text: str

    def resolved(self, *, default_start: int, default_end: int) -> tuple[int | None, int | None]:
        """(start, end) in minutes after midnight, each the said one else the default; None where the words are no
        time."""
        start = self.start.minutes() if self.start else default_start
        end = self.end.minutes(after=start if start is not None else default_start) if self.end else default_end
        return start, end

    def problem(self, *, default_start: int, default_end: int) -> str | None:
        """Why the window cannot be a day: ``TIME_NOT_VALID`` (25点), ``END_NOT_AFTER_START``; None when it can."""
        start, end = self.resolved(default_start=default_start, default_end=default_end)
        if start is None or end is None:
            return "TIME_NOT_VALID"
        if end <= start:
            return "END_NOT_AFTER_START"
        return None


def _role(text: str, clock: ClockPhrase, following: ClockPhrase | None) -> Role | None:
    lead = _LEAD.match(clock.text)
    before, after = text[: clock.start] + (lead.group() if lead else ""), text[clock.end :]
    if _END_AFTER.match(after) or _END_BEFORE.search(before):
        return "end"
    if _START_BEFORE.search(before) or _START_AFTER.match(after):
        return "start"
    if following is not None and _RANGE_JOIN.match(text[clock.end : following.start]):
        return "start"  # the first time of a range (9am-6pm)
    return None


def find_day_window(text: str) -> DayWindow | None:
    """The day's window ``text`` states (None: it states neither a start nor an end). A range of time
    (core.phrases.clock_range: from 2 to 9pm, 中午到傍晚六点) is the window; else the first time said as a start and
    the first said as an end count; a time with neither role (7点吃饭, dinner at 7) is no end of the day."""
    ranges = find_ranges(text)
    if ranges:
        first = ranges[0]
        return DayWindow(start=SaidTime("start", first.start), end=SaidTime("end", first.end), text=first.text)
    start: SaidTime | None = None
    end: SaidTime | None = None
    clocks = find_times_of_day(text)  # 中午出发: noon
    for i, clock in enumerate(clocks):
        role = _role(text, clock, clocks[i + 1] if i + 1 < len(clocks) else None)
        if role == "start" and start is None and end is None:
            start = SaidTime("start", clock)
        elif role == "end" and end is None:
            end = SaidTime("end", clock)
    if start is None and end is None:
        return None
    spans = [s.clock for s in (start, end) if s is not None]
    return DayWindow(start=start, end=end, text=text[spans[0].start : spans[-1].end])


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
