"""The difference between two plans of one trip, per day and overall (issue 32, X8): what an edit cost or saved."""

from __future__ import annotations

from core.models.itinerary_edit import DayDifference, Measure, PlanDifference
from core.models.itinerary_result import DayTimeline, ItineraryResult


def _day_measure(day: DayTimeline | None) -> Measure:
    if day is None:
        return Measure()
    return Measure(
        travel_min=day.totals.travel_robust_min,
        distance_m=round(day.totals.distance_m, 1),
        stops=day.totals.visits,
    )


def plan_difference(before: ItineraryResult, after: ItineraryResult) -> PlanDifference:
    """``after`` against ``before``: each day (by index) and the whole trip."""
    count = max(len(before.days), len(after.days))
    days = [
        DayDifference(
            day_index=d,
            before=_day_measure(before.days[d] if d < len(before.days) else None),
            after=_day_measure(after.days[d] if d < len(after.days) else None),
        )
        for d in range(count)
    ]

    def total(which: str) -> Measure:
        sides = [getattr(x, which) for x in days]
        return Measure(
            travel_min=sum(m.travel_min for m in sides),
            distance_m=round(sum(m.distance_m for m in sides), 1),
            stops=sum(m.stops for m in sides),
        )

    return PlanDifference(days=days, before=total("before"), after=total("after"))
