"""Which meal a food wish is said for (issue 31 leftover): the words of its own clause. A wish said with evening or
dinner words (晚饭, 晚上, 夜宵, dinner, tonight, supper) is a dinner; any other is a lunch, the meal a day of sights
has room for. Standard library only (core/phrases)."""

from __future__ import annotations

import re
from typing import Literal

MealSaid = Literal["lunch", "dinner"]

#: where one wish's clause ends: punctuation, or a joining word between two wishes (and, then, 然后, 还有)
_CLAUSE_BREAK = re.compile(r"[,，。.;；!！?？、\n]|\band\b|\bthen\b|\bbut\b|然后|还有|另外|但是|不过")
_DINNER = re.compile(
    r"晚饭|晚餐|晚上|傍晚|夜宵|宵夜|夜里|今晚|明晚|晚间"
    r"|\bdinners?\b|\bsuppers?\b|\bevenings?\b|\btonight\b|\bnight\b|\blate[- ]night\b",
    re.I,
)
_LUNCH = re.compile(r"午饭|午餐|中午|中饭|\blunch(es)?\b|\bnoon\b|\bmidday\b", re.I)


def _clause(text: str, at: int, length: int) -> str:
    """The clause of ``text`` holding ``text[at:at + length]``."""
    start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, at)), default=0)
    stop = next((m.start() for m in _CLAUSE_BREAK.finditer(text, at + length)), len(text))
    return text[start:stop]


def meal_named(text: str, phrase: str) -> MealSaid | None:
    """The meal the clause of ``phrase`` names in words (中午去素心斋, dinner at Lost Heaven), else None."""
    low, needle = text.lower(), phrase.lower().strip()
    at = low.find(needle) if needle else -1
    if at < 0:
        return None
    clause = _clause(low, at, len(needle))
    if _LUNCH.search(clause):
        return "lunch"
    return "dinner" if _DINNER.search(clause) else None


def meal_said(text: str, phrase: str) -> MealSaid:
    """The meal the wish said as ``phrase`` in ``text`` is for: dinner when its clause says evening or dinner (and
    not lunch), else lunch. A phrase not found in the text reads the whole text."""
    low, needle = text.lower(), phrase.lower().strip()
    at = low.find(needle) if needle else -1
    clause = _clause(low, at, len(needle)) if at >= 0 else low
    return "dinner" if _DINNER.search(clause) and not _LUNCH.search(clause) else "lunch"
