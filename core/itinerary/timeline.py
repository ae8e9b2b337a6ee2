"""Timeline assembly: a laid-out day as dated entries with sources, day and trip totals, and the
robustness score of the legs (how much each leg may over-run before something later breaks)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from core.itinerary.layout import DaySchedule
from core.models.itinerary import TripRequest
from core.models.itinerary_problem import ItineraryProblem, ProblemDay
from core.models.itinerary_result import (
    AnchorPoint,
    DayTimeline,
    DayTotals,
    DroppedItem,
    ItineraryTotals,
    RobustnessScore,
    TimelineEntry,
)


def _dt(problem: ItineraryProblem, minute: int) -> datetime:
    first = problem.days[0].date
    zone = ZoneInfo(problem.timezone)
    naive = datetime(first.year, first.month, first.day) + timedelta(minutes=minute)
    return naive.replace(tzinfo=zone)


def _anchor(problem: ItineraryProblem, key: str) -> AnchorPoint:
    point = problem.points[problem.point_index(key)]
    return AnchorPoint(key=key, name=point.name, lon=point.lon, lat=point.lat)


def build_day_timeline(problem: ItineraryProblem, sched: DaySchedule | None, day: ProblemDay) -> DayTimeline:
    entries: list[TimelineEntry] = []
    M = problem.matrix
    pts = problem.points
    stops = {s.key: s for s in problem.stops}
    steps = sched.steps if sched else []
    for step in steps:
        common = dict(
            arrival=_dt(problem, step.arrival),
            start=_dt(problem, step.start),
            end=_dt(problem, step.end),
            departure=_dt(problem, step.departure),
            slack_min=int((step.latest_start or step.start) - step.start),
            lon=pts[step.loc].lon,
            lat=pts[step.loc].lat,
        )
        if step.kind == "travel":
            a, b = step.from_pt, step.to_pt
            assert a is not None and b is not None, "a travel step joins two points"
            nominal_s = M.nominal_s[a][b]
            entries.append(
                TimelineEntry(
                    kind="travel",
                    name=f"{pts[a].name} → {pts[b].name}",
                    from_key=pts[a].key,
                    to_key=pts[b].key,
                    nominal_s=round(nominal_s, 1),
                    nominal_min=round(nominal_s / 60.0, 1),
                    robust_min=M.robust()[a][b],
                    distance_m=round(M.distances_m[a][b], 1),
                    source=M.source,
                    **common,
                )
            )
        elif step.kind == "visit":
            assert step.key is not None, "a visit step names its stop"
            stop = stops[step.key]
            windows = [(_dt(problem, iv.start), _dt(problem, iv.end)) for iv in stop.open_by_day[day.index]]
            entries.append(
                TimelineEntry(
                    kind="visit",
                    key=stop.key,
                    name=stop.name,
                    priority=stop.priority,
                    source=stop.opening_source,
                    opening_windows=windows,
                    locked=stop.fixed_day is not None or stop.fixed_start_min is not None,
                    part=step.part or None,
                    meal=stop.meal,
                    **common,
                )
            )
        elif step.kind == "lunch":
            on_site = bool(entries) and entries[-1].kind == "visit" and entries[-1].part == 1
            name = f"Lunch at {pts[step.loc].name} (on site)" if on_site else f"Lunch near {pts[step.loc].name}"
            entries.append(TimelineEntry(kind="lunch", key=None, name=name, source="lunch_policy", **common))
        else:
            entries.append(TimelineEntry(kind="wait", key=None, name=f"Wait at {pts[step.loc].name}", **common))
    totals = _day_totals(entries)
    return DayTimeline(
        day_index=day.index,
        date=day.date,
        day_start=_dt(problem, day.start_min),
        day_end=_dt(problem, day.end_min),
        start_key=day.start_key,
        end_key=day.end_key,
        start_anchor=_anchor(problem, day.start_key),
        end_anchor=_anchor(problem, day.end_key),
        lunch_required=day.lunch_earliest_start is not None,
        entries=entries,
        totals=totals,
    )


def _day_totals(entries: Sequence[TimelineEntry]) -> DayTotals:
    def mins(a: datetime, b: datetime) -> int:
        return int((b - a).total_seconds() // 60)

    t = DayTotals()
    for e in entries:
        if e.kind == "visit":
            t.visits += 0 if e.continues_visit else 1
            t.visit_min += mins(e.start, e.end)
        elif e.kind == "travel":
            t.travel_nominal_min += e.nominal_min or 0.0
            t.travel_robust_min += mins(e.start, e.end)
            t.distance_m += e.distance_m or 0.0
        elif e.kind == "lunch":
            t.lunch_min += mins(e.start, e.end)
        else:
            t.wait_min += mins(e.start, e.end)
        if e.kind != "wait":
            t.wait_min += mins(e.arrival, e.start) + mins(e.end, e.departure)
    t.travel_nominal_min = round(t.travel_nominal_min, 1)
    t.distance_m = round(t.distance_m, 1)
    if entries:
        t.span_min = mins(entries[0].start, entries[-1].end)
    return t


def trip_totals(days: Sequence[DayTimeline], request: TripRequest, dropped: Sequence[DroppedItem]) -> ItineraryTotals:
    return ItineraryTotals(
        days=len(days),
        places_requested=len(request.places),
        visits=sum(d.totals.visits for d in days),
        dropped=len(dropped),
        must_dropped=sum(1 for d in dropped if d.priority == "must"),
        visit_min=sum(d.totals.visit_min for d in days),
        travel_nominal_min=round(sum(d.totals.travel_nominal_min for d in days), 1),
        travel_robust_min=sum(d.totals.travel_robust_min for d in days),
        wait_min=sum(d.totals.wait_min for d in days),
        lunch_min=sum(d.totals.lunch_min for d in days),
        distance_m=round(sum(d.totals.distance_m for d in days), 1),
    )


def score_robustness(days: Sequence[DayTimeline], *, tolerance: float = 0.5) -> RobustnessScore:
    """Mean over travel legs of min(1, slack after the leg / (tolerance x robust leg minutes)).

    A travel entry's ``slack_min`` is how late it may arrive without breaking any later window,
    the lunch window or the day's end, so a leg scores 1 when the day can absorb that leg
    over-running its robust time by ``tolerance`` (e.g. half again).
    """
    legs = [e for d in days for e in d.entries if e.kind == "travel" and (e.robust_min or 0) > 0]
    if not legs:
        return RobustnessScore(
            score=1.0, tolerance=tolerance, legs=0, legs_fully_covered=0, min_slack_min=None, mean_slack_min=None
        )
    # every leg kept has robust_min > 0 (the "or 0" only tells the type checker it is not None)
    cover = [min(1.0, max(0, e.slack_min) / (tolerance * (e.robust_min or 0))) for e in legs]
    slacks = [e.slack_min for e in legs]
    return RobustnessScore(
        score=round(sum(cover) / len(cover), 4),
        tolerance=tolerance,
        legs=len(legs),
        legs_fully_covered=sum(1 for c in cover if c >= 1.0),
        min_slack_min=min(slacks),
        mean_slack_min=round(sum(slacks) / len(slacks), 1),
    )
