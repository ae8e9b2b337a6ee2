"""The reservation flows' sentences, in Chinese or English: what will be reserved, its price and the price's source,
the cancellation policy, what is unverified, the free slots nearby, a list of reservations with their status.
No link, no action name, no field name: words for the person who asked, from the ``agent`` catalog
(locales/<lang>/LC_MESSAGES/agent.po, core.i18n.t)."""

from __future__ import annotations

from datetime import date, time
from typing import Any, Literal, Protocol

from core.i18n import Lang, list_sentence
from core.i18n import join_words as join_words  # re-exported: the flows join their words with it too
from core.i18n import t as t  # re-exported: the flows' words too (words.t), so the catalog test finds them
from core.models.itinerary_result import ItineraryResult, TimelineEntry
from core.models.region import RegionPack
from core.models.reservations import BookableItem, CancellationPolicy, Quote, Reservation
from core.models.rules import RuleCode
from core.venues.catalog import VenueSite
from core.words.itinerary import MEAL_KEYS, PlaceName, fix_sentence, reason_sentence

_WEEKDAYS = (
    "agent.booking.weekday.mon",
    "agent.booking.weekday.tue",
    "agent.booking.weekday.wed",
    "agent.booking.weekday.thu",
    "agent.booking.weekday.fri",
    "agent.booking.weekday.sat",
    "agent.booking.weekday.sun",
)
_MONTHS = (
    "agent.booking.month.jan",
    "agent.booking.month.feb",
    "agent.booking.month.mar",
    "agent.booking.month.apr",
    "agent.booking.month.may",
    "agent.booking.month.jun",
    "agent.booking.month.jul",
    "agent.booking.month.aug",
    "agent.booking.month.sep",
    "agent.booking.month.oct",
    "agent.booking.month.nov",
    "agent.booking.month.dec",
)
_FIELDS = {
    "item": "agent.booking.field.item",
    "date": "agent.booking.field.date",
    "time": "agent.booking.field.time",
    "party_size": "agent.booking.field.party_size",
}
_CATEGORY = {
    "restaurant": "agent.booking.category.restaurant",
    "theatre": "agent.booking.category.theatre",
    "museum": "agent.booking.category.museum",
    "hotel": "agent.booking.category.hotel",
    "family": "agent.booking.category.family",
    "landmark": "agent.booking.category.landmark",
}
_UNVERIFIED = {
    "MOCK_VENUE": "agent.booking.unverified.mock_venue",
    "PRICE_UNKNOWN": "agent.booking.unverified.price_unknown",
}
_CUISINE = {
    "shanghainese": "agent.booking.cuisine.shanghainese",
    "cantonese": "agent.booking.cuisine.cantonese",
    "dim_sum": "agent.booking.cuisine.dim_sum",
    "huaiyang": "agent.booking.cuisine.huaiyang",
    "sichuan": "agent.booking.cuisine.sichuan",
    "hunan": "agent.booking.cuisine.hunan",
    "yunnan": "agent.booking.cuisine.yunnan",
    "beijing": "agent.booking.cuisine.beijing",
    "noodles": "agent.booking.cuisine.noodles",
    "dumplings": "agent.booking.cuisine.dumplings",
    "snacks": "agent.booking.cuisine.snacks",
    "seafood": "agent.booking.cuisine.seafood",
    "hotpot": "agent.booking.cuisine.hotpot",
    "western": "agent.booking.cuisine.western",
    "french": "agent.booking.cuisine.french",
    "italian": "agent.booking.cuisine.italian",
    "japanese": "agent.booking.cuisine.japanese",
    "bar": "agent.booking.cuisine.bar",
}
_STATUS = {
    "quoted": "agent.booking.status.quoted",
    "pending": "agent.booking.status.pending",
    "confirmed": "agent.booking.status.confirmed",
    "cancelled": "agent.booking.status.cancelled",
}


def lang_of(zh: bool) -> Lang:
    """The reply's language: Chinese when the person wrote Chinese, else English."""
    return "zh" if zh else "en"


def listed(names: list[str], lang: Lang, *, last: Literal["and", "or"] | None = None) -> str:
    """Names in a run (core.i18n.join_words); ``last`` joins the final two: "and"/"和", "or"/"或"."""
    return list_sentence(names, lang, last=last) if last else join_words(names, lang)


