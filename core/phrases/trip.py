"""What a trip request says about its days, in Chinese and English (issue 22 §1), for the agent's trip request
(core.agent.trip_request) and the slot benchmark.

- ``find_day_count``: how many days — 两天, 3天2夜, 三日游, 五日行, 2-day, 3 days, one-day, a day trip, a weekend trip
  (2), a day in …, a full day of …. Not counts: 第一天 (a day of the trip), 明天/今天, 每天, 这两天 (these days),
  两天后 (a date), 3日 (a date).
- ``find_day_assignments``: the parts of the text said for one day — "第一天外滩和豫园，第二天迪士尼", "D1：…", "day 1:
  the Bund; day 2 …", "first day …", "on the second day we …", "the Bund and Yu Garden on day 1", "外滩放第一天",
  最后一天 / the last day (``last``), 次日 / the next day (the day after the one said before), "… on the third".
  Each assignment's span is the words that belong to the day (the caller finds the places in them).
- ``find_start``: where the days start — 从酒店出发, 从人民广场出发, 住在静安寺附近, starting from People's Square,
  staying at the Peace Hotel, from our hotel. ``name_span`` is the place as said (empty for "the hotel").

Give NFKC-normalised text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.phrases.clock import en_int, zh_int


@dataclass(frozen=True)
class DayCountPhrase:
    days: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class DayAssignment:
    """The words said for one day of the trip: ``day`` is 1-based; ``last`` for 最后一天 / the last day (day None)."""

    day: int | None
    start: int  # the words for the day (the marker excluded)
    end: int
    marker: str
    last: bool = False

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


@dataclass(frozen=True)
class StartPhrase:
    """Where the days start: ``name_start``/``name_end`` the place as said; ``hotel`` for "the hotel" itself."""

    start: int
    end: int
    text: str
    name_start: int
    name_end: int
    hotel: bool = False

    @property
    def name(self) -> str:
        return self.text[self.name_start - self.start : self.name_end - self.start]


_ZN = r"[0-9]{1,2}|[一二两三四五六七八九十]{1,3}"
_EN = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
_EN_EXTRA = {"thirteen": 13, "fourteen": 14}
_ORD = {o: i + 1 for i, o in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_ORD_RX = "|".join(_ORD) + r"|1st|2nd|3rd|[4-9]th|10th"

_COUNTS = [
    re.compile(p, re.I)
    for p in (
        rf"(?<![第每明今后前这那当昨0-9一二两三四五六七八九十])(?P<n>{_ZN})\s*(?:个)?(?:整)?天(?!后|前|之后|以后|之前|以前|内)",
        rf"(?<![第每0-9一二两三四五六七八九十])(?P<n>{_ZN})\s*日(?=游|行|之旅|自由行|深度游|行程)",
        rf"(?<![a-z0-9])(?P<n>{_EN})[-\s]?days?(?![a-z])(?!\s*(?:ago|later|from now|before|after))",
        r"(?<![a-z])(?P<one>(?:a\s+)?day[-\s]trip|day\s+out|(?:a|one)\s+(?:(?:full|whole|family|relaxed|lazy|rainy|sunny|quiet|busy|fun|long|short|free)\s+){0,2}day"
        r"(?=\s+(?:in|at|around|of|exploring|sightseeing|touring|walking|seeing)\b))(?![a-z])",
        r"(?P<we>weekend\s+(?:trip|getaway|break|in)|周末(?:游|行程|两天|出游|旅行|玩)|一个周末)",
    )
]

_MARK_ZH = (
    rf"第\s*(?P<zn>{_ZN})\s*[天日]|(?P<zfirst>头一天|首日)|(?P<zlast>最后一天|最后1天)|(?P<znext>次日|隔天|隔日|翌日)"
    rf"|(?<![a-z])[dD](?P<dn>[0-9]{{1,2}})(?![0-9a-z])"
)
_MARK_EN = (
    rf"(?<![a-z])(?:on\s+|for\s+)?(?:the\s+)?(?:day\s*(?P<en>{_EN})(?![a-z0-9])|(?P<ord>{_ORD_RX})\s+day|(?P<elast>last)\s+day"
    r"|(?P<enext>(?:next|following)\s+day|day\s+after(?!\s+tomorrow)))"
    # "… on the second day and the Bund on the third": an ordinal said bare, only after "on the" and before the end
    rf"|(?<![a-z])on\s+the\s+(?P<obare>{_ORD_RX})(?=\s*(?:[,.;!?，。；]|$|and\b|then\b))"
)
_MARK = re.compile(rf"(?:{_MARK_ZH})|(?:{_MARK_EN})", re.I)
#: after a marker: words that only introduce the day (第一天：, day 1 -, on the first day we'll see)
_LEAD = re.compile(
    r"^[\s:：,，\-–—]*(?:(?:we(?:'ll| will)?|i(?:'d| would)?\s+like to|i want to|let's|let us|want to|wanna|"
    r"去|想去|要去|先去|逛|玩|安排|看)\s*)*",
    re.I,
)
#: a marker said after its day's words: "the Bund and Yu Garden on day 1", "外滩放第一天", "豫园安排在第二天"
_TRAILING_BEFORE = re.compile(r"(?:on|for|在|放|放在|排|排在|安排在|安排)\s*$", re.I)
_CLAUSE_END = re.compile(r"[,，;；。.!！?？\n]")

_START = [
    (re.compile(p, re.I), hotel)
    for p, hotel in (
        (r"从(?:我们?的?|咱们?的?)?(?:酒店|宾馆|住处|住的地方)(?:出发|开始)", True),
        (r"(?:starting|start|leaving|setting off|departing|depart|leave)\s+(?:out\s+)?from\s+(?:my|our|the)\s+hotel", True),
        (r"从(?P<name>[^,，。;；!！?？\s]{2,20}?)(?:出发|开始)", False),
        (r"(?:起点|出发点|出发地)(?:是|为|在|:|：)\s*(?P<name>[^,，。;；!！?？\s]{2,20})", False),
        (r"(?:住在|住|酒店在|住的地方在|下榻|下榻在)(?P<name>[^,，。;；!！?？\s]{2,20}?)(?:附近|旁边|边上|那边|那儿|一带)?"
         r"(?=[,，。;；!！?？\s]|$)", False),
        (r"(?:starting|start|leaving|setting off|departing|depart)\s+(?:out\s+)?(?:from|at)\s+"
         r"(?P<name>[^,;.!?]{3,40}?)(?=\s*(?:[,;.!?]|$|\band\b|\bthen\b|\bto\b|\bon\b|\bfor\b))", False),
        (r"(?:staying|we're staying|we are staying|i'm staying|i am staying|our hotel is|my hotel is|hotel is)\s+"
         r"(?:at|in|near|by)?\s*(?P<name>[^,;.!?]{3,40}?)(?=\s*(?:[,;.!?]|$|\band\b|\bthen\b|\bon\b|\bfor\b))", False),
    )
]  # fmt: skip


def find_day_count(text: str) -> DayCountPhrase | None:
    """The trip's number of days (1–30), the first said; None when the text says none."""
    best: tuple[int, int, int] | None = None
    for rx in _COUNTS:
        for m in rx.finditer(text):
            g = m.groupdict()
            if g.get("one"):
                n: int | None = 1
            elif g.get("we"):
                n = 2
            else:
                raw = g["n"]
                n = zh_int(raw) if not raw.isascii() or raw.isdigit() else (en_int(raw) or _EN_EXTRA.get(raw.lower()))
            if n is not None and 1 <= n <= 30 and (best is None or m.start() < best[1]):
                best = (n, m.start(), m.end())
            break
    if best is None:
        return None
    return DayCountPhrase(days=best[0], start=best[1], end=best[2], text=text[best[1] : best[2]])


