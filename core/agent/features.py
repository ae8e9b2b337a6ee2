"""Lexical features of a user message, in Chinese and English (the router's only input).

Everything here is a compiled regular expression or a count: no model, no I/O, microseconds per
message. The lexicons: hard-rule verbs (payment, refund, booking,
cancellation, browser, bulk write, CRUD), weather and travel-time look-ups, fact queries, and the
grey-zone signals (constraint count, ambiguity, realtime/web, planning, conditionals).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from core.agent.lexicon import (
    AVAILABILITY,
    BOOKING,
    BOOKING_QUESTION,
    BOOKING_VERB,
    BROWSER,
    BUDGET,
    BULK_WRITE,
    CANCEL_BOOKING,
    CITY,
    CONDITIONAL,
    CONSTRAINT_MARKERS,
    CRUD_ADD,
    CRUD_DELETE,
    CRUD_MOVE,
    CRUD_PRIORITY,
    CRUD_RENAME,
    CRUD_SWAP,
    DATE,
    FACT_QUERY,
    FROM_TO,
    LIST_BOOKINGS,
    NEGATED_ACTION,
    PARTY,
    PAYMENT,
    PLANNING,
    PRONOUNS,
    REALTIME,
    REFUND,
    SAVE,
    TRAVEL_TIME,
    URL,
    WALKING,
    WEATHER,
)
from core.agent.nearby import asks_nearby
from core.i18n import Lang
from core.phrases.clock import find_clocks
from core.phrases.dates import day_range, find_days, mask_days
from core.phrases.party import find_party
from core.phrases.trip import find_day_count

#: words of doing something on an outing: going, seeing, strolling, eating out (a plan when a day, a city or a party
#: is said beside them: "明天在上海吃一顿纯素午餐，再逛逛外滩", "Saturday in Shanghai: see the Bund, eat dumplings")
OUTING = re.compile(
    r"逛|玩|游览|参观|打卡|散步|走走|转转|看看|吃一顿|吃个|吃顿|[早午晚]饭|[早午晚]餐|(?<![过回])去(?!过|年|掉|除)"
    r"|\b(visit|see|explore|stroll|walk|wander|eat|lunch|dinner|brunch|sightseeing|tour|go to|head to|day out)\b",
    re.I,
)
#: a message that asks rather than tells ("what should I eat in Shanghai?", "明天去外滩好还是去豫园好？", "要带伞吗"):
#: words of an outing in it are the question's, not a request to plan one
ASKS = re.compile(
    r"[?？]\s*$|[吗呢么][\s。.!！]*$|好不好|怎么样|还是.{0,12}好"
    r"|^\W*(what|where|which|when|how|why|should|can|could|is|are|do|does|will|would)\b",
    re.I,
)

#: where a date phrase is does not depend on the day it means (core.phrases.dates reads it against any day)
_ANY_DAY = date(2028, 1, 3)


def strip_negated(text: str) -> str:
    """The message without the clauses whose action the user explicitly negates."""
    return NEGATED_ACTION.sub(" ", text)


def normalize_message(text: str) -> str:
    """NFKC (full-width to half-width), collapsed whitespace; case is kept (regexes ignore it)."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip()


@dataclass
class Features:
    text: str
    lang: Lang | None = None  # the reply language a face chose (router.route_message sets it); None: guessed
    urls: list[str] = field(default_factory=list)
    browser: bool = False
    payment: bool = False
    refund: bool = False
    booking: bool = False
    cancel_booking: bool = False
    list_bookings: bool = False
    bulk_write: bool = False
    crud_ops: list[str] = field(default_factory=list)
    weather: bool = False
    travel_time: bool = False
    from_to: tuple[str, str] | None = None
    fact_query: bool = False
    realtime: int = 0
    availability: int = 0
    planning: int = 0
    days: int | None = None
    conditional: tuple[str, str] | None = None
    constraints: int = 0
    pronouns: int = 0
    has_date: bool = False
    has_party: bool = False
    has_budget: bool = False
    has_city: bool = False
    save: bool = False
    walking: bool = False
    nearby: bool = False  # asks for a kind of place near a place ("外滩附近有素食餐厅吗")
    outing: int = 0  # words of doing something on an outing (OUTING)
    asks: bool = False  # the message is a question (ASKS), not a request

    @property
    def high_risk(self) -> bool:
        return self.payment or self.refund or self.booking or self.cancel_booking

    @property
    def crud(self) -> bool:
        return bool(self.crud_ops)

    def missing_fields(self) -> list[str]:
        """What to ask when the router cannot tell what the message wants: only what a plan cannot do without, the
        place or the thing to do ("goal"). The date (the next day), the party (one, or as said), the budget (no
        limit) and the city (the active region) are never asked here: a plan takes them as defaults and says so
        (core/agent/assumed.py); a booking asks for its own (core/agent/booking.py)."""
        return ["goal"]

    @property
    def plans_an_outing(self) -> bool:
        """Things to do said beside a day, a city or a party: a plan, though no planning word is said."""
        if self.asks:  # "Can I visit the Bund tomorrow night?" asks; it does not ask for a plan
            return False
        return bool(self.outing) and (self.has_date or self.has_city or self.days is not None or self.has_party)

    def as_facts(self) -> dict[str, object]:
        """Flat, log-safe facts (no message text) for the decision log and telemetry."""
        return {
            "constraints": self.constraints,
            "pronouns": self.pronouns,
            "realtime": self.realtime,
            "planning": self.planning,
            "days": self.days,
            "conditional": self.conditional is not None,
            "crud_ops": list(self.crud_ops),
            "high_risk": self.high_risk,
            "list_bookings": self.list_bookings,
            "browser": self.browser,
            "outing": self.outing,
        }


