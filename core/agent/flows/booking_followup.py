"""A booking the agent asked the person to complete, and the answer that completes it (docs/ARCHITECTURE.md, "Agent").

When the booking flow asks for what is missing (when? how many? which one?), what is known so far is kept
server-side as the user's *pending booking* (core/stores/trips.py, Alembic 0004): the venue, date, time (or a bare
hour's readings), party, the venues offered, the reply's language and the messages it came from, until the dry
run's time to live. The next message that only supplies missing booking facts — a date, a time, a party, a venue
chosen by ordinal ("第二家", "the second one") or by name — continues it; anything else (another request, another
venue, a question) starts fresh, and the pending booking is never read for another user.

The client's ``recent_messages`` is only a hint: when it is sent and holds none of the messages the pending
booking came from, the person is in another conversation and nothing is joined. It never creates a booking
context by itself (a client could send anything).
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from core.agent.booking import BookingSlots, Venue, booking_slots
from core.agent.features import normalize_message, strip_negated
from core.agent.router import RouterDecision, as_booking
from core.agent.state import AgentContext
from core.errors import InputError
from core.geo.text import normalize
from core.i18n import CJK, Lang, guess_lang
from core.models.agent import AgentState
from core.models.region import RegionPack
from core.phrases.clock import find_clocks
from core.phrases.dates import mask_days
from core.phrases.numbers import cn_number
from core.reservations.catalog import item_for

logger = logging.getLogger(__name__)
POLICY = "BOOKING_FOLLOWUP"
#: intents that are never the answer to a booking question
NOT_FOLLOWUPS = frozenset(
    {"cancel", "list", "commit", "bulk_write", "browse", "conditional", "trip_edit", "weather", "travel_time"}
)
MAX_MESSAGES = 3


class Followup(BaseModel):
    """A message joined to the user's pending booking: the facts together, and what this message added."""

    slots: BookingSlots
    options: list[str] = Field(default_factory=list, description="the venues offered before (place ids)")
    zh: bool
    added: list[str] = Field(default_factory=list, description="the facts this message supplied")
    messages: list[str] = Field(default_factory=list)
    age_s: float = 0.0


# --- the record ------------------------------------------------------------------------------------
def now_s(ctx: AgentContext) -> float:
    """The request's moment as a timestamp."""
    return ctx.now_s()


def joined_of(state: AgentState) -> Followup | None:
    """This message joined to the pending booking (``reroute`` kept it in the state), or None."""
    data = state.followup.joined
    return Followup.model_validate(data) if data is not None else None


def correction_of(state: AgentState) -> InputError | None:
    """The fact of a follow-up to correct ("2月30日"), as the error the orchestrator says; None when there is none."""
    f = state.followup
    return InputError(f.error_message, field=f.error_field) if f.error_message is not None else None


def remember(
    ctx: AgentContext,
    state: AgentState,
    slots: BookingSlots,
    *,
    zh: bool,
    options: list[str] | None = None,
    drop: tuple[str, ...] = (),
) -> None:
    """Keep what is known of the booking the agent just asked about (``drop``: facts to ask again)."""
    if ctx.store is None:
        return
    joined = joined_of(state)
    messages = [*(joined.messages if joined else []), ctx.request.message][-MAX_MESSAGES:]
    facts = facts_of(slots, zh=zh, options=options or [], messages=messages)
    for key in drop:
        facts[key] = [] if key == "hours" else None
    ctx.store.hold_pending_booking(
        user_id=ctx.request.user_id, facts=facts, now=now_s(ctx), ttl_s=ctx.settings.dry_run_ttl_s
    )


def forget(ctx: AgentContext) -> None:
    if ctx.store is not None:
        ctx.store.drop_pending_booking(ctx.request.user_id)


def facts_of(slots: BookingSlots, *, zh: bool, options: list[str], messages: list[str]) -> dict[str, Any]:
    return {
        "item": slots.venues[0].id if len(slots.venues) == 1 else None,
        "category": slots.category,
        "date": slots.date.isoformat() if slots.date else None,
        "time": slots.time.strftime("%H:%M") if slots.time else None,
        "hours": list(slots.hours),
        "minute": slots.minute,
        "party": slots.party,
        "options": list(options),
        "zh": zh,
        "messages": list(messages),
    }


def _venue(pack: RegionPack, place_id: str | None) -> list[Venue]:
    item = item_for(pack, place_id) if place_id else None
    return [Venue(id=item.id, name=item.name, category=item.category, bookable=True)] if item else []


def slots_of(facts: dict[str, Any], pack: RegionPack) -> BookingSlots:
    return BookingSlots(
        venues=_venue(pack, facts.get("item")),
        category=facts.get("category"),
        date=date.fromisoformat(facts["date"]) if facts.get("date") else None,
        time=time.fromisoformat(facts["time"]) if facts.get("time") else None,
        hours=list(facts.get("hours") or []),
        minute=int(facts.get("minute") or 0),
        party=facts.get("party"),
    )