def day_text(d: date, lang: Lang) -> str:
    return t("agent.booking.day", lang, year=d.year, month=t(_MONTHS[d.month - 1], lang),
             day=d.day, weekday=t(_WEEKDAYS[d.weekday()], lang))  # fmt: skip


def hm(at: time) -> str:
    return at.strftime("%H:%M")


def category_text(category: str | None, lang: Lang) -> str:
    return t(_CATEGORY.get(category or "", "agent.booking.category.other"), lang)


def name_of(pack: RegionPack | None, place_id: str, fallback: str, lang: Lang) -> str:
    """The place's name in the reply's language (the pack's English name in English, when it has one; else its
    Chinese name, marked as the local name rather than mixed in silently)."""
    place = pack.place_by_id(place_id) if pack is not None else None
    if place is None:
        return fallback
    if lang == "zh" or place.name_en:
        return place.name_zh if lang == "zh" else place.name_en
    return t("agent.name.local", lang, name=place.name_zh)


def visit_words(entry: TimelineEntry, pack: RegionPack | None, lang: Lang) -> str:
    """A planned visit as the day's line names it: the place, and, for a meal stop, the meal and when it begins."""
    name = name_of(pack, entry.key, entry.name, lang) if entry.key else entry.name
    if entry.meal not in MEAL_KEYS:
        return name
    meal = t(MEAL_KEYS[str(entry.meal)], lang)
    return t("agent.plan.meal_stop", lang, place=name, meal=meal, time=f"{entry.start:%H:%M}")


def people(n: int, lang: Lang) -> str:
    return t("agent.booking.people_one" if n == 1 else "agent.booking.people", lang, n=n)


def what(r: Reservation, lang: Lang, pack: RegionPack | None = None) -> str:
    """绿波廊，2026年12月2日（周三）19:00，2 人 / Lu Bo Lang, Wed 2 Dec 2026 at 19:00, 2 people."""
    name = name_of(pack, r.item_id, r.item_name, lang)
    return t("agent.booking.what", lang, name=name, day=day_text(r.date, lang), time=hm(r.time),
             people=people(r.party_size, lang))  # fmt: skip


def money(value: float) -> str:
    return f"¥{value:,.2f}".rstrip("0").rstrip(".")


def city_name(pack: RegionPack, lang: Lang) -> str:
    """A region's city in ``lang`` (the pack's display name), else as the pack writes it."""
    return pack.display_name.get(lang) or pack.city


def price_text(q: Quote, pack: RegionPack, lang: Lang) -> str:
    if q.price_per_person is None or q.total is None:
        return t("agent.booking.price.unknown", lang)
    if q.price_per_person == 0:
        return t("agent.booking.price.free", lang, region=city_name(pack, lang))
    return t("agent.booking.price.per_person", lang, price=money(q.price_per_person), total=money(q.total),
             region=city_name(pack, lang))  # fmt: skip


def policy_text(p: CancellationPolicy, lang: Lang) -> str:
    if p.fee_share == 0:
        return t("agent.booking.policy.free", lang)
    return t("agent.booking.policy.fee", lang, hours=p.free_until_hours, share=f"{p.fee_share:.0%}")


def unverified_text(codes: list[str], lang: Lang) -> str:
    if not codes:
        return ""
    bits = [t(_UNVERIFIED.get(c, "agent.booking.unverified.other"), lang) for c in codes]
    return t("agent.booking.unverified", lang, what=join_words(bits, lang, sep="clauses"))


def ask_missing(missing: list[str], lang: Lang) -> str:
    names = [t(_FIELDS[m], lang) for m in missing]
    return t("agent.booking.ask_missing", lang, what=listed(names, lang, last="and"))


def example(lang: Lang) -> str:
    return t("agent.booking.example", lang)


def choices(items: list[BookableItem], lang: Lang, pack: RegionPack | None = None) -> str:
    parts = []
    for i in items:
        p, name = i.price_per_person, name_of(pack, i.id, i.name, lang)
        if p is None:
            parts.append(name)
        elif p == 0:
            parts.append(t("agent.booking.choice.free", lang, name=name))
        else:
            parts.append(t("agent.booking.choice.priced", lang, name=name, price=money(p)))
    return join_words(parts, lang, sep="items")


def choices_source(items: list[BookableItem], pack: RegionPack, lang: Lang) -> str:
    """Where the prices in a list of choices come from (the pack), and which have none."""
    if not any(i.price_per_person is not None for i in items):
        return t("agent.booking.choices.no_prices", lang)
    return t("agent.booking.choices.source", lang, region=city_name(pack, lang))


