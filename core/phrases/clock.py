"""Clock times in Chinese and English text, read one way for every reader (issue 22 §1): the booking reader
(core.agent.booking) and the half-day goal (core.halfday.goal).

``find_clocks(text)`` lists every time of day a text names, in order, with its span: 七点, 7点半, 七点一刻, 七点三刻,
七点零五, 7点30, 晚上7点, 下午两点, 19:30, 7:30 pm, 6.30pm, 7pm, half past 7, quarter to 8, 7 o'clock, noon, 中午12点,
midnight (中午 alone is a part of the day, no clock). Give NFKC-normalised text (full-width digits become ASCII). What it says:

- ``hour`` (0–23) when the words settle it: a 24-hour time (19:30), am/pm, or a part of the day (晚上/下午/傍晚/今晚/明晚
  are evening hours, 上午/早上/凌晨 morning ones, 中午 1–5 afternoon ones);
- a bare hour from 1 to 11 (7点, at 7, 7:30) is two readings, ``readings`` (7, 19), ``hour`` None: the reader that
  knows more (an evening word elsewhere, a venue's hours) picks one with ``settle``;
- ``minute``: 半 30, 一刻 15, 三刻 45, 7点30/七点三十/七点零五 as said. A number after the hour that counts something
  is no minute: the 两 of 7点两个人 is a party size, 7点3个人 too.

A time that cannot be (25:00, 7:75) is a phrase with ``valid`` False. Not clocks: 5点钟方向 is still 5 o'clock, but
一点 alone ("便宜一点", "a little") is no time unless a part of the day comes before it; 12.5公里 and 2.30 without am/pm
are no times (dates and quantities: core.phrases.dates).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Period = Literal["am", "pm", "noon", "night"]

#: a part of the day said before an hour, and which hours it means
PERIOD_WORDS: dict[str, Period] = {
    "凌晨": "am", "早上": "am", "早晨": "am", "上午": "am", "今早": "am", "明早": "am", "早": "am",
    "中午": "noon", "下午": "pm", "傍晚": "pm", "晚上": "night", "今晚": "night", "明晚": "night", "夜里": "night",
    "晚": "night",
}  # fmt: skip
_PERIOD = "|".join(sorted(PERIOD_WORDS, key=len, reverse=True))
_ZH_NUM = r"[0-9]{1,2}|[零〇一二两三四五六七八九十]{1,3}"
#: minutes after 点: 30, 三十, 零五, 十五 — never 两 (7点两个人 is a party), never a count (7点3个人)
_ZH_MIN = (
    r"半|一刻|三刻|[0-5][0-9]|[0-9]|[零〇][一二三四五六七八九]|[二三四五]?十[一二三四五六七八九]?|[一二三四五六七八九]"
)
#: a number after 点 that counts or measures something is no minute: 7点两个人, 3点 2.5小时, 2点 45分钟
_NOT_MINUTE_AFTER = r"(?![.\d])(?!\s*(?:个|位|人|名|口|张|小时|天|号|岁|大|小|家|间|份|块|元|次|桌|晚|夜|分钟|钟头))"
_EN_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
_EN_H = r"1[0-2]|0?[1-9]|" + "|".join(_EN_WORDS)
_AMPM = r"(?P<ap>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(p, re.I))
    for kind, p in [
        # 晚上7:30, 19:30, 7:30 pm, 7:30pm
        ("colon", rf"(?:(?P<per>{_PERIOD})\s*)?(?<![\d:])(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?![\d:])(?:\s*{_AMPM})?"),
        # 6.30pm, 7pm, 7 p.m. (a dot needs am/pm: 12.5 is a date or a quantity)
        ("ampm", rf"(?<![\d.:])(?P<h>\d{{1,2}})(?:\.(?P<m>\d{{2}}))?\s*{_AMPM}"),
        ("ampm", rf"(?<![a-z])(?P<h>{'|'.join(_EN_WORDS)})\s*{_AMPM}"),
        # 晚上七点半, 7点30分, 两点一刻, 七点零五
        (
            "zh",
            rf"(?:(?P<per>{_PERIOD})\s*)?(?P<h>{_ZH_NUM})\s*(?:点钟|点|时)(?:\s*(?P<m>{_ZH_MIN})(?:分(?!钟)|{_NOT_MINUTE_AFTER}))?",
        ),
        # half past 7, quarter past seven, quarter to 8, 20 past 7
        (
            "past",
            rf"(?<![a-z])(?P<q>half|(?:a\s+)?quarter|\d{{1,2}}|twenty|ten|five)\s+(?:minutes\s+)?(?P<dir>past|to|after)\s+"
            rf"(?P<h>{_EN_H})(?![\d:])(?:\s*(?:o'?clock))?(?:\s*{_AMPM})?",
        ),
        # 7 o'clock, seven o'clock in the evening
        ("oclock", rf"(?<![\d.:])(?P<h>{_EN_H})\s*o'?clock(?:\s*{_AMPM})?"),
        # noon is 12:00; 中午 alone is a part of the day (11–14), not a clock: the booking asks for the time
        ("noon", r"(?<![a-z])(?P<w>noon|midday|midnight|正午|午夜)(?![a-z])"),
        # at 7, at 7:30 handled above; "at 7" alone is a bare hour
        ("at", rf"(?<![a-z])(?:at|around|by)\s+(?P<h>{_EN_H})(?![\d:.]|\s*(?:people|persons|guests|pax|of|adults?|kids?)\b)"
               rf"(?![a-z])(?!\s*(?:am|pm|a\.m|p\.m|o'?clock))"),
    ]
]  # fmt: skip
_EVENING_AFTER = re.compile(r"^\s*(?:in the evening|at night|tonight|this evening)", re.I)
_MORNING_AFTER = re.compile(r"^\s*(?:in the morning|this morning)", re.I)
_AFTERNOON_AFTER = re.compile(r"^\s*(?:in the afternoon|this afternoon)", re.I)
#: words after the time that say its period ("7 in the evening"), tried in this order
_PERIOD_AFTER: tuple[tuple[re.Pattern[str], Period], ...] = (
    (_EVENING_AFTER, "night"),
    (_AFTERNOON_AFTER, "pm"),
    (_MORNING_AFTER, "am"),
)


@dataclass(frozen=True)
class ClockPhrase:
    """One time of day a text names; ``hour`` None when it is a bare hour with two ``readings``."""

    hour: int | None
    minute: int
    start: int
    end: int
    text: str
    readings: tuple[int, ...] = ()
    period: Period | None = None
    valid: bool = True

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    @property
    def hhmm(self) -> str | None:
        """ "19:30" when the hour is settled, else None."""
        return None if self.hour is None or not self.valid else f"{self.hour:02d}:{self.minute:02d}"

    def settle(self, *, evening: bool) -> int | None:
        """The hour, or the evening reading of a bare hour when ``evening`` (the text says dinner, tonight …)."""
        if self.hour is not None or not self.readings:
            return self.hour
        return self.readings[-1] if evening else None


#: a month's name beside bare numbers makes them days of a date, not a time: "from 10 to 12 Dec" is no 11:50, "Dec 10
#: to 12" none either (core.phrases.dates reads them as dates)
_MONTH = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_MONTH_AFTER = re.compile(rf"^(?:st|nd|rd|th)?\s*(?:of\s+)?(?:{_MONTH})[a-z]*\.?(?![a-z])", re.I)
_MONTH_BEFORE = re.compile(rf"(?<![a-z])(?:{_MONTH})[a-z]*\.?\s*(?:the\s+)?$", re.I)
#: the kinds of clock that are bare numbers (no am/pm, no 点, no colon): only these can be a date's days
_BARE_KINDS = ("past", "at")


def _a_date(kind: str, m: re.Match[str], text: str) -> bool:
    """The bare numbers matched are days of a month named beside them."""
    if kind not in _BARE_KINDS or m.groupdict().get("ap"):
        return False
    return bool(_MONTH_AFTER.match(text[m.end() :]) or _MONTH_BEFORE.search(text[: m.start()]))


def find_clocks(text: str) -> list[ClockPhrase]:
    """Every time of day in ``text``, in order and not overlapping (at one place the longest reading wins); bare
    numbers beside a month's name (10 to 12 Dec) are a date's days, no time."""
    found = sorted(
        ((m.start(), -(m.end() - m.start()), order, kind, m) for order, (kind, rx) in enumerate(_PATTERNS)
         for m in rx.finditer(text)),
        key=lambda f: f[:3],
    )  # fmt: skip
    out: list[ClockPhrase] = []
    for _, _, _, kind, m in found:
        if (out and m.start() < out[-1].end) or _a_date(kind, m, text):
            continue
        phrase = _read(kind, m, text)
        if phrase is not None:
            out.append(phrase)
    return out


def first_clock(text: str) -> ClockPhrase | None:
    clocks = find_clocks(text)
    return clocks[0] if clocks else None


def zh_int(token: str) -> int | None:
    """Digits or a Chinese numeral up to 99 (七, 十二, 二十八, 两, 零五); None when it is neither."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    digits = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"两": 2, "〇": 0}
    if not token or any(ch not in digits and ch != "十" for ch in token):
        return None
    if "十" not in token:
        if len(token) == 2 and token[0] in "零〇":
            return digits[token[1]]
        return digits[token] if len(token) == 1 else None
    tens, _, ones = token.partition("十")
    if len(tens) > 1 or len(ones) > 1:
        return None
    return (digits[tens] if tens else 1) * 10 + (digits[ones] if ones else 0)


