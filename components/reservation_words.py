"""The words of the reservation flow (components/reservations.py), in one language (reservations.po): refusal codes,
statuses, what the mock cannot verify, prices with their source, cancellation policies and fees. Pure functions
taking ``lang`` ("zh" or "en"); the core gives codes and facts, the sentences are chosen here."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any, TypedDict

from pydantic import ValidationError

from core.app.context import zone_or_none
from core.errors import OmniError
from core.i18n import Lang, t
from core.models.region import RegionPack
from core.models.reservations import BookableItem, CancellationPolicy, Quote, Reservation

REFUSALS: dict[str, str] = {
    "SLOT_FULL": "reservations.refusal.slot_full",
    "NOT_A_SLOT": "reservations.refusal.not_a_slot",
    "PARTY_TOO_LARGE": "reservations.refusal.party_too_large",
    "TOO_LATE": "reservations.refusal.too_late",
    "NOT_BOOKABLE": "reservations.refusal.not_bookable",
    "CONSENT_REQUIRED": "reservations.refusal.consent_required",
    "TOKEN_INVALID": "reservations.refusal.token_invalid",
    "IDEMPOTENCY_KEY_REUSED": "reservations.refusal.idempotency_key_reused",
    "NOT_FOUND": "reservations.refusal.not_found",
    "NOT_CANCELLABLE": "reservations.refusal.not_cancellable",
    "ILLEGAL_TRANSITION": "reservations.refusal.illegal_transition",
    "STATE_CHANGED": "reservations.refusal.state_changed",
    "INVALID_INPUT": "reservations.refusal.invalid_input",
    "SERVICE_UNAVAILABLE": "reservations.refusal.service_unavailable",
    "DATABASE_UNREACHABLE": "reservations.refusal.database_unreachable",
    "RESERVATION_REFUSED": "reservations.refused",  # the refusals' own family code: the general sentence
}
REFUSED = "reservations.refused"
FIELDS: dict[str, str] = {
    "contact": "reservations.field.contact",
    "notes": "reservations.field.notes",
    "party_size": "reservations.field.party_size",
    "date": "reservations.field.date",
    "time": "reservations.field.time",
    "item_id": "reservations.field.item_id",
}
STATUS: dict[str, str] = {
    "quoted": "reservations.status.quoted",  # a dry run's quote: not a reservation yet
    "pending": "reservations.status.pending",  # made by the confirmation, submitted to the venue
    "confirmed": "reservations.status.confirmed",
    "failed": "reservations.status.failed",
    "cancelled": "reservations.status.cancelled",
}
FAILED_BECAUSE: dict[str, str] = {
    "SLOT_FULL": "reservations.failed_because.slot_full",
}
UNVERIFIED: dict[str, str] = {
    "MOCK_VENUE": "reservations.unverified.mock_venue",
    "PRICE_UNKNOWN": "reservations.unverified.price_unknown",
}
WEEKDAYS = ("common.weekday.mon", "common.weekday.tue", "common.weekday.wed", "common.weekday.thu",
            "common.weekday.fri", "common.weekday.sat", "common.weekday.sun")  # fmt: skip
MONTHS = ("common.month.jan", "common.month.feb", "common.month.mar", "common.month.apr", "common.month.may",
          "common.month.jun", "common.month.jul", "common.month.aug", "common.month.sep", "common.month.oct",
          "common.month.nov", "common.month.dec")  # fmt: skip


def day_words(day: date, lang: Lang) -> str:
    """``2026年12月5日（周六）`` / ``Sat 5 Dec 2026``."""
    month, weekday = t(MONTHS[day.month - 1], lang), t(WEEKDAYS[day.weekday()], lang)
    return t("reservations.day", lang, year=day.year, month=month, day=day.day, weekday=weekday)


def moment_words(at: datetime, lang: Lang) -> str:
    """``12月3日 19:00`` / ``3 Dec 19:00``."""
    short = t("reservations.short_day", lang, month=t(MONTHS[at.month - 1], lang), day=at.day)
    return f"{short} {at:%H:%M}"


def clock_words(at: datetime, *, city: str, user_zone: str | None, lang: Lang) -> str:
    """``at``'s clock time (aware, in the venue's zone), with the venue's city when the user's zone differs there or
    is unknown: ``05:06 (上海时间)`` / ``05:06 Shanghai time``; ``05:06`` alone when the user is on the venue's clock."""
    return _in_city(f"{at:%H:%M}", at, city=city, user_zone=user_zone, lang=lang, key="reservations.clock_in_city")


class VenueClock(TypedDict):
    city: str
    user_zone: str | None


def venue_clock(pack: RegionPack, user_zone: str | None, lang: Lang) -> VenueClock:
    """Whose clock a venue's times are read on: its city's name in ``lang``, and the reader's zone (the browser's),
    so a time is labelled with the city when the reader is elsewhere."""
    return {"city": pack.display_name.get(lang) or pack.city, "user_zone": user_zone}