def cuisine_text(codes: list[str], lang: Lang) -> str:
    names = [t(_CUISINE[c], lang) if c in _CUISINE else c for c in codes]
    return list_sentence(names, lang, last="or")


class FitFound(Protocol):
    """What the venue search found about the fit (core.agent.venue_fit.Suggestions)."""

    @property
    def cuisine_unmatched(self) -> bool: ...
    @property
    def price_unmatched(self) -> bool: ...
    @property
    def median_price(self) -> float | None: ...


class FitAsked(Protocol):
    """What the request asked of the venue (core.agent.venue_fit.FitHints)."""

    @property
    def cuisines(self) -> list[str]: ...
    @property
    def cheap(self) -> bool: ...
    @property
    def dear(self) -> bool: ...
    @property
    def cap(self) -> float | None: ...


def fit_notes(found: FitFound, hints: FitAsked, lang: Lang) -> list[str]:
    """What the offered venues were chosen by, and what of the request could not be met."""
    notes = []
    if found.cuisine_unmatched:
        notes.append(t("agent.booking.fit.cuisine_unmatched", lang, what=cuisine_text(hints.cuisines, lang)))
    if found.price_unmatched:
        notes.append(t("agent.booking.fit.price_unmatched", lang))
    elif hints.cheap and found.median_price is not None:
        notes.append(t("agent.booking.fit.cheap", lang, median=money(found.median_price)))
    elif hints.cap is not None:
        notes.append(t("agent.booking.fit.cap", lang, cap=money(hints.cap)))
    elif hints.dear and found.median_price is not None:
        notes.append(t("agent.booking.fit.dear", lang, median=money(found.median_price)))
    return notes


def status_text(r: Reservation, lang: Lang) -> str:
    reason = r.transitions[-1].reason if r.transitions else ""
    if r.status == "failed":
        if reason == "SLOT_FULL":
            return t("agent.booking.status.slot_full", lang)
        return t("agent.booking.status.failed", lang)
    return t(_STATUS[r.status], lang)


def listing(rs: list[Reservation], lang: Lang, pack: RegionPack | None = None, *, numbered: bool = False) -> str:
    lines = []
    for n, r in enumerate(rs, 1):
        head = f"{n}. " if numbered else "- "
        lines.append(f"{head}{what(r, lang, pack)}{'：' if lang == 'zh' else ': '}{status_text(r, lang)}")
    return "\n".join(lines)


def refusal_text(
    code: str,
    details: dict[str, Any],
    *,
    item: BookableItem | None,
    lang: Lang,
    at: time | None,
    pack: RegionPack | None = None,
) -> str:
    """A refusal by the venue's terms in a sentence (the free slots nearby when the asked one is full)."""
    name = name_of(pack, item.id, item.name, lang) if item else t("agent.booking.the_venue", lang)
    if code == "SLOT_FULL":
        near = details.get("suggestions") or []
        asked = hm(at) if at else ""
        if near:
            return t("agent.booking.refusal.slot_full_near", lang, name=name, time=asked,
                     slots=join_words(near, lang))  # fmt: skip
        return t("agent.booking.refusal.slot_full", lang, name=name, time=asked)
    if code == "NOT_A_SLOT" and item is not None:
        terms = item.terms
        return t("agent.booking.refusal.not_a_slot", lang, name=name, first=hm(terms.first_slot),
                 last=hm(terms.last_slot), minutes=terms.slot_minutes,
                 asked=hm(at) if at else t("agent.booking.that_time", lang))  # fmt: skip
    if code == "PARTY_TOO_LARGE" and item is not None:
        return t("agent.booking.refusal.party_too_large", lang, name=name, n=item.terms.max_party)
    if code == "TOO_LATE" and item is not None:
        return t("agent.booking.refusal.too_late", lang, name=name, hours=item.terms.lead_time_hours)
    if code == "NOT_BOOKABLE":
        return t("agent.booking.refusal.not_bookable", lang, name=name)
    if code == "TOKEN_INVALID":
        return t("agent.booking.refusal.token_invalid", lang)
    if code == "NOT_CANCELLABLE":
        return t("agent.booking.refusal.not_cancellable", lang)
    if code == "NOT_FOUND":
        return t("agent.booking.refusal.not_found", lang)
    return t("agent.booking.refusal.other", lang)


