"""Typical queues at a pack's places: ``data/regions/<name>/queues.json`` (see data/README.md).

The file names a few profiles (``none``, ``light``, ``popular``, ...), each giving typical waiting minutes per hour
band on a weekday and on a weekend day, assigns one to each category and overrides it for single places. The wait
is the time before a visit can begin: a table, a ticket, the security check or the entrance line. The figures are
the pack's own indicative estimates and say so (``QueueEstimate.source``); a pack without the file, a place it does
not cover or a category it assigns nothing to has no estimate (None), never a made-up zero.

Public holidays count as weekend days (``day_type`` ``public_holiday``). They come from the calendar that
opening-hours-py (already used for opening hours) carries for the pack's country; for China that calendar names one
day of most statutory holidays (1 October, not the rest of Golden Week; no Qingming) and not the weekend days made
working days, so the days it does not name are taken by their weekday (data/README.md).
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError

from core.errors import InputError
from core.models.region import RegionPack

if TYPE_CHECKING:
    from opening_hours import OpeningHours

QUEUES_FILE = "queues.json"
SOURCE = f"pack_estimate:{QUEUES_FILE}"
DayType = Literal["weekday", "weekend", "public_holiday"]
_BAND = re.compile(r"(\d{1,2})-(\d{1,2})")

Minutes = Annotated[int, Field(ge=0, le=600)]


class QueueProfile(BaseModel):
    """Typical waiting minutes by hour band ("11-13" = 11:00 to 13:59), on a weekday and on a weekend day."""

    weekday: dict[str, Minutes]
    weekend: dict[str, Minutes]
    note: str = ""


class QueueTable(BaseModel):
    """A pack's ``queues.json``."""

    source: str = Field(min_length=1, description="where the figures come from")
    indicative: bool = Field(default=True, description="typical values, not measurements or live data")
    data_date: str | None = None
    note: str = ""
    profiles: dict[str, QueueProfile]
    by_category: dict[str, str] = Field(default_factory=dict, description="category → profile")
    by_place: dict[str, str] = Field(default_factory=dict, description="place id → profile (overrides its category)")


class QueueEstimate(BaseModel):
    minutes: int = Field(ge=0)
    day_type: DayType
    profile: str
    source: str


def band_hours(band: str) -> range | None:
    """The hours an "a-b" band covers (both ends included), or None when it is not one."""
    m = _BAND.fullmatch(band.strip())
    if m is None:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    return range(first, last + 1) if 0 <= first <= last <= 23 else None


@lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int) -> QueueTable:
    try:
        return QueueTable.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        where = ".".join(str(x) for x in first["loc"]) if first else ""
        why = f"{where}: {first['msg']}" if first else str(exc)
        raise InputError(f"{Path(path).name} does not read: {why}", field=QUEUES_FILE, code="PACK_INVALID") from exc


def load_queues(pack: RegionPack) -> QueueTable | None:
    """The pack's queue table; None when the pack has none. A file that does not read is an ``InputError``."""
    if pack.folder is None:
        return None
    path = pack.folder / QUEUES_FILE
    if not path.is_file():
        return None
    return _read(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=16)
def _holidays(country: str, timezone: str) -> OpeningHours | None:
    from opening_hours import OpeningHours

    try:
        return OpeningHours("PH", country=country, timezone=ZoneInfo(timezone))
    except Exception:  # UnknownCountryError: no calendar for it, so no public holidays are known
        return None


def day_type(pack: RegionPack, day: date) -> DayType:
    """``public_holiday`` when the country's calendar says so, else ``weekend`` on Saturday and Sunday."""
    calendar = _holidays(pack.country, pack.timezone) if pack.country else None
    if calendar is not None and calendar.is_open(
        datetime(day.year, day.month, day.day, 12, tzinfo=ZoneInfo(pack.timezone))
    ):
        return "public_holiday"
    return "weekend" if day.weekday() >= 5 else "weekday"


def minutes_at(bands: dict[str, int], hour: int) -> int | None:
    for band, minutes in bands.items():
        hours = band_hours(band)
        if hours is not None and hour in hours:
            return minutes
    return None


def profile_for(table: QueueTable, place_id: str, category: str) -> str | None:
    return table.by_place.get(place_id) or table.by_category.get(category)


def queue_estimate(pack: RegionPack, place_id: str, when: datetime) -> QueueEstimate | None:
    """The typical wait at ``place_id`` at ``when`` (naive: the pack's local time), or None when the pack does not
    say (no queue data, an unknown place, a category without a profile)."""
    table = load_queues(pack)
    place = pack.place_by_id(place_id)
    if table is None or place is None:
        return None
    name = profile_for(table, place.id, place.category)
    profile = table.profiles.get(name) if name else None
    if name is None or profile is None:
        return None
    local = when.astimezone(ZoneInfo(pack.timezone)) if when.tzinfo is not None else when
    kind = day_type(pack, local.date())
    minutes = minutes_at(profile.weekday if kind == "weekday" else profile.weekend, local.hour)
    if minutes is None:
        return None
    return QueueEstimate(minutes=minutes, day_type=kind, profile=name, source=SOURCE)


def check_queue_table(table: QueueTable, pack: RegionPack, categories: set[str]) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a pack's queue table: profiles referenced exist, every profile covers each hour 0-23
    exactly once on both day types, the places exist and the categories are the product's."""
    errors: list[str] = []
    warnings: list[str] = []
    for name, profile in table.profiles.items():
        for kind in ("weekday", "weekend"):
            seen: dict[int, str] = {}
            for band in getattr(profile, kind):
                hours = band_hours(band)
                if hours is None:
                    errors.append(f"{QUEUES_FILE}: profile {name!r} {kind} band {band!r} is not 'a-b' hours 0-23")
                    continue
                for h in hours:
                    if h in seen:
                        errors.append(f"{QUEUES_FILE}: profile {name!r} {kind} hour {h} in {seen[h]!r} and {band!r}")
                    seen[h] = band
            missing = [h for h in range(24) if h not in seen]
            if missing:
                errors.append(f"{QUEUES_FILE}: profile {name!r} {kind} does not cover hours {missing}")
    used = set(table.by_category.values()) | set(table.by_place.values())
    for key, where in ((table.by_category, "by_category"), (table.by_place, "by_place")):
        for owner, name in sorted(key.items()):
            if name not in table.profiles:
                errors.append(f"{QUEUES_FILE}: {where} {owner!r} names profile {name!r}, which does not exist")
    for category in sorted(table.by_category):
        if category not in categories:
            errors.append(f"{QUEUES_FILE}: by_category names unknown category {category!r}")
    for place_id in sorted(table.by_place):
        if pack.place_by_id(place_id) is None:
            errors.append(f"{QUEUES_FILE}: by_place names {place_id!r}, which is not in places.csv")
    for name in sorted(set(table.profiles) - used):
        warnings.append(f"{QUEUES_FILE}: profile {name!r} is not used")
    return errors, warnings
