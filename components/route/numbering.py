"""One numbering for the route planner's map and tables: a stop's number is its place in the best route's visiting
order (1..n), on its pin, in the legs and in every table's "#" (the legend says so). Start and end are S and E."""

from __future__ import annotations

from core.models.route import CandidateRoute, RoutePlanResult


def stop_numbers(result: RoutePlanResult, candidate: CandidateRoute | None = None) -> dict[int, int]:
    """Each stop's input index → its number in the visiting order of ``candidate`` (the best route by default)."""
    numbers: dict[int, int] = {}
    for ref, _ in result.visiting(candidate):
        if ref.role == "stop" and ref.index is not None and ref.index not in numbers:
            numbers[ref.index] = len(numbers) + 1
    return numbers