def en_int(token: str) -> int | None:
    token = token.strip().lower()
    return int(token) if token.isdigit() else _EN_WORDS.get(token)


def _read(kind: str, m: re.Match[str], text: str) -> ClockPhrase | None:
    g = m.groupdict()
    start, end = m.span()
    period: Period | None = None
    if g.get("per"):
        period = PERIOD_WORDS[g["per"]]
    if g.get("ap"):
        period = "am" if g["ap"].lower().startswith("a") else "pm"

    def phrase(h: int | None, mi: int, *, valid: bool = True, readings: tuple[int, ...] = ()) -> ClockPhrase:
        return ClockPhrase(hour=h, minute=mi, start=start, end=end, text=text[start:end], readings=readings,
                           period=period, valid=valid)  # fmt: skip

    if kind == "noon":
        word = g["w"].lower()
        return phrase(0 if word in ("midnight", "午夜") else 12, 0)
    hour = zh_int(g["h"]) if kind == "zh" else en_int(g["h"]) if kind in ("past", "oclock", "at", "ampm") else None
    if kind == "colon":
        hour = int(g["h"])
    if hour is None:
        return None
    minute = 0
    if kind == "zh":
        said = g.get("m") or ""
        minute = {"半": 30, "一刻": 15, "三刻": 45}.get(said, -1)
        if minute < 0:
            minute = (zh_int(said) or 0) if said else 0
        if hour == 1 and g["h"] == "一" and period is None and not said:
            return None  # 便宜一点, 快一点: "a little", not one o'clock
    elif kind in ("colon", "ampm") and g.get("m"):
        minute = int(g["m"])
    elif kind == "past":
        q = g["q"].lower()
        n = 30 if q == "half" else 15 if "quarter" in q else (en_int(q) or 0)
        if g["dir"].lower() == "to":
            hour, minute = hour - 1, 60 - n
        else:
            minute = n
    if period is None:
        after = text[end:]
        for rx, per in _PERIOD_AFTER:
            if mm := rx.match(after):
                period, end = per, end + mm.end()
                break
    if not (0 <= hour <= 24 and 0 <= minute <= 59) or (kind in ("ampm", "past", "oclock") and not 0 <= hour <= 12):
        return phrase(None, minute, valid=False)
    if period in ("am",):
        return phrase(0 if hour == 12 else hour, minute)
    if period in ("pm", "night"):
        if hour == 12 and period == "night":
            return phrase(0, minute)  # 晚上12点 is midnight
        h = hour + 12 if hour < 12 else hour
        return phrase(h if h <= 23 else None, minute, valid=h <= 23)
    if period == "noon":
        return phrase(hour + 12 if 1 <= hour <= 5 else hour, minute)
    if hour == 24:
        return phrase(0, minute)
    if hour == 0 or hour >= 12:
        return phrase(hour, minute)
    return phrase(None, minute, readings=(hour, hour + 12))


#: 中午 said alone (no hour after it): noon, where a request needs a time of day (五天后中午, 中午出发)
_NOON_ALONE = re.compile(rf"(?:中午|正午)(?!\s*(?:{_ZH_NUM})\s*(?:点|时|:))")


def find_times_of_day(text: str) -> list[ClockPhrase]:
    """The clocks of ``find_clocks`` and, where a request needs a time of day (a booking's time, a day's start or
    end), 中午 said alone as 12:00 (a part of the day to the half-day goal, which reads it as 11–14), in order."""
    clocks = find_clocks(text)
    taken = [c.span for c in clocks]
    noons = [
        ClockPhrase(hour=12, minute=0, start=m.start(), end=m.end(), text=m.group(), period="noon")
        for m in _NOON_ALONE.finditer(text)
        if not any(a < m.end() and m.start() < b for a, b in taken)
    ]
    return sorted(clocks + noons, key=lambda c: c.start)
