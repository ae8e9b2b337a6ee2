"""Stage 1, who and what: the party, constraints (budget, diet, mobility, weather, transport), preferences and
the places a goal names. The time window is read in core/halfday/goal.py."""

from __future__ import annotations

import re

from core.halfday import goal_lexicon as lx
from core.halfday.goal_text import _mask, _negated, _num, _parts, _rx
from core.models.halfday.goal import Constraints, Party
from core.phrases import wish_lexicon as wx
from core.phrases.party import find_party

MAX_BUDGET = 1_000_000
MAX_PEOPLE = 30
_BUDGET, _LEGS, _CUR = [_rx(p) for p in lx.BUDGET_PATTERNS], [_rx(p) for p in lx.LEG_PATTERNS], lx.CUR_RX


def _constraints(low: str) -> tuple[Constraints, list[tuple[int, int]]]:
    """Budget, diet, mobility, weather, transport and the longest leg; the spans of leg limits (not durations)."""
    per_person = total = None
    taken: list[tuple[int, int]] = []
    for rx in _BUDGET:
        for m in rx.finditer(low):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            amount = _num(m.group(1))
            if amount is None or re.match(
                r"\s*(?:岁|个|人(?!均)|小时|分钟|点|口|hours?|people|kids|years?|min)", low[m.end() :]
            ):
                continue
            amount *= {"k": 1000, "千": 1000, "万": 10000}.get(m.group(2) or "", 1)
            # the per-person words may follow the currency (80 yuan per person, 200块每人): read to the clause's end
            after = re.split(r"[,，。;；!！?？]", low[m.end() : m.end() + 24], maxsplit=1)[0]
            context = low[max(0, m.start() - 8) : m.start()] + m.group(0) + after
            strong = re.search(lx.BUDGET_CUES_STRONG, m.group(0)) or re.search(_CUR, m.group(0))
            pp = _rx(lx.PER_PERSON).search(context)
            if not (strong or pp) or amount > MAX_BUDGET:
                continue
            taken.append(m.span())
            if pp and not re.search(lx.TOTAL, m.group(0)):
                per_person = amount if per_person is None else per_person
            else:
                total = amount if total is None else total
    leg, leg_spans = None, []
    for rx in _LEGS:
        for m in rx.finditer(low):
            n = _num(m.group(1))
            if n is not None and 1 <= n <= 240:
                leg = int(n) if leg is None else leg
                leg_spans.append(m.span())
    transport = sorted((m.start(), code) for code, p in lx.TRANSPORT.items() for m in _rx(p).finditer(low))
    constraints = Constraints(
        budget_per_person=per_person,
        budget_total=total,
        diet=_codes(low, lx.DIETS),
        mobility=_codes(low, lx.MOBILITY),
        weather=_codes(low, lx.WEATHER),
        transport=transport[0][1] if transport else None,
        max_leg_minutes=leg,
    )
    return constraints, leg_spans


def _codes(low: str, table: dict[str, str]) -> list[str]:
    return [code for code, pattern in table.items() if _rx(pattern).search(low)]


# ---- preferences --------------------------------------------------------------------------------------------------
_PREF_RX = {code: _rx(f"{zh}|{en}") for code, (zh, en) in lx.PREFERENCES.items()}


def _preferences(low: str) -> tuple[list[str], list[str]]:
    said = [m.span() for table in (lx.MOBILITY, lx.DIETS) for p in table.values() for m in _rx(p).finditer(low)]
    low = _mask(low, said + [m.span() for _, m in _parts(low)])  # "can't walk far", "after lunch": no wishes
    hits = [(m.start(), code, _negated(low, m.start())) for code, rx in _PREF_RX.items() for m in rx.finditer(low)]
    for m in _rx(lx.CROWD_WORDS).finditer(low):
        if _negated(low, m.start()):
            hits.append((m.start(), "quiet", False))  # 不要人多, avoid crowds: a wish for quiet
    avoid = ["walk"] if _rx(lx.TIRING).search(low) else []
    preferences: list[str] = []
    for _, code, negated in sorted(hits):
        target = avoid if negated else preferences
        if code not in target:
            target.append(code)
    return [p for p in preferences if p not in avoid], avoid


# ---- the party ----------------------------------------------------------------------------------------------------
def _count(patterns: list[str], text: str) -> int:
    found = [_num(m.group(1)) for p in patterns for m in re.finditer(p, text)]
    return int(sum(n for n in found if n is not None and n <= 1000))


