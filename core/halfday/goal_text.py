"""Small text helpers shared by the goal parser's modules (core/halfday/goal.py, goal_who.py)."""

from __future__ import annotations

import re

from core.halfday import goal_lexicon as lx


def _rx(alternatives: str) -> re.Pattern[str]:
    """Alternatives matched between non-letters (``park`` is not found in ``parking``; Chinese needs no boundary)."""
    return re.compile(rf"(?<![a-z])(?:{alternatives})(?![a-z])")


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _num(token: str | None) -> float | None:
    """Digits, Chinese numerals (两百, 十二, 三百五) or an English number word; None when it is no number."""
    if not token:
        return None
    token = token.strip()
    if token in lx.EN_NUMBERS:
        return float(lx.EN_NUMBERS[token])
    if re.fullmatch(r"\d+(?:\.\d+)?", token):
        return float(token) if len(token) <= 12 else None
    total, digit, last_unit, prev_unit = 0, 0, 0, False
    for ch in token:
        if ch in lx.CN_VALUES:
            digit, prev_unit = lx.CN_VALUES[ch], False
        elif ch in lx.CN_UNITS:
            total += (digit or 1) * lx.CN_UNITS[ch]
            digit, last_unit, prev_unit = 0, lx.CN_UNITS[ch], True
        else:
            return None
    if digit and last_unit >= 100 and not prev_unit and len(token) >= 2 and token[-2] in lx.CN_UNITS:
        return float(total + digit * last_unit // 10)  # 三百五 = 350
    return float(total + digit)


def _negated(low: str, pos: int) -> bool:
    """A negation (不想, 别, no, don't, avoid …) in the same clause shortly before ``pos``."""
    before = low[max(0, pos - 14) : pos]
    breaks = list(re.finditer(lx.CLAUSE_BREAK, before))
    if breaks:
        before = before[breaks[-1].end() :]
    return bool(re.search(lx.NEGATORS_ZH, before) or _rx(lx.NEGATORS_EN).search(before))


_PARTS_RX = _rx("|".join(f"(?P<{part}_{i}>{words})" for i, (words, part) in enumerate(lx.PART_WORDS)))


def _parts(low: str) -> list[tuple[str, re.Match[str]]]:
    """(part of the day, match) for each part named: the group's name says which part."""
    return [(next(k for k, v in m.groupdict().items() if v).rsplit("_", 1)[0], m) for m in _PARTS_RX.finditer(low)]
