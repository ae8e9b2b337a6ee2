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
    MEAL_OUTSIDE_WINDOW      a meal stop (TripPlace.meal) does not begin in its meal's window early enough to eat
                             the trip's meal length (a lunch meal counts as the day's lunch)
    MEAL_MISLABELED          a visit's meal is not its place's meal in the request (a meal the request did not ask
                             for, or none where it did)
    ROBUST_TIME_NOT_USED     a travel leg is shorter than its robust time, or its robust time is
                             not nominal x factor + buffer of the stated policy (or that policy is
                             not the one settings give for the trip's mode and pacing), or its
                             nominal time is not what the provider gives for that pair
    DAY_MISMATCH             the result's days are not the request's (count, date, start/end place)
    DROP_REASON_UNSUPPORTED  a dropped item claims CLOSED_ON_DAY / OUTSIDE_OPENING_HOURS, but the
                             re-evaluated opening hours say otherwise (or MEAL_TIME_CLOSED of a place that is no meal)
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
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.config import Settings
from core.geo.base import Router
from core.itinerary.critic_facts import (
    Flag,
    _anchor_key,
    _check_drop_reasons,
    _check_provider_travel,
    _check_request,
    _load_pack,
    _mins,
    _windows_for,
)
from core.models.itinerary import UNREACHABLE_MIN, LunchPolicy, TripRequest
from core.models.itinerary_result import CriticReport, DayTimeline, ItineraryResult, TimelineEntry, Violation
from core.models.region import RegionPack

CHECKS = (
    "entry_times",
    "overlap",
    "day_bounds",
    "continuity",
    "time_windows",
    "lunch",
    "meals",
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


def check_itinerary(
    result: ItineraryResult,
    *,
    request: TripRequest | None = None,
    pack: RegionPack | None = None,
    settings: Settings,
    provider: Router | None = None,
) -> CriticReport:
    """Check ``result`` against the request and the region pack's facts (loaded here when not given).

    ``provider``: when given (or when the result says it used the offline estimate and the pack is
    known), every travel leg's nominal time is re-asked from the provider for that pair.
    """
    request = request or result.request
    if pack is None and request is not None:
        pack = _load_pack(request.region or settings.region, settings)
    zone = ZoneInfo(result.timezone)
    threshold = settings.explicit_wait_min
    lunch = request.lunch if request is not None else result.lunch
    out: list[Violation] = []

    def flag(
        code: str, message: str, *, day: int | None = None, entry: int | None = None, key: str | None = None
    ) -> None:
        out.append(Violation(code=code, message=message, day_index=day, entry_index=entry, key=key))

    def at(day_date: date, clock: time) -> datetime:
        return datetime(day_date.year, day_date.month, day_date.day, clock.hour, clock.minute, tzinfo=zone)

    _check_policy(result, request, settings, flag)
    if request is not None:
        _check_days(result, request, flag)
        _check_provider_travel(result, request, pack, provider, flag)
    visits: Counter[str | None] = Counter()
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
        _check_entry_times(entries, d, threshold, flag)
        prev_day_end = _check_day_bounds(entries, d, (day_start, day_end), prev_day_end, flag)
        _check_continuity(day, request, flag, _expected_anchor_keys(request, d))
        _check_split_visits(day, settings, flag, allowed=lunch.on_site)
        window = (at(day_date, lunch.window_start), at(day_date, lunch.window_end))
        _check_lunch(entries, d, lunch, window, (day_start, day_end), flag)
        dinner = (
            at(day_date, settings.itinerary_dinner_window_start),
            at(day_date, settings.itinerary_dinner_window_end),
        )
        _check_meals(entries, d, {"lunch": window, "dinner": dinner}, lunch.duration_min, request, flag)
        _check_travel_times(entries, d, result.policy.factor, result.policy.buffer_min, flag)
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


def _check_entry_times(entries: Sequence[TimelineEntry], d: int, threshold: int, flag: Flag) -> None:
    """Each entry's times in order, no negative slack, no hidden wait, no overlap with the one before."""
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


def _check_day_bounds(
    entries: Sequence[TimelineEntry],
    d: int,
    bounds: tuple[datetime, datetime],
    prev_day_end: datetime | None,
    flag: Flag,
) -> datetime | None:
    """The day within its start and end, after the previous day's end; the end of this day (for the next)."""
    if not entries:
        return prev_day_end
    day_start, day_end = bounds
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
    return entries[-1].end


def _check_lunch(
    entries: Sequence[TimelineEntry],
    d: int,
    lunch: LunchPolicy,
    window: tuple[datetime, datetime],
    bounds: tuple[datetime, datetime],
    flag: Flag,
) -> None:
    """One lunch when the day overlaps the lunch window by its length, inside the window, long enough."""
    win_start, win_end = window
    day_start, day_end = bounds
    lunches = [(i, e) for i, e in enumerate(entries) if e.kind == "lunch"]
    meals = [(i, e) for i, e in enumerate(entries) if e.kind == "visit" and e.meal == "lunch" and not e.part]
    required = lunch.enabled and (
        min(day_end, win_end) - max(day_start, win_start) >= timedelta(minutes=lunch.duration_min)
    )
    if required and not lunches and not meals:
        flag("LUNCH_MISSING", f"day {d + 1} has no lunch", day=d)
    if len(lunches) + len(meals) > 1:
        flag("LUNCH_DUPLICATE", f"day {d + 1} has {len(lunches) + len(meals)} lunches", day=d)
    for i, e in lunches:
        if e.start < win_start or e.end > win_end:
            flag(
                "LUNCH_OUTSIDE_WINDOW",
                f"lunch {e.start:%H:%M}-{e.end:%H:%M} is outside {lunch.window_start:%H:%M}-{lunch.window_end:%H:%M}",
                day=d,
                entry=i,
            )
        if _mins(e.start, e.end) < lunch.duration_min:
            flag("LUNCH_TOO_SHORT", f"lunch lasts {_mins(e.start, e.end)} of {lunch.duration_min} min", day=d, entry=i)


def _check_meals(
    entries: Sequence[TimelineEntry],
    d: int,
    windows: dict[str, tuple[datetime, datetime]],
    meal_min: int,
    request: TripRequest | None,
    flag: Flag,
) -> None:
    """A meal stop (the request's place when known, else the entry) begins in its meal's window, early enough to
    eat the trip's meal length (or its visit, when shorter) before the window closes."""
    for i, e in enumerate(entries):
        place = request.place(e.key) if request is not None and e.key else None
        meal = place.meal if place is not None else e.meal
        if e.kind == "visit" and place is not None and e.meal != place.meal:
            said = f"'{e.name}' is shown as {e.meal or 'no meal'}, asked as {place.meal or 'no meal'}"
            flag("MEAL_MISLABELED", said, day=d, entry=i, key=e.key)  # then held to the asked meal's window
        if e.kind != "visit" or meal is None or e.part == 2:
            continue
        opens, closes = windows[meal]
        latest = closes - timedelta(minutes=min(meal_min, _mins(e.start, e.end)))
        if not opens <= e.start <= latest:
            flag(
                "MEAL_OUTSIDE_WINDOW",
                f"'{e.name}' is {meal} but begins {e.start:%H:%M}, outside {opens:%H:%M}-{latest:%H:%M}",
                day=d,
                entry=i,
                key=e.key,
            )


def _check_travel_times(entries: Sequence[TimelineEntry], d: int, factor: float, buffer_min: int, flag: Flag) -> None:
    """Each travel entry on its robust time: the policy's figure from its nominal time, and at least that long."""
    for i, e in enumerate(entries):
        if e.kind != "travel":
            continue
        if e.nominal_s is None or e.robust_min is None:
            flag("ROBUST_TIME_NOT_USED", f"travel '{e.name}' lacks nominal/robust times", day=d, entry=i)
            continue
        expected = _robust(e.nominal_s, factor, buffer_min)
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


def _robust(nominal_s: float, factor: float, buffer_min: int) -> int:
    if not math.isfinite(nominal_s):
        return UNREACHABLE_MIN
    if nominal_s <= 0:
        return 0
    return int(math.ceil(nominal_s / 60.0 * factor + buffer_min - 1e-9))


def _check_policy(result: ItineraryResult, request: TripRequest | None, settings: Settings, flag: Flag) -> None:
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


def _expected_anchor_keys(request: TripRequest | None, d: int) -> tuple[str, str] | None:
    if request is None or not 0 <= d < len(request.days):
        return None
    return _anchor_key(request.day_start_place(d)), _anchor_key(request.day_end_place(d))


def _check_continuity(
    day: DayTimeline, request: TripRequest | None, flag: Flag, expected: tuple[str, str] | None = None
) -> None:
    d = day.day_index
    if expected is not None and (day.start_key, day.end_key) != expected:
        flag(
            "DAY_MISMATCH",
            f"day {d + 1} runs {day.start_key} → {day.end_key}, but the request says {expected[0]} → {expected[1]}",
            day=d,
        )
    here: str | None = expected[0] if expected is not None else day.start_key
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


def _check_split_visits(day: DayTimeline, settings: Settings, flag: Flag, *, allowed: bool = True) -> None:
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


def _check_day_totals(day: DayTimeline, flag: Flag) -> None:
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


def _check_trip_totals(result: ItineraryResult, flag: Flag) -> None:
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


def _check_days(result: ItineraryResult, request: TripRequest, flag: Flag) -> None:
    if len(result.days) != len(request.days):
        flag("DAY_MISMATCH", f"the result has {len(result.days)} day(s), the request {len(request.days)}")
    for i, day in enumerate(result.days):
        if day.day_index != i:
            flag("DAY_MISMATCH", f"day {i + 1} is labelled day_index {day.day_index}", day=i)
        elif i < len(request.days) and day.date != request.days[i].date:
            flag("DAY_MISMATCH", f"day {i + 1} is dated {day.date}, the request says {request.days[i].date}", day=i)
