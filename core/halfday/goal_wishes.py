"""Stage 1, what the goal asks for: every wish, each with the words it was read from (core/models/halfday/goal.py
``Wish``). Cuisines, drinks and diets are read here; activities, sights, shopping, food and kids' activities come
from the preferences stage 1 found (core/halfday/goal_who.py); a party with children adds their need of places that
suit them. What follows a verb of wanting (吃, 去, try, go …) and was read by nothing is kept as an ``unread`` wish:
it is never dropped, and never counted as met.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.halfday import goal_lexicon as lx
from core.halfday.goal_text import _mask, _negated, _parts, _rx
from core.models.halfday.goal import WISH_KINDS, Party, Wish, WishKind
from core.phrases import wish_lexicon as wx
from core.phrases.clock import find_clocks
from core.phrases.unread_wishes import unread as _unread

_CUISINE_RX = {code: _rx(words) for code, words in wx.CUISINES.items()}
_DRINK_RX = {code: _rx(words) for code, words in wx.DRINKS.items()}
_PREF_RX = {code: _rx(f"{zh}|{en}") for code, (zh, en) in lx.PREFERENCES.items()}
_DIET_RX = {code: _rx(words) for code, words in lx.DIETS.items()}
_LIMITS = [_rx(p) for table in (lx.MOBILITY, lx.WEATHER, lx.TRANSPORT) for p in table.values()]
_EAT_NEAR = _rx(wx.EAT_NEAR)
#: diets that only forbid: a limit, never a meal to have
LIMIT_DIETS = ("no_spicy", "no_alcohol")
#: a diet said of who someone is (I'm vegan, 我是素食者, a vegetarian friend, 穆斯林): a limit unless a meal is asked
_WHO_BEFORE = re.compile(
    r"(?:(?<![a-z])(?:i'm|i am|im|we're|we are|he's|she's|they're|is|are|being|as an?)|是|作为|都是)"
    r"\s*(?:(?:a|an|strict|all|both|fully)\s+)?$"
)
_WHO_AFTER = re.compile(r"(?:者|主义|的朋友|朋友|ians?(?![a-z])|s(?![a-z])|\s+(?:friends?|guests?|people|family))")
_WHO_WORDS = re.compile(r"穆斯林|muslim")
_MEAL_WORDS = _rx(r"吃|餐|饭|eat|eating|lunch|dinner|breakfast|brunch|meal|food|restaurant")
Span = tuple[int, int]


def read_wishes(
    low: str,
    *,
    preferences: Sequence[str],
    diets: Sequence[str],
    party: Party,
    named_places: list[str],
    read_spans: list[Span],
) -> list[Wish]:
    """The goal's wishes in the order they are said. ``low`` is the normalised, lower-cased goal; ``read_spans`` are
    the words the other readers took (the window, the budget, the party), so they are no unread wish."""
    found: list[tuple[int, Wish]] = []
    taken: list[Span] = list(read_spans)
    diet_spans = [m.span() for rx in _DIET_RX.values() for m in rx.finditer(low)]
    limit_spans = [m.span() for rx in _LIMITS for m in rx.finditer(low)]
    plain = _mask(low, diet_spans)  # 不喝酒 is a diet, not a wish for a drink
    for name in (n for n in named_places if n.strip()):
        spans = [m.span() for m in re.finditer(re.escape(name.lower()), low)]
        found.append((spans[0][0] if spans else len(low), Wish(kind="place", code=name[:40], phrase=name[:80])))
        taken += spans
    for kind, table in (("cuisine", _CUISINE_RX), ("drink", _DRINK_RX)):
        for code, rx in table.items():
            said = [m for m in rx.finditer(plain) if not _overlaps(m.span(), taken) and not _negated(plain, m.start())]
            if said:  # one wish; every place it is said is read (清吧…精酿)
                taken += [m.span() for m in said]
                found.append((said[0].start(), Wish(kind=_kind(kind), code=code, phrase=said[0].group(0).strip())))
    for code in preferences:
        free = [m for m in _PREF_RX[code].finditer(_mask(plain, limit_spans)) if not _overlaps(m.span(), taken)]
        if not free:  # its words are a cuisine's or a drink's (本帮菜, 下午茶): that wish says it
            taken += [m.span() for m in _PREF_RX[code].finditer(low)]
            continue
        m = free[0]
        taken.append(m.span())
        found.append((m.start(), Wish(kind=_kind(wx.PREFERENCE_KIND.get(code, "activity")), code=code,
                                      phrase=m.group(0).strip())))  # fmt: skip
    for code in diets:
        diet_words = _DIET_RX[code].search(low)
        at = diet_words.start() if diet_words else len(low)
        phrase = diet_words.group(0).strip() if diet_words else ""
        found.append((at, Wish(kind="diet", code=code, phrase=phrase, eat=_eats(low, code, diet_words))))
    taken += diet_spans + limit_spans
    if party.children:
        child = _rx(f"{lx.CHILD_ZH}|{lx.CHILD_EN}").search(low)
        found.append((child.start() if child else len(low), Wish(kind="kids", code="child_suitable",
                                                                  phrase=child.group(0) if child else "")))  # fmt: skip
    taken += [
        m.span()
        for p in (lx.CHILD_ZH, lx.CHILD_EN, lx.FRIEND_ZH, lx.FRIEND_EN, lx.SPOUSE)
        for m in _rx(p).finditer(low)
    ]
    taken += [m.span() for _, m in _parts(low)] + [c.span for c in find_clocks(low)]
    found += [(at, Wish(kind="unread", phrase=phrase)) for at, phrase in _unread(low, taken)]
    if any(w.kind == "cuisine" or (w.kind == "diet" and w.eat) for _, w in found):
        # "eat sushi", "a vegetarian lunch": the cuisine or the diet's meal is the wish, not eating at all
        found = [(at, w) for at, w in found if not (w.kind == "food" and w.code == "food")]
    return [w for _, w in sorted(found, key=lambda f: f[0])]


def _eats(low: str, code: str, said: re.Match[str] | None) -> bool:
    """A diet said is a wish to eat that way (a vegan bite, 吃素食, halal food): it is met only by a meal that keeps
    it. It is a limit alone when it only forbids (不吃辣, no alcohol), or when it says who someone is and no meal is
    asked near it (I'm vegetarian, 我们是穆斯林, a vegan friend): then no meal is wanted, only none that breaks it."""
    if said is None or code in LIMIT_DIETS:
        return False
    before, after = low[max(0, said.start() - 16) : said.start()], low[said.end() : said.end() + 8]
    if not (_WHO_BEFORE.search(before) or _WHO_AFTER.match(after) or _WHO_WORDS.fullmatch(said.group(0))):
        return True
    return bool(_MEAL_WORDS.search(low[max(0, said.start() - 3) : said.end() + 10]))


def _kind(kind: str) -> WishKind:
    return next(k for k in WISH_KINDS if k == kind)


def _overlaps(span: Span, spans: list[Span]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in spans)
