"""OSM ``opening_hours`` → minute intervals for the trip's actual dates (opening-hours-py).

Intervals are minutes from local midnight of the given date. An interval that starts on the date
and runs past midnight keeps going (``Fr 22:00-02:00`` on a Friday is ``[1320, 1560]``), so a
late venue is not cut at 24:00; the early-morning tail also belongs to the next date, as OSM
means it. Evaluation is in the region's timezone and country (public holidays: ``PH off``).

No opening hours (blank) means no restriction (always open, source ``no_opening_hours``).
An expression that does not parse is also treated as no restriction but labelled
``opening_hours_unparsed`` so the planner can warn; nothing is invented.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from core.models.itinerary_problem import MinuteInterval

if TYPE_CHECKING:
    from opening_hours import OpeningHours

DAY_MIN = 24 * 60
# How far past midnight a late interval is followed (covers ``20:00-26:00``-style hours).
PAST_MIDNIGHT_MIN = 12 * 60

OpeningSource = str  # "opening_hours" | "no_opening_hours" | "opening_hours_unparsed"


class OpeningWindows(BaseModel):
    opening_hours: str | None
    source: str
    by_date: dict[date, list[MinuteInterval]] = Field(description="Open intervals, minutes from that date's midnight")
    comments: list[str] = Field(default_factory=list, description="Comments in the expression (e.g. 'appointment')")
    error: str | None = None

    def is_closed_on(self, day: date) -> bool:
        return not self.by_date.get(day)


@lru_cache(maxsize=1024)
def _parse(expr: str, timezone: str, country: str | None) -> OpeningHours:
    from opening_hours import OpeningHours

    # country=None is the library's own default, so leaving it out and passing None are the same
    return OpeningHours(expr, timezone=ZoneInfo(timezone), country=country or None)


def _merge(intervals: list[tuple[int, int]]) -> list[MinuteInterval]:
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [MinuteInterval(start=s, end=e) for s, e in out]


def opening_windows(
    opening_hours: str | None,
    dates: Sequence[date],
    *,
    timezone: str,
    country: str | None = None,
) -> OpeningWindows:
    """Open intervals of ``opening_hours`` on each of ``dates`` (local minutes from that midnight)."""
    expr = (opening_hours or "").strip()
    always = {d: [MinuteInterval(start=0, end=DAY_MIN + PAST_MIDNIGHT_MIN)] for d in dates}
    if not expr:
        return OpeningWindows(opening_hours=None, source="no_opening_hours", by_date=always)
    try:
        oh = _parse(expr, timezone, country or None)
    except Exception as exc:  # ParserError, SyntaxError, UnknownCountryError: never crash a plan on one bad row
        return OpeningWindows(
            opening_hours=expr, source="opening_hours_unparsed", by_date=always, error=str(exc).splitlines()[0]
        )
    zone = ZoneInfo(timezone)
    by_date: dict[date, list[MinuteInterval]] = {}
    comments: set[str] = set()
    for day in dates:
        midnight = datetime(day.year, day.month, day.day, tzinfo=zone)
        horizon = midnight + timedelta(minutes=DAY_MIN + PAST_MIDNIGHT_MIN)
        spans: list[tuple[int, int]] = []
        for start, end, state, comment in oh.intervals(midnight, horizon):
            if str(state).rsplit(".", 1)[-1].upper() not in {"OPEN", "UNKNOWN"}:
                continue
            start_min = _minutes_from(midnight, start, zone)
            end_min = _minutes_from(midnight, end, zone)
            if start_min >= DAY_MIN:  # opens tomorrow: tomorrow's own interval, not a tail of today
                continue
            if comment:
                comments.add(comment)
            spans.append((max(0, start_min), min(end_min, DAY_MIN + PAST_MIDNIGHT_MIN)))
        by_date[day] = _merge(spans)
    return OpeningWindows(opening_hours=expr, source="opening_hours", by_date=by_date, comments=sorted(comments))


def _minutes_from(midnight: datetime, moment: datetime, zone: ZoneInfo) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    local = moment.astimezone(zone)
    # Wall-clock minutes (a DST day still reads 10:00 as 600), counted across date changes.
    days = (local.date() - midnight.date()).days
    return days * DAY_MIN + local.hour * 60 + local.minute
