"""The critic's checks against facts outside the result: the request (every place visited once, dropped or
removed, locks kept), the region pack's opening hours on the real dates, the provider's travel times re-asked
for every leg, and every drop reason re-derived (docs/ARCHITECTURE.md, "Itinerary")."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from core.config import Settings
from core.geo.base import Router
from core.models.itinerary import PlaceRef, TripPlace, TripRequest
from core.models.itinerary_result import DroppedItem, ItineraryResult, TimelineEntry

if TYPE_CHECKING:
    from core.models.region import RegionPack


class Flag(Protocol):
    """The critic's ``flag``: records one violation (code, message, and where it is)."""

    def __call__(
        self, code: str, message: str, *, day: int | None = None, entry: int | None = None, key: str | None = None
    ) -> None: ...


def _mins(a: datetime, b: datetime) -> int:
    return int(round((b - a).total_seconds() / 60.0))


def _anchor_key(ref: PlaceRef) -> str:
    """The result contract's key of a day's start/end place (written out here, not imported)."""
    return "anchor:" + (ref.place_id or f"{ref.lon:.6f},{ref.lat:.6f}")


def _opening_expr(place: TripPlace, pack: RegionPack | None) -> tuple[bool, str | None]:
    """(known, expression) of a requested place's opening hours: its own, else the pack's."""
    expr = place.opening_hours
    if expr is None and place.place_id and pack is not None:
        pp = pack.place_by_id(place.place_id)
        expr = pp.opening_hours if pp else None
    return (expr is not None or pack is not None or place.place_id is None), expr


def _windows_for(
    entry: TimelineEntry, day_date: date, request: TripRequest | None, pack: RegionPack | None, timezone: str
) -> list[tuple[datetime, datetime]] | None:
    if request is not None:
        place = request.place(entry.key or "")
        if place is not None:
            known, expr = _opening_expr(place, pack)
            if known:
                from core.itinerary.opening import opening_windows

                ow = opening_windows(
                    expr, [day_date], timezone=timezone, country=(pack.country if pack is not None else None) or None
                )
                zone = ZoneInfo(timezone)
                base = datetime(day_date.year, day_date.month, day_date.day)
                return [
                    (
                        (base + timedelta(minutes=iv.start)).replace(tzinfo=zone),
                        (base + timedelta(minutes=iv.end)).replace(tzinfo=zone),
                    )
                    for iv in ow.by_date[day_date]
                ]
    return list(entry.opening_windows) if entry.opening_windows else None


def _check_request(
    result: ItineraryResult,
    request: TripRequest,
    visits: Counter[str | None],
    pack: RegionPack | None,
    settings: Settings,
    flag: Flag,
) -> None:
    _check_accounted(result, request, visits, flag)
    for day in result.days:
        # a visit split around a lunch on site counts as one, of both parts' length
        minutes: Counter[str | None] = Counter()
        for e in day.entries:
            if e.kind == "visit":
                minutes[e.key] += _mins(e.start, e.end)
        for i, e in enumerate(day.entries):
            if e.kind != "visit" or e.continues_visit:
                continue
            place = request.place(e.key or "")
            if place is None:
                continue
            _check_locks(e, place, day.day_index, i, flag)
            _check_visit_length(e, place, minutes[e.key], day.day_index, i, result, pack, settings, flag)


def _check_accounted(result: ItineraryResult, request: TripRequest, visits: Counter[str | None], flag: Flag) -> None:
    """Every visit of a requested place, once; every requested place visited or dropped; a must-visit or locked
    stop dropped never in a plan called ready (unless the user removed it)."""
    dropped = {x.key for x in result.dropped_items}
    keys = {p.key for p in request.places}
    for key, n in visits.items():
        if key not in keys:
            flag("UNKNOWN_PLACE", f"visit of '{key}', which the request does not list", key=key)
        if n > 1:
            flag("DUPLICATE_VISIT", f"'{key}' is visited {n} times", key=key)
    for place in request.places:
        if place.key not in visits and place.key not in dropped:
            flag("PLACE_UNACCOUNTED", f"'{place.key}' is neither visited nor listed as dropped", key=place.key)
        hard = place.priority == "must" or place.fixed_day is not None or place.fixed_start is not None
        removed = any(x.key == place.key and x.reason_code == "REMOVED_BY_USER" for x in result.dropped_items)
        if hard and not removed and place.key not in visits and place.key in dropped and result.status == "ready":
            flag(
                "MUST_DROPPED_SILENTLY",
                f"{'must-visit' if place.priority == 'must' else 'locked stop'} "
                f"'{place.key}' is dropped but the plan is 'ready'",
                key=place.key,
            )


