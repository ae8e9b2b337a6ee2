"""What a person says they want after a verb of wanting (吃, 去, try, go, a list after a colon) that no reader of
the message took: kept in their own words as a wish not understood, never dropped. Shared by the half-day
planner's goal reader (core/halfday/goal_wishes.py) and the agent's trip wishes (core/agent/trip_wishes.py).
"""

from __future__ import annotations

import re

from core.phrases import wish_lexicon as wx

_WANT_ZH = re.compile(rf"(?:{wx.WANT_VERBS_ZH})")
_DOING_ZH = re.compile(rf"(?:{wx.DOING_VERBS_ZH})")
_WANT_EN = re.compile(rf"(?<![a-z])(?:{wx.WANT_VERBS_EN})\s+|{wx.LIST_START_EN}")
_END_ZH, _END_EN = re.compile(wx.WANT_END_ZH), re.compile(wx.WANT_END_EN)
_QUALITIES = re.compile(wx.QUALITIES)
MAX_UNREAD_CHARS = 24
Span = tuple[int, int]


def unread(low: str, taken: list[Span]) -> list[tuple[int, str]]:
    """(position, words) of each thing said after a verb of wanting that no reader took."""
    out: list[tuple[int, str]] = []
    covered = [False] * len(low)
    for a, b in taken:
        for i in range(max(0, a), min(len(low), b)):
            covered[i] = True
    for m in _QUALITIES.finditer(low):  # read first: a thing wanted is not read through them (吃顿浪漫的晚餐)
        if not any(covered[m.start() : m.end()]):
            out.append((m.start(), re.sub(r"^with\s+", "", m.group(0))))
            covered[m.start() : m.end()] = [True] * (m.end() - m.start())
    carry = ""  # a doing verb before another (学做包子): said with it
    for m in _WANT_ZH.finditer(low):
        start, verb, carry = m.end(), carry + m.group(0), ""
        while start < len(low) and low[start] in wx.MEASURES_ZH:  # 喝杯咖啡, 吃顿火锅: the thing is after the measure
            start += 1
        end = _END_ZH.search(low, start)
        stop = min(end.start() if end else len(low), start + 8)
        words = _uncovered(low, start, stop, covered)
        if words and _DOING_ZH.match(words):  # a doing verb follows (去滑冰, 学做包子): its own match says it
            carry = verb if _DOING_ZH.fullmatch(verb[-1:]) or _DOING_ZH.fullmatch(verb[-2:]) else ""
            continue
        if (
            not words
            or words in wx.FILLERS_ZH
            or not re.search(r"[\u4e00-\u9fff]", words)
            or _modifies(low, start, words, covered)
        ):
            continue
        out.append((m.start(), verb + words if _DOING_ZH.search(verb) else words))
    for m in _WANT_EN.finditer(low):
        start = m.end()
        end = _END_EN.search(low, start)
        stop = min(end.start() if end else len(low), start + MAX_UNREAD_CHARS)
        raw = _uncovered(low, start, stop, covered)
        if _modifies(low, start, raw, covered):
            continue
        words = re.sub(wx.DETERMINERS_EN, "", raw)
        words = " ".join(w for w in words.split() if w not in wx.FILLERS_EN)
        if len(words) >= 3 and re.fullmatch(r"[a-z][a-z' -]*", words) and not _WANT_EN.match(words + " "):
            out.append((start, words))
    seen: set[str] = set()
    return [(at, w) for at, w in out if not (w in seen or seen.add(w))]  # type: ignore[func-returns-value]


def _modifies(low: str, start: int, words: str, covered: list[bool]) -> bool:
    """The words run straight into something another reader took (craft beer, bubble tea): they describe it."""
    end = low.find(words, start) + len(words) if words else start
    while end < len(low) and low[end] == " ":
        end += 1
    return bool(words) and end < len(low) and covered[end] and len(words.split()) <= 2 and len(words) <= 12


def _uncovered(low: str, start: int, stop: int, covered: list[bool]) -> str:
    """The words from ``start`` up to the first one another reader took (or ``stop``)."""
    end = start
    while end < stop and not covered[end]:
        end += 1
    return low[start:end].strip()
