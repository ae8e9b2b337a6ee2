"""The person's own stop order, planned as given beside the best order (issue 32, X8 "keep my order";
docs/ARCHITECTURE.md, "Route planner").

The own order is evaluated on the plan's own matrix: the same figures the best order was ranked on (a leg the
direction service re-measured keeps that figure for both orders), each leg with its source. ``attach_own_order``
puts it on a result and keeps the matrix with the result (in memory, never in its JSON), so that
``own_order_again`` can plan a new own order of the same stops without asking a provider anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import ProviderError
from core.models.own_order import OwnLegDifference, OwnOrderDifference, check_own_order
from core.models.route import CandidateRoute, DeepLinks, RouteLeg, RoutePlanRequest, RoutePlanResult
from core.route.legs import candidate_route
from core.route.links import build_deep_links
from core.route.stage_types import TripMatrix
from core.route.strategies import Scored

#: request fields that only say which own order to plan: a change to them alone needs no new plan
ORDER_FIELDS = frozenset({"keep_order", "own_order", "stops"})


@dataclass(frozen=True, eq=False)
class KeptPlan:
    """What a result keeps in memory for its own order again: the request it answers and its matrix. A memo, not
    part of what the result says: two results are equal with or without one (a result read back from JSON equals
    the one written)."""

    request: RoutePlanRequest
    net: TripMatrix

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, KeptPlan)

    __hash__ = None  # type: ignore[assignment]


def own_candidate(net: TripMatrix, order: list[int]) -> CandidateRoute:
    """The person's order (stop indices) on the plan's matrix, as a candidate chosen by the person. A leg whose
    figures the matrix lacks is refused by name, never filled in."""
    nodes = [net.offset + i for i in order]
    path = [*([net.start] if net.start is not None else []), *nodes, net.end]
    for a, b in zip(path, path[1:]):
        if not (np.isfinite(net.dist[a, b]) and np.isfinite(net.dur[a, b])):
            raise ProviderError(
                f"no figures for the leg {net.labels[a]} → {net.labels[b]} of your order", field="own_order"
            )
    cand = candidate_route(net, Scored(order=tuple(nodes), distance_m=0.0, duration_s=0.0))
    return cand.model_copy(update={"chosen_by": "person", "ranking_reason": None, "rank": None})


def _leg_difference(position: int, own: RouteLeg, best: RouteLeg, ids: tuple[str, str, str, str]) -> OwnLegDifference:
    own_from, own_to, best_from, best_to = ids
    return OwnLegDifference(
        position=position,
        own_from=own_from,
        own_to=own_to,
        own_distance_m=own.distance_m,
        own_duration_s=own.duration_s,
        own_source=own.source,
        own_straight_line_estimate=own.straight_line_estimate,
        best_from=best_from,
        best_to=best_to,
        best_distance_m=best.distance_m,
        best_duration_s=best.duration_s,
        best_source=best.source,
        best_straight_line_estimate=best.straight_line_estimate,
        delta_distance_m=own.distance_m - best.distance_m,
        delta_duration_s=own.duration_s - best.duration_s,
        shared=False,
    )


def difference(own: CandidateRoute, best: CandidateRoute, *, strategy: str) -> OwnOrderDifference:
    """The person's order against the best: totals and leg by leg (position by position), own − best."""
    own_ids = [p.id for p in own.points]
    best_ids = [p.id for p in best.points]
    best_pairs = set(zip(best_ids, best_ids[1:]))
    legs = [
        _leg_difference(i, o, b, (own_ids[i], own_ids[i + 1], best_ids[i], best_ids[i + 1])).model_copy(
            update={"shared": (own_ids[i], own_ids[i + 1]) in best_pairs}
        )
        for i, (o, b) in enumerate(zip(own.legs, best.legs, strict=True))
    ]
    return OwnOrderDifference(
        strategy=strategy,
        own_order=list(own.stop_order),
        best_order=list(best.stop_order),
        own_distance_m=own.total_distance_m,
        own_duration_s=own.total_duration_s,
        best_distance_m=best.total_distance_m,
        best_duration_s=best.total_duration_s,
        delta_distance_m=own.total_distance_m - best.total_distance_m,
        delta_duration_s=own.total_duration_s - best.total_duration_s,
        same_as_best=own_ids == best_ids,
        measured_alike=own.measured_by == best.measured_by,
        straight_line_estimate=any(leg.straight_line_estimate for leg in [*own.legs, *best.legs]),
        legs=legs,
    )


def attach_own_order(result: RoutePlanResult, request: RoutePlanRequest, net: TripMatrix) -> RoutePlanResult:
    """``result`` with the request's own order (when it asks for one) and the kept matrix."""
    result._kept = KeptPlan(request=request, net=net)
    order = request.wanted_own_order()
    if order is None:
        result.own_route, result.own_difference, result.own_deep_links = None, None, None
        return result
    own = own_candidate(net, order)
    result.own_route = own
    result.own_difference = difference(own, result.best_route, strategy=result.route_strategy)
    result.own_deep_links = own_links(result, own)
    return result


def own_links(result: RoutePlanResult, own: CandidateRoute) -> DeepLinks | None:
    """The person's order's AMap links when the plan has links of its own (asked for, where AMap navigates):
    route-plan links, made from the points alone (no provider call; a personal map would need AMap's tool and
    every point's id again). None otherwise."""
    if result.deep_links is None:
        return None
    stops = [result.resolved_stops[p.index] for p in own.points if p.role == "stop" and p.index is not None]
    links, _ = build_deep_links(
        origin=result.resolved_origin,
        ordered_stops=stops,
        destination=result.resolved_destination,
        transport_mode=result.transport_mode,
        deep_link_mode="route_plan",
        provider=result.provider,
    )
    return links


def _stop_key(stop: Any) -> str:
    return str(stop.model_dump_json(exclude={"contact"}))


def planned_index(planned: RoutePlanRequest, request: RoutePlanRequest) -> list[int] | None:
    """For each stop of ``request``, its index in ``planned`` (the same stops, listed in another order), or None
    when ``request`` differs from ``planned`` in more than the order of its stops and the own order."""
    if planned.model_dump(exclude=set(ORDER_FIELDS)) != request.model_dump(exclude=set(ORDER_FIELDS)):
        return None
    old = [_stop_key(s) for s in planned.stops]
    new = [_stop_key(s) for s in request.stops]
    if Counter(old) != Counter(new):
        return None
    free = list(range(len(old)))
    index: list[int] = []
    for key in new:  # the same stop twice: each keeps one of its planned places, in turn
        found = next(i for i in free if old[i] == key)
        free.remove(found)
        index.append(found)
    return index


def own_order_again(result: RoutePlanResult, request: RoutePlanRequest) -> RoutePlanResult | None:
    """The own order ``request`` asks for, on ``result``'s kept matrix (no provider call), when ``request`` only
    reorders the planned stops or changes the own order; None when it needs a new plan (other inputs changed, or
    the result keeps no matrix: a stored or shared one)."""
    kept = result._kept
    if not isinstance(kept, KeptPlan):
        return None
    index = planned_index(kept.request, request)
    if index is None:
        return None
    check_own_order(request.own_order, len(request.stops))
    wanted = request.wanted_own_order()
    again = result.model_copy(deep=False)
    again._kept = kept
    if wanted is None:
        again.own_route, again.own_difference, again.own_deep_links = None, None, None
        return again
    own = own_candidate(kept.net, [index[i] for i in wanted])
    again.own_route = own
    again.own_difference = difference(own, result.best_route, strategy=result.route_strategy)
    again.own_deep_links = own_links(again, own)
    return again