def _check_locks(e: TimelineEntry, place: TripPlace, day_index: int, i: int, flag: Flag) -> None:
    """A visit locked to a day is on it; a booked slot starts at its time and is not split around a lunch."""
    if place.fixed_day is not None and place.fixed_day != day_index:
        flag(
            "LOCK_VIOLATED",
            f"'{e.key}' is locked to day {place.fixed_day + 1} but is on day {day_index + 1}",
            day=day_index,
            entry=i,
            key=e.key,
        )
    if place.fixed_start is not None and e.part is not None:
        flag(
            "SPLIT_VISIT_INVALID",
            f"'{e.key}' is a booked slot at {place.fixed_start:%H:%M}; it is not split around a lunch",
            day=day_index,
            entry=i,
            key=e.key,
        )
    if place.fixed_start is not None and (e.start.hour, e.start.minute) != (
        place.fixed_start.hour,
        place.fixed_start.minute,
    ):
        flag(
            "LOCK_VIOLATED",
            f"'{e.key}' is locked to {place.fixed_start:%H:%M} but starts {e.start:%H:%M}",
            day=day_index,
            entry=i,
            key=e.key,
        )


def _check_visit_length(
    e: TimelineEntry,
    place: TripPlace,
    lasts: int,
    day_index: int,
    i: int,
    result: ItineraryResult,
    pack: RegionPack | None,
    settings: Settings,
    flag: Flag,
) -> None:
    """A visit lasts (both parts of a split one together) its length: the request's, else the pack's, else the
    default, scaled by the policy's visit factor unless it is a booked slot."""
    base = place.visit_minutes
    if base is None and pack is not None and place.place_id:
        pp = pack.place_by_id(place.place_id)
        base = pp.visit_minutes if pp else None
    base = base or settings.default_visit_minutes
    if base:
        need = base if place.fixed_start is not None else math.ceil(base * result.policy.visit_factor - 1e-9)
        if lasts < need:
            flag("VISIT_TOO_SHORT", f"'{e.key}' lasts {lasts} of {need} min", day=day_index, entry=i, key=e.key)


def _load_pack(name: str | None, settings: Settings) -> RegionPack | None:
    """The region pack the request names (else settings'), read by the critic itself; None if absent."""
    if not name:
        return None
    try:
        from core.packs.loader import load_region

        return load_region(name, settings.data_dir)
    except Exception:  # an unknown or unreadable pack: the checks that need it fall back to the result
        return None


def _point_of(ref: PlaceRef | TripPlace, pack: RegionPack | None) -> tuple[float, float] | None:
    if ref.lon is not None and ref.lat is not None:
        return float(ref.lon), float(ref.lat)
    pp = pack.place_by_id(ref.place_id) if (pack is not None and ref.place_id) else None
    return (pp.lon, pp.lat) if pp else None


def _check_provider_travel(
    result: ItineraryResult, request: TripRequest, pack: RegionPack | None, provider: Router | None, flag: Flag
) -> None:
    """Re-ask the provider for every leg's nominal time (offline estimate: rebuilt from the pack)."""
    legs = [(d, i, e) for d in result.days for i, e in enumerate(d.entries) if e.kind == "travel"]
    if not legs:
        return
    if provider is None:
        from core.geo.offline import OFFLINE_SOURCE, OfflineProvider

        if result.matrix_source != OFFLINE_SOURCE or pack is None:
            return  # an online matrix and no provider to ask: only the policy arithmetic is checked
        provider = OfflineProvider(pack)
    coords: dict[str, tuple[float, float]] = {}
    for i in range(len(request.days)):
        for ref in (request.day_start_place(i), request.day_end_place(i)):
            pt = _point_of(ref, pack)
            if pt is not None:
                coords.setdefault(_anchor_key(ref), pt)
    removed = {x.key for x in result.dropped_items if x.reason_code == "REMOVED_BY_USER"}
    for place in request.places:
        pt = _point_of(place, pack)
        if pt is not None and place.key not in removed:
            coords.setdefault(place.key or "", pt)  # the key is set by TripPlace's validator
    keys = list(coords)
    index = {k: n for n, k in enumerate(keys)}
    from core.geo.base import LonLat

    try:
        raw = provider.matrix([LonLat(*coords[k]) for k in keys], mode=result.mode)
    except Exception as exc:  # the provider is down: say so rather than pass silently
        flag("ROBUST_TIME_NOT_USED", f"could not re-ask the provider for travel times: {type(exc).__name__}")
        return
    for day, i, e in legs:
        a, b = index.get(e.from_key or ""), index.get(e.to_key or "")
        if a is None or b is None:
            flag(
                "ROBUST_TIME_NOT_USED",
                f"travel '{e.name}' joins points the request does not name",
                day=day.day_index,
                entry=i,
            )
            continue
        nominal = 0.0 if a == b else float(raw.durations_s[a][b])
        if e.nominal_s is None or not math.isfinite(nominal) or abs(e.nominal_s - nominal) > 0.51:
            flag(
                "ROBUST_TIME_NOT_USED",
                f"travel '{e.name}' says nominal {e.nominal_s} s, the provider gives {nominal:.0f} s for that pair",
                day=day.day_index,
                entry=i,
            )