def find_day_assignments(text: str) -> list[DayAssignment]:
    """The words said for each day, in order (see the module doc)."""
    marks = list(_MARK.finditer(text))

    def trailing_style(k: int) -> bool:
        m = marks[k]
        before = text[marks[k - 1].end() if k else 0 : m.start()]
        return bool(_TRAILING_BEFORE.search(before) or re.match(r"\s*(?:on|for)\s", m.group(0), re.I))

    out: list[DayAssignment] = []
    for i, m in enumerate(marks):
        day, last = _day_of(m)
        if m.group("znext") or m.group("enext"):  # 次日 / the next day: the day after the one said before it
            day = (out[-1].day or 0) + 1 if out else 2
        if day is None and not last:
            continue
        prev_end = marks[i - 1].end() if i else 0
        nxt = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        after = text[m.end() : nxt]
        clause = _CLAUSE_END.search(after)
        words_after = after[: clause.start() if clause else len(after)].strip(" \t:：-–—")
        before = text[prev_end : m.start()]
        cut = max((c.end() for c in _CLAUSE_END.finditer(before)), default=0)
        words_before = re.sub(r"^\s*(?:and|then|和|然后|再)\b", "", before[cut:], flags=re.I).strip()
        next_trailing = i + 1 < len(marks) and trailing_style(i + 1)
        if trailing_style(i) and words_before and (not words_after or next_trailing):
            start, end = prev_end + cut, m.start()  # the day's words come before its marker
        else:
            lead = _LEAD.match(after)
            start, end = m.end() + (lead.end() if lead else 0), nxt
            if next_trailing and clause:  # "day 2 Yu Garden, and Tianzifang on the last day": up to the clause end
                end = m.end() + clause.start()
        out.append(DayAssignment(day=day, start=start, end=max(start, end), marker=m.group(0).strip(), last=last))
    return out


def _day_of(m: re.Match[str]) -> tuple[int | None, bool]:
    g = m.groupdict()
    if g.get("zlast") or g.get("elast"):
        return None, True
    if g.get("zn"):
        return zh_int(g["zn"]), False
    if g.get("dn"):
        return int(g["dn"]), False
    if g.get("en"):
        return en_int(g["en"]) or _EN_EXTRA.get(g["en"].lower()), False
    if g.get("ord") or g.get("obare"):
        o = (g.get("ord") or g["obare"]).lower()
        return _ORD.get(o) or int(re.sub(r"\D", "", o)), False
    return (1, False) if g.get("zfirst") else (None, False)


def find_start(text: str) -> StartPhrase | None:
    """Where the text says the days start; None when it does not."""
    best: StartPhrase | None = None
    for rx, hotel in _START:
        m = rx.search(text)
        if m is None or (best is not None and m.start() >= best.start):
            continue
        a, b = m.span("name") if not hotel else (m.start(), m.start())
        best = StartPhrase(start=m.start(), end=m.end(), text=m.group(0), name_start=a, name_end=b, hotel=hotel)
    return best