def _ages(t: str) -> tuple[list[int], int]:
    """Children's ages said (5岁, 8个月的宝宝, 6 year old, aged 4 and 9, kids, 3 and 7) and how many ages are 60+."""
    ages = [(m.start(), int(n) // div) for p, div in lx.AGE_PATTERNS for m in re.finditer(p, t) if (n := _num(m.group(1)))
            is not None]  # fmt: skip
    ages += [
        (m.start(1) + i, int(x))
        for m in re.finditer(lx.AGE_LIST, t)
        for i, x in enumerate(re.findall(r"\d+", m.group(1)))
    ]
    seniors = sum(1 for _, a in ages if 60 <= a <= 120)
    return [a for _, a in sorted(ages) if 0 <= a <= 17], seniors


def _party(low: str) -> tuple[Party, list[str]]:
    t = _mask(low, [m.span() for m in _rx(lx.CHILD_NOT_PARTY).finditer(low)])
    ages, aged_seniors = _ages(t)
    children = _count(lx.CHILD_COUNT, t)
    if not children and re.search(lx.CHILD_PAIRS, t):
        children = 2
    elif not children and _rx(lx.CHILD_PLURAL).search(t):
        children = 2
    elif not children and _rx(f"{lx.CHILD_ZH}|{lx.CHILD_EN}").search(t):
        children = 1
    family_n = _count([lx.FAMILY], t)
    if family_n >= 3:
        children = max(children, family_n - 2)
    children = max(children, len(ages))
    explicit, total = _count(lx.ADULTS_COUNT, t), _count(lx.PEOPLE_COUNT, t)
    seniors = 2 * len(re.findall(lx.GRANDPARENTS, t))
    seniors += len(_rx(lx.GRANDPARENT_ONE).findall(re.sub(lx.GRANDPARENTS, " ", t)))
    parents = 2 if _rx(lx.PARENTS).search(t) else 0
    companions = parents + seniors + min(2, len(_rx(lx.PARENT_ONE).findall(re.sub(lx.PARENTS, " ", t))))
    seniors += parents
    elderly = _count([lx.ELDERLY_COUNT], t) or (1 if not seniors and _rx(lx.ELDERLY).search(t) else 0)
    seniors += elderly
    companions += elderly + (1 if _rx(lx.SPOUSE).search(t) else 0)
    t = _rx(lx.SPOUSE).sub(" ", t)  # 女朋友 is no friend besides
    friends = _count(lx.FRIENDS_COUNT, t)
    if not friends:
        friends = 2 if _rx(r"friends|朋友们").search(t) else 1 if _rx(f"{lx.FRIEND_ZH}|{lx.FRIEND_EN}").search(t) else 0
    companions += friends
    couple, alone = _rx(lx.COUPLE).search(t), _rx(lx.ALONE).search(t)
    if not (explicit or total or family_n or companions or couple or alone):
        # nobody named in this reader's own words: the reader every face shares (两位, 我们四个, table for two)
        shared = find_party(t)
        if shared is not None and shared.adults is not None:
            explicit, children = shared.adults, max(children, shared.children or 0)
        elif shared is not None:
            total = shared.size
    if explicit:
        adults = explicit
    elif total:
        adults = total - children if total > children else 1
    elif family_n:
        adults = min(2, family_n)
    elif couple and not companions:
        adults = 2
    else:
        adults = 1 + companions
    seniors = max(seniors, aged_seniors)
    said = bool(children or explicit or total or family_n or couple or alone or companions or seniors)
    children = min(children, MAX_PEOPLE)
    adults = max(min(adults, MAX_PEOPLE), min(seniors, MAX_PEOPLE))
    party = Party(adults=adults, children=children, children_ages=ages[:children], seniors=min(seniors, adults))
    assumed = [] if said else ["party_default_one_adult"]
    if children > len(party.children_ages):
        assumed.append("child_age_unknown")
    return party, assumed


# ---- named places -------------------------------------------------------------------------------------------------
_TIME_START, _CUTS = re.compile(lx.PLACE_TIME_START), re.compile(lx.PLACE_CUTS)
_TITLE = r"[A-Z][a-z]+(?:['’][a-z]+)*"
_EN_RUN = re.compile(rf"(?<![A-Za-z'’]){_TITLE}(?:\s+(?:of\s+)?{_TITLE})*")
_WISH_WORDS = re.compile("|".join(f"(?:{zh})" for zh, _ in lx.PREFERENCES.values()) + f"|{wx.QUALITIES}")


def _named_places(plain: str) -> list[str]:
    """Places named literally: 去豫园, 想去外滩走走, visit the Bund (the article dropped), as written."""
    found: list[tuple[int, str]] = []
    for m in re.finditer(lx.PLACE_TRIGGERS_ZH, plain):
        run = re.match(r"\s*([\u4e00-\u9fff·]+)", plain[m.end() : m.end() + 40])
        if not run:
            continue
        pos = m.end() + run.start(1)
        for piece in re.split(lx.PLACE_JOINS, run.group(1)):
            cut = _CUTS.search(piece, 1)
            name = _zh_name(piece[: cut.start()] if cut else piece)
            if name:
                found.append((pos, name))
            if cut:
                break
            pos += len(piece) + 1
    for m in _EN_RUN.finditer(plain):
        before = plain[: m.start()].rstrip()
        words = m.group(0).split()
        if words[0] == "The" and len(words) > 1:
            words = words[1:]
        at_start = not before or before[-1] in ".!?。！？\n" or not re.search(r"[A-Za-z\u4e00-\u9fff,，;；:]", before)
        if at_start or words[0].lower() in lx.EN_NOT_PLACES:
            continue
        found.append((m.start(), " ".join(words)))
    names: list[str] = []
    for _, name in sorted(found):
        if name not in names:
            names.append(name)
    return names[:20]


def _zh_name(piece: str) -> str | None:
    piece = re.sub(r"^(?:一个|一家|这个|那个|几个|某个|一些|个|家|些)", "", piece)
    if len(piece) < 2 or len(piece) > 20 or piece[0] in lx.PLACE_VERB_START + lx.CN_DIGITS or _TIME_START.match(piece):
        return None
    if piece in lx.PLACE_GENERIC or piece in lx.PLACE_MODIFIERS or _WISH_WORDS.fullmatch(piece):
        return None  # 去购物, 去散步: a wish's own words, read as that wish, are no name
    for head in lx.PLACE_GENERIC_HEADS:
        if piece.endswith(head) and (piece[: -len(head)] in lx.PLACE_MODIFIERS or not piece[: -len(head)]):
            return None
    return piece