def dropped_lines(result: ItineraryResult, place_name: PlaceName, lang: Lang) -> list[str]:
    """One line per dropped place: its name, why it is not on the plan and, when one was found, the smallest fix."""
    lines = []
    for item in result.dropped_items:
        name = place_name(item.key) or item.name
        reason = reason_sentence(item, result, lang)
        fix = fix_sentence(item.smallest_fix, place_name, lang)
        if fix:
            lines.append(t("agent.plan.dropped_item_fix", lang, name=name, reason=reason, fix=fix))
        else:
            lines.append(t("agent.plan.dropped_item", lang, name=name, reason=reason))
    return lines


def template_explanation(facts: dict[str, Any], *, lang: Lang) -> str:
    """The plan explained from its facts alone (days, what was not scheduled, robustness, notes): the explanation
    action's answer when no model is configured or the model fails."""
    days = facts.get("days") or []
    lines = []
    for d in days:
        stops = " → ".join(d.get("visits", [])) or t("agent.plan.empty_day", lang)
        lines.append(t("agent.plan.day", lang, n=d["day"] + 1, date=d.get("date", ""), stops=stops))
    dropped = facts.get("dropped") or []
    if dropped:
        lines.append(t("agent.plan.not_scheduled", lang, what=join_words(dropped, lang, sep="clauses")))
    if facts.get("robustness") is not None:
        robustness = f"{facts['robustness']:.2f}"
        if facts.get("min_slack_min") is not None:
            lines.append(t("agent.plan.robustness_slack", lang, robustness=robustness, slack=facts["min_slack_min"]))
        else:
            lines.append(t("agent.plan.robustness", lang, robustness=robustness))
    for note in facts.get("notes", []):
        lines.append(str(note))
    return "\n".join(lines)


def site_names(entries: list[str | list[VenueSite]], lang: Lang) -> str:
    """The browse allowlist in words: the demo server by the venues it serves, any other entry as written."""
    names = []
    for entry in entries:
        if isinstance(entry, str):
            names.append(entry)
        else:
            listed = join_words((v.name.get(lang) or v.name["zh"] for v in entry), lang)
            names.append(t("agent.browse.demo_sites", lang, names=listed))
    return join_words(names, lang, sep="items") or t("agent.browse.no_sites", lang)


def preview_line(minutes: int, lang: Lang) -> str:
    """A dry run's preview: how long it holds (how to confirm it is in the response's next steps)."""
    return t("agent.gate.preview", lang, minutes=minutes)


_TIMEOUT_PARTIAL = {
    "poi_facts": "agent.timeout.partial.poi_facts",
    "day_clusters": "agent.timeout.partial.day_clusters",
    "unverified_day_orders": "agent.timeout.partial.unverified_day_orders",
    "none": "agent.timeout.partial.none",
}


def timeout_sentence(partial: str, lang: Lang) -> str:
    """The budget ran out: what of the plan is kept (``partial``: the kind of partial result)."""
    return t("agent.timeout.stopped", lang, what=t(_TIMEOUT_PARTIAL[partial], lang))


def usd(amount: float) -> str:
    """A USD figure as the cost budget is given: cents and their fractions ("0.0042", "0.25")."""
    return f"{amount:.4f}".rstrip("0").rstrip(".") if amount else "0"


def cost_budget_sentence(partial: str, lang: Lang, *, spent_usd: float, budget_usd: float) -> str:
    """The cost budget ran out: the USD spent against the budget, and what of the plan is kept."""
    return t(
        "agent.timeout.cost",
        lang,
        spent=usd(spent_usd),
        budget=usd(budget_usd),
        what=t(_TIMEOUT_PARTIAL[partial], lang),
    )


#: each rule's words (keys written out whole, so the catalog check finds them)
RULE_KEYS: dict[str, str] = {
    "no_spicy": "agent.memory.rule.no_spicy",
    "no_queues": "agent.memory.rule.no_queues",
    "vegetarian": "agent.memory.rule.vegetarian",
    "vegan": "agent.memory.rule.vegan",
    "halal": "agent.memory.rule.halal",
    "no_alcohol": "agent.memory.rule.no_alcohol",
    "wheelchair": "agent.memory.rule.wheelchair",
    "stroller": "agent.memory.rule.stroller",
    "kids_under_6": "agent.memory.rule.kids_under_6",
}


