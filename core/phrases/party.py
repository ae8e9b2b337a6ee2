"""Party sizes in Chinese and English text, read one way for every reader (issue 22 §1): the booking reader
(core.agent.booking) and the half-day goal (core.halfday.goal).

``find_party(text)`` is the first party a text names, with its span: 两个人, 两位, 3人, 四口人, 一家三口, 我们四个,
2大1小, 两个大人一个孩子, 我们俩, 两口子, for 3 people, 3 guests, a table for two, party of 4, 2 adults and 1 child,
the two of us, just me. Give NFKC-normalised text. ``size`` is everyone; ``adults`` and ``children`` when the text
counts them apart. Not parties: 人均200 (a price per head), 3人份, 人民广场, 7点两 (a clock: core.phrases.clock).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.phrases.clock import en_int, zh_int


@dataclass(frozen=True)
class PartyPhrase:
    size: int
    start: int
    end: int
    text: str
    adults: int | None = None
    children: int | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


_ZN = r"[0-9]{1,2}|[一二两三四五六七八九十]{1,3}"
_EN = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_KID_ZH = r"(?:个)?(?:小孩|孩子|儿童|小朋友|娃|宝宝)"
_ADULT_ZH = r"(?:个)?(?:大人|成人|成年人)"
_KID_EN = r"(?:child|children|kids?|toddlers?|bab(?:y|ies))"
_ADULT_EN = r"(?:adults?|grown-?ups?)"
_NOT_AFTER_PEOPLE = r"(?!均|民|次|份|以上|以下|左右的?(?:餐|桌)|座(?:的|位)?车)"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(p, re.I))
    for kind, p in [
        ("split", rf"(?P<a>{_ZN})\s*{_ADULT_ZH}\s*[,，、和加带]?\s*(?P<c>{_ZN})\s*{_KID_ZH}"),
        ("split", rf"(?<![0-9])(?P<a>{_ZN})\s*大\s*(?P<c>{_ZN})\s*小"),
        ("split", rf"(?<![a-z])(?P<a>{_EN})\s+{_ADULT_EN}\s*(?:,|and|&|\+|with|plus)?\s*(?P<c>{_EN})\s+{_KID_EN}"),
        ("n", rf"一家(?P<n>{_ZN})口"),
        ("n", rf"(?:我们一行|咱们一行|一行|我们|咱们)(?P<n>{_ZN})\s*(?:个人|个|位|人|口)(?!点|天|日|号|晚|夜)"),
        ("n", rf"(?<![0-9:.])(?<!周)(?<!星期)(?<!礼拜)(?P<n>{_ZN})\s*(?:个人|口人|人|位|名|张(?!桌)|口)(?!\s*(?:的?(?:房|间)))"
              rf"{_NOT_AFTER_PEOPLE}"),
        ("two", r"我们?俩|咱们?俩|两口子|小两口|情侣|夫妻|我和(?:我)?(?:老婆|老公|女朋友|男朋友|爱人|太太|先生)"
                r"|\bcouple\b|\bthe two of us\b|\bmy (?:wife|husband|partner|girlfriend|boyfriend) and i\b"),
        ("one", r"一个人|就我一个|我自己|独自|\bjust me\b|\bonly me\b|\bmyself\b|\bsolo\b|\bby myself\b"),
        ("n", rf"(?<![a-z])(?P<n>{_EN})\s+(?:people|persons|guests|adults|pax|diners|tickets?|seats?|of us)\b"),
        ("n", rf"\b(?:party|group|family) of (?P<n>{_EN})\b"),
        ("n", rf"\btable for (?P<n>{_EN})\b"),
        ("n", rf"\bfor (?P<n>{_EN})\b(?![-:/.]\d)"
              r"(?!\s*(?:am|pm|a\.m|p\.m|o'?clock|nights?|days?|hours?|minutes?|mins?|weeks?|:|st|nd|rd|th)\b)"),
    ]
]  # fmt: skip


def find_party(text: str) -> PartyPhrase | None:
    """The first party ``text`` names (at one place the longest reading wins); None when it names none."""
    found = sorted(
        ((m.start(), -(m.end() - m.start()), order, kind, m) for order, (kind, rx) in enumerate(_PATTERNS)
         for m in rx.finditer(text)),
        key=lambda f: f[:3],
    )  # fmt: skip
    for _, _, _, kind, m in found:
        phrase = _read(kind, m, text)
        if phrase is not None:
            return phrase
    return None


def _n(token: str) -> int | None:
    return zh_int(token) if not token.isascii() or token.isdigit() else en_int(token)


def _read(kind: str, m: re.Match[str], text: str) -> PartyPhrase | None:
    start, end = m.span()
    said = text[start:end]
    if kind == "two":
        return PartyPhrase(2, start, end, said)
    if kind == "one":
        return PartyPhrase(1, start, end, said)
    if kind == "split":
        a, c = _n(m.group("a")), _n(m.group("c"))
        if a is None or c is None or not 1 <= a + c <= 99:
            return None
        return PartyPhrase(a + c, start, end, said, adults=a, children=c)
    n = _n(m.group("n"))
    if n is None or not 1 <= n <= 99:
        return None
    return PartyPhrase(n, start, end, said)
