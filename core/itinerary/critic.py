"""An independent checker of any ItineraryResult (docs/ARCHITECTURE.md, "Itinerary").

It reads only the result (and, when given, the request and region pack) and re-derives every
fact it checks: opening hours are re-evaluated from the OSM expression, robust times from the
nominal times and the recorded policy, totals from the entries. It shares no code with the
optimiser's layout, so an optimiser bug cannot hide behind itself.

Violation codes:
    ENTRY_TIMES_INVALID      arrival <= start <= end <= departure broken
    TIMELINE_OVERLAP         an entry begins before the previous one is left (or days overlap)
    DAY_BOUNDS_VIOLATION     the day starts before its start time or ends after its end time
    ROUTE_DISCONTINUOUS      travel does not leave from where the day is, or the day does not
                             start/end at its start/end place
    TIME_WINDOW_VIOLATION    a visit is not entirely inside one opening interval of that date
    LUNCH_MISSING            a day that spans the lunch window has no lunch
    LUNCH_DUPLICATE          more than one lunch on a day
    LUNCH_OUTSIDE_WINDOW     lunch begins before or ends after its window
    LUNCH_TOO_SHORT          lunch shorter than its duration
    ROBUST_TIME_NOT_USED     a travel leg is shorter than its robust time, or its robust time is
                             not nominal x factor + buffer of the stated policy (or that policy is
                             not the one settings give for the trip's mode and pacing), or its
                             nominal time is not what the provider gives for that pair
    DAY_MISMATCH             the result's days are not the request's (count, date, start/end place)
    DROP_REASON_UNSUPPORTED  a dropped item claims CLOSED_ON_DAY / OUTSIDE_OPENING_HOURS, but the
                             re-evaluated opening hours say otherwise
    WAIT_NOT_SHOWN           a wait over the threshold hides inside another entry or a hole
    TOTALS_INCONSISTENT      day or trip totals differ from the entries
    LOCK_VIOLATED            a locked stop is not on its day / at its time
    PLACE_UNACCOUNTED        a requested place is neither visited nor listed as dropped
    DUPLICATE_VISIT          a place is visited twice
    UNKNOWN_PLACE            a visit of a place not in the request
    MUST_DROPPED_SILENTLY    a must-visit or locked stop is missing but the plan says it is ready
    VISIT_TOO_SHORT          a visit is shorter than its (paced) visit minutes
    NEGATIVE_SLACK           an entry claims negative slack
    SPLIT_VISIT_INVALID      a visit split by a lunch on site is not "part 1, lunch at the same place,
                             part 2" of one place, or the place's visits are not long enough to host it
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from core.config import Settings, get_settings
from core.geo.base import Router
from core.models.itinerary import UNREACHABLE_MIN, TripRequest
from core.models.itinerary_result import CriticReport, ItineraryResult, Violation
from core.packs.loader import RegionPack

CHECKS = (
    "entry_times",
    "overlap",
    "day_bounds",
    "continuity",
    "time_windows",
    "lunch",
    "robust_travel",
    "explicit_waits",
    "totals",
    "locks",
    "coverage",
    "visit_length",
    "slack",
    "days",
    "drop_reasons",
    "provider_travel",
    "split_visits",
)


def _mins(a: datetime, b: datetime) -> int:
    return int(round((b - a).total_seconds() / 60.0))


def check_itinerary(
    result: ItineraryResult,
    *,
    request: TripRequest | None = None,
    pack: RegionPack | None = None,
    settings: Settings | None = None,
    provider: Router | None = None,
) -> CriticReport:
    """Check ``result`` against the request and the region pack's facts (loaded here when not given).

    ``provider``: when given (or when the result says it used the offline estimate and the pack is
    known), every travel leg's nominal time is re-asked from the provider for that pair.
    """
    settings = settings or get_settings()
    request = request or result.request
    if pack is None and request is not None:
        pack = _load_pack(request.region or settings.region, settings)
    zone = ZoneInfo(result.timezone)
    threshold = settings.explicit_wait_min
    lunch = request.lunch if request is not None else result.lunch
    out: list[Violation] = []

    def flag(code: str, message: str, *, day: int | None = None, entry: int | None = None, key: str | None = None):
        out.append(Violation(code=code, message=message, day_index=day, entry_index=entry, key=key))

    def at(day_date, clock) -> datetime:
        return datetime(day_date.year, day_date.month, day_date.day, clock.hour, clock.minute, tzinfo=zone)

    _check_policy(result, request, settings, flag)
    if request is not None:
        _check_days(result, request, flag)
        _check_provider_travel(result, request, pack, provider, flag)
    visits = Counter()
    prev_day_end: datetime | None = None
    for day in result.days:
        d = day.day_index
        entries = day.entries
        day_date = day.date
        if request is not None and 0 <= d < len(request.days):
            rd = request.days[d]
            day_date = rd.date  # the request's date, not the one the optimiser wrote
            day_start, day_end = at(rd.date, rd.start_time), at(rd.date, rd.end_time)
        else:
            day_start, day_end = day.day_start, day.day_end

        # entry times, chain, waits, slack
        for i, e in enumerate(entries):
            if not (e.arrival <= e.start <= e.end <= e.departure):
                flag("ENTRY_TIMES_INVALID", f"{e.kind} '{e.name}': times out of order", day=d, entry=i, key=e.key)
            if e.slack_min < 0:
                flag("NEGATIVE_SLACK", f"{e.kind} '{e.name}' has slack {e.slack_min} min", day=d, entry=i)
            if e.kind != "wait":
                hidden = max(_mins(e.arrival, e.start), _mins(e.end, e.departure))
                if hidden > threshold:
                    flag(
                        "WAIT_NOT_SHOWN",
                        f"{hidden}-minute wait inside '{e.name}' is not a wait entry",
                        day=d,
                        entry=i,
                        key=e.key,
                    )
            if i:
                prev = entries[i - 1]
                if e.arrival < prev.departure or e.start < prev.end:
                    flag("TIMELINE_OVERLAP", f"'{e.name}' begins before '{prev.name}' is over", day=d, entry=i)
                elif _mins(prev.departure, e.arrival) > threshold:
                    flag(
                        "WAIT_NOT_SHOWN",
                        f"{_mins(prev.departure, e.arrival)}-minute hole before '{e.name}'",
                        day=d,
                        entry=i,
                    )
        if entries:
            if entries[0].start < day_start:
                flag(
                    "DAY_BOUNDS_VIOLATION",
                    f"day {d + 1} starts {entries[0].start:%H:%M}, before {day_start:%H:%M}",
                    day=d,
                    entry=0,
                )
            if entries[-1].end > day_end:
                flag(
                    "DAY_BOUNDS_VIOLATION",
                    f"day {d + 1} ends {entries[-1].end:%H:%M}, after {day_end:%H:%M}",
                    day=d,
                    entry=len(entries) - 1,
                )
            if prev_day_end is not None and entries[0].start < prev_day_end:
                flag("TIMELINE_OVERLAP", f"day {d + 1} begins before the previous day ends", day=d, entry=0)
            prev_day_end = entries[-1].end

        _check_continuity(day, request, flag, _expected_anchor_keys(request, d))
        _check_split_visits(day, settings, flag, allowed=lunch.on_site)

        # lunch
        lunches = [(i, e) for i, e in enumerate(entries) if e.kind == "lunch"]
        rd_date = day_date
        win_start, win_end = at(rd_date, lunch.window_start), at(rd_date, lunch.window_end)
        required = lunch.enabled and (
            min(day_end, win_end) - max(day_start, win_start) >= timedelta(minutes=lunch.duration_min)
        )
        if required and not lunches:
            flag("LUNCH_MISSING", f"day {d + 1} has no lunch", day=d)
        if len(lunches) > 1:
            flag("LUNCH_DUPLICATE", f"day {d + 1} has {len(lunches)} lunches", day=d)
        for i, e in lunches:
            if e.start < win_start or e.end > win_end:
                flag(
                    "LUNCH_OUTSIDE_WINDOW",
                    f"lunch {e.start:%H:%M}-{e.end:%H:%M} is outside "
                    f"{lunch.window_start:%H:%M}-{lunch.window_end:%H:%M}",
                    day=d,
                    entry=i,
                )
            if _mins(e.start, e.end) < lunch.duration_min:
                flag(
                    "LUNCH_TOO_SHORT",
                    f"lunch lasts {_mins(e.start, e.end)} of {lunch.duration_min} min",
                    day=d,
                    entry=i,
                )

        # travel on robust time
        for i, e in enumerate(entries):
            if e.kind != "travel":
                continue
            if e.nominal_s is None or e.robust_min is None:
                flag("ROBUST_TIME_NOT_USED", f"travel '{e.name}' lacks nominal/robust times", day=d, entry=i)
                continue
            expected = _robust(e.nominal_s, result.policy.factor, result.policy.buffer_min)
            if e.robust_min != expected:
                flag(
                    "ROBUST_TIME_NOT_USED",
                    f"travel '{e.name}': robust {e.robust_min} min, policy gives {expected}",
                    day=d,
                    entry=i,
                )
            if _mins(e.start, e.end) < max(e.robust_min, expected):
                flag(
                    "ROBUST_TIME_NOT_USED",
                    f"travel '{e.name}' takes {_mins(e.start, e.end)} min, less than its "
                    f"robust {max(e.robust_min, expected)} min",
                    day=d,
                    entry=i,
                )

        # time windows (re-derived from opening hours when the request is known)
        for i, e in enumerate(entries):
            if e.kind != "visit":
                continue
            visits[e.key] += 0 if e.continues_visit else 1
            windows = _windows_for(e, day_date, request, pack, result.timezone)
            if windows is not None and not any(s <= e.start and e.end <= t for s, t in windows):
                flag(
                    "TIME_WINDOW_VIOLATION",
                    f"'{e.name}' {e.start:%H:%M}-{e.end:%H:%M} is not inside its opening hours that day",
                    day=d,
                    entry=i,
                    key=e.key,
                )

        _check_day_totals(day, flag)

    _check_trip_totals(result, flag)
    if request is not None:
        _check_request(result, request, visits, pack, settings, flag)
        _check_drop_reasons(result, request, pack, settings, flag)
    return CriticReport(passed=not out, violations=out, checks=list(CHECKS))


def _robust(nominal_s: float, factor: float, buffer_min: int) -> int:
    if not math.isfinite(nominal_s):
        return UNREACHABLE_MIN
    if nominal_s <= 0:
        return 0
    return int(math.ceil(nominal_s / 60.0 * factor + buffer_min - 1e-9))


def _check_policy(result, request, settings, flag) -> None:
    pol = result.policy
    if pol.factor < 1.0:
        flag("ROBUST_TIME_NOT_USED", f"policy factor {pol.factor} < 1 is optimistic, not robust")
    if request is None:
        return
    mode, pacing = request.mode, request.pacing
    factor = max(1.0, settings.robust_travel_factor.get(mode, 1.0) * settings.pacing_factor_multiplier.get(pacing, 1.0))
    buffer = settings.robust_travel_buffer_min.get(mode, 0) + settings.pacing_buffer_extra_min.get(pacing, 0)
    same = abs(pol.factor - round(factor, 4)) <= 1e-6 and pol.buffer_min == buffer
    if not same or pol.mode != mode or pol.pacing != pacing:
        flag(
            "ROBUST_TIME_NOT_USED",
            f"policy {pol.mode}/{pol.pacing} x{pol.factor}+{pol.buffer_min} is not the "
            f"settings' {mode}/{pacing} x{round(factor, 4)}+{buffer}",
        )
    visit_factor = settings.pacing_visit_factor.get(pacing, 1.0)
    if abs(pol.visit_factor - visit_factor) > 1e-9:
        flag(
            "VISIT_TOO_SHORT",
            f"policy visit factor {pol.visit_factor} is not the settings' {visit_factor} for {pacing} pacing",
        )


def _anchor_key(ref) -> str:
    """The result contract's key of a day's start/end place (written out here, not imported)."""
    return "anchor:" + (ref.place_id or f"{ref.lon:.6f},{ref.lat:.6f}")


def _expected_anchor_keys(request, d: int) -> tuple[str, str] | None:
    if request is None or not 0 <= d < len(request.days):
        return None
    return _anchor_key(request.day_start_place(d)), _anchor_key(request.day_end_place(d))


def _check_continuity(day, request, flag, expected: tuple[str, str] | None = None) -> None:
    d = day.day_index
    if expected is not None and (day.start_key, day.end_key) != expected:
        flag(
            "DAY_MISMATCH",
            f"day {d + 1} runs {day.start_key} → {day.end_key}, but the request says {expected[0]} → {expected[1]}",
            day=d,
        )
    here = expected[0] if expected is not None else day.start_key
    end_key = expected[1] if expected is not None else day.end_key
    for i, e in enumerate(day.entries):
        if e.kind == "travel":
            if e.from_key != here:
                flag(
                    "ROUTE_DISCONTINUOUS",
                    f"travel leaves from '{e.from_key}' but the day is at '{here}'",
                    day=d,
                    entry=i,
                )
            here = e.to_key
        elif e.kind == "visit" and e.key != here:
            flag("ROUTE_DISCONTINUOUS", f"visit of '{e.key}' while the day is at '{here}'", day=d, entry=i, key=e.key)
    if day.entries and here != end_key:
        flag("ROUTE_DISCONTINUOUS", f"day {d + 1} ends at '{here}', not at its end place '{end_key}'", day=d)


def _check_split_visits(day, settings, flag, *, allowed: bool = True) -> None:
    """Each part 1 is followed by a lunch at the same place and then part 2 of the same visit; no stray
    part 2; and the visit is one that may host lunch on site (the trip allows it; long enough, by the settings)."""
    d = day.day_index
    entries = day.entries
    threshold = settings.itinerary_lunch_on_site_min_visit_min if allowed else 0
    for i, e in enumerate(entries):
        if e.kind != "visit" or e.part is None:
            continue
        if e.part == 1:
            ok = (
                i + 2 < len(entries)
                and entries[i + 1].kind == "lunch"
                and entries[i + 2].kind == "visit"
                and entries[i + 2].part == 2
                and entries[i + 2].key == e.key
                and (entries[i + 1].lon, entries[i + 1].lat) == (e.lon, e.lat)
            )
            if not ok:
                flag(
                    "SPLIT_VISIT_INVALID",
                    f"'{e.key}' part 1 is not followed by a lunch on site and part 2",
                    day=d,
                    entry=i,
                    key=e.key,
                )
                continue
            total = _mins(e.start, e.end) + _mins(entries[i + 2].start, entries[i + 2].end)
            if not threshold or total < threshold:
                flag(
                    "SPLIT_VISIT_INVALID",
                    f"'{e.key}' ({total} min) is too short to host lunch on site (at least {threshold} min)",
                    day=d,
                    entry=i,
                    key=e.key,
                )
        elif e.part == 2:
            if not (
                i >= 2
                and entries[i - 1].kind == "lunch"
                and entries[i - 2].kind == "visit"
                and entries[i - 2].part == 1
                and entries[i - 2].key == e.key
            ):
                flag(
                    "SPLIT_VISIT_INVALID",
                    f"'{e.key}' part 2 does not follow part 1 and a lunch on site",
                    day=d,
                    entry=i,
                    key=e.key,
                )
        else:
            flag("SPLIT_VISIT_INVALID", f"'{e.key}' has visit part {e.part}", day=d, entry=i, key=e.key)


def _opening_expr(place, pack) -> tuple[bool, str | None]:
    """(known, expression) of a requested place's opening hours: its own, else the pack's."""
    expr = place.opening_hours
    if expr is None and place.place_id and pack is not None:
        pp = pack.place_by_id(place.place_id)
        expr = pp.opening_hours if pp else None
    return (expr is not None or pack is not None or place.place_id is None), expr


def _windows_for(entry, day_date, request, pack, timezone) -> list[tuple[datetime, datetime]] | None:
    if request is not None:
        place = request.place(entry.key or "")
        if place is not None:
            known, expr = _opening_expr(place, pack)
            if known:
                from core.itinerary.opening import opening_windows

                ow = opening_windows(
                    expr, [day_date], timezone=timezone, country=getattr(pack, "country", None) or None
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


def _check_day_totals(day, flag) -> None:
    t = day.totals
    visits = [e for e in day.entries if e.kind == "visit"]
    travel = [e for e in day.entries if e.kind == "travel"]
    expected = {
        "visits": sum(1 for e in visits if not e.continues_visit),
        "visit_min": sum(_mins(e.start, e.end) for e in visits),
        "travel_robust_min": sum(_mins(e.start, e.end) for e in travel),
        "lunch_min": sum(_mins(e.start, e.end) for e in day.entries if e.kind == "lunch"),
        "wait_min": sum(_mins(e.start, e.end) for e in day.entries if e.kind == "wait")
        + sum(_mins(e.arrival, e.start) + _mins(e.end, e.departure) for e in day.entries if e.kind != "wait"),
    }
    for name, value in expected.items():
        if getattr(t, name) != value:
            flag(
                "TOTALS_INCONSISTENT",
                f"day {day.day_index + 1} {name} is {getattr(t, name)}, entries give {value}",
                day=day.day_index,
            )
    nominal = sum(e.nominal_min or 0.0 for e in travel)
    if abs(t.travel_nominal_min - nominal) > 0.05 * max(1, len(travel)) + 0.05:
        flag(
            "TOTALS_INCONSISTENT",
            f"day {day.day_index + 1} travel_nominal_min is {t.travel_nominal_min}, entries give {nominal:.1f}",
            day=day.day_index,
        )
    dist = sum(e.distance_m or 0.0 for e in travel)
    if abs(t.distance_m - dist) > 1.0:
        flag(
            "TOTALS_INCONSISTENT",
            f"day {day.day_index + 1} distance_m is {t.distance_m}, entries give {dist:.1f}",
            day=day.day_index,
        )


def _check_trip_totals(result, flag) -> None:
    t = result.totals
    sums = {
        "days": len(result.days),
        "visits": sum(d.totals.visits for d in result.days),
        "visit_min": sum(d.totals.visit_min for d in result.days),
        "travel_robust_min": sum(d.totals.travel_robust_min for d in result.days),
        "wait_min": sum(d.totals.wait_min for d in result.days),
        "lunch_min": sum(d.totals.lunch_min for d in result.days),
        "dropped": len(result.dropped_items),
        "must_dropped": sum(1 for x in result.dropped_items if x.priority == "must"),
    }
    real_visits = sum(1 for d in result.days for e in d.entries if e.kind == "visit" and not e.continues_visit)
    if sums["visits"] != real_visits:
        flag("TOTALS_INCONSISTENT", f"day totals count {sums['visits']} visits, the timelines hold {real_visits}")
    for name, value in sums.items():
        if getattr(t, name) != value:
            flag("TOTALS_INCONSISTENT", f"trip {name} is {getattr(t, name)}, days give {value}")
    if abs(t.travel_nominal_min - sum(d.totals.travel_nominal_min for d in result.days)) > 0.5:
        flag("TOTALS_INCONSISTENT", "trip travel_nominal_min differs from the days' sum")


def _check_request(result, request, visits: Counter, pack, settings, flag) -> None:
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
    for day in result.days:
        minutes = Counter()  # a visit split around a lunch on site counts as one, of both parts' length
        for e in day.entries:
            if e.kind == "visit":
                minutes[e.key] += _mins(e.start, e.end)
        for i, e in enumerate(day.entries):
            if e.kind != "visit" or e.continues_visit:
                continue
            place = request.place(e.key or "")
            if place is None:
                continue
            if place.fixed_day is not None and place.fixed_day != day.day_index:
                flag(
                    "LOCK_VIOLATED",
                    f"'{e.key}' is locked to day {place.fixed_day + 1} but is on day {day.day_index + 1}",
                    day=day.day_index,
                    entry=i,
                    key=e.key,
                )
            if place.fixed_start is not None and e.part is not None:
                flag(
                    "SPLIT_VISIT_INVALID",
                    f"'{e.key}' is a booked slot at {place.fixed_start:%H:%M}; it is not split around a lunch",
                    day=day.day_index,
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
                    day=day.day_index,
                    entry=i,
                    key=e.key,
                )
            base = place.visit_minutes
            if base is None and pack is not None and place.place_id:
                pp = pack.place_by_id(place.place_id)
                base = pp.visit_minutes if pp else None
            base = base or settings.default_visit_minutes
            if base:
                need = base if place.fixed_start is not None else math.ceil(base * result.policy.visit_factor - 1e-9)
                if minutes[e.key] < need:
                    flag(
                        "VISIT_TOO_SHORT",
                        f"'{e.key}' lasts {minutes[e.key]} of {need} min",
                        day=day.day_index,
                        entry=i,
                        key=e.key,
                    )


def _load_pack(name: str | None, settings: Settings):
    """The region pack the request names (else settings'), read by the critic itself; None if absent."""
    if not name:
        return None
    try:
        from core.packs.loader import load_region

        return load_region(name, settings.data_dir)
    except Exception:  # an unknown or unreadable pack: the checks that need it fall back to the result
        return None


def _check_days(result, request, flag) -> None:
    if len(result.days) != len(request.days):
        flag("DAY_MISMATCH", f"the result has {len(result.days)} day(s), the request {len(request.days)}")
    for i, day in enumerate(result.days):
        if day.day_index != i:
            flag("DAY_MISMATCH", f"day {i + 1} is labelled day_index {day.day_index}", day=i)
        elif i < len(request.days) and day.date != request.days[i].date:
            flag("DAY_MISMATCH", f"day {i + 1} is dated {day.date}, the request says {request.days[i].date}", day=i)


def _point_of(ref, pack) -> tuple[float, float] | None:
    if ref.lon is not None and ref.lat is not None:
        return float(ref.lon), float(ref.lat)
    pp = pack.place_by_id(ref.place_id) if (pack is not None and ref.place_id) else None
    return (pp.lon, pp.lat) if pp else None


def _check_provider_travel(result, request, pack, provider, flag) -> None:
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
            coords.setdefault(place.key, pt)
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


def _check_drop_reasons(result, request, pack, settings, flag) -> None:
    """The opening-hours reasons are facts: re-derive them and flag a dropped item that misstates them."""
    from core.itinerary.opening import opening_windows

    dates = [d.date for d in request.days]
    for item in result.dropped_items:
        if item.reason_code not in {"CLOSED_ON_DAY", "OUTSIDE_OPENING_HOURS"}:
            continue
        place = request.place(item.key)
        if place is None:
            continue
        known, expr = _opening_expr(place, pack)
        if not known:
            continue
        ow = opening_windows(expr, dates, timezone=result.timezone, country=getattr(pack, "country", None) or None)
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