def rule_words(codes: list[RuleCode], lang: Lang) -> str:
    return join_words([t(RULE_KEYS[c], lang) for c in codes], lang)


def remembered_sentence(codes: list[RuleCode], lang: Lang) -> str:
    """The rules just kept, said back ("I'll remember: no spicy food")."""
    return t("agent.memory.remembered", lang, rules=rule_words(codes, lang))


def forgot_all_sentence(lang: Lang) -> str:
    return t("agent.memory.forgot_all", lang)


def forgot_sentence(gone: list[RuleCode], asked: list[RuleCode], lang: Lang) -> str:
    """What was forgotten, or (nothing was) that the rules asked about were not kept."""
    if gone:
        return t("agent.memory.forgot", lang, rules=rule_words(gone, lang))
    return t("agent.memory.not_known", lang, rules=rule_words(asked, lang))


def rules_kept_sentence(kept: list[RuleCode], lang: Lang) -> str:
    """Which rules are kept (a forget request that named none is answered with them)."""
    return t("agent.memory.which", lang, rules=rule_words(kept, lang) if kept else t("agent.memory.nothing", lang))


#: the router's questions: each field it may ask for
_FIELD_KEYS = {
    "date": "agent.router.field.date",
    "party_size": "agent.router.field.party_size",
    "city": "agent.router.field.city",
    "budget": "agent.router.field.budget",
    "days": "agent.router.field.days",
    "target": "agent.router.field.target",
    "goal": "agent.router.field.goal",
}
#: the router's word for what happens next, by its code (keys written out whole, so the catalog check finds them)
_ROUTER_KEYS = {
    "browsing": "agent.router.browsing",
    "awaiting_consent": "agent.router.awaiting_consent",
    "book_first": "agent.router.book_first",
    "cancel_first": "agent.router.cancel_first",
    "commit_first": "agent.router.commit_first",
    "verifying": "agent.router.verifying",
    "planning": "agent.router.planning",
    "looking_up": "agent.router.looking_up",
    "confirming": "agent.router.confirming",
}


def ask_fields(fields: list[str], lang: Lang) -> str:
    """The router's question for the fields it misses."""
    names = [t(_FIELD_KEYS[f], lang) for f in fields]
    return t("agent.router.ask", lang, fields=join_words(names, lang))


def router_message(code: str, lang: Lang) -> str:
    """What the router says happens next (``code``: one of ``_ROUTER_KEYS``)."""
    return t(_ROUTER_KEYS[code], lang)


def tell_more(lang: Lang) -> str:
    """The router's question when it has none of its own: tell me more."""
    return t("agent.router.tell_more", lang)


def rules_known_sentence(lang: Lang) -> str:
    """A rule stated again: it is kept already."""
    return t("agent.memory.known", lang)


#: an answer that failed, by its code (keys written out whole, so the catalog check finds them)
_ERROR_KEYS = {
    "invalid_input": "agent.error.invalid_input",
    "tool_failed": "agent.error.tool_failed",
    "internal": "agent.error.internal",
    "database_unreachable": "agent.error.database_unreachable",
}


def error_sentence(code: str, lang: Lang, **facts: object) -> str:
    """Why no answer came, in words (``facts``: the error's message, the trace id to quote)."""
    return t(_ERROR_KEYS[code], lang, **facts)


#: what in a message could not be used, by the reason the reader gave (its facts fill the words)
_INPUT_KEYS = {
    "NOT_A_DATE": "agent.error.input.not_a_date",
    "DATE_TOO_FAR": "agent.error.input.date_too_far",
    "NOT_A_TIME": "agent.error.input.not_a_time",
    "DAY_OUT_OF_RANGE": "agent.error.input.day_out_of_range",
    "NAME_TOO_LONG": "agent.error.input.name_too_long",
    "EDIT_NOT_UNDERSTOOD": "agent.error.input.edit_not_understood",
}
#: a map service's failure, by its code: its facts are the service and, for a timeout, the seconds waited
_PROVIDER_KEYS = {
    "PROVIDER_TIMEOUT": "agent.error.provider.timeout",
    "PROVIDER_UNAVAILABLE": "agent.error.provider.unavailable",
    "PROVIDER_RATE_LIMITED": "agent.error.provider.rate_limited",
    "PROVIDER_QUOTA_EXCEEDED": "agent.error.provider.quota",
    "PROVIDER_AUTH_FAILED": "agent.error.provider.auth",
    "PROVIDER_NOT_REQUESTED": "agent.error.provider.not_requested",
}
#: a service's own label (core/geo) → its name in words, where the catalogs have one; other labels are names
_SERVICE_KEYS = {"AMap": "common.provider.short.amap", "AMap MCP": "common.provider.short.amap_mcp"}