def _count(rx: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in rx.finditer(text))


def _asks_to_book(text: str) -> bool:
    """A booking verb of the strict list, or any booking verb with at least two of a day, a time and a party beside
    it: "明天19:00订绿波廊，两个人", "a table for 2 at … on Saturday, 12:00"."""
    if BOOKING.search(text):
        return True
    if not BOOKING_VERB.search(text):
        return False
    slots = (bool(find_days(text, today=_ANY_DAY)), bool(find_clocks(text)), find_party(text) is not None)
    return sum(slots) >= 2


def extract_features(message: str) -> Features:
    text = normalize_message(message)
    f = Features(text=text)
    f.urls = URL.findall(text)
    f.browser = bool(BROWSER.search(text))
    act = strip_negated(text)  # risky and editing verbs count only where they are not negated
    f.payment = bool(PAYMENT.search(act))
    f.refund = bool(REFUND.search(act))
    f.cancel_booking = bool(CANCEL_BOOKING.search(act))
    f.list_bookings = bool(LIST_BOOKINGS.search(act))
    # "取消…的预订" and "我的预订有哪些" name a booking without asking for one: only the rest can ask to book
    rest = LIST_BOOKINGS.sub(" ", CANCEL_BOOKING.sub(" ", act))
    f.booking = _asks_to_book(rest) and not BOOKING_QUESTION.search(rest)
    f.bulk_write = bool(BULK_WRITE.search(act))
    ops = []
    for name, rx in (
        ("swap_days", CRUD_SWAP),
        ("rename", CRUD_RENAME),
        ("prioritize", CRUD_PRIORITY),
        ("move", CRUD_MOVE),
        ("add", CRUD_ADD),
        ("delete", CRUD_DELETE),
    ):
        if rx.search(act):
            ops.append(name)
    if f.cancel_booking and "delete" in ops:
        ops.remove("delete")
    f.crud_ops = ops
    f.weather = bool(WEATHER.search(text))
    f.travel_time = bool(TRAVEL_TIME.search(text))
    said_days = [(p.start, p.end) for p in find_days(text, today=_ANY_DAY)] + [
        (c.start, c.end) for c in find_clocks(text)
    ]
    for rx in FROM_TO:
        m = rx.search(text)
        if m and any(a <= m.start("a") < b for a, b in said_days):  # "from 28 to 30 Nov", "from 8am to noon": no places
            continue
        if m:
            a, b = m.group("a").strip(" ，,的"), m.group("b").strip(" ，,的?？")
            if a and b and a != b:
                f.from_to = (a, b)
                break
    f.nearby = asks_nearby(text)
    f.fact_query = bool(FACT_QUERY.search(text))
    f.realtime = _count(REALTIME, text)
    f.availability = _count(AVAILABILITY, text)
    # "10天后" / "in 6 days" name a date, never a trip's length: planning words and the day count skip them
    undated = mask_days(text, kinds=("in_days",))
    f.planning = _count(PLANNING, undated)
    count = find_day_count(undated)  # core.phrases.trip: 两天, 三日游, 2-day, one-day, a weekend trip
    if count is not None:
        f.days = count.days
        # a trip's length said ("a day in Helsinki", "Seoul, 2 days", "a family day out") asks for a plan
        f.planning = max(f.planning, 1)
    if day_range(text, today=_ANY_DAY) is not None:  # "28 to 30 Nov", "12月30日到1月2日": the trip's days are said
        f.planning = max(f.planning, 1)
    low = text.lower()
    for i, rx in enumerate(CONDITIONAL):
        # The two "X, otherwise Y" patterns are lazy from the start: on a long message without the
        # keyword they are quadratic, so look for the keyword first.
        if (i == 3 and "otherwise" not in low) or (i == 4 and "否则" not in text and "不然" not in text):
            continue
        m = rx.search(text)
        if m and m.group("cond").strip() and m.group("then").strip():
            f.conditional = (m.group("cond").strip(" ，,"), m.group("then").strip(" ，,。.!！"))
            break
    f.constraints = _count(CONSTRAINT_MARKERS, text) + text.count("、") // 2
    f.pronouns = _count(PRONOUNS, text)
    f.has_date = bool(DATE.search(text)) or bool(find_days(text, today=_ANY_DAY))
    f.has_party = bool(PARTY.search(text)) or find_party(text) is not None
    f.has_budget = bool(BUDGET.search(text))
    f.has_city = bool(CITY.search(text))
    f.fact_query = f.fact_query or (f.nearby and not f.planning)
    f.outing = _count(OUTING, text)
    f.asks = bool(ASKS.search(text.strip()))
    f.save = bool(SAVE.search(text))
    f.walking = bool(WALKING.search(text))
    return f