# --- is this message the answer? -------------------------------------------------------------------
_ORDINAL_ZH = re.compile(
    r"第\s*(?P<n>[一二三四五六七八九十]|\d{1,2})\s*(家|个|间|项|位|场)?|(?P<last>最后(一|那)?(家|个))"
)
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": -1}
_ORDINAL_EN = re.compile(
    r"\b(the\s+)?(?P<w>first|second|third|fourth|fifth|sixth|last|(?P<d>[1-6])(st|nd|rd|th))"
    r"(\s+(one|place|restaurant|option|venue|theatre|museum|hotel))?\b"
    r"|\b(number|option|no\.?)\s*(?P<k>[1-6])\b",
    re.I,
)
_EVENING_ANSWER = re.compile(r"晚上|傍晚|下午|晚|夜|\bevening\b|\bnight\b|\bpm\b|\bafternoon\b", re.I)
_MORNING_ANSWER = re.compile(r"上午|早上|早晨|早|\bmorning\b|\bam\b", re.I)

#: what a message that only supplies booking facts may hold beside them (removed before judging what is left; the
#: days first, by core.phrases.dates.mask_days)
_EN_N = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_FACTS = [
    re.compile(r"\b(at\s+)?\d{1,2}\s*o'?clock\b|\bat \d{1,2}\b|\bnoon\b|\bmidday\b", re.I),
    re.compile(r"一家([0-9]|[二两三四五六七八九十])口"),
    re.compile(r"([0-9]{1,2}|[一二两三四五六七八九十]{1,3})\s*(个人|人|位|名|张|口)"),
    re.compile(
        r"我们?俩|咱们?俩|两口子|情侣|夫妻|一个人|就我一个|我自己|\bcouple\b|\bthe two of us\b"
        r"|\bmy (wife|husband|partner) and i\b|\bjust me\b|\bonly me\b|\bmyself\b|\bsolo\b",
        re.I,
    ),
    re.compile(rf"\b({_EN_N})\s+(people|persons|guests|adults|pax|tickets?|seats?|of us)\b", re.I),
    re.compile(rf"\bparty of ({_EN_N})\b|\bfor ({_EN_N})\b", re.I),
    _ORDINAL_ZH,
    _ORDINAL_EN,
    re.compile(
        r"早上|上午|中午|下午|傍晚|晚上|夜里|晚饭|晚餐|午饭|午餐|早饭|\b(morning|afternoon|evening|night|lunch|dinner"
        r"|brunch)\b",
        re.I,
    ),
]
_FILLER_ZH = re.compile(
    r"帮我|给我|麻烦|那就|就是|那么|好的|可以|没问题|谢谢|一下|预订|预约|订位|订座|位子|座位|改成|换成|改到|一共|总共"
    r"|人数|时间|日期|那家|这家|我们|吃饭|请|我|要|想|就|那|好|行|嗯|对|是|吧|呢|啊|呀|哦|吗|了|的|订|定|改|换|选|共"
    r"|家|个|和|在|去|吃|饭|桌|点|号|于|为|给|用|人"
)
_FILLER_EN = frozenset(
    "ok okay yes yeah yep sure please thanks thank you and at for on in the a an it that this make let's lets let us "
    "say then how about what i we would like to choose pick take go with book reserve table people persons guests of "
    "one sounds good great fine pm am is be will do can could instead".split()
)
#: what may be left of a follow-up once its facts and fillers are gone (a word like 靠窗 / "indoors")
MAX_LEFT_CJK = 2
MAX_LEFT_WORDS = 1


def ordinal(text: str) -> int | None:
    """The place in an offered list a message picks: 1-based, -1 for the last one, None when it picks none."""
    if m := _ORDINAL_ZH.search(text):
        return -1 if m.group("last") else cn_number(m.group("n"))
    if m := _ORDINAL_EN.search(text):
        if m.group("k"):
            return int(m.group("k"))
        if m.group("d"):
            return int(m.group("d"))
        return _ORDINALS_EN[m.group("w").lower()]
    return None


def leftover(text: str, pack: RegionPack, venues: list[Venue]) -> tuple[str, list[str]]:
    """What a message says beside booking facts, venue names and fillers: (CJK characters, English words)."""
    t = normalize_message(text)
    for v in venues:
        place = pack.place_by_id(v.id)
        for n in sorted((place.name_zh, place.name_en, *place.aliases) if place else (), key=len, reverse=True):
            if n:
                t = re.sub(re.escape(n), " ", t, flags=re.I)
    t = mask_days(t)
    for clock in find_clocks(t):  # the times, as the booking reader reads them (core.phrases.clock)
        t = t[: clock.start] + " " * (clock.end - clock.start) + t[clock.end :]
    for rx in _FACTS:
        t = rx.sub(" ", t)
    cjk = "".join(re.findall(f"[{CJK}]", _FILLER_ZH.sub(" ", t)))
    words = [w for w in re.findall(r"[a-z]+(?:'[a-z]+)?", t.lower()) if w not in _FILLER_EN]
    return cjk, words


