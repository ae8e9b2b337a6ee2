"""Dates and the sun in messages: a date a message names (今天/明天/后天/M月D日/YYYY-MM-DD), checked to exist and be
near enough to plan for, and sunrise/sunset by the standard sunrise equation."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from core.errors import InputError

# --- dates and the sun -----------------------------------------------------------------------------
#: How far ahead a date in a message may be (a plan for 9999-12-31 is a typo, and overflows date arithmetic).
MAX_DAYS_AHEAD = 730


def _next_occurrence(month: int, day: int, today: date) -> date:
    """The next M/D on or after today: this year or a later one (2月29日 → the next leap year's)."""
    for year in range(today.year, today.year + 9):
        try:
            d = date(year, month, day)
        except ValueError:
            continue
        if d >= today:
            return d
    raise InputError(f"{month}月{day}日 is not a date ({month}/{day} does not exist)", field="message")


def resolve_day(text: str, *, tz: str, now: datetime | None = None) -> date:
    """今天/明天/后天/today/tomorrow/YYYY-MM-DD/M月D日 -> a date in the user's timezone (default today).

    A date that does not exist (2月30日, 13月45日, 2026-02-30) or lies more than MAX_DAYS_AHEAD days ahead is an
    InputError naming it, so the user can correct it."""
    now = now or datetime.now(ZoneInfo(tz))
    today = now.date()
    d: date | None = None
    m = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    if m:
        try:
            d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            raise InputError(f"{m.group(0)} is not a date", field="message") from None
    elif m := re.search(r"(\d{1,2})月(\d{1,2})[日号]", text):
        month, day = int(m.group(1)), int(m.group(2))
        if not (1 <= month <= 12 and 1 <= day <= 31):
            raise InputError(f"{m.group(0)} is not a date", field="message")
        d = _next_occurrence(month, day, today)
    elif re.search(r"大后天", text):
        d = today + timedelta(days=3)
    elif re.search(r"后天|day after tomorrow", text, re.I):
        d = today + timedelta(days=2)
    elif re.search(r"明天|明日|tomorrow", text, re.I):
        d = today + timedelta(days=1)
    if d is None:
        return today
    if (d - today).days > MAX_DAYS_AHEAD:
        raise InputError(
            f"{d.isoformat()} is more than {MAX_DAYS_AHEAD // 365} years ahead; give a nearer date", field="message"
        )
    return d


def sun_times(day: date, *, lon: float, lat: float, tz: str) -> tuple[datetime, datetime] | None:
    """Sunrise and sunset (local time) by the standard sunrise equation (NOAA approximation, ~1-2 min).

    Astronomy, not weather: it is exact enough to say whether a sunset can be reached.
    Returns None during polar day or night."""
    jd_noon = day.toordinal() + 1721425.0  # Julian date at 12:00 UTC
    n = math.ceil(jd_noon - 2451545.0 + 0.0008)
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
        return datetime.fromtimestamp((j - 2440587.5) * 86400, tz=UTC).astimezone(zone)

    return to_local(j_transit - w / 360), to_local(j_transit + w / 360)