def seconds_words(seconds: float) -> str:
    """A wait as a person reads it: whole seconds from 1 s up (7.99936 → 8), one decimal below."""
    return str(round(seconds)) if seconds >= 1 else f"{seconds:.1f}"


def input_error_sentence(details: object, message: str, lang: Lang) -> str:
    """Bad input in words: by the reader's reason and facts when it gave them; else the error's own message in
    English, and in Chinese the general request to correct it (its English message is never put in Chinese)."""
    facts = dict(details) if isinstance(details, dict) else {}
    key = _INPUT_KEYS.get(str(facts.pop("reason", "")))
    if key is not None:
        return t(key, lang, **facts)
    return t("agent.error.invalid_input", lang, message=message) if lang == "en" else t("agent.error.input.other", lang)


def provider_failure_clause(facts: dict[str, object], lang: Lang) -> str:
    """A map service's failure as a clause (``facts``: its ``cause`` code, the ``service`` label and, for a timeout,
    ``timeout_s``): the service by its name in ``lang``, the wait rounded; "" when the cause is no service's."""
    key = _PROVIDER_KEYS.get(str(facts.get("cause", "")))
    if key is None:
        return ""
    label = str(facts.get("service") or "")
    service = t(_SERVICE_KEYS[label], lang) if label in _SERVICE_KEYS else label or t("agent.error.map_service", lang)
    waited = facts.get("timeout_s")
    if key == _PROVIDER_KEYS["PROVIDER_TIMEOUT"] and not isinstance(waited, int | float):
        key = "agent.error.provider.late"  # a wait not stated is not guessed
    seconds = seconds_words(float(waited)) if isinstance(waited, int | float) else ""
    return t(key, lang, service=service, seconds=seconds)


def tool_error_sentence(details: object, message: str, lang: Lang) -> str:
    """A failed step in words: a map service's failure by its code and facts; any other in English by its message,
    in Chinese by the general sentence (an English message is never put in a Chinese answer)."""
    clause = provider_failure_clause(dict(details) if isinstance(details, dict) else {}, lang)
    if clause:
        return t("agent.error.provider_failed", lang, clause=clause)
    return t("agent.error.tool_failed", lang, message=message) if lang == "en" else t("agent.error.tool_other", lang)


def fetch_failed_sentence(http_status: int | None, lang: Lang) -> str:
    """A page that could not be read: with the site's HTTP status when it gave one."""
    if http_status is not None:
        return t("agent.browse.fetch_failed_status", lang, status=http_status)
    return t("agent.browse.fetch_failed_plain", lang)


# --- nearby questions ("外滩附近有素食餐厅吗") ----------------------------------------------------------------------
def nearby_head(anchor: str, kind: str, lang: Lang, *, km: float, source: str, other_kind: bool = False) -> str:
    """The start of the answer: the kind of place near the anchor, how far "near" reached and why, and how near is
    measured; when no place of the kind fits, that the places named are places to eat of another kind."""
    reach = t(f"agent.kb.nearby_radius.{source}", lang, km=f"{km:g}")
    kind_words = t(f"agent.kb.kind.{kind}", lang)
    lead = t("agent.kb.nearby_other_kind", lang, kind=kind_words.lower()) if other_kind else ""
    kind_words = t("agent.kb.kind.food_place", lang) if other_kind else kind_words
    return lead + t("agent.kb.nearby_head", lang, anchor=anchor, kind=kind_words, reach=reach)


def nearby_none(anchor: str, kind: str, km: float, lang: Lang, *, source: str) -> str:
    reach = t(f"agent.kb.nearby_radius.{source}", lang, km=f"{km:g}")
    return t("agent.kb.nearby_none", lang, anchor=anchor, kind=t(f"agent.kb.kind.{kind}", lang), km=f"{km:g}",
             reach=reach)  # fmt: skip


def nearby_place(place: str, anchor: str, metres: float, lang: Lang) -> str:
    """A place's name with its straight-line distance from the anchor."""
    return t("agent.kb.nearby_distance", lang, place=place, anchor=anchor, metres=f"{metres:.0f}")
