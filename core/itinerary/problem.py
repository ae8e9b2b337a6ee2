"""Problem preparation: a TripRequest on one integer time scale (docs/ARCHITECTURE.md, "Itinerary").

Time is an integer number of minutes from local midnight of the trip's first day. Places are resolved
from the request or the region pack, opening hours become allowed start windows on the trip's real
dates, and the provider's matrix becomes robust minutes (nominal x factor + buffer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, time

from core.config import Settings
from core.errors import InputError
from core.geo.composite import MapServices
from core.itinerary.opening import OpeningWindows, opening_windows
from core.itinerary.travel import apply_robustness_policy, build_time_matrix, robustness_policy_for
from core.models.itinerary import LunchPolicy, PlaceRef, TripPlace, TripRequest
from core.models.itinerary_problem import ItineraryPoint, ItineraryProblem, MinuteInterval, ProblemDay, ProblemStop
from core.models.region import RegionPack, RegionPlace
from core.packs.loader import load_region

DAY_MIN = 24 * 60
# A must that cannot be kept hard is re-solved as optional with this multiple of the 'should' penalty,
# so the solver still keeps every must it can (and we report the rest as infeasible).
MUST_RELAXED_MULTIPLIER = 50


def _anchor_key(ref: PlaceRef) -> str:
    return "anchor:" + (ref.place_id or f"{ref.lon:.6f},{ref.lat:.6f}")


def pack_of(provider: MapServices, request: TripRequest, settings: Settings) -> RegionPack:
    """The pack the request names (the provider's own when it serves that region)."""
    if request.region and provider.region.name != request.region:
        return load_region(request.region, settings.data_dir)
    return provider.region


def _resolve_ref(
    ref: PlaceRef | TripPlace, pack: RegionPack | None, *, field: str
) -> tuple[str, float, float, str, RegionPlace | None]:
    """(name, lon, lat, source, pack place or None) of a reference or resolved point."""
    if ref.lon is not None and ref.lat is not None:
        pack_place = pack.place_by_id(ref.place_id) if (pack is not None and ref.place_id) else None
        name = ref.name or (pack_place.name_zh if pack_place else None) or ref.place_id
        name = name or f"{ref.lon:.5f},{ref.lat:.5f}"
        return name, float(ref.lon), float(ref.lat), "user_input", pack_place
    if pack is None:
        raise InputError(f"'{ref.place_id}' is a region-pack reference, but no region pack is loaded", field=field)
    pack_place = pack.place_by_id(ref.place_id or "")  # no point: the validators require a place_id
    if pack_place is None:
        raise InputError(f"unknown place_id '{ref.place_id}' in region '{pack.name}'", field=field)
    return ref.name or pack_place.name_zh, pack_place.lon, pack_place.lat, f"offline:{pack.name}", pack_place


def clock_min(t: time) -> int:
    return t.hour * 60 + t.minute


def start_windows(
    open_intervals: Sequence[MinuteInterval],
    visit_min: int,
    day_start: int,
    day_end: int,
    fixed_start: int | None,
    *,
    meal_starts: MinuteInterval | None = None,
) -> list[MinuteInterval]:
    """Allowed visit START minutes: inside an opening interval and the day, ending by closing/day end (and, for a
    meal, beginning in ``meal_starts``, absolute minutes)."""
    out: list[MinuteInterval] = []
    for iv in open_intervals:
        lo = max(iv.start, day_start)
        hi = min(iv.end, day_end) - visit_min
        if fixed_start is not None:
            lo, hi = max(lo, fixed_start), min(hi, fixed_start)
        if meal_starts is not None:
            lo, hi = max(lo, meal_starts.start), min(hi, meal_starts.end)
        if lo <= hi:
            out.append(MinuteInterval(start=lo, end=hi))
    return out


def prepare_problem(
    request: TripRequest, *, provider: MapServices, settings: Settings, removed_keys: Sequence[str] = ()
) -> ItineraryProblem:
    """Resolve the request onto one integer time scale with a robust travel matrix."""
    pack = pack_of(provider, request, settings)
    timezone = request.timezone or (pack.timezone if pack is not None else "UTC")
    country = (pack.country if pack is not None else None) or None
    policy = robustness_policy_for(request.mode, request.pacing, settings=settings)
    notes: list[str] = []
    points = _Points()
    day_anchor_keys: list[tuple[str, str]] = []
    for i in range(len(request.days)):
        keys = []
        for which, ref in (("start_place", request.day_start_place(i)), ("end_place", request.day_end_place(i))):
            name, lon, lat, source, _ = _resolve_ref(ref, pack, field=f"days.{i}.{which}")
            key = _anchor_key(ref)
            points.add(key, name, lon, lat, "anchor", source)
            keys.append(key)
        day_anchor_keys.append((keys[0], keys[1]))
    days = _problem_days(request, day_anchor_keys)
    stops: list[ProblemStop] = []
    removed = set(removed_keys)
    for i, place in enumerate(request.places):
        if place.key in removed:
            continue
        name, lon, lat, source, pack_place = _resolve_ref(place, pack, field=f"places.{i}")
        idx = points.add(place.key or name, name, lon, lat, "stop", source)
        expr = place.opening_hours
        if expr is None and pack_place is not None:
            expr = pack_place.opening_hours
        ow = opening_windows(expr, [d.date for d in request.days], timezone=timezone, country=country)
        if ow.source == "opening_hours_unparsed":
            notes.append(f"opening hours of '{place.key}' do not parse ({ow.error}); treated as always open")
        base_visit = place.visit_minutes or (pack_place.visit_minutes if pack_place else None)
        base_visit = base_visit or settings.default_visit_minutes
        visit = max(1, int(math.ceil(base_visit * policy.visit_factor - 1e-9)))
        if place.fixed_start is not None:
            visit = base_visit  # a booked slot has its own length; pacing does not stretch it
        refuse_impossible_meal(place, i, visit, request=request, settings=settings)
        stops.append(_problem_stop(place, name, idx, visit, expr, ow, days, request=request, settings=settings))

    matrix = build_time_matrix(points.points, provider=provider, mode=request.mode)
    matrix = apply_robustness_policy(matrix, policy=policy)
    return ItineraryProblem(
        request=request,
        timezone=timezone,
        points=points.points,
        matrix=matrix,
        policy=policy,
        days=days,
        stops=stops,
        removed_keys=sorted(removed),
        notes=notes,
    )


class _Points:
    """The problem's points, one per key (a place named twice, a hotel that starts and ends days: one point)."""

    def __init__(self) -> None:
        self.points: list[ItineraryPoint] = []
        self._index: dict[str, int] = {}

    def add(self, key: str, name: str, lon: float, lat: float, role: str, source: str) -> int:
        if key not in self._index:
            self._index[key] = len(self.points)
            self.points.append(ItineraryPoint(key=key, name=name, lon=lon, lat=lat, role=role, source=source))
        return self._index[key]


def _problem_days(request: TripRequest, anchor_keys: list[tuple[str, str]]) -> list[ProblemDay]:
    """Each day on the trip's minute scale (day i starts at i x DAY_MIN after the first day's midnight), with its
    anchors and the lunch window that fits inside it (none when the day does not span lunchtime)."""
    first = request.days[0].date
    lunch = request.lunch
    days: list[ProblemDay] = []
    for i, rd in enumerate(request.days):
        offset = (rd.date - first).days * DAY_MIN
        start, end = offset + clock_min(rd.start_time), offset + clock_min(rd.end_time)
        les = lls = None
        if lunch.enabled:
            earliest = max(start, offset + clock_min(lunch.window_start))
            latest = min(end, offset + clock_min(lunch.window_end)) - lunch.duration_min
            if earliest <= latest:  # otherwise the day does not span lunchtime: no lunch that day
                les, lls = earliest, latest
        days.append(
            ProblemDay(
                index=i,
                date=rd.date,
                offset_min=offset,
                start_min=start,
                end_min=end,
                start_key=anchor_keys[i][0],
                end_key=anchor_keys[i][1],
                lunch_earliest_start=les,
                lunch_latest_start=lls,
                lunch_min=lunch.duration_min if les is not None else 0,
            )
        )
    return days


def _problem_stop(
    place: TripPlace,
    name: str,
    idx: int,
    visit: int,
    expr: str | None,
    ow: OpeningWindows,
    days: list[ProblemDay],
    *,
    request: TripRequest,
    settings: Settings,
) -> ProblemStop:
    """One place as a stop: its opening hours and start windows per day, its drop price by priority, its locks."""
    open_by_day = [
        [
            MinuteInterval(start=days[d].offset_min + iv.start, end=days[d].offset_min + iv.end)
            for iv in ow.by_date[day.date]
        ]
        for d, day in enumerate(days)
    ]
    meal = meal_starts(place, visit, request=request, settings=settings)
    windows: list[list[MinuteInterval]] = []
    for d, day in enumerate(days):
        if place.fixed_day is not None and place.fixed_day != d:
            windows.append([])
            continue
        fixed = day.offset_min + clock_min(place.fixed_start) if place.fixed_start is not None else None
        on_day = _shifted(meal, day.offset_min)
        windows.append(start_windows(open_by_day[d], visit, day.start_min, day.end_min, fixed, meal_starts=on_day))
    if place.priority == "must":
        penalty = 0
    elif place.priority == "should":
        penalty = settings.itinerary_penalty_should
    else:
        penalty = settings.itinerary_penalty_nice
    return ProblemStop(
        key=place.key or name,
        name=name,
        point_index=idx,
        visit_min=visit,
        priority=place.priority,
        penalty=penalty,
        opening_hours=expr,
        opening_source=ow.source,
        open_by_day=open_by_day,
        windows_by_day=windows,
        fixed_day=place.fixed_day,
        fixed_start_min=clock_min(place.fixed_start) if place.fixed_start is not None else None,
        lunch_on_site=request.lunch.on_site
        and bool(settings.itinerary_lunch_on_site_min_visit_min)
        and place.fixed_start is None
        and place.meal is None  # a meal is a meal, not a long visit that hosts one
        and visit >= settings.itinerary_lunch_on_site_min_visit_min,
        meal=place.meal,
        meal_starts=meal,
    )


def meal_starts(place: TripPlace, visit: int, *, request: TripRequest, settings: Settings) -> MinuteInterval | None:
    """A meal's earliest and latest start (minutes from the day's midnight): in its window, early enough to eat the
    trip's meal length (the lunch's; the visit's when shorter) before the window closes. None: not a meal."""
    if place.meal is None:
        return None
    opens, closes = meal_window(place.meal, request.lunch, settings)
    eat = min(visit, request.lunch.duration_min)
    return MinuteInterval(start=clock_min(opens), end=clock_min(closes) - eat)


def meal_can_begin(
    opening_hours: str | None,
    meal: str,
    dates: Sequence[date],
    *,
    lunch: LunchPolicy,
    settings: Settings,
    timezone: str,
    country: str | None,
    day_bounds: tuple[int, int],
) -> bool:
    """A place open at ``opening_hours`` can begin ``meal`` in its window, within the day's bounds (minutes from
    midnight), on one of ``dates`` at least: what the planner asks of a meal stop, asked before one is made (a meal
    its hours cannot host is dropped, and a must-visit one fails the plan)."""
    opens, closes = meal_window(meal, lunch, settings)
    eat = lunch.duration_min
    starts = MinuteInterval(start=clock_min(opens), end=clock_min(closes) - eat)
    hours = opening_windows(opening_hours, dates, timezone=timezone, country=country)
    first, last = day_bounds
    return any(start_windows(hours.by_date[d], eat, first, last, None, meal_starts=starts) for d in dates)


def _shifted(starts: MinuteInterval | None, offset: int) -> MinuteInterval | None:
    return None if starts is None else MinuteInterval(start=starts.start + offset, end=starts.end + offset)


def meal_starts_on(stop: ProblemStop, day: ProblemDay) -> MinuteInterval | None:
    """A meal stop's start bounds on the day, in the problem's absolute minutes (None: not a meal)."""
    return _shifted(stop.meal_starts, day.offset_min)


def refuse_impossible_meal(place: TripPlace, i: int, visit: int, *, request: TripRequest, settings: Settings) -> None:
    """A meal no day could ever hold is bad input, refused (not dropped): a window shorter than the meal's length,
    or a locked start outside the window (too late to eat the meal's length, or the visit when shorter)."""
    if place.meal is None:
        return
    opens, closes = meal_window(place.meal, request.lunch, settings)
    eat = request.lunch.duration_min
    if clock_min(closes) - clock_min(opens) < eat:
        raise InputError(
            f"the {place.meal} window {opens:%H:%M}-{closes:%H:%M} is shorter than the {eat}-minute meal",
            field="lunch.duration_min",
        )
    if place.fixed_start is None:
        return
    latest = clock_min(closes) - min(eat, visit)
    if not clock_min(opens) <= clock_min(place.fixed_start) <= latest:
        raise InputError(
            f"'{place.name or place.key}' is {place.meal} locked at {place.fixed_start:%H:%M}, outside its window "
            f"{opens:%H:%M}-{closes:%H:%M} (at the latest {latest // 60:02d}:{latest % 60:02d})",
            field=f"places.{i}.fixed_start",
        )


def meal_window(meal: str, lunch: LunchPolicy, settings: Settings) -> tuple[time, time]:
    """The meal's window: the trip's lunch window, or the settings' dinner window."""
    if meal == "lunch":
        return lunch.window_start, lunch.window_end
    return settings.itinerary_dinner_window_start, settings.itinerary_dinner_window_end


def is_hard(stop: ProblemStop) -> bool:
    # Locked stops are hard nodes: the user said "I go there then".
    return stop.priority == "must" or stop.fixed_day is not None or stop.fixed_start_min is not None


def effective_penalty(stop: ProblemStop, settings: Settings) -> int:
    return settings.itinerary_penalty_should * MUST_RELAXED_MULTIPLIER if is_hard(stop) else stop.penalty


def day_windows(
    problem: ItineraryProblem,
    stop: ProblemStop,
    day: ProblemDay,
    end_min: int | None = None,
    start_min: int | None = None,
) -> list[MinuteInterval]:
    if end_min is None and start_min is None:
        return stop.windows_by_day[day.index]
    if stop.fixed_day is not None and stop.fixed_day != day.index:
        return []
    fixed = day.offset_min + stop.fixed_start_min if stop.fixed_start_min is not None else None
    return start_windows(
        stop.open_by_day[day.index],
        stop.visit_min,
        day.start_min if start_min is None else start_min,
        day.end_min if end_min is None else end_min,
        fixed,
        meal_starts=meal_starts_on(stop, day),
    )


def hosts_lunch(stops: Sequence[ProblemStop]) -> bool:
    """A lunch meal among the day's stops is its lunch: the day then takes no separate lunch break."""
    return any(s.meal == "lunch" for s in stops)


def lunch_bounds(day: ProblemDay, start_min: int, end_min: int, problem: ItineraryProblem) -> tuple[int, int] | None:
    lunch = problem.request.lunch
    if not lunch.enabled:
        return None
    earliest = max(start_min, day.offset_min + clock_min(lunch.window_start))
    latest = min(end_min, day.offset_min + clock_min(lunch.window_end)) - lunch.duration_min
    return (earliest, latest) if earliest <= latest else None