def _in_city(text: str, at: datetime, *, city: str, user_zone: str | None, lang: Lang, key: str) -> str:
    """``text`` (a time read on the venue's clock at ``at``) labelled with the venue's city unless the user's zone
    shows the same clock at that moment (an unknown zone gets the label: the reader cannot be assumed local)."""
    zone = zone_or_none(user_zone)
    if zone is not None and at.astimezone(zone).utcoffset() == at.utcoffset():
        return text
    return t(key, lang, time=text, city=city)


def money(amount: float, currency: str) -> str:
    text = f"{amount:,.2f}".rstrip("0").rstrip(".")
    return f"¥{text}" if currency == "CNY" else f"{text} {currency}"


def price_words(quote: Quote, party: int, lang: Lang) -> str:
    if quote.price_per_person is None or quote.total is None:
        return t("reservations.price.unknown", lang)
    if quote.price_per_person == 0:
        return t("reservations.price.free", lang)
    each, total = money(quote.price_per_person, quote.currency), money(quote.total, quote.currency)
    return t("reservations.price", lang, each=each, total=total, party=party)


def policy_words(
    policy: CancellationPolicy,
    starts: datetime,
    now: datetime | None = None,
    *,
    city: str,
    user_zone: str | None,
    lang: Lang,
) -> str:
    """The policy in words; with ``now``, whether its free period is already over. ``starts`` is aware, on the
    venue's clock; the free period's end carries the venue's city when the reader's zone (``user_zone``) shows
    another clock, as the booking deadline does (clock_words)."""
    if policy.fee_share == 0:
        return t("reservations.policy.free", lang)
    until = starts - timedelta(hours=policy.free_until_hours)
    text = t(
        "reservations.policy.fee",
        lang,
        hours=policy.free_until_hours,
        until=_in_city(
            moment_words(until, lang),
            until,
            city=city,
            user_zone=user_zone,
            lang=lang,
            key="reservations.moment_in_city",
        ),
        share=f"{policy.fee_share:.0%}",
    )
    if now is not None and now >= until:
        text = t("reservations.policy.over", lang, policy=text)
    return text


def fee_words(fee: float | None, reservation: Reservation, lang: Lang) -> str:
    if not fee:
        return t("reservations.fee.free", lang)
    return t("reservations.fee", lang, amount=money(fee, reservation.quote.currency))


def booking_words(r: Reservation, lang: Lang, *, name: str | None = None) -> str:
    """What is booked: the venue (``name``: its name in ``lang``; default the name stored with the booking), the
    day, the time and the party."""
    return t(
        "reservations.booking",
        lang,
        name=name or r.item_name,
        day=day_words(r.date, lang),
        time=f"{r.time:%H:%M}",
        party=r.party_size,
    )


def status_words(r: Reservation, lang: Lang) -> str:
    key = STATUS.get(r.status)
    status = t(key, lang) if key else r.status
    if r.status == "failed" and r.transitions:
        why = FAILED_BECAUSE.get(r.transitions[-1].reason)
        if why is not None:
            return t("reservations.status.because", lang, status=status, why=t(why, lang))
    return status


def unverified_words(code: str, lang: Lang) -> str:
    """What the mock cannot verify, in words."""
    return t(UNVERIFIED.get(code, "reservations.unverified.other"), lang)


def moved_words(day: date, at: time, lang: Lang) -> str:
    """The plan's slot could no longer be booked: the form shows the earliest one that can."""
    return t("reservations.offer.moved", lang, day=day_words(day, lang), time=f"{at:%H:%M}")


def error_of(exc: Exception) -> dict[str, Any]:
    """A refusal as plain state: its code, the core's message and details (shown only under "details")."""
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        loc = errors[0]["loc"] if errors else ()
        message = errors[0]["msg"] if errors else str(exc)
        return {"code": "INVALID_INPUT", "message": message, "field": str(loc[0]) if loc else "", "details": {}}
    if isinstance(exc, OmniError):
        return {"code": exc.code, "message": exc.message, "field": exc.field, "details": dict(exc.details or {})}
    return {"code": "SERVICE_UNAVAILABLE", "message": type(exc).__name__, "field": None, "details": {}}


def refusal_words(error: dict[str, Any], item: BookableItem | None = None, *, lang: Lang, venue: str = "") -> str:
    """The refusal's sentence with the venue's terms filled in (``venue``: its name in ``lang``; a term not known
    without the venue reads as blank)."""
    field_key = FIELDS.get(error.get("field") or "", "reservations.field.other")
    params: dict[str, Any] = dict.fromkeys(("venue", "first", "last", "step", "max_party", "lead"), "")
    params |= {"asked": error.get("asked", ""), "field": t(field_key, lang)}
    if item is not None:
        terms = item.terms
        params |= {
            "venue": venue or item.name, "first": f"{terms.first_slot:%H:%M}", "last": f"{terms.last_slot:%H:%M}",
            "step": terms.slot_minutes, "max_party": terms.max_party, "lead": terms.lead_time_hours,
        }  # fmt: skip
    return t(REFUSALS.get(error["code"], REFUSED), lang, **params)
