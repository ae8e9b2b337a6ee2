"""Demo trips (``data/trips/*.json``) dated relative to today (issue 12 §4): a demo is written with fixed dates chosen
for their weekday ("the museum closes on Mondays" is why a demo starts on a Monday); when one is loaded its days move
by whole weeks to the first dates on or after today, so every weekday and every gap between days is kept and no demo
is ever planned in the past."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import InputError


def region_today(timezone: str, *, now: Callable[[], datetime]) -> date:
    """Today's date in ``timezone`` (an IANA name such as ``Asia/Shanghai``) on the clock ``now`` (an aware
    moment: the request's)."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InputError(f"unknown time zone '{timezone}'", field="timezone") from exc
    moment = now()
    if moment.tzinfo is None:
        raise InputError("the clock must give a moment with its UTC offset", field="now")
    return moment.astimezone(zone).date()


def week_shift(first: date, *, today: date) -> timedelta:
    """The whole weeks that move ``first`` to the first date on or after ``today`` with the same weekday (zero
    weeks when ``first`` is that date already; negative when ``first`` lies further ahead)."""
    target = today + timedelta(days=(first.weekday() - today.weekday()) % 7)
    return target - first


def shift_trip_dates(trip: Mapping[str, Any], *, today: date) -> dict[str, Any]:
    """A copy of a demo TripRequest (raw JSON dict) whose ``days[*].date`` start on the first date on or after
    ``today`` with the first day's weekday; every day moves by the same whole weeks, so each keeps its weekday and
    the gaps between days stay. A trip without dated days is returned unchanged (as a copy); a date that is not
    ISO 8601 is an InputError on ``days``."""
    out = dict(trip)
    days = trip.get("days")
    if not isinstance(days, list) or not days:
        return out
    try:
        dates = [date.fromisoformat(str(d["date"])) if isinstance(d, Mapping) and d.get("date") else None for d in days]
    except ValueError as exc:
        raise InputError(f"a demo trip day's date is not a date (YYYY-MM-DD): {exc}", field="days") from exc
    known = [d for d in dates if d is not None]
    if not known:
        return out
    shift = week_shift(min(known), today=today)
    out["days"] = [
        {**day, "date": (when + shift).isoformat()} if when is not None else day
        for day, when in zip(days, dates, strict=True)
    ]
    return out
