"""Day phrases in Chinese and English text, read one way for every reader (issue 19): the agent's weather and trip
dates (core.agent.when), the booking reader (core.agent.booking) and the half-day goal (core.halfday.goal).

``find_days(text, today=...)`` lists every day a text names, in order, each with its date, its span in the text and
its kind; ``first_day`` is the first of them. The text is matched as given (case ignored; give NFKC-normalised text
so full-width letters match). What is read, against ``today``:

- relative days: 今天/今日/今早/今晚/今儿/today/tonight/this morning … (today), 明天/明日/明早/明晚/明儿/tomorrow (+1),
  后天/the day after tomorrow (+2), 大后天 (+3);
- days or weeks from today (``in_days``): 10天后, 三天以后, 5日之后, 两周后, 一个星期以后, in 6 days, in two weeks,
  4 days later, five days from now, a week from today (a count of days said without 后/later/from now, 3天, is a
  trip's length, never a date);
- weekdays: a bare one (周六, 星期天, 礼拜三, Saturday, on Saturday) is the coming one, today when today is that day
  (``assumed``); 这周六/本周六/this Saturday is that day of this week (past when this week's has gone by); 下周六/下个周六
  /next Saturday is that day of next week, 下下周六 the week after; 上周六/last Saturday that day of last week;
- the weekend: 周末/this weekend/这周末 is this week's Saturday (today on a Sunday), 下周末/next weekend next week's;
- dates: 2026-12-01, 2026年12月1日, 2026/12/1 (``date``); 12月1日, 十二月一号, 12月1, Dec 1, December 1st, 1 Dec,
  the 1st of December, 12.1, 12/1, 12-01 (``month_day``: the occurrence nearest today; a day only leap years have,
  2月29日, is the next one that exists); 28号, 28日, 二十八号, on the 3rd (``day_of_month``: this month's when it is
  today or later, else the next month that has it).

A date that cannot exist (2月30日, 13月1日, 2026-02-30) is a phrase with ``day=None``: the reader says so. Numbers
that only look like dates are no phrase: 5号线, 3号楼, 3日游, 12.5公里, 2/3 of, 10-12点, 上午10-12.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

DayKind = Literal["relative", "in_days", "weekday", "weekend", "date", "month_day", "day_of_month"]


@dataclass(frozen=True)
class DayPhrase:
    """One day a text names: ``day`` None when the words name a date that does not exist."""

    day: date | None
    start: int
    end: int
    text: str
    kind: DayKind
    assumed: bool = False  # a bare weekday or weekend, read as the coming one

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


# ---- words --------------------------------------------------------------------------------------------------------
RELATIVE_DAYS: list[tuple[str, int]] = [
    (r"大后天", 3),
    (r"后天|the day after tomorrow|day after tomorrow", 2),
    (r"明天|明日|明早|明晚|明儿|tomm?orr?ow|tmrw", 1),
    (r"今天|今日|今早|今晚|今儿|today|tonight|this morning|this afternoon|this evening", 0),
]
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
EN_WEEKDAYS = {
    d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
}
MONTHS = {
    m: i + 1
    for i, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
         ("december", "dec"))
    )
    for m in names
}  # fmt: skip
_CN = "〇一二两三四五六七八九十"
_N = rf"(?:\d{{1,2}}|[{_CN}]{{1,3}})"
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
#: what after "12.5" or "12/5" makes it a quantity, a fraction or a time, not a date
_NOT_AFTER_MONTH_DAY = (
    r"(?!\d|\s*(?:小时|个|岁|元|块|km|公里|%|折|倍|万|千|百|k(?![a-z])|分|米|点|时|:|hours?|hrs?|h(?![a-z])|stars?"
    r"|am(?![a-z])|pm(?![a-z])|a\.m|p\.m|o'?clock|of(?![a-z])))"
)
#: what after 28号 / 28日 makes it a number of something else: a metro line, a building, a gate, a 3-day tour …
_NOT_AFTER_DAY_NUMBER = (
    r"(?!\d|\s*(?:线|楼|门|口|馆|房|桌|位|店|座|厅|车|站|院|机|床|码|室|柜|包|窗|游|内|行|票|元|次))"
)
_PREFIX_ZH = r"这个|这|本|下下个?|下个|下|上个|上"
_EN_COUNT = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
_EN_N = rf"\d{{1,3}}|a|an|{'|'.join(_EN_COUNT)}"
#: the unit of a count of days or weeks: its days
_UNIT_DAYS = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "day": 1, "days": 1, "week": 7, "weeks": 7}
_PREFIX_EN = r"this coming|this|next|coming|last|on"
#: a clock word just before "10-12" makes it hours, not a date
_CLOCK_BEFORE = re.compile(r"(?:上午|下午|中午|晚上|早上|傍晚|from|between|at)\s*$", re.I)

_TH = r"(?:st|nd|rd|th)?"
_RANGE_JOIN_EN = r"\s*(?:-|–|—|~|to|till|until|through|thru|and)\s*(?:the\s+)?"
#: a range of days of one month (10-12 Dec, from 10 to 12 December, Dec 10 to 12, 12月10日到12日, 12月10-12日): the
#: first and the last day, each a ``month_day`` (the last in the next month when its number is smaller: 30 Dec–2)
_DAY_RANGES: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(rf"(?<![a-z])(?:{p})(?![a-z])", re.I))
    for kind, p in [
        # across two months, each named (30 Dec to 2 Jan, Nov 30 - Dec 2)
        ("dm", rf"(?<![\d.:/-])(?:the\s+)?(?P<d1>\d{{1,2}})(?P<t1>{_TH})\s+(?:of\s+)?(?P<mon>{_MONTH_NAMES})\.?"
               rf"{_RANGE_JOIN_EN}(?P<d2>\d{{1,2}}){_TH}\s+(?:of\s+)?(?P<mon2>{_MONTH_NAMES})\.?"),
        ("md", rf"(?P<mon>{_MONTH_NAMES})\.?\s+(?P<d1>\d{{1,2}})(?P<t1>{_TH}){_RANGE_JOIN_EN}(?P<mon2>{_MONTH_NAMES})\.?\s+"
               rf"(?P<d2>\d{{1,2}}){_TH}(?![\d:.])"),
        ("dm", rf"(?<![\d.:/-])(?:the\s+)?(?P<d1>\d{{1,2}})(?P<t1>{_TH}){_RANGE_JOIN_EN}(?P<d2>\d{{1,2}}){_TH}\s*(?:of\s+)?"
               rf"(?P<mon>{_MONTH_NAMES})\.?"),
        ("md", rf"(?P<mon>{_MONTH_NAMES})\.?\s+(?P<d1>\d{{1,2}}){_TH}{_RANGE_JOIN_EN}(?P<d2>\d{{1,2}}){_TH}"
               r"(?![\d:.])(?!\s*(?:a\.?m|p\.?m|o'?clock|h(?![a-z])|hours?|people|pax|persons?))"),
        ("zh", rf"(?<![\d.])(?P<mon>{_N})\s*月\s*(?P<d1>{_N})\s*[日号]?\s*(?:到|至|-|–|—|~|～)\s*(?:(?P<mon2>{_N})\s*月\s*)?"
               rf"(?P<d2>{_N})\s*[日号]"),
    ]
]  # fmt: skip

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(rf"(?<![a-z])(?:{p})(?![a-z])", re.I))
    for kind, p in [
        ("ymd", r"(?<!\d)(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)\s*[日号]?"),
        ("md_zh", rf"(?<![\d.])({_N})\s*月\s*({_N})(?!\d)\s*[日号]?"),
        ("md_en", rf"({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"),
        ("dm_en", rf"(?<![\d.])(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_NAMES})"),
        ("md_num", rf"(?<![\d.:/¥$￥-])(\d{{1,2}})[./](\d{{1,2}}){_NOT_AFTER_MONTH_DAY}"),
        ("md_dash", rf"(?<![\d.:/¥$￥~～-])(\d{{2}})-(\d{{2}}){_NOT_AFTER_MONTH_DAY}"),
        ("rel", "|".join(f"(?P<r{n}>{words})" for words, n in RELATIVE_DAYS)),
        ("in_zh", rf"(?<![第每\d{_CN}])(\d{{1,3}}|[{_CN}]{{1,3}})\s*个?\s*(天|日|周|星期|礼拜)\s*(?:以后|之后|后)"),
        ("in_en", rf"in\s+({_EN_N})\s+(days?|weeks?)(?:'?\s*time)?(?![a-z])"),
        ("in_en", rf"({_EN_N})\s+(days?|weeks?)\s+(?:later|from\s+(?:now|today))"),
        ("wd_zh", rf"({_PREFIX_ZH})?\s*(?:周|星期|礼拜)([一二三四五六日天])"),
        ("wd_en", rf"(?:({_PREFIX_EN})\s+)?({'|'.join(EN_WEEKDAYS)})"),
        ("we", rf"(?:({_PREFIX_ZH}|{_PREFIX_EN})\s*)?(?:the\s+)?(?:周末|weekend)"),
        ("dom_zh", rf"(?<![\d.月/-])(\d{{1,2}}|[{_CN}]{{1,3}})\s*号{_NOT_AFTER_DAY_NUMBER}"),
        ("dom_zh", rf"(?<![\d.月/-])(\d{{1,2}})\s*日{_NOT_AFTER_DAY_NUMBER}"),
        ("dom_en", r"on\s+the\s+(\d{1,2})(?:st|nd|rd|th)"),
    ]
]


# ---- reading ------------------------------------------------------------------------------------------------------
def find_days(text: str, *, today: date) -> list[DayPhrase]:
    """Every day phrase in ``text``, in order and not overlapping (at one place the longest reading wins)."""
    found = sorted(
        ((m.start(), -(m.end() - m.start()), order, kind, m) for order, (kind, rx) in enumerate(_PATTERNS)
         for m in rx.finditer(text)),
        key=lambda f: f[:3],
    )  # fmt: skip
    ranges = _day_ranges(text, today)
    out: list[DayPhrase] = []
    for _, _, _, kind, m in found:
        if (out and m.start() < out[-1].end) or any(r.start <= m.start() < r.end for r in ranges):
            continue
        phrase = _read(kind, m, text, today)
        if phrase is not None:
            out.append(phrase)
    for r in ranges:
        out += [r.first, r.last]
    return sorted(out, key=lambda p: p.start)


def day_range(text: str, *, today: date) -> tuple[date, date] | None:
    """The first range of days ``text`` names (10-12 Dec, 12月10日到12日): its first and last day, None when it names
    none, or one of its days cannot exist, or it runs backwards."""
    for r in _day_ranges(text, today):
        if r.first.day is not None and r.last.day is not None and r.last.day >= r.first.day:
            return r.first.day, r.last.day
    return None


@dataclass(frozen=True)
class _DayRange:
    first: DayPhrase
    last: DayPhrase
    start: int
    end: int


def _day_ranges(text: str, today: date) -> list[_DayRange]:
    """Each range of days of one month ``text`` names (``_DAY_RANGES``), as its first and last day."""
    out: list[_DayRange] = []
    for kind, rx in _DAY_RANGES:
        for m in rx.finditer(text):
            if any(r.start < m.end() and m.start() < r.end for r in out):
                continue
            month = _month_of(m["mon"], kind)
            d1, d2 = _int(m["d1"]), _int(m["d2"])
            if month is None or d1 is None or d2 is None or not (1 <= month <= 12 and 1 <= d1 <= 31 and 1 <= d2 <= 31):
                continue
            month2 = _month_of(m["mon2"], kind) if m.groupdict().get("mon2") else None
            if kind == "dm" and d2 < d1 and month2 is None:  # 30 to 2 Jan: the month said is the last day's
                last_said = _month_day(month, d2, today)
                if last_said is None:
                    continue
                before = last_said.replace(day=1) - timedelta(days=1)
                first = _month_day(before.month, d1, before) if d1 <= 31 else None
                out.append(_range(m, text, first, last_said))
                continue
            first = _month_day(month, d1, today)
            last = None
            if first is not None:
                year, mon = (first.year, month) if d2 >= d1 else (first.year + month // 12, month % 12 + 1)
                if month2 is not None:  # 12月30日到1月2日: the month said
                    year, mon = (first.year if month2 >= month else first.year + 1), month2
                try:
                    last = date(year, mon, d2)
                except ValueError:
                    last = None
            out.append(_range(m, text, first, last))
    return out


def _month_of(token: str, kind: str) -> int | None:
    """A month said as a name (Dec, January) or, in Chinese, as a number (12月)."""
    return MONTHS[token.lower().rstrip(".")] if kind != "zh" else _int(token)


def _range(m: re.Match[str], text: str, first: date | None, last: date | None) -> _DayRange:
    a, b = m.span()
    a += len(m.group()) - len(m.group().lstrip())
    d1_end = m.end("t1") if m.groupdict().get("t1") is not None else m.end("d1")
    if m.end("mon") < m.start("d2"):  # the first day's month said with it (30 Dec to 2 Jan): part of the first day
        d1_end = max(d1_end, m.end("mon"))
    d2_start = m.start("d2")
    if m.groupdict().get("mon2") is not None:  # the last day's month said before it (Dec 30 to Jan 2, 1月2日)
        d2_start = min(d2_start, m.start("mon2"))
    return _DayRange(
        first=DayPhrase(day=first, start=a, end=d1_end, text=text[a:d1_end], kind="month_day"),
        last=DayPhrase(day=last, start=d2_start, end=b, text=text[d2_start:b], kind="month_day"),
        start=a,
        end=b,
    )


def first_day(text: str, *, today: date) -> DayPhrase | None:
    """The first day ``text`` names (None when it names none)."""
    days = find_days(text, today=today)
    return days[0] if days else None


#: where a phrase is does not depend on the day it means: any fixed day will do (a leap year's, so 2月29日 reads)
_ANY_DAY = date(2028, 1, 3)


def mask_days(text: str, *, fill: str = " ", kinds: Container[DayKind] | None = None) -> str:
    """``text`` with every day phrase (of ``kinds``, when given) blanked (one ``fill`` per character), for readers of
    what else it says."""
    chars = list(text)
    for p in find_days(text, today=_ANY_DAY):
        if kinds is None or p.kind in kinds:
            chars[p.start : p.end] = fill * (p.end - p.start)
    return "".join(chars)


def _read(kind: str, m: re.Match[str], text: str, today: date) -> DayPhrase | None:
    start, end = m.span()
    while start < end and text[start].isspace():
        start += 1
    said = text[start:end]

    def phrase(day: date | None, what: DayKind, assumed: bool = False) -> DayPhrase:
        return DayPhrase(day=day, start=start, end=end, text=said, kind=what, assumed=assumed)

    g = m.groups()
    if kind in ("in_zh", "in_en"):
        count = _int(g[0]) if kind == "in_zh" else _en_count(g[0])
        if count is None:
            return None
        return phrase(today + timedelta(days=count * _UNIT_DAYS[g[1].lower()]), "in_days")
    if kind == "rel":
        n = next(RELATIVE_DAYS[i][1] for i, v in enumerate(g) if v is not None)
        return phrase(today + timedelta(days=n), "relative")
    if kind in ("wd_zh", "wd_en", "we"):
        prefix = (g[0] or "").strip().lower()
        if kind == "we":
            target = 5
        elif kind == "wd_zh":
            target = ZH_WEEKDAYS[g[1]]
        else:
            target = EN_WEEKDAYS[g[1].lower()]
        what: DayKind = "weekend" if kind == "we" else "weekday"
        monday = today - timedelta(days=today.weekday())
        if prefix in ("这个", "这", "本", "this"):
            if kind == "we" and today.weekday() == 6:
                return phrase(today, what)  # this weekend, said on its Sunday: today
            return phrase(monday + timedelta(days=target), what)
        if prefix.startswith("下下"):
            return phrase(monday + timedelta(days=14 + target), what)
        if prefix in ("下个", "下", "next"):
            return phrase(monday + timedelta(days=7 + target), what)
        if prefix in ("上个", "上", "last"):
            return phrase(monday - timedelta(days=7 - target), what)
        if kind == "we" and today.weekday() == 6:
            return phrase(today, what, assumed=True)
        return phrase(today + timedelta(days=(target - today.weekday()) % 7), what, assumed=True)
    if kind == "ymd":
        try:
            return phrase(date(int(g[0]), int(g[1]), int(g[2])), "date")
        except ValueError:
            return phrase(None, "date")
    if kind in ("dom_zh", "dom_en"):
        nth = _int(g[0])
        if nth is None or not 1 <= nth <= 31:
            return None
        return phrase(_day_of_month(nth, today), "day_of_month")
    if kind == "md_en":
        month, day = MONTHS[g[0].lower()], _int(g[1])
    elif kind == "dm_en":
        month, day = MONTHS[g[1].lower()], _int(g[0])
    else:
        if kind == "md_dash" and _CLOCK_BEFORE.search(text[: m.start()]):
            return None  # 上午10-12, from 10-12: hours
        month_or_none, day = _int(g[0]), _int(g[1])
        if month_or_none is None or day is None or not 1 <= month_or_none <= 12:
            return (
                None
                if kind in ("md_num", "md_dash") or month_or_none is None or day is None
                else phrase(None, "month_day")
            )
        month = month_or_none
    if day is None or not 1 <= day <= 31:
        return None if kind in ("md_num", "md_dash") else phrase(None, "month_day")
    return phrase(_month_day(month, day, today), "month_day")


def _en_count(token: str) -> int | None:
    """'6' -> 6, 'six' -> 6, 'a'/'an' -> 1."""
    token = token.lower()
    if token.isdigit():
        return int(token)
    return 1 if token in ("a", "an") else _EN_COUNT.get(token)


def _int(token: str) -> int | None:
    """Digits or a Chinese numeral up to 99 (十二, 二十八, 三十一, 两); None when it is neither."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    digits = {ch: i for i, ch in enumerate("〇一二三四五六七八九")} | {"两": 2}
    if not token or any(ch not in digits and ch != "十" for ch in token):
        return None
    if "十" not in token:
        return digits[token] if len(token) == 1 else None
    tens, _, ones = token.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return None
    return (digits[tens] if tens else 1) * 10 + (digits[ones] if ones else 0)


def _month_day(month: int, day: int, today: date) -> date | None:
    """The month and day nearest ``today`` (last year's, this year's or next year's); a day only leap years have is
    the next one that exists; None when it never exists (2月30日)."""
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    if options:
        return min(options, key=lambda d: (abs((d - today).days), d < today))
    for year in range(today.year + 2, today.year + 9):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return None


def _day_of_month(n: int, today: date) -> date | None:
    """The ``n``-th of this month when that is today or later, else of the next month that has it."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            d = date(year, month, n)
        except ValueError:
            d = None
        if d is not None and d >= today:
            return d
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None
