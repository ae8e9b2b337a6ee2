"""Dates and the sun in messages: a date a message names (read by core.phrases.dates), checked to exist and be near
enough to plan for, and sunrise/sunset by the standard sunrise equation."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from core.agent.features import normalize_message
from core.errors import InputError
from core.phrases.dates import DayPhrase, first_day

# --- dates and the sun -----------------------------------------------------------------------------
#: How far ahead a date in a message may be (a plan for 9999-12-31 is a typo, and overflows date arithmetic).
MAX_DAYS_AHEAD = 730


def resolve_day(text: str, *, now: datetime) -> date:
    """The first day a message names (core.phrases.dates: 今天/明天/周六/下周三/12月1日/Dec 1/28号/…) as a date in the
    user's timezone: ``now`` is the request's moment in that zone (its day when the message names none).

    A date that does not exist (2月30日, 13月45日, 2026-02-30) or lies more than MAX_DAYS_AHEAD days ahead is an
    InputError naming it, so the user can correct it."""
    today = now.date()  # the request's moment, in the zone the face gave it (its own; else the region's)
    return checked_day(first_day(normalize_message(text), today=today), today=today, field="message")


def checked_day(phrase: DayPhrase | None, *, today: date, field: str) -> date:
    """The phrase's date (today when there is none); an InputError on ``field`` for one that does not exist or lies
    more than MAX_DAYS_AHEAD days ahead."""
    if phrase is None:
        return today
    if phrase.day is None:
        raise InputError(
            f"{phrase.text} is not a date", field=field, details={"reason": "NOT_A_DATE", "text": phrase.text}
        )
    if (phrase.day - today).days > MAX_DAYS_AHEAD:
        raise InputError(
            f"{phrase.day.isoformat()} is more than {MAX_DAYS_AHEAD // 365} years ahead; give a nearer date",
            field=field,
            details={"reason": "DATE_TOO_FAR", "date": phrase.day.isoformat(), "years": MAX_DAYS_AHEAD // 365},
        )
    return phrase.day


def sun_times(day: date, *, lon: float, lat: float, tz: str) -> tuple[datetime, datetime] | None:
    """Sunrise and sunset (local time) by the standard sunrise equation (NOAA approximation, ~1-2 min).

    Astronomy, not weather: it is exact enough to say whether a sunset can be reached.
    Returns None during polar day or night."""
    jd_midnight = day.toordinal() + 1721424.5  # Julian date at 00:00 UTC of ``day``
    n = math.ceil(jd_midnight - 2451545.0 + 0.0008)  # days since J2000's noon: ``day``'s own transit, not the next
    j_star = n - lon / 360.0
    m = math.radians((357.5291 + 0.98560028 * j_star) % 360)
    c = 1.9148 * math.sin(m) + 0.02 * math.sin(2 * m) + 0.0003 * math.sin(3 * m)
    lam = math.radians((math.degrees(m) + c + 180 + 102.9372) % 360)
    j_transit = 2451545.0 + j_star + 0.0053 * math.sin(m) - 0.0069 * math.sin(2 * lam)
    decl = math.asin(math.sin(lam) * math.sin(math.radians(23.4397)))
    phi = math.radians(lat)
    cos_w = (math.sin(math.radians(-0.833)) - math.sin(phi) * math.sin(decl)) / (math.cos(phi) * math.cos(decl))
    if not -1 <= cos_w <= 1:
        return None
    w = math.degrees(math.acos(cos_w))
    zone = ZoneInfo(tz)

    def to_local(j: float) -> datetime:
        # to the nearest minute, as almanacs give it (19:00:57 is 19:01)
        return datetime.fromtimestamp(round((j - 2440587.5) * 1440) * 60, tz=UTC).astimezone(zone)

    return to_local(j_transit - w / 360), to_local(j_transit + w / 360)