def _check_drop_reasons(
    result: ItineraryResult, request: TripRequest, pack: RegionPack | None, settings: Settings, flag: Flag
) -> None:
    """The opening-hours reasons are facts: re-derive them and flag a dropped item that misstates them."""
    from core.itinerary.opening import opening_windows

    dates = [d.date for d in request.days]
    for item in result.dropped_items:
        meal_place = request.place(item.key) if item.reason_code == "MEAL_TIME_CLOSED" else None
        if meal_place is not None and meal_place.meal is None:
            flag(
                "DROP_REASON_UNSUPPORTED", f"'{item.key}' is dropped for its meal's time, but is no meal", key=item.key
            )
        if item.reason_code == "LUNCH_TAKEN":
            _check_lunch_taken(result, request, item, flag)
        if item.reason_code not in {"CLOSED_ON_DAY", "OUTSIDE_OPENING_HOURS"}:
            continue
        place = request.place(item.key)
        if place is None:
            continue
        known, expr = _opening_expr(place, pack)
        if not known:
            continue
        ow = opening_windows(
            expr, dates, timezone=result.timezone, country=(pack.country if pack is not None else None) or None
        )
        allowed = [place.fixed_day] if place.fixed_day is not None else list(range(len(dates)))
        open_days = [d for d in allowed if ow.by_date[dates[d]]]
        if item.reason_code == "CLOSED_ON_DAY" and open_days:
            flag(
                "DROP_REASON_UNSUPPORTED",
                f"'{item.key}' is said to be closed, but it is open on day {open_days[0] + 1} ({dates[open_days[0]]})",
                key=item.key,
            )
        if item.reason_code == "OUTSIDE_OPENING_HOURS":
            base = place.visit_minutes
            if base is None and pack is not None and place.place_id:
                pp = pack.place_by_id(place.place_id)
                base = pp.visit_minutes if pp else None
            base = base or settings.default_visit_minutes
            need = base if place.fixed_start is not None else math.ceil(base * result.policy.visit_factor - 1e-9)
            for d in open_days:
                rd = request.days[d]
                lo, hi = rd.start_time.hour * 60 + rd.start_time.minute, rd.end_time.hour * 60 + rd.end_time.minute
                ivs = ow.by_date[dates[d]]
                if place.fixed_start is not None:  # a booked slot: the visit must start exactly then
                    lo = max(lo, place.fixed_start.hour * 60 + place.fixed_start.minute)
                    ivs = [iv for iv in ivs if iv.start <= lo]
                longest = max((min(iv.end, hi) - max(iv.start, lo) for iv in ivs), default=0)
                if longest >= need:
                    flag(
                        "DROP_REASON_UNSUPPORTED",
                        f"'{item.key}' is said never to be open long enough, but day "
                        f"{d + 1} has {longest} open minutes for a {need}-minute visit",
                        key=item.key,
                    )
                    break


def _check_lunch_taken(result: ItineraryResult, request: TripRequest, item: DroppedItem, flag: Flag) -> None:
    """LUNCH_TAKEN holds for a lunch meal whose best day has another lunch meal, the one its facts name."""
    place = request.place(item.key)
    day = next((d for d in result.days if d.day_index == item.facts.get("best_day")), None)
    other = item.facts.get("lunch_key")
    meals = {e.key for e in day.entries if e.kind == "visit" and e.meal == "lunch"} if day is not None else set()
    if place is None or place.meal != "lunch" or other == item.key or other not in meals:
        flag(
            "DROP_REASON_UNSUPPORTED",
            f"'{item.key}' is said to lose its day's lunch to '{other}', which is not that day's lunch meal",
            key=item.key,
        )