def read_followup(
    message: str, facts: dict[str, Any], *, pack: RegionPack, today: date, intent: str, lang: Lang | None = None
) -> Followup | None:
    """The pending booking with this message's facts joined, or None when the message is not a follow-up; the
    reply's language is ``lang`` when a face says it, else the message's (guessed), else the pending booking's."""
    if intent in NOT_FOLLOWUPS:
        return None
    text = strip_negated(normalize_message(message))
    try:
        said = booking_slots(text, pack=pack, today=today)
    except InputError:  # "2月30日": a follow-up with a fact to correct is told so; anything else is not ours
        cjk, words = leftover(text, pack, [])
        if len(cjk) <= MAX_LEFT_CJK and len(words) <= MAX_LEFT_WORDS:
            raise
        return None
    if said.unbookable or len(said.venues) > 1:
        return None
    known = slots_of(facts, pack)
    options: list[str] = list(facts.get("options") or [])
    picked = ordinal(text)
    chosen: str | None = None
    if picked is not None and options:
        index = picked - 1 if picked > 0 else len(options) - 1
        chosen = options[index] if 0 <= index < len(options) else None
    if said.venues:
        named = said.venues[0].id
        if chosen is not None and named != chosen:
            return None
        if named not in options and (
            (known.venues and named != known.venues[0].id)
            or (known.category and said.venues[0].category != known.category)
        ):
            return None  # another venue, or another kind of venue: a new request
        chosen = named
    if not said.venues and said.category and said.category != known.category and chosen is None:
        return None  # another kind of venue
    cjk, words = leftover(text, pack, said.venues)
    if len(cjk) > MAX_LEFT_CJK or len(words) > MAX_LEFT_WORDS:
        return None
    added: list[str] = []
    at, hours, minute = known.time, known.hours, known.minute
    if said.time is not None or said.hours:
        at, hours, minute = said.time, said.hours, said.minute
        added.append("time")
    elif known.hours and at is None:  # "7点是上午还是晚上？" — "晚上" / "the evening"
        if _EVENING_ANSWER.search(text):
            at, hours = time(max(known.hours), known.minute), []
            added.append("time")
        elif _MORNING_ANSWER.search(text):
            at, hours = time(min(known.hours), known.minute), []
            added.append("time")
    if said.date is not None:
        added.append("date")
    if said.party is not None:
        added.append("party_size")
    if chosen is not None:
        added.append("item")
    if not added:
        return None
    venues = _venue(pack, chosen) if chosen else known.venues
    slots = BookingSlots(
        venues=venues,
        category=venues[0].category if venues else known.category,
        date=said.date or known.date,
        time=at,
        hours=hours,
        minute=minute,
        party=said.party or known.party,
    )
    has_words = bool(re.search(f"[a-z{CJK}]", text, re.I))
    return Followup(
        slots=slots,
        options=options,
        zh=(lang or guess_lang(text)) == "zh" if lang or has_words else bool(facts.get("zh")),
        added=added,
        messages=list(facts.get("messages") or []),
    )


def _in_conversation(facts: dict[str, Any], recent: list[str]) -> bool:
    """The hint: a client that sends its recent messages must show the pending booking's among them."""
    if not recent:
        return True
    mine = {normalize(m) for m in facts.get("messages") or []}
    return any(normalize(m) in mine for m in recent)


def reroute(
    decision: RouterDecision, ctx: AgentContext, state: AgentState, *, lang: Lang | None = None
) -> RouterDecision:
    """The router's decision, or a booking when the message continues the user's pending booking (the joined facts,
    or the fact to correct, are kept in ``state.followup`` for the booking flow); ``lang``: the reply language a face
    chose (None: guessed from the message)."""
    if ctx.store is None or decision.intent in NOT_FOLLOWUPS or ctx.request.options.confirm_dry_run_id:
        return decision
    now = now_s(ctx)
    try:
        pending = ctx.store.pending_booking(ctx.request.user_id, now=now)  # an expired one is forgotten here
    except Exception:  # the store's bad luck must not stop routing: the message is read on its own
        logger.warning("pending booking of %s unreadable", ctx.request.user_id, exc_info=True)
        return decision
    if pending is None or not _in_conversation(pending.facts, ctx.request.conversation_context.recent_messages):
        return decision
    pack = ctx.provider.region
    today = datetime.fromtimestamp(now, UTC).astimezone(ZoneInfo(pack.timezone)).date()
    try:
        joined = read_followup(
            ctx.request.message, pending.facts, pack=pack, today=today, intent=decision.intent, lang=lang
        )
    except InputError as exc:  # a follow-up with a fact to correct: the booking flow says so
        state.followup.error_message, state.followup.error_field = exc.message, exc.field
        return as_booking(decision, options=ctx.request.options, settings=ctx.settings)
    if joined is None:
        return decision
    joined.age_s = round(now - pending.created_at, 1)
    state.followup.joined = joined.model_dump(mode="json")
    return as_booking(decision, options=ctx.request.options, settings=ctx.settings)
