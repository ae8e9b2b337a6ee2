"""ICS (RFC 5545) calendar export of an ItineraryResult.

One VEVENT per visit and lunch (travel optional). Text is escaped (backslash, semicolon, comma,
newline), lines end in CRLF and are folded at 75 octets without splitting a UTF-8 character.
Times are either local with ``TZID`` plus a generated VTIMEZONE (default) or UTC (``Z``).
The calendar is built from the result only; nothing is recomputed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from core.models.common import strip_invisible
from core.models.itinerary_result import ItineraryResult, TimelineEntry

PRODID = "-//Omni-Travel Planner//Itinerary//EN"
_FOLD_OCTETS = 75


def escape_text(value: str) -> str:
    """RFC 5545 §3.3.11 TEXT escaping, without bidi overrides or other invisible characters (a calendar shows a
    name as it is written)."""
    return (
        strip_invisible(value)
        .replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def fold_line(line: str) -> str:
    """Fold to lines of at most 75 octets (continuations start with one space), never inside a character."""
    out: list[str] = []
    current = ""
    size = 0
    limit = _FOLD_OCTETS
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > limit:
            out.append(current)
            current, size = " ", 1  # the leading space counts toward the next line's 75 octets
        current += ch
        size += n
    out.append(current)
    return "\r\n".join(out)


def _utc(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _local(dt: datetime, zone: ZoneInfo) -> str:
    return dt.astimezone(zone).strftime("%Y%m%dT%H%M%S")


def _utcoffset(moment: datetime) -> timedelta:
    off = moment.utcoffset()
    assert off is not None, "an aware (ZoneInfo) datetime always has an offset"
    return off


def _offset(td: timedelta) -> str:
    minutes = int(td.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}{minutes % 60:02d}"


def vtimezone_lines(tzid: str, first_year: int, last_year: int) -> list[str]:
    """A VTIMEZONE with the zone's real offset changes from ``first_year - 1`` to ``last_year``
    (found by scanning the zone hour by hour; each change is one observance, no RRULE needed)."""
    zone = ZoneInfo(tzid)
    t = datetime(first_year - 1, 1, 1, tzinfo=UTC)
    end = datetime(last_year + 1, 1, 1, tzinfo=UTC)
    prev = t.astimezone(zone)
    observances: list[tuple[str, datetime, timedelta, timedelta, str]] = []
    while t < end:
        t += timedelta(hours=1)
        cur = t.astimezone(zone)
        if cur.utcoffset() != prev.utcoffset():
            kind = "DAYLIGHT" if cur.dst() else "STANDARD"
            onset = t.replace(tzinfo=None) + _utcoffset(prev)  # wall clock just before the change
            observances.append((kind, onset, _utcoffset(prev), _utcoffset(cur), cur.tzname() or ""))
        prev = cur
    lines = ["BEGIN:VTIMEZONE", f"TZID:{tzid}"]
    if not observances:  # a fixed offset (e.g. Asia/Shanghai since 1991)
        off = _utcoffset(prev)
        observances = [("DAYLIGHT" if prev.dst() else "STANDARD", datetime(1970, 1, 1), off, off, prev.tzname() or "")]
    for kind, onset, before, after, name in observances:
        lines += [
            f"BEGIN:{kind}",
            f"DTSTART:{onset.strftime('%Y%m%dT%H%M%S')}",
            f"TZOFFSETFROM:{_offset(before)}",
            f"TZOFFSETTO:{_offset(after)}",
        ]
        if name:
            lines.append(f"TZNAME:{escape_text(name)}")
        lines.append(f"END:{kind}")
    lines.append("END:VTIMEZONE")
    return lines


def _uid(result: ItineraryResult, day_index: int, entry_index: int, entry: TimelineEntry) -> str:
    basis = f"{result.trip_name}|{day_index}|{entry_index}|{entry.kind}|{entry.key}|{entry.start.isoformat()}"
    return hashlib.sha1(basis.encode("utf-8")).hexdigest()[:20] + "@omni-travel-planner"


def itinerary_to_ics(
    result: ItineraryResult,
    *,
    use_utc: bool = False,
    include_travel: bool = False,
    calendar_name: str | None = None,
    generated_at: datetime,
    describe: Callable[[TimelineEntry], str] | None = None,
    title: Callable[[TimelineEntry], str] | None = None,
) -> str:
    """The itinerary as an iCalendar document (CRLF line ends, folded, escaped). ``describe`` words an event's
    description and ``title`` its summary for people (the use case passes core/words/itinerary_ics.py's in the
    reader's language); without them an event has no description and is titled by its entry's name: the core
    builds no sentence."""
    zone = ZoneInfo(result.timezone)
    stamp = _utc(generated_at)
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape_text(calendar_name or result.trip_name)}",
    ]
    if not use_utc:
        lines.append(f"X-WR-TIMEZONE:{result.timezone}")
        years = [d.date.year for d in result.days] or [generated_at.astimezone(zone).year]
        lines += vtimezone_lines(result.timezone, min(years), max(years))
    kinds = {"visit", "lunch"} | ({"travel"} if include_travel else set())
    for day in result.days:
        for i, entry in enumerate(day.entries):
            if entry.kind not in kinds:
                continue
            if use_utc:
                start, end = f"DTSTART:{_utc(entry.start)}", f"DTEND:{_utc(entry.end)}"
            else:
                start = f"DTSTART;TZID={result.timezone}:{_local(entry.start, zone)}"
                end = f"DTEND;TZID={result.timezone}:{_local(entry.end, zone)}"
            summary = title(entry) if title is not None else entry.name
            lines += [
                "BEGIN:VEVENT",
                f"UID:{_uid(result, day.day_index, i, entry)}",
                f"DTSTAMP:{stamp}",
                start,
                end,
                f"SUMMARY:{escape_text(summary)}",
            ]
            if entry.kind == "visit":
                lines.append(f"LOCATION:{escape_text(entry.name)}")
            if entry.lat is not None and entry.lon is not None and entry.kind != "travel":
                lines.append(f"GEO:{entry.lat:.6f};{entry.lon:.6f}")
            description = describe(entry) if describe is not None else ""
            if description:
                lines.append(f"DESCRIPTION:{escape_text(description)}")
            # a meal stop is both: VISIT,LUNCH
            categories = entry.kind.upper() + (f",{entry.meal.upper()}" if entry.meal else "")
            lines += [f"CATEGORIES:{categories}", "TRANSP:OPAQUE", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return "".join(fold_line(line) + "\r\n" for line in lines)
