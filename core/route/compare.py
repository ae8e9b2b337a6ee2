"""Where a candidate order differs from the best order: the legs (pairs of consecutive places) it adds.

A leg is the pair of places it joins. Two orders share a leg when both go between the same two places, in
either direction (on a map the segment is the same); a shared leg travelled the other way is counted as
``reversed``. Repeated legs are matched one for one (a leg the candidate takes twice and the best once is
shared once and changed once). Places are compared by key: the POI id when the point has one, else its
coordinates to 6 decimals (about 0.1 m), so two stops at one place are one place here, as in
``core.optimizer.order_search.distinct_place_orders``.

Pure and typed; the route map (components/route/map.py) draws only the changed legs (shared ones lie under the best
route).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.models.route import CandidateRoute, RoutePlanResult
from core.models.route_views import LegDiff, OrderComparison


def _undirected(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def compare_orders(best: Sequence[str], candidate: Sequence[str]) -> OrderComparison:
    """Compare two orders of place keys (each from its first place to its last)."""
    best_directed = Counter(zip(best, best[1:], strict=False))
    best_any = Counter(_undirected(a, b) for a, b in zip(best, best[1:], strict=False))
    pairs = list(zip(candidate, candidate[1:], strict=False))
    status: list[str] = ["changed"] * len(pairs)
    # Same-direction matches first, so a leg travelled both ways is not spent on the wrong one.
    for i, (a, b) in enumerate(pairs):
        if best_directed[(a, b)] > 0:
            best_directed[(a, b)] -= 1
            best_any[_undirected(a, b)] -= 1
            status[i] = "shared"
    for i, (a, b) in enumerate(pairs):
        if status[i] == "changed" and best_any[_undirected(a, b)] > 0:
            best_any[_undirected(a, b)] -= 1
            status[i] = "reversed"
    return OrderComparison(
        legs=tuple(LegDiff(index=i, from_key=a, to_key=b, status=s) for i, ((a, b), s) in enumerate(zip(pairs, status)))
    )


def order_keys(result: RoutePlanResult, candidate: CandidateRoute) -> list[str]:
    """The place keys of a candidate's points (``CandidateRoute.points``): the start (a fixed origin or the live
    start, when there is one), the stops in the candidate's order, the destination."""
    keys: list[str] = []
    live = result.live_origin
    for _, point in result.visiting(candidate):
        if point is not None:
            keys.append(point.place_key)
        elif live is not None:
            keys.append(f"at:{live.lon:.6f},{live.lat:.6f}")
    return keys


def compare_with_best(result: RoutePlanResult, candidate: CandidateRoute) -> OrderComparison:
    """A candidate of ``result`` against its best route."""
    return compare_orders(order_keys(result, result.best_route), order_keys(result, candidate))
